import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { ConfigError, loadConfig } from "../../src/config";
import { ROOT, tempDir } from "../helpers/app";

function runMain(env: Record<string, string>) {
  return Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, "serve"], {
    env: { PATH: Bun.env.PATH!, DATA_DIR: tempDir(), LOG_LEVEL: "silent", ...env },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 20_000,
  });
}

for (const [variable, value] of [
  ["PORT", "abc"],
  ["WORKERS", "0"],
  ["PUBLIC_URL", "not a url"],
  ["CRON_TZ", "Mars/Olympus"],
] as const) {
  test(`${variable}=${value} stops the process with exit 2 and one line naming ${variable}`, () => {
    const proc = runMain({ [variable]: value });
    expect(proc.exitCode).toBe(2);
    const stderr = proc.stderr.toString().trim();
    expect(stderr.split("\n")).toHaveLength(1);
    expect(stderr).toContain(variable);
    expect(stderr).toContain(value);
  });
}

test("loadConfig applies the documented defaults", () => {
  const config = loadConfig({});
  expect(config).toMatchObject({ port: 3000, dataDir: "./data", workers: 2, logLevel: "info", maxBodyBytes: 1_048_576 });
  expect(config.auth.jwtExpirySeconds).toBe(3600);
});

test("loadConfig rejects a JWT_SECRET that is too short and names it", () => {
  expect(() => loadConfig({ JWT_SECRET: "short" })).toThrow(ConfigError);
  try {
    loadConfig({ JWT_SECRET: "short" });
  } catch (e) {
    expect((e as ConfigError).variable).toBe("JWT_SECRET");
  }
});

test("TRUSTED_PROXIES: private by default; none and address lists read; anything else refused at start, naming the variable and the entry", () => {
  expect(loadConfig({}).trustedProxies).toBe("private");
  expect(loadConfig({ TRUSTED_PROXIES: "none" }).trustedProxies).toBe("none");
  expect(loadConfig({ TRUSTED_PROXIES: "10.0.0.0/8, ::1" }).trustedProxies).toHaveLength(2);
  let error: unknown;
  try {
    loadConfig({ TRUSTED_PROXIES: "10.0.0.0/8, nginx" });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).variable).toBe("TRUSTED_PROXIES");
  expect((error as Error).message).toContain('"nginx"');
});

test("SOURCE_CATEGORIES_FILE: read and checked at start; a bad file names the variable and the problem", () => {
  const dir = tempDir();
  const write = (name: string, text: string) => {
    writeFileSync(`${dir}/${name}`, text);
    return `${dir}/${name}`;
  };
  const good = write("good.json", JSON.stringify({ forum: ["forum.example.org"], review: ["reviews.example.net"] }));
  expect(loadConfig({ SOURCE_CATEGORIES_FILE: good }).rest.sourceCategories).toEqual({ forum: ["forum.example.org"], review: ["reviews.example.net"] });
  expect(loadConfig({}).rest.sourceCategories).toBeUndefined();
  const cases: [string, RegExp][] = [
    [write("broken.json", "{not json"), /cannot be read as JSON/],
    [write("list.json", "[]"), /one JSON object/],
    [write("unknown.json", JSON.stringify({ blogs: ["a.com"] })), /unknown category "blogs"/],
    [write("notdomains.json", JSON.stringify({ forum: ["not a domain"] })), /"forum" must be a list of domain names/],
    [`${dir}/missing.json`, /cannot be read/],
  ];
  for (const [path, message] of cases) {
    let error: unknown;
    try {
      loadConfig({ SOURCE_CATEGORIES_FILE: path });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe("SOURCE_CATEGORIES_FILE");
    expect((error as Error).message).toMatch(message);
  }
});

test("LOG_RETENTION_MONTHS drops partitions on Postgres and is refused on SQLite, where it would change the reports", () => {
  expect(loadConfig({ LOG_RETENTION_MONTHS: "6", DATABASE_URL: "postgres://u:p@127.0.0.1:5432/aw" }).logRetentionMonths).toBe(6);
  expect(loadConfig({}).logRetentionMonths).toBe(0);
  expect(loadConfig({ LOG_RETENTION_MONTHS: "0" }).logRetentionMonths).toBe(0);
  let error: unknown;
  try {
    loadConfig({ LOG_RETENTION_MONTHS: "6" });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).variable).toBe("LOG_RETENTION_MONTHS");
  expect(String((error as Error).message)).toContain("DATABASE_URL");
});

test("mail: off without SMTP_URL; an smtp(s) URL with a host is taken, anything else refused without echoing it; MAIL_FROM one address on one line", () => {
  const off = loadConfig({});
  expect(off.mail).toEqual({ smtpUrl: null, from: "answerwatch <no-reply@localhost>", retryScheduleMs: [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000], timeoutMs: 15_000 });
  expect(loadConfig({ PUBLIC_URL: "https://watch.example.com" }).mail.from).toBe("answerwatch <no-reply@watch.example.com>");
  expect(loadConfig({ SMTP_URL: "smtps://mailer:s3cret@smtp.example.com:465" }).mail.smtpUrl).toBe("smtps://mailer:s3cret@smtp.example.com:465");
  for (const bad of ["http://mailer:s3cret@smtp.example.com", "smtp://", "not a url s3cret"]) {
    let error: unknown;
    try {
      loadConfig({ SMTP_URL: bad });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe("SMTP_URL");
    expect((error as Error).message).not.toContain("s3cret");
  }
  expect(loadConfig({ MAIL_FROM: "Reports <reports@example.com>" }).mail.from).toBe("Reports <reports@example.com>");
  expect(loadConfig({ MAIL_FROM: "reports@example.com" }).mail.from).toBe("reports@example.com");
  for (const bad of ["Reports <reports@example.com>\r\nBcc: victim@example.com", "no address", "a@b@c"]) expect(() => loadConfig({ MAIL_FROM: bad })).toThrow(ConfigError);
  expect(() => loadConfig({ MAIL_RETRY_SCHEDULE: "1,x" })).toThrow(ConfigError);
});
