// Environment → typed, validated Config. Anything invalid throws ConfigError naming the
// variable, which main.ts turns into one line on stderr and exit code 2.
// croner is what @elysiajs/cron runs on; asking it directly costs a millisecond, not a plugin's set-up.
import { Cron } from "croner";
import { readFileSync } from "node:fs";
import { SOURCE_CATEGORIES, type CategoryList } from "./analysis/source-category-names";
import { loadEngineConfig, type EngineConfig } from "./engines/config";
import { isEngineError } from "./engines/errors";
import { parseProxyTrust, type ProxyTrust } from "./http/client-address";

export type Env = Record<string, string | undefined>;
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** DATABASE_URL: a PostgreSQL shared by every instance; undefined: the SQLite file in DATA_DIR. */
  database: { url?: string; poolSize: number };
  publicUrl: string;
  logLevel: LogLevel;
  workers: number;
  corsOrigins: string[] | "*";
  /** Crawled paths (bot × hit kind × path) a brand keeps before new ones count as "(other)" (CRAWLER_MAX_PATHS). */
  crawlerMaxPaths: number;
  /** Landing pages (platform × path) a brand keeps before new ones count as "(other)" (PIXEL_MAX_PAGES). */
  pixelMaxPages: number;
  /** Peers whose X-Forwarded-For names the client (TRUSTED_PROXIES). */
  trustedProxies: ProxyTrust;
  maxBodyBytes: number;
  /** Memory for cached /rest/v1 GET responses, in bytes (0 = no cache). */
  restCacheBytes: number;
  /** Reader threads for /rest/v1 reads and RPCs, and how long one read may run. */
  rest: { readers: number; perCaller: number; maxRows: number; statementTimeoutMs: number; sourceCategories?: CategoryList };
  /** Days an answer keeps its text; 0 keeps it for good. */
  retentionDaysRawAnswers: number;
  /** Whole months of raw pixel and crawler log rows kept before the current one (Postgres); 0 keeps all. */
  logRetentionMonths: number;
  shutdownTimeoutMs: number;
  cronSchedule: string;
  cronTz: string | undefined;
  /** Unset: this server itself, at the address it actually listens on. */
  cronTargetUrl: string | undefined;
  /** Explicit secrets from the environment; missing ones are generated in DATA_DIR (see secrets.ts). */
  secrets: { jwtSecret?: string; anonKey?: string; serviceRoleKey?: string; cronSecret?: string };
  auth: {
    jwtExpirySeconds: number;
    /** ES256 private JWK; when set, access tokens are ES256 with a kid published in the JWKS. */
    jwtSigningKey?: JsonWebKey & { kid?: string };
    passwordMinLength: number;
    disableSignup: boolean;
    /** Sign-up waits for the mailed confirmation before the first sign-in (needs SMTP_URL). */
    confirmEmail: boolean;
    passwordAttemptsPerMinute: number;
    /** Sign-ups per hour from one client address. */
    signupsPerHour: number;
  };
  engines: EngineConfig;
  /** Optional model judge for sentiment; absent: the lexicon alone. */
  sentimentJudge?: { platform: string; model: string };
  /** Crawler verification by forward-confirmed reverse DNS (VERIFY_RDNS). */
  verifyRdns: boolean;
  /** Bearer of GET /metrics; undefined turns it off. */
  metricsToken?: string;
  tracking: { leaseMs: number; maxUnitAttempts: number; retryBaseMs: number; maxActiveJobs: number; visibilityAlertPoints: number };
  webhooks: { allowPrivate: boolean; retryScheduleMs: number[]; timeoutMs: number };
  /** Outgoing mail: smtpUrl null means none is sent (src/mail). */
  mail: { smtpUrl: string | null; from: string; retryScheduleMs: number[]; timeoutMs: number };
  env: Env;
}

/** Every core variable with its default and meaning: the source of .env.example and the README table. */
export const CORE_VARIABLES: { name: string; default: string; meaning: string }[] = [
  { name: "PORT", default: "3000", meaning: "TCP port of the one HTTP server (0 = any free port)" },
  { name: "HOST", default: "0.0.0.0", meaning: "address to listen on" },
  { name: "DATA_DIR", default: "./data", meaning: "where answerwatch.db and secrets.json live" },
  { name: "DATABASE_URL", default: "", meaning: "postgres://… to keep all data in PostgreSQL, shared by several instances; unset: the SQLite file in DATA_DIR" },
  { name: "DATABASE_POOL_SIZE", default: "10", meaning: "connections each instance keeps to DATABASE_URL (2-200: the scheduler's lock holds one while its work uses another)" },
  { name: "PUBLIC_URL", default: "http://127.0.0.1:$PORT", meaning: "the address users and sites reach the server at (pixel snippet, links)" },
  { name: "LOG_LEVEL", default: "info", meaning: "debug, info, warn, error or silent (JSON lines on stdout)" },
  { name: "WORKERS", default: "2", meaning: "tracking worker threads (1-64)" },
  { name: "CORS_ORIGINS", default: "*", meaning: "comma-separated origins allowed to call /auth, /rest and /api from a browser" },
  { name: "TRUSTED_PROXIES", default: "private", meaning: "peers whose X-Forwarded-For names the client (rate limits, the pixel's visitors): private = loopback and private networks, none = clients connect directly (set it when no proxy is in front, e.g. docker run -p), or addresses and CIDR ranges, comma-separated" },
  { name: "MAX_BODY_BYTES", default: "1048576", meaning: "largest request body accepted (413 above)" },
  { name: "REST_CACHE_MB", default: "32", meaning: "memory for /rest/v1 GET responses kept until the next database write (0 = off)" },
  { name: "REST_MAX_ROWS", default: "0", meaning: "most rows a /rest/v1 table read returns at each level (PostgREST's db-max-rows; a hosted Supabase project has 1000); Content-Range says where it stopped; 0 = no cap" },
  { name: "REST_PER_CALLER", default: "32", meaning: "/rest/v1 requests one person (their sessions and API keys), one share link or all anonymous callers together may have waiting or running at once; beyond, 429 (the service role is not counted)" },
  { name: "REST_READERS", default: "2", meaning: "/rest/v1 reads and RPCs run at once: threads each with its own read-only connection (SQLite); admitted this many at a time per instance (Postgres)" },
  { name: "STATEMENT_TIMEOUT_MS", default: "10000", meaning: "a /rest/v1 request whose SQL runs longer is stopped and answers 503 (57014)" },
  { name: "LOG_RETENTION_MONTHS", default: "0", meaning: "Postgres only: raw pixel visits and crawler requests of months more than this many whole months before the current one are dropped a monthly partition at a time (reports over them keep their counts: the rollups stay); 0 keeps every month" },
  { name: "RETENTION_DAYS_RAW_ANSWERS", default: "0", meaning: "answers older than this many days lose their text (analysed fields and rollups stay); 0 keeps every answer" },
  { name: "SHUTDOWN_TIMEOUT_MS", default: "10000", meaning: "how long SIGTERM waits for in-flight requests" },
  { name: "JWT_SECRET", default: "(generated)", meaning: "HS256 secret for access tokens and API keys (at least 32 characters)" },
  { name: "ANON_KEY", default: "(generated)", meaning: "the anon API key (a JWT with role anon)" },
  { name: "SERVICE_ROLE_KEY", default: "(generated)", meaning: "the service_role API key (bypasses row-level security)" },
  { name: "CRON_SECRET", default: "(generated)", meaning: "bearer secret of /cron/daily-tracking and /api/cron/daily-tracking" },
  { name: "CRON_SCHEDULE", default: "0 * * * *", meaning: "when the internal scheduler looks for due brands (cron pattern)" },
  { name: "CRON_TZ", default: "(server time zone)", meaning: "IANA time zone of CRON_SCHEDULE" },
  { name: "CRON_TARGET_URL", default: "http://127.0.0.1:$PORT", meaning: "server that /api/cron/daily-tracking forwards to" },
  { name: "TRACKING_LEASE_MS", default: "30000", meaning: "lease of a running job; another process takes it over when not renewed in time" },
  { name: "TRACKING_MAX_ATTEMPTS", default: "6", meaning: "tries of one prompt × platform × model unit before it fails for good" },
  { name: "TRACKING_RETRY_BASE_MS", default: "500", meaning: "first retry delay; doubles each try, with ±25 % jitter, never below the upstream's Retry-After" },
  { name: "TRACKING_MAX_ACTIVE_JOBS", default: "8", meaning: "tracking jobs one server runs at the same time" },
  { name: "SENTIMENT_PLATFORM", default: "", meaning: "optional model judge for sentiment: the platform to ask (e.g. chatgpt); unset: the lexicon alone" },
  { name: "SENTIMENT_MODEL", default: "(the platform's default model)", meaning: "model of the sentiment judge" },
  { name: "VISIBILITY_ALERT_POINTS", default: "10", meaning: "visibility.changed fires when a platform's visibility rate over the last 7 days differs significantly from the 7 before and by at least this many points" },
  { name: "PIXEL_MAX_PAGES", default: "10000", meaning: "landing pages (by assistant and path) a brand's traffic report keeps; visits to pages beyond them count under \"(other)\" (anyone with a tracking code could otherwise add pages without end)" },
  { name: "CRAWLER_MAX_PATHS", default: "1000000", meaning: "paths (by bot and hit kind) a brand's crawler paths keep; requests for paths beyond them count under \"(other)\" (a scanner claiming to be a known bot could otherwise add paths without end)" },
  { name: "VERIFY_RDNS", default: "false", meaning: "true confirms bots that publish no IP ranges (and ones outside them) by forward-confirmed reverse DNS, for operators that document their host names" },
  { name: "METRICS_TOKEN", default: "", meaning: "when set, GET /metrics answers Prometheus text to Authorization: Bearer <this token>; unset, /metrics is off (404)" },
  { name: "SOURCE_CATEGORIES_FILE", default: "", meaning: "JSON file adding to the shipped source categories: {\"forum\": [\"example-forum.com\"], \"review\": […], …}" },
  { name: "WEBHOOK_ALLOW_PRIVATE", default: "false", meaning: "true lets webhooks reach loopback, private, link-local and metadata addresses" },
  { name: "WEBHOOK_RETRY_SCHEDULE", default: "5,30,120,600,3600,21600,86400", meaning: "seconds to wait after each failed delivery attempt; after the last, the delivery fails" },
  { name: "WEBHOOK_TIMEOUT_MS", default: "10000", meaning: "how long a webhook receiver has to answer" },
  { name: "SMTP_URL", default: "", meaning: "smtp://user:password@host:587 (STARTTLS when offered) or smtps://…:465: the server sends mail through it; unset, no mail is sent" },
  { name: "MAIL_FROM", default: "answerwatch <no-reply@PUBLIC_URL's host>", meaning: "the From of the mail the server sends" },
  { name: "MAIL_RETRY_SCHEDULE", default: "60,300,1800,7200,21600", meaning: "seconds to wait after each failed send (a 4xx or no connection); after the last, or on a 5xx, the message fails" },
  { name: "SMTP_TIMEOUT_MS", default: "15000", meaning: "how long the SMTP server has to connect, greet and answer each step" },
  { name: "JWT_EXPIRY", default: "3600", meaning: "access-token lifetime in seconds" },
  { name: "JWT_SIGNING_KEY", default: "", meaning: "ES256 private JWK (JSON); when set, access tokens are ES256 with a kid in the JWKS" },
  { name: "PASSWORD_MIN_LENGTH", default: "6", meaning: "shortest password accepted" },
  { name: "AUTH_DISABLE_SIGNUP", default: "false", meaning: "true turns public sign-up off (admin API and CLI still work)" },
  { name: "AUTH_CONFIRM_EMAIL", default: "false", meaning: "true makes a new account confirm its address by the mailed link or code before it signs in (needs SMTP_URL)" },
  { name: "AUTH_RATE_LIMIT_PER_MINUTE", default: "10", meaning: "password sign-in attempts per minute per client address and e-mail (five times as many failures per address)" },
  { name: "AUTH_SIGNUP_RATE_LIMIT_PER_HOUR", default: "10", meaning: "sign-up attempts per hour per client address" },
];

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

/**
 * A start-up failure the operator fixes outside the program (a DATA_DIR, a port, a file in
 * DATA_DIR): main.ts prints its message as one line, without a stack, and exits with `exitCode` —
 * 2 for configuration, 1 for damaged data.
 */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
  ) {
    // One line, whatever the cause's message held.
    super(message.replace(/\s*\n\s*/g, " "));
  }
}

/** The errno-style code of a system error ("EACCES"), or the error's name. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : ((error as Error)?.name ?? "Error");
}

function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
  return n;
}

function boolVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false (got "${env[name]}")`);
}

function urlVar(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(name, `must be an http(s) URL (got "${raw}")`);
  return raw.replace(/\/+$/, "");
}

/** A URL that may hold a password: parsed, with errors that never echo the value; null when unset. */
function credentialUrl(env: Env, name: string, example: string): { raw: string; url: URL } | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  try {
    return { raw, url: new URL(raw) };
  } catch {
    throw new ConfigError(name, `must be a URL such as ${example}`);
  }
}

function databaseUrl(env: Env): string | undefined {
  const given = credentialUrl(env, "DATABASE_URL", "postgres://user:password@host:5432/answerwatch");
  if (!given) return undefined;
  if (given.url.protocol !== "postgres:" && given.url.protocol !== "postgresql:") throw new ConfigError("DATABASE_URL", `must start with postgres:// or postgresql:// (got ${given.url.protocol}//)`);
  return given.raw;
}

function secretVar(env: Env, name: string, minLength: number): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  if (raw.length < minLength) throw new ConfigError(name, `must be at least ${minLength} characters long`);
  return raw;
}

const LOG_LEVELS: LogLevel[] = ["debug", "info", "warn", "error", "silent"];

export function loadConfig(env: Env): Config {
  const port = intVar(env, "PORT", 3000, 0, 65535);
  const host = env.HOST?.trim() || "0.0.0.0";
  if (!/^[A-Za-z0-9.:\-\[\]]+$/.test(host)) throw new ConfigError("HOST", `is not a host name or address (got "${host}")`);
  const logLevel = (env.LOG_LEVEL?.trim().toLowerCase() || "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")} (got "${env.LOG_LEVEL}")`);
  const localUrl = `http://${host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host}:${port}`;
  const publicUrl = urlVar(env, "PUBLIC_URL", localUrl);
  // Sign-ups that wait for a mail nobody sends would never finish.
  if (boolVar(env, "AUTH_CONFIRM_EMAIL", false) && !env.SMTP_URL?.trim()) throw new ConfigError("AUTH_CONFIRM_EMAIL", "needs SMTP_URL: the confirmation is mailed");

  const cors = env.CORS_ORIGINS?.trim();
  let corsOrigins: Config["corsOrigins"] = "*";
  if (cors && cors !== "*") {
    corsOrigins = cors.split(",").map((o) => o.trim()).filter(Boolean);
    for (const origin of corsOrigins) urlVar({ CORS_ORIGINS: origin }, "CORS_ORIGINS", "");
  }

  let jwtSigningKey: Config["auth"]["jwtSigningKey"];
  if (env.JWT_SIGNING_KEY?.trim()) {
    try {
      jwtSigningKey = JSON.parse(env.JWT_SIGNING_KEY);
    } catch {
      throw new ConfigError("JWT_SIGNING_KEY", "must be an ES256 private key as JSON (JWK)");
    }
    if (jwtSigningKey?.kty !== "EC" || jwtSigningKey.crv !== "P-256" || !jwtSigningKey.d)
      throw new ConfigError("JWT_SIGNING_KEY", 'must be an EC P-256 private JWK (kty "EC", crv "P-256", with "d")');
  }

  const cronSchedule = env.CRON_SCHEDULE?.trim() || "0 * * * *";
  try {
    // croner (behind @elysiajs/cron) is the judge of a valid pattern; a paused job starts nothing.
    new Cron(cronSchedule, { paused: true }).stop();
  } catch (error) {
    throw new ConfigError("CRON_SCHEDULE", `is not a valid cron pattern (got "${cronSchedule}": ${(error as Error).message})`);
  }
  const cronTz = env.CRON_TZ?.trim() || undefined;
  if (cronTz) {
    try {
      new Intl.DateTimeFormat("en", { timeZone: cronTz });
    } catch {
      throw new ConfigError("CRON_TZ", `is not an IANA time zone (got "${cronTz}")`);
    }
  }

  const engines = engineConfig(env);
  const database = { url: databaseUrl(env), poolSize: intVar(env, "DATABASE_POOL_SIZE", 10, 2, 200) };
  const logRetentionMonths = intVar(env, "LOG_RETENTION_MONTHS", 0, 0, 1200);
  // SQLite keeps the raw logs in one table: deleting them row by row would also take them out of the
  // rollups, so the reports of those months would change. Refused rather than ignored.
  if (logRetentionMonths > 0 && !database.url) throw new ConfigError("LOG_RETENTION_MONTHS", "needs DATABASE_URL (Postgres drops whole monthly partitions; the embedded SQLite database keeps every log row)");
  return {
    port,
    host,
    dataDir: env.DATA_DIR?.trim() || "./data",
    database,
    publicUrl,
    logLevel,
    workers: intVar(env, "WORKERS", 2, 1, 64),
    corsOrigins,
    trustedProxies: proxyTrust(env),
    pixelMaxPages: intVar(env, "PIXEL_MAX_PAGES", 10_000, 1, 1_000_000),
    crawlerMaxPaths: intVar(env, "CRAWLER_MAX_PATHS", 1_000_000, 1, 100_000_000),
    maxBodyBytes: intVar(env, "MAX_BODY_BYTES", 1_048_576, 1024, 1_073_741_824),
    restCacheBytes: intVar(env, "REST_CACHE_MB", 32, 0, 4096) * 1024 * 1024,
    rest: { readers: intVar(env, "REST_READERS", 2, 1, 64), perCaller: intVar(env, "REST_PER_CALLER", 32, 1, 256), maxRows: intVar(env, "REST_MAX_ROWS", 0, 0, 10_000_000), statementTimeoutMs: intVar(env, "STATEMENT_TIMEOUT_MS", 10_000, 100, 3_600_000), sourceCategories: sourceCategoriesFile(env) },
    retentionDaysRawAnswers: intVar(env, "RETENTION_DAYS_RAW_ANSWERS", 0, 0, 36_500),
    logRetentionMonths,
    metricsToken: metricsToken(env),
    verifyRdns: boolVar(env, "VERIFY_RDNS", false),
    shutdownTimeoutMs: intVar(env, "SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
    cronSchedule,
    cronTz,
    cronTargetUrl: urlVar(env, "CRON_TARGET_URL", "") || undefined,
    secrets: {
      jwtSecret: secretVar(env, "JWT_SECRET", 32),
      anonKey: secretVar(env, "ANON_KEY", 20),
      serviceRoleKey: secretVar(env, "SERVICE_ROLE_KEY", 20),
      cronSecret: secretVar(env, "CRON_SECRET", 16),
    },
    auth: {
      jwtExpirySeconds: intVar(env, "JWT_EXPIRY", 3600, 30, 604_800),
      jwtSigningKey,
      passwordMinLength: intVar(env, "PASSWORD_MIN_LENGTH", 6, 1, 128),
      disableSignup: boolVar(env, "AUTH_DISABLE_SIGNUP", false),
      confirmEmail: boolVar(env, "AUTH_CONFIRM_EMAIL", false),
      passwordAttemptsPerMinute: intVar(env, "AUTH_RATE_LIMIT_PER_MINUTE", 10, 1, 100_000),
      signupsPerHour: intVar(env, "AUTH_SIGNUP_RATE_LIMIT_PER_HOUR", 10, 1, 1_000_000),
    },
    engines,
    sentimentJudge: sentimentJudge(env, engines),
    tracking: {
      leaseMs: intVar(env, "TRACKING_LEASE_MS", 30_000, 1000, 3_600_000),
      maxUnitAttempts: intVar(env, "TRACKING_MAX_ATTEMPTS", 6, 1, 50),
      retryBaseMs: intVar(env, "TRACKING_RETRY_BASE_MS", 500, 1, 600_000),
      maxActiveJobs: intVar(env, "TRACKING_MAX_ACTIVE_JOBS", 8, 1, 1000),
      visibilityAlertPoints: intVar(env, "VISIBILITY_ALERT_POINTS", 10, 1, 100),
    },
    webhooks: {
      allowPrivate: boolVar(env, "WEBHOOK_ALLOW_PRIVATE", false),
      retryScheduleMs: retrySchedule(env, "WEBHOOK_RETRY_SCHEDULE", "5,30,120,600,3600,21600,86400"),
      timeoutMs: intVar(env, "WEBHOOK_TIMEOUT_MS", 10_000, 100, 120_000),
    },
    mail: {
      smtpUrl: smtpUrl(env),
      from: mailFrom(env, publicUrl),
      retryScheduleMs: retrySchedule(env, "MAIL_RETRY_SCHEDULE", "60,300,1800,7200,21600"),
      timeoutMs: intVar(env, "SMTP_TIMEOUT_MS", 15_000, 100, 120_000),
    },
    env,
  };
}

function proxyTrust(env: Env): ProxyTrust {
  try {
    return parseProxyTrust(env.TRUSTED_PROXIES);
  } catch (error) {
    throw new ConfigError("TRUSTED_PROXIES", (error as Error).message);
  }
}

function metricsToken(env: Env): string | undefined {
  const token = env.METRICS_TOKEN?.trim();
  if (!token) return undefined;
  if (token.length < 16) throw new ConfigError("METRICS_TOKEN", "must be at least 16 characters (it guards /metrics)");
  return token;
}

/** SOURCE_CATEGORIES_FILE: the user's domains per source category, checked at start. */
function sourceCategoriesFile(env: Env): CategoryList | undefined {
  const path = env.SOURCE_CATEGORIES_FILE?.trim();
  if (!path) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError("SOURCE_CATEGORIES_FILE", `cannot be read as JSON (${(error as Error).message})`);
  }
  const named = SOURCE_CATEGORIES.filter((c) => c !== "other");
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new ConfigError("SOURCE_CATEGORIES_FILE", `must hold one JSON object keyed by ${named.join(", ")}`);
  for (const [key, list] of Object.entries(parsed)) {
    if (!(named as string[]).includes(key)) throw new ConfigError("SOURCE_CATEGORIES_FILE", `has an unknown category "${key}" (allowed: ${named.join(", ")})`);
    if (!Array.isArray(list) || list.some((d) => typeof d !== "string" || !/^[a-z0-9.-]+\.[a-z0-9-]+$/i.test(d)))
      throw new ConfigError("SOURCE_CATEGORIES_FILE", `"${key}" must be a list of domain names`);
  }
  return parsed as CategoryList;
}

function sentimentJudge(env: Env, engines: EngineConfig): Config["sentimentJudge"] {
  const platform = env.SENTIMENT_PLATFORM?.trim();
  const model = env.SENTIMENT_MODEL?.trim();
  if (!platform && !model) return undefined;
  if (!platform) throw new ConfigError("SENTIMENT_PLATFORM", "must be set when SENTIMENT_MODEL is");
  const cfg = engines.platforms[platform as keyof EngineConfig["platforms"]];
  if (!cfg) throw new ConfigError("SENTIMENT_PLATFORM", `must be one of ${Object.keys(engines.platforms).join(", ")} (got "${platform}")`);
  if (cfg.missing) throw new ConfigError("SENTIMENT_PLATFORM", `names ${platform}, which is not configured: set ${cfg.missing}`);
  return { platform, model: model || cfg.model };
}

function retrySchedule(env: Env, name: string, fallback: string): number[] {
  const raw = env[name]?.trim() || fallback;
  const seconds = raw.split(",").map((s) => Number(s.trim()));
  if (!seconds.length || seconds.length > 20 || seconds.some((s) => !Number.isFinite(s) || s < 0 || s > 7 * 86400))
    throw new ConfigError(name, `must be a comma-separated list of at most 20 waits in seconds (got "${raw}")`);
  return seconds.map((s) => Math.round(s * 1000));
}

function smtpUrl(env: Env): string | null {
  const given = credentialUrl(env, "SMTP_URL", "smtp://user:password@host:587 or smtps://user:password@host:465");
  if (!given) return null;
  if ((given.url.protocol !== "smtp:" && given.url.protocol !== "smtps:") || !given.url.hostname) throw new ConfigError("SMTP_URL", `must be smtp://… or smtps://… with a host (got a ${given.url.protocol} URL)`);
  return given.raw;
}

function mailFrom(env: Env, publicUrl: string): string {
  const raw = env.MAIL_FROM?.trim();
  if (!raw) {
    // A mail domain is a name: a PUBLIC_URL on an address (the default one is) gives localhost.
    const host = new URL(publicUrl).hostname;
    return `answerwatch <no-reply@${/^[\d.]+$|^\[|:/.test(host) || !host ? "localhost" : host}>`;
  }
  // An address, bare or as `Name <address>`, on one line (a header injection needs a line break).
  if (/[\r\n]/.test(raw) || !/^(?:[^<>@]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/.test(raw)) throw new ConfigError("MAIL_FROM", `must be an address or "Name <address>" (got "${raw}")`);
  return raw;
}

function engineConfig(env: Env): EngineConfig {
  try {
    return loadEngineConfig(env);
  } catch (error) {
    if (isEngineError(error) && error.kind === "config") {
      throw new ConfigError(error.variable ?? "engine configuration", error.message.replace(/^invalid engine configuration: [A-Z_]+: /, ""));
    }
    throw error;
  }
}

/** Whether PUBLIC_URL points at this machine only: pixel snippets and share links made with it work nowhere else. */
export function isLoopbackPublicUrl(publicUrl: string): boolean {
  const host = new URL(publicUrl).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1" || host === "0.0.0.0";
}

/** What the start-up banner and the web app warn about: no engine to ask, a public URL only this machine reaches. */
export function setupWarnings(config: Pick<Config, "engines" | "publicUrl">): string[] {
  const warnings: string[] = [];
  const platforms = Object.values(config.engines.platforms);
  if (!platforms.some((p) => !p.missing))
    warnings.push(`no AI engine is configured: set a key such as OPENAI_API_KEY or PERPLEXITY_API_KEY (in the environment or .env), restart, then check it with \`answerwatch doctor\`; brands are saved and start tracking once a key exists`);
  if (isLoopbackPublicUrl(config.publicUrl))
    warnings.push(`PUBLIC_URL is ${config.publicUrl}, an address of this machine only: set PUBLIC_URL to the address visitors and browsers reach, or pixel snippets and share links will not work elsewhere`);
  return warnings;
}
