// Where a visit came from (the AI assistant, from the referrer host or utm_source) and whether the
// visitor is a bot. Pure functions over the shipped lists; built once per app.
import { AMBIGUOUS_BOT_TOKENS, isElectronAgent } from "../common/bot-tokens";
import { aiRobotTokens, assistantEntries, type AssistantEntry } from "./lists";

export interface SourceInput {
  /** The page the visitor is on (its utm_source counts). */
  pageUrl: URL;
  /** The referrer, already parsed; null when the page had none. */
  referrer: URL | null;
}

export interface Source {
  /** The AI assistant's name as the list spells it (e.g. "ChatGPT"), or null for other traffic. */
  platform: string | null;
  /** Only the host of the referrer is kept, never its path or query. */
  referrerHost: string | null;
  utmSource: string | null;
}

/**
 * utm_source values the assistants (or sites linking from them) use that are not host names in the
 * list. Host-like values (chatgpt.com, perplexity.ai, …) are looked up in the list itself.
 */
export const UTM_ALIASES: ReadonlyMap<string, string> = new Map(Object.entries({
  chatgpt: "ChatGPT",
  openai: "ChatGPT",
  perplexity: "Perplexity",
  claude: "Claude",
  anthropic: "Claude",
  gemini: "Gemini",
  bard: "Gemini",
  copilot: "Copilot",
  grok: "Grok",
  xai: "Grok",
  deepseek: "Deepseek",
  mistral: "Le Chat",
  lechat: "Le Chat",
  metaai: "Meta AI",
  duckai: "Duck.ai",
  qwen: "Qwen",
  notebooklm: "NotebookLM",
  iask: "iAsk",
  chatglm: "ChatGLM",
  yiyan: "Baidu AI",
}));

/** Android apps send `android-app://<package>/` as the referrer. */
export const ANDROID_APPS: ReadonlyMap<string, string> = new Map(Object.entries({
  "com.openai.chatgpt": "ChatGPT",
  "ai.perplexity.app.android": "Perplexity",
  "com.anthropic.claude": "Claude",
  "com.google.android.apps.bard": "Gemini",
  "com.microsoft.copilot": "Copilot",
}));

const MAX_UTM = 100;

function stripWww(host: string): string {
  return host.startsWith("www.") ? host.slice(4) : host;
}

function pathMatches(pathname: string, prefix: string | null): boolean {
  if (prefix === null) return true;
  const path = pathname.toLowerCase();
  return path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
}

export function createSourceClassifier(entries: AssistantEntry[] = assistantEntries()) {
  const byHost = new Map<string, AssistantEntry[]>();
  for (const entry of entries) {
    const list = byHost.get(entry.host) ?? [];
    list.push(entry);
    byHost.set(entry.host, list);
  }

  /** The assistant for a host (or any parent domain of it) and path; look-alikes never match. */
  function platformOfHost(host: string, pathname = "/"): string | null {
    let candidate = host.toLowerCase().replace(/\.$/, "");
    for (;;) {
      const listed = byHost.get(candidate);
      if (listed) for (const entry of listed) if (pathMatches(pathname, entry.pathPrefix)) return entry.platform;
      const dot = candidate.indexOf(".");
      if (dot < 0) return null;
      candidate = candidate.slice(dot + 1);
    }
  }

  function platformOfUtm(value: string): string | null {
    // "Le Chat", "le_chat" and "le-chat" all mean lechat.
    const alias = UTM_ALIASES.get(value.replace(/[\s_-]+/g, ""));
    if (alias) return alias;
    const hostLike = value.replace(/^[a-z][a-z0-9+.-]*:\/\//, "");
    const slash = hostLike.indexOf("/");
    return platformOfHost(slash < 0 ? hostLike : hostLike.slice(0, slash), slash < 0 ? "/" : hostLike.slice(slash));
  }

  function classify(input: SourceInput): Source {
    const rawUtm = input.pageUrl.search.includes("utm_source") ? input.pageUrl.searchParams.get("utm_source") : null;
    const utmSource = rawUtm ? rawUtm.trim().toLowerCase().slice(0, MAX_UTM) || null : null;
    let referrerHost: string | null = null;
    let platform: string | null = null;
    if (input.referrer) {
      if (input.referrer.protocol === "android-app:") {
        referrerHost = input.referrer.hostname.toLowerCase() || null;
        platform = referrerHost ? (ANDROID_APPS.get(referrerHost) ?? null) : null;
      } else {
        referrerHost = stripWww(input.referrer.hostname.toLowerCase().replace(/\.$/, "")) || null;
        platform = referrerHost ? platformOfHost(referrerHost, input.referrer.pathname) : null;
      }
    }
    // The referrer is the stronger signal; utm_source covers apps and stripped referrers.
    if (!platform && utmSource) platform = platformOfUtm(utmSource);
    return { platform, referrerHost, utmSource };
  }

  return { classify, platformOfHost, platformOfUtm };
}

export type SourceClassifier = ReturnType<typeof createSourceClassifier>;

// Crawlers and tools that are not in the AI list. Generic words ("bot", "crawl", "spider") catch
// most; the rest are clients that never run a page's script unless automated.
const COMMON_BOTS =
  /bot\b|bot\/|crawl|spider|slurp|scrape|headless|phantomjs|selenium|webdriver|puppeteer|playwright|lighthouse|pagespeed|gtmetrix|pingdom|facebookexternalhit|embedly|bingpreview|mediapartners|feedfetcher|ia_archiver|archive\.org|curl\/|wget\/|python|java\/|go-http-client|okhttp|axios|node-fetch|undici|httpclient|libwww|\bperl\b|ruby|postman|insomnia/i;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

export interface UserAgentInfo {
  bot: boolean;
  /** Browser family only (Chrome, Safari, …): enough for reports, too coarse to fingerprint. */
  family: string;
}

function browserFamily(ua: string): string {
  if (/\bEdg(?:e|A|iOS)?\//.test(ua)) return "Edge";
  if (/\bOPR\/|\bOpera\b/.test(ua)) return "Opera";
  if (/\bSamsungBrowser\//.test(ua)) return "Samsung Internet";
  if (/\bFirefox\/|\bFxiOS\//.test(ua)) return "Firefox";
  if (/\bCriOS\/|\bChrome\/|\bChromium\//.test(ua)) return "Chrome";
  // Version/… then Safari/… later on, found in one pass each (`Version\/[\d.]+.*Safari\/` rescanned
  // the rest from every Version/: quadratic on a user agent made of them).
  const version = ua.search(/\bVersion\/[\d.]+/);
  if (version >= 0 && /\bSafari\//.test(ua.slice(version))) return "Safari";
  return "Other";
}

/**
 * Reads a user agent: bot or not, and the browser family. AI-list tokens match as whole product
 * tokens (so "Code" does not match inside "Unicode"). Results are cached: few distinct user agents
 * make most traffic.
 */
const MAX_USER_AGENT_CHARS = 1000;
const OVERLONG_AGENT: UserAgentInfo = Object.freeze({ bot: true, family: "Other" });

export function createUserAgentReader(tokens: string[] = aiRobotTokens(), cacheSize = 2000) {
  // A token as a whole product token; the ambiguous ones (common/bot-tokens.ts) only as spelled.
  const tokenRegExp = (list: string[], flags: string) => {
    if (!list.length) return null;
    const alternatives = [...list].sort((a, b) => b.length - a.length).map(escapeRegExp).join("|");
    return new RegExp(`(?:^|[^A-Za-z0-9])(?:${alternatives})(?![A-Za-z0-9])`, flags);
  };
  const plainRobots = tokenRegExp(tokens.filter((t) => !AMBIGUOUS_BOT_TOKENS.has(t)), "i");
  const ambiguousRobots = tokenRegExp(tokens.filter((t) => AMBIGUOUS_BOT_TOKENS.has(t)), "");
  const aiRobots = { test: (ua: string) => Boolean(plainRobots?.test(ua) || (ambiguousRobots?.test(ua) && !isElectronAgent(ua))) };
  const cache = new Map<string, UserAgentInfo>();
  return function read(userAgent: string | null): UserAgentInfo {
    const ua = userAgent ?? "";
    // No browser sends a user agent this long: a bot, read no further and not kept in the cache.
    if (ua.length > MAX_USER_AGENT_CHARS) return OVERLONG_AGENT;
    const cached = cache.get(ua);
    if (cached) return cached;
    const info: UserAgentInfo = {
      bot: ua.trim() === "" || aiRobots.test(ua) || COMMON_BOTS.test(ua),
      family: browserFamily(ua),
    };
    // Whole-cache reset keeps the bound without bookkeeping; a miss costs only two regex tests.
    if (cache.size >= cacheSize) cache.clear();
    cache.set(ua, info);
    return info;
  };
}

export type UserAgentReader = ReturnType<typeof createUserAgentReader>;
