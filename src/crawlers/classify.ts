// Who requested a page (issue #21): AI training crawler, AI search crawler, AI user-triggered fetch,
// search-engine bot, other bot or human — from the shipped lists (ai-robots.json, the ranges file's
// kinds) — and what was requested: a page, robots.txt, a sitemap or an asset. Pure.
import { AMBIGUOUS_BOT_TOKENS, isElectronAgent } from "../common/bot-tokens";
import robots from "../pixel/data/ai-robots.json";
import ranges from "./data/bot-ip-ranges.json";

export const CRAWLER_CLASSES = ["ai_training", "ai_search", "ai_user", "search_engine", "other_bot", "human"] as const;
export type CrawlerClass = (typeof CRAWLER_CLASSES)[number];
export type HitKind = "page" | "robots" | "sitemap" | "asset";

export interface BotIdentity {
  /** The user-agent token (GPTBot, ChatGPT-User, Googlebot, …); null for a human or an unnamed bot. */
  bot: string | null;
  operator: string | null;
  class: CrawlerClass;
  /** A token that only ever appears in robots.txt (Google-Extended): no real crawler sends it. */
  robotsOnly: boolean;
}

const KIND_CLASS: Record<string, CrawlerClass> = { training: "ai_training", search: "ai_search", "user-fetch": "ai_user", "search-engine": "search_engine" };
/** Search engines beyond the ranges file, by token. */
const SEARCH_ENGINES: Record<string, string> = { YandexBot: "Yandex", Baiduspider: "Baidu", "Yahoo! Slurp": "Yahoo", SeznamBot: "Seznam", Qwantbot: "Qwant", PetalBot: "Huawei" };

/** ai-robots.json's free-text function → a class. */
function classOfFunction(fn: string): CrawlerClass {
  const f = fn.toLowerCase();
  if (/assistant|agent|user|on behalf|fetch/.test(f)) return "ai_user";
  if (/search/.test(f)) return "ai_search";
  return "ai_training";
}

interface Token {
  token: string;
  lower: string;
  ambiguous: boolean;
  operator: string | null;
  class: CrawlerClass;
  robotsOnly: boolean;
}

function buildTokens(): Token[] {
  const tokens = new Map<string, Token>();
  const add = (token: string, operator: string | null, cls: CrawlerClass) => {
    if (!tokens.has(token.toLowerCase())) tokens.set(token.toLowerCase(), { token, lower: token.toLowerCase(), ambiguous: AMBIGUOUS_BOT_TOKENS.has(token), operator, class: cls, robotsOnly: /-Extended$/i.test(token) });
  };
  // The ranges file names the operator and the kind exactly; it wins.
  for (const b of (ranges as { bots: { bot: string; operator: string; kind: string }[] }).bots) add(b.bot, b.operator, KIND_CLASS[b.kind] ?? "other_bot");
  for (const b of (ranges as { no_published_ranges: { bot: string; operator: string }[] }).no_published_ranges) add(b.bot, b.operator, "ai_training");
  for (const [token, info] of Object.entries(robots as Record<string, { operator: string; function: string }>)) {
    const operator = info.operator.replace(/\[([^\]]+)\]\([^)]*\)/g, "$1").replace(/^Unclear at this time\.?$/i, "").trim() || null;
    add(token, operator, classOfFunction(info.function));
  }
  for (const [token, operator] of Object.entries(SEARCH_ENGINES)) add(token, operator, "search_engine");
  // Longest first: "ChatGPT-User" before "GPT", "Claude-SearchBot" before "ClaudeBot".
  return [...tokens.values()].sort((a, b) => b.token.length - a.token.length);
}

const TOKENS = buildTokens();
const GENERIC_BOT = /bot\b|crawl|spider|slurp|curl\/|wget\/|python-requests|python-urllib|go-http-client|java\/|okhttp|libwww|httpclient|headless|scrapy|axios\/|node-fetch/i;
const isWordChar = (c: string | undefined) => !!c && /[A-Za-z0-9]/.test(c);

/** The bot a user agent names (the longest listed token it contains as a word), else a generic bot or a human. */
export function identify(userAgent: string | null | undefined): BotIdentity {
  const ua = userAgent ?? "";
  const lower = ua.toLowerCase();
  const electron = isElectronAgent(ua);
  for (const t of TOKENS) {
    if (t.ambiguous && electron) continue;
    // An ambiguous token is looked for as spelled; the others in any case.
    const [text, wanted] = t.ambiguous ? [ua, t.token] : [lower, t.lower];
    let at = text.indexOf(wanted);
    while (at >= 0) {
      if (!isWordChar(text[at - 1]) && !isWordChar(text[at + wanted.length])) return { bot: t.token, operator: t.operator, class: t.class, robotsOnly: t.robotsOnly };
      at = text.indexOf(wanted, at + 1);
    }
  }
  return { bot: null, operator: null, class: !ua.trim() || GENERIC_BOT.test(ua) ? "other_bot" : "human", robotsOnly: false };
}

const ASSET = /\.(css|js|mjs|map|png|jpe?g|gif|webp|avif|svg|ico|bmp|woff2?|ttf|otf|eot|mp4|webm|mp3|wav|pdf|zip|gz)$/i;

/** What a path is: robots.txt, a sitemap, an asset, or a page. */
export function hitKind(path: string): HitKind {
  const p = (path.split(/[?#]/)[0] ?? "/").toLowerCase();
  if (p === "/robots.txt") return "robots";
  // A sitemap: its last segment names one and ends in .xml or .xml.gz. Read by hand: the regex
  // /sitemap[^/]*\.xml(\.gz)?$/ rescanned the segment from every "sitemap" in it (a 2 KB path of
  // them took ~1.7 ms; a Logpush body of such lines, seconds of the event loop).
  const last = p.slice(p.lastIndexOf("/") + 1);
  const stem = last.endsWith(".xml") ? last.slice(0, -4) : last.endsWith(".xml.gz") ? last.slice(0, -7) : null;
  if (stem?.includes("sitemap") || p.endsWith("/sitemap")) return "sitemap";
  return ASSET.test(p) ? "asset" : "page";
}
