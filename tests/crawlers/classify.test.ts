// Crawler classification and verification (issue #21, acceptance 2): who a user agent says it is,
// and whether its address agrees with the operator's published ranges — or, with VERIFY_RDNS, its
// forward-confirmed reverse DNS (a local stub here: the tests never use the network).
import { describe, expect, test } from "bun:test";
import { hitKind, identify } from "../../src/crawlers/classify";
import { createCrawlerIngest } from "../../src/crawlers/ingest";
import { crawlerIngestFor } from "../../src/crawlers/setup";
import { crawlerRoutes } from "../../src/crawlers/routes";
import type { CrawlerStore } from "../../src/crawlers/store";
import { createVerifier, type Resolver } from "../../src/crawlers/verify";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
const ua = (token: string) => `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ${token}/1.2; +https://example.com/bot)`;

describe("identify", () => {
  test("names the bot, its operator and its class; the longest token wins", () => {
    expect(identify(ua("GPTBot"))).toMatchObject({ bot: "GPTBot", operator: "OpenAI", class: "ai_training" });
    expect(identify(ua("OAI-SearchBot"))).toMatchObject({ bot: "OAI-SearchBot", class: "ai_search" });
    expect(identify(`${CHROME}; compatible; ChatGPT-User/1.0; +https://openai.com/bot`)).toMatchObject({ bot: "ChatGPT-User", class: "ai_user" });
    expect(identify(ua("ClaudeBot"))).toMatchObject({ bot: "ClaudeBot", operator: "Anthropic", class: "ai_training" });
    expect(identify(ua("Claude-User"))).toMatchObject({ bot: "Claude-User", class: "ai_user" });
    expect(identify(ua("PerplexityBot"))).toMatchObject({ bot: "PerplexityBot", class: "ai_search" });
    expect(identify(ua("Perplexity-User"))).toMatchObject({ bot: "Perplexity-User", class: "ai_user" });
    expect(identify("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")).toMatchObject({ bot: "Googlebot", class: "search_engine" });
    expect(identify("meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)")).toMatchObject({ bot: "meta-externalagent", operator: "Meta" });
    expect(identify(ua("Google-Extended"))).toMatchObject({ bot: "Google-Extended", robotsOnly: true });
  });

  test("an unnamed bot or tool is other_bot, a browser is human; a token inside a word is not the bot", () => {
    expect(identify("curl/8.5.0").class).toBe("other_bot");
    expect(identify("python-requests/2.32").class).toBe("other_bot");
    expect(identify("").class).toBe("other_bot");
    expect(identify(CHROME)).toEqual({ bot: null, operator: null, class: "human", robotsOnly: false });
    expect(identify(`${CHROME} NotGPTBotReally`).bot).toBeNull();
  });

  test("hit kinds: robots.txt, sitemaps, assets and pages", () => {
    expect(hitKind("/robots.txt")).toBe("robots");
    expect(hitKind("/sitemap.xml")).toBe("sitemap");
    expect(hitKind("/sitemaps/sitemap-posts.xml.gz")).toBe("sitemap");
    expect(hitKind("/assets/app.3f2a.js")).toBe("asset");
    expect(hitKind("/img/logo.svg?v=2")).toBe("asset");
    expect(hitKind("/pricing")).toBe("page");
    expect(hitKind("/llms.txt")).toBe("page");
  });

  test("a sitemap is what the former pattern /sitemap[^/]*\\.xml(\\.gz)?$/ named, read in one pass (a path of 292 'sitemap's is a page, as it was)", () => {
    const former = (p: string) => /sitemap[^/]*\.xml(\.gz)?$/.test(p) || p.endsWith("/sitemap");
    const paths = ["/sitemap.xml", "/sitemap.xml.gz", "/Sitemap_Index.XML", "/a/sitemap/b.xml", "/sitemap/x.xml", "/news-sitemap-2.xml", "/sitemap.gz.xml", "/sitemap.xml.gz.txt", "/xml.sitemap", "/sitemap", "/a/sitemap", "/sitemaps", "/site-map.xml", "/sitemap.xmlx", "/.xml", "/sitemap.xml/", "/sitemap.xml?x=1", `/${"sitemap".repeat(292)}`, `/${"sitemap".repeat(292)}.xml`];
    for (const path of paths) {
      const lower = path.split(/[?#]/)[0]!.toLowerCase();
      expect({ path, sitemap: hitKind(path) === "sitemap" }).toEqual({ path, sitemap: former(lower) });
    }
  });
});

describe("verify", () => {
  const verifier = createVerifier();

  test("inside the operator's ranges: verified; outside: spoofed; IPv4 and IPv6, IPv4-mapped too", async () => {
    expect(await verifier.verify(identify(ua("GPTBot")), "20.171.206.17")).toBe("verified");
    expect(await verifier.verify(identify(ua("GPTBot")), "::ffff:20.171.206.17")).toBe("verified");
    expect(await verifier.verify(identify(ua("GPTBot")), "203.0.113.9")).toBe("spoofed");
    expect(await verifier.verify(identify(ua("GPTBot")), "not an address")).toBe("spoofed");
    expect(await verifier.verify(identify("Mozilla/5.0 (compatible; Googlebot/2.1)"), "2001:4860:4801:10::7")).toBe("verified");
    expect(await verifier.verify(identify("Mozilla/5.0 (compatible; Googlebot/2.1)"), "2001:db8::7")).toBe("spoofed");
  });

  test("an operator with no published ranges is unverifiable; a robots.txt-only token is spoofed; a human has no verdict", async () => {
    expect(await verifier.verify(identify("meta-externalagent/1.1"), "31.13.64.1")).toBe("unverifiable");
    expect(await verifier.verify(identify(ua("Google-Extended")), "66.249.66.1")).toBe("spoofed");
    expect(await verifier.verify(identify(CHROME), "198.51.100.1")).toBeNull();
    expect(verifier.listVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test("with VERIFY_RDNS, forward-confirmed reverse DNS makes a Googlebot outside the snapshot verified — and only a confirmed one", async () => {
    const dns = (reverse: Record<string, string[]>, forward: Record<string, string[]>): Resolver => ({
      reverse: async (ip) => reverse[ip] ?? [],
      forward: async (host) => forward[host] ?? [],
    });
    const googlebot = identify("Mozilla/5.0 (compatible; Googlebot/2.1)");
    const confirming = createVerifier({ rdns: dns({ "203.0.113.7": ["crawl-203-0-113-7.googlebot.com."] }, { "crawl-203-0-113-7.googlebot.com": ["203.0.113.7"] }) });
    expect(await confirming.verify(googlebot, "203.0.113.7")).toBe("verified");
    // The name points elsewhere: not confirmed.
    const lying = createVerifier({ rdns: dns({ "203.0.113.7": ["crawl-203-0-113-7.googlebot.com"] }, { "crawl-203-0-113-7.googlebot.com": ["198.51.100.9"] }) });
    expect(await lying.verify(googlebot, "203.0.113.7")).toBe("spoofed");
    // A look-alike domain is not Google's.
    const lookalike = createVerifier({ rdns: dns({ "203.0.113.7": ["crawl.googlebot.com.evil.example"] }, { "crawl.googlebot.com.evil.example": ["203.0.113.7"] }) });
    expect(await lookalike.verify(googlebot, "203.0.113.7")).toBe("spoofed");
    expect(await verifier.verify(googlebot, "203.0.113.7")).toBe("spoofed");
  });

  test("one request's reverse-DNS checks are bounded by a count and a time, slow PTR answers included; what they could not check is checked again later", async () => {
    let asked = 0;
    const slow: Resolver = { reverse: () => (asked++, new Promise<string[]>(() => {})), forward: async () => [] };
    const fast: Resolver = { reverse: async () => (asked++, []), forward: async () => [] };
    // A store that takes what it is given: only the verdicts matter here.
    const store = { appendHits: async ({ hits }: { hits: { verdict: string | null }[] }) => ({ accepted: hits.length, events: 0, verdicts: hits.map((h) => h.verdict) }) } as unknown as CrawlerStore;
    const records = (n: number) => Array.from({ length: n }, (_, i) => ({ timestamp: "2026-11-20T10:00:00Z", method: "GET", path: "/", status: 200, ip: `203.0.${i >> 8}.${i & 255}`, user_agent: "Mozilla/5.0 (compatible; Googlebot/2.1)" }));
    // 1,000 Googlebots from 1,000 addresses outside Google's ranges: at most 10 lookups.
    const counted = createCrawlerIngest({ store, recordSecret: "s", verifier: createVerifier({ rdns: fast, dnsBudget: { lookups: 10, ms: 60_000, lookupMs: 1_000 } }) });
    expect((await counted.ingest("brand", records(1000))).accepted).toBe(1000);
    expect(asked).toBe(10);
    // PTR answers that never come: each lookup given 50 ms, the request 200 ms in all.
    asked = 0;
    const timed = createCrawlerIngest({ store, recordSecret: "s", verifier: createVerifier({ rdns: slow, dnsBudget: { lookups: 500, ms: 200, lookupMs: 50 } }) });
    const started = performance.now();
    expect((await timed.ingest("brand", records(1000))).accepted).toBe(1000);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(asked).toBeLessThanOrEqual(6);
    // A lookup that timed out says nothing about its address: not remembered, the next request asks
    // again — for that address and the ones judged after it without DNS.
    for (const again of [records(1), records(1000).slice(-1)]) {
      const before = asked;
      await timed.ingest("brand", again);
      expect(asked).toBe(before + 1);
    }
  });

  test("a Logpush body is one request for the reverse-DNS budget, however many batches it is stored in", async () => {
    let asked = 0;
    const resolver: Resolver = { reverse: async () => (asked++, []), forward: async () => [] };
    const organization = crypto.randomUUID();
    const brand = crypto.randomUUID();
    const store = { brandOrganization: async () => organization, appendHits: async ({ hits }: { hits: unknown[] }) => ({ accepted: hits.length, events: 0 }) } as unknown as CrawlerStore;
    const ingest = createCrawlerIngest({ store, recordSecret: "s", verifier: createVerifier({ rdns: resolver, dnsBudget: { lookups: 10, ms: 60_000, lookupMs: 1_000 } }) });
    const callers = { apiUser: async () => ({ orgRoles: new Map([[organization, "member"]]) }) } as never;
    const app = crawlerRoutes({ store, ingest, callers });
    // 2,500 Googlebots from as many addresses outside Google's ranges: three batches of the body.
    const lines = Array.from({ length: 2500 }, (_, i) => JSON.stringify({ EdgeStartTimestamp: "2026-11-20T10:00:00Z", ClientRequestMethod: "GET", ClientRequestURI: "/", EdgeResponseStatus: 200, ClientIP: `203.0.${i >> 8}.${i & 255}`, ClientRequestUserAgent: "Mozilla/5.0 (compatible; Googlebot/2.1)" }));
    const res = await app.handle(new Request(`http://localhost/api/brands/${brand}/crawler-logs/logpush`, { method: "POST", headers: { "content-type": "application/json" }, body: lines.join("\n") }));
    expect(await res.json()).toEqual({ success: true, accepted: 2500, duplicates: 0, malformed: 0 });
    expect(asked).toBe(10);
  });
});

test("tokens that are everyday words or desktop apps' names match only as spelled and never in an Electron app: VS Code is a person, Sogou's spider no AI 'Spider'", () => {
  const vscode = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.85.0 Chrome/114.0.5735.289 Electron/25.9.7 Safari/537.36";
  expect(identify(vscode)).toEqual({ bot: null, operator: null, class: "human", robotsOnly: false });
  const sogou = "Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)";
  expect(identify(sogou)).toMatchObject({ bot: null, class: "other_bot" });
  // As listed, outside an Electron app, they still name their agents; the other tokens match in any case.
  expect(identify("Mozilla/5.0 (compatible; Spider/1.0)")).toMatchObject({ bot: "Spider", class: "ai_training" });
  expect(identify("Code/1.0 (GitHub Copilot coding agent)")).toMatchObject({ bot: "Code", class: "ai_user" });
  expect(identify("Mozilla/5.0 (compatible; gptbot/1.2)")).toMatchObject({ bot: "GPTBot" });
});

test("with LOG_RETENTION_MONTHS, a record of a month retention has dropped is refused (stored again, it would count twice and never be dropped)", async () => {
  const store = { appendHits: async ({ hits }: { hits: unknown[] }) => ({ accepted: hits.length, events: 0 }) } as unknown as CrawlerStore;
  // Three months kept on 2026-11-29: September, October, November — and August, the month before
  // those, still whole until it is dropped at the turn of the month: from 2026-08-01.
  const ingest = crawlerIngestFor({ store, jwtSecret: "s", verifyRdns: false, retentionMonths: 3, now: () => new Date("2026-11-29T10:00:00Z") });
  const record = (timestamp: string) => ({ timestamp, method: "GET", path: "/", status: 200, ip: "198.51.100.1", user_agent: "Mozilla/5.0 (compatible; GPTBot/1.2)" });
  const out = await ingest.ingest("brand", [record("2026-07-31T23:59:59Z"), record("2026-08-01T00:00:00Z"), record("2026-11-29T09:00:00Z")]);
  expect(out.accepted).toBe(2);
  expect(out.errors).toEqual([{ index: 0, message: "timestamp is before 2026-08-01, the oldest month this server keeps logs of (LOG_RETENTION_MONTHS)" }]);
  // Without retention every past month is taken.
  const keepAll = crawlerIngestFor({ store, jwtSecret: "s", verifyRdns: false, now: () => new Date("2026-11-29T10:00:00Z") });
  expect((await keepAll.ingest("brand", [record("2020-01-01T00:00:00Z")])).accepted).toBe(1);
});
