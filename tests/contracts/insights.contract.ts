// The insights store's contract (src/insights/store.ts), for every backend: answers, competitors'
// mentions, citations, fan-out queries and crawler requests are seeded through the fixtures, and
// every read is checked against the same sums computed here from the seeded rows.
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import type { InsightArgs } from "../../src/insights/args";
import type { InsightsStore } from "../../src/insights/store";
import type { Harness } from "./harness";

const NO_FILTERS = { platforms: null, models: null, regions: null, topicIds: null, promptIds: null, branded: null };
const WINDOW = { from: "2026-02-15", to: "2026-03-31" };
const DAYS = ["2026-02-10", "2026-02-20", "2026-03-05", "2026-03-31", "2026-04-02"];
const PLATFORMS = ["chatgpt", "perplexity"] as const;

interface Seeded {
  id: string;
  prompt: string;
  platform: string;
  region: string;
  day: string;
  createdAt: string;
  job: string;
  mentioned: boolean;
  position: number | null;
  competitors: { competitorId: string; mentionCount: number; position: number | null }[];
  citations: { url: string; normalizedUrl: string; domain: string; isBrand?: boolean }[];
  queries: string[];
}

const count = <T>(rows: T[], f: (r: T) => boolean) => rows.filter(f).length;
const sum = <T>(rows: T[], f: (r: T) => number) => rows.reduce((s, r) => s + f(r), 0);
const byKey = <T extends Record<string, unknown>>(rows: T[], key: keyof T) => Object.fromEntries(rows.map((r) => [String(r[key]), r]));

export function describeInsightsStoreContract(name: string, make: () => Promise<Harness & { store: InsightsStore }>) {
  describe(`InsightsStore contract (${name})`, () => {
    let h: Harness & { store: InsightsStore };
    let brand: string, org: string, c1: string, c2: string, topic: string, p1: string, p2: string;
    let site: string, news: string;
    const seeded: Seeded[] = [];
    const args = (over: Partial<InsightArgs> = {}): InsightArgs => ({ brandId: brand, window: WINDOW, ...NO_FILTERS, ...over });
    const inWindow = (r: Seeded) => r.day >= WINDOW.from && r.day <= WINDOW.to;

    beforeAll(async () => {
      h = await make();
      org = await h.fixtures.organization();
      // Unique domains: the URL table is shared by every brand of the database.
      const tag = crypto.randomUUID().slice(0, 8);
      site = `acme-${tag}.com`;
      news = `news-${tag}.example`;
      brand = await h.fixtures.brand(org, `Acme${tag}`);
      // Apart in time: competitors and prompts come oldest first.
      c1 = await h.fixtures.competitor(brand, "Globex");
      await Bun.sleep(2);
      c2 = await h.fixtures.competitor(brand, "Initech");
      topic = await h.fixtures.topic(brand, "crm");
      p1 = await h.fixtures.prompt(brand, "best crm tools", topic);
      await Bun.sleep(2);
      p2 = await h.fixtures.prompt(brand, `is Acme${tag} any good`);
      // A run's job id is a uuid (a uuid column on Postgres).
      const jobs = DAYS.map(() => crypto.randomUUID());
      for (const [i, day] of DAYS.entries())
        for (const [pi, prompt] of [p1, p2].entries())
          for (const [k, platform] of PLATFORMS.entries()) {
            const mentioned = (i + pi + k) % 2 === 0;
            const r: Omit<Seeded, "id"> = {
              prompt, platform, day, region: k === 0 ? "" : "US", createdAt: `${day}T1${pi}:0${k}:00.000Z`, job: jobs[i]!, mentioned,
              position: mentioned ? 1 + ((i + pi) % 3) : null,
              competitors: [...((i + k) % 2 === 0 ? [{ competitorId: c1, mentionCount: 2, position: 2 }] : []), ...(pi === 1 ? [{ competitorId: c2, mentionCount: 1, position: null }] : [])],
              citations: [{ url: `https://${site}/p${pi}`, normalizedUrl: `${site}/p${pi}`, domain: site, isBrand: true }, ...(k === 1 ? [{ url: `https://${news}/a`, normalizedUrl: `${news}/a`, domain: news }] : [])],
              queries: k === 0 ? ["best crm", `query ${pi}`] : ["best crm"],
            };
            const id = await h.fixtures.result({
              brandId: brand, promptId: prompt, platform, region: r.region, jobId: r.job, createdAt: r.createdAt, mentioned, mentionCount: mentioned ? 1 : 0, position: r.position,
              competitors: r.competitors, citations: r.citations, searchQueries: r.queries,
            });
            seeded.push({ id, ...r });
          }
    });
    afterAll(() => h.close());

    test("brand, competitors (oldest first), prompts with their filters, topics, texts and entities; unknown brand → null or nothing", async () => {
      expect(await h.store.brand(brand)).toMatchObject({ id: brand, organization_id: org });
      expect((await h.store.brand(brand))!.name).toStartWith("Acme");
      expect(await h.store.competitors(brand)).toEqual([{ id: c1, name: "Globex", created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) }, { id: c2, name: "Initech", created_at: expect.any(String) }]);
      expect((await h.store.prompts({ brandId: brand, topicIds: null, promptIds: null, branded: null })).map((p) => p.id)).toEqual([p1, p2]);
      expect((await h.store.prompts({ brandId: brand, topicIds: [topic], promptIds: null, branded: null })).map((p) => p.id)).toEqual([p1]);
      expect((await h.store.prompts({ brandId: brand, topicIds: null, promptIds: [p2], branded: null })).map((p) => p.id)).toEqual([p2]);
      // The second prompt names the brand.
      expect(await h.store.prompts({ brandId: brand, topicIds: null, promptIds: null, branded: true })).toMatchObject([{ id: p2, is_branded: 1, topic_id: null, is_active: 1 }]);
      expect(await h.store.prompts({ brandId: brand, topicIds: [], promptIds: null, branded: null })).toEqual([]);
      expect(byKey(await h.store.promptTopics(brand), "id")).toEqual({ [p1]: { id: p1, topic_id: topic }, [p2]: { id: p2, topic_id: null } });
      expect(byKey(await h.store.promptTexts(brand), "id")[p1]).toEqual({ id: p1, text: "best crm tools" });
      const entities = await h.store.entities(brand);
      expect(entities!.brand.name).toStartWith("Acme");
      expect(entities!.competitors.map((c) => c.name).sort()).toEqual(["Globex", "Initech"]);
      const nobody = crypto.randomUUID();
      expect(await h.store.brand(nobody)).toBeNull();
      expect(await h.store.entities(nobody)).toBeNull();
      expect(await h.store.competitors(nobody)).toEqual([]);
      expect(await h.store.promptTopics(nobody)).toEqual([]);
    });

    test("resultSums: totals over the window, grouped and filtered, equal the seeded answers' sums", async () => {
      const rows = seeded.filter(inWindow);
      const [total] = await h.store.resultSums({ query: args(), window: WINDOW, groupBy: [] });
      expect(total).toMatchObject({
        results: rows.length,
        mentioned: count(rows, (r) => r.mentioned),
        mention_sum: count(rows, (r) => r.mentioned),
        position_sum: sum(rows, (r) => r.position ?? 0),
        position_n: count(rows, (r) => r.position !== null),
        cited: count(rows, (r) => r.citations.some((c) => c.isBrand)),
        citation_sum: sum(rows, (r) => r.citations.length),
        brand_citation_sum: sum(rows, (r) => count(r.citations, (c) => !!c.isBrand)),
        competitor_mention_sum: sum(rows, (r) => sum(r.competitors, (c) => c.mentionCount)),
      });
      const perPlatform = byKey(await h.store.resultSums({ query: args(), window: WINDOW, groupBy: ["platform"] }), "platform");
      for (const platform of PLATFORMS) expect(perPlatform[platform]).toMatchObject({ results: count(rows, (r) => r.platform === platform), mentioned: count(rows, (r) => r.platform === platform && r.mentioned) });
      // Filters: a platform, a region, a topic, branded prompts; an empty list selects nothing.
      const perplexity = byKey(await h.store.resultSums({ query: args({ platforms: ["perplexity"] }), window: WINDOW, groupBy: ["prompt_id"] }), "prompt_id");
      for (const p of [p1, p2]) expect(perplexity[p]).toMatchObject({ results: count(rows, (r) => r.prompt === p && r.platform === "perplexity"), mentioned: count(rows, (r) => r.prompt === p && r.platform === "perplexity" && r.mentioned) });
      expect((await h.store.resultSums({ query: args({ regions: ["US"] }), window: WINDOW, groupBy: [] }))[0]!.results).toBe(count(rows, (r) => r.region === "US"));
      expect((await h.store.resultSums({ query: args({ topicIds: [topic] }), window: WINDOW, groupBy: [] }))[0]!.results).toBe(count(rows, (r) => r.prompt === p1));
      expect((await h.store.resultSums({ query: args({ branded: true }), window: WINDOW, groupBy: [] }))[0]!.results).toBe(count(rows, (r) => r.prompt === p2));
      expect(await h.store.resultSums({ query: args({ platforms: [] }), window: WINDOW, groupBy: [] })).toEqual([]);
      expect(await h.store.resultSums({ query: args(), window: { from: "2027-01-01", to: "2027-01-31" }, groupBy: [] })).toEqual([]);
      // The window of the query is not the one read: `window` is (the previous window of a change).
      expect((await h.store.resultSums({ query: args(), window: { from: "2026-02-01", to: "2026-02-14" }, groupBy: [] }))[0]!.results).toBe(count(seeded, (r) => r.day === "2026-02-10"));
    });

    test("resultSums by bucket: days throughout by day, whole weeks by week (per prompt: days), else whole months as one month bucket", async () => {
      const rows = seeded.filter(inWindow);
      const perDay = Object.fromEntries([...new Set(rows.map((r) => r.day))].map((d) => [d, count(rows, (r) => r.day === d)]));
      const days = await h.store.resultSums({ query: args(), window: WINDOW, groupBy: ["bucket"], by: "day" });
      // WINDOW starts on a Sunday (read by day), then whole weeks by their Monday, and ends on a Tuesday (by day).
      const monday = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - ((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
      const bucketOf = (day: string) => (day === WINDOW.from || day > "2026-03-29" ? day : monday(day));
      const perWeek: Record<string, number> = {};
      for (const r of rows) perWeek[bucketOf(r.day)] = (perWeek[bucketOf(r.day)] ?? 0) + 1;
      const weeks = await h.store.resultSums({ query: args(), window: WINDOW, groupBy: ["bucket"], by: "week" });
      expect(Object.fromEntries(weeks.map((r) => [r.bucket, r.results]))).toEqual(perWeek);
      // Grouped by prompt, the brand's weekly table cannot answer: day buckets.
      const perPrompt = await h.store.resultSums({ query: args(), window: WINDOW, groupBy: ["bucket", "prompt_id"], by: "week" });
      expect(new Set(perPrompt.map((r) => r.bucket))).toEqual(new Set(Object.keys(perDay)));
      expect(Object.fromEntries(days.map((r) => [r.bucket, r.results]))).toEqual(perDay);
      const mixed = await h.store.resultSums({ query: args(), window: WINDOW, groupBy: ["bucket"] });
      expect(Object.fromEntries(mixed.map((r) => [r.bucket, r.results]))).toEqual({ "2026-02-20": perDay["2026-02-20"], "2026-03": count(rows, (r) => r.day.startsWith("2026-03")) });
    });

    test("competitorTotals: per competitor, answers naming it, its mentions and positions, answers naming the brand too", async () => {
      for (const filter of [{}, { platforms: ["chatgpt"] }]) {
        const rows = seeded.filter((r) => inWindow(r) && (!("platforms" in filter) || r.platform === "chatgpt"));
        const totals = await h.store.competitorTotals(args(filter));
        for (const c of [c1, c2]) {
          const naming = rows.filter((r) => r.competitors.some((x) => x.competitorId === c));
          const mine = totals.filter((t) => t.competitor_id === c);
          expect({ results: sum(mine, (t) => t.results), mentions: sum(mine, (t) => t.mentions), both: sum(mine, (t) => t.both), position_n: sum(mine, (t) => t.position_n), position_sum: sum(mine, (t) => t.position_sum) }).toEqual({
            results: naming.length,
            mentions: sum(naming, (r) => r.competitors.find((x) => x.competitorId === c)!.mentionCount),
            both: count(naming, (r) => r.mentioned),
            position_n: count(naming, (r) => r.competitors.find((x) => x.competitorId === c)!.position !== null),
            position_sum: sum(naming, (r) => r.competitors.find((x) => x.competitorId === c)!.position ?? 0),
          });
          // One row per prompt, platform, model and region.
          expect(new Set(mine.map((t) => `${t.prompt_id}|${t.platform}|${t.model}|${t.region}`)).size).toBe(mine.length);
        }
      }
      expect(await h.store.competitorTotals(args({ window: { from: "2027-01-01", to: "2027-01-31" } }))).toEqual([]);
    });

    test("domainTotals and urlTotals: the same sums without filters (running totals) and with a filter that keeps every answer; a filter's share from whole months and the days at the edges", async () => {
      const rows = seeded.filter(inWindow);
      const everything = { platforms: [...PLATFORMS] };
      for (const filter of [{}, everything]) {
        const domains = byKey(await h.store.domainTotals(args(filter)), "domain");
        expect(Object.keys(domains).sort()).toEqual([site, news].sort());
        for (const domain of [site, news]) {
          const citing = rows.filter((r) => r.citations.some((c) => c.domain === domain));
          expect(domains[domain]).toEqual({ domain, citations: sum(rows, (r) => count(r.citations, (c) => c.domain === domain)), answers: citing.length, brand_mentioned: count(citing, (r) => r.mentioned), prompts: new Set(citing.map((r) => r.prompt)).size });
        }
        const urls = byKey(await h.store.urlTotals(args(filter)), "url");
        const expected = [...new Set(rows.flatMap((r) => r.citations.map((c) => c.url)))];
        expect(Object.keys(urls).sort()).toEqual(expected.sort());
        for (const url of expected) {
          const citing = rows.filter((r) => r.citations.some((c) => c.url === url));
          expect(urls[url]).toEqual({ url, domain: url.includes(site) ? site : news, title: null, citations: citing.length, answers: citing.length, first_seen: citing.map((r) => r.day).sort()[0]!, last_seen: citing.map((r) => r.day).sort().at(-1)! });
        }
      }
      // One platform over the window (its days in February at the edge, March whole).
      const one = rows.filter((r) => r.platform === PLATFORMS[0]);
      const domains = byKey(await h.store.domainTotals(args({ platforms: [PLATFORMS[0]] })), "domain");
      const cited = [...new Set(one.flatMap((r) => r.citations.map((c) => c.domain)))];
      expect(Object.keys(domains).sort()).toEqual(cited.sort());
      expect(one.some((r) => r.day < "2026-03-01") && one.some((r) => r.day >= "2026-03-01")).toBe(true);
      for (const domain of cited) {
        const citing = one.filter((r) => r.citations.some((c) => c.domain === domain));
        expect(domains[domain]).toEqual({ domain, citations: sum(one, (r) => count(r.citations, (c) => c.domain === domain)), answers: citing.length, brand_mentioned: count(citing, (r) => r.mentioned), prompts: new Set(citing.map((r) => r.prompt)).size });
      }
      expect(await h.store.domainTotals(args({ platforms: [] }))).toEqual([]);
      expect(await h.store.urlTotals(args({ window: { from: "2027-01-01", to: "2027-01-31" } }))).toEqual([]);
    });

    test("searchQueries: answers and platforms per query, from the running totals and from the answers alike", async () => {
      const rows = seeded.filter(inWindow);
      const queries = [...new Set(rows.flatMap((r) => r.queries))];
      for (const filter of [{}, { platforms: [...PLATFORMS] }, { models: ["m-1"] }]) {
        const found = byKey(await h.store.searchQueries(args(filter)), "query");
        expect(Object.keys(found).sort()).toEqual([...queries].sort());
        for (const q of queries) {
          const running = rows.filter((r) => r.queries.includes(q));
          expect({ ...found[q], platforms: [...found[q]!.platforms].sort() }).toEqual({ query: q, answers: running.length, platforms: [...new Set(running.map((r) => r.platform))].sort() });
        }
      }
      expect(await h.store.searchQueries(args({ models: ["other"] }))).toEqual([]);
    });

    test("recentRunAnswers: every answer before the window's end of each answer group, with its run", async () => {
      const key = (r: { prompt_id: string; platform: string; created_at: string }) => `${r.prompt_id}|${r.platform}|${r.created_at}`;
      const found = (await h.store.recentRunAnswers(args())).sort((a, b) => key(a).localeCompare(key(b)));
      const expected = seeded
        .filter((r) => r.day <= WINDOW.to)
        .map((r) => ({ prompt_id: r.prompt, platform: r.platform, run: r.job, mentioned: r.mentioned ? 1 : 0, created_at: r.createdAt }))
        .sort((a, b) => key(a).localeCompare(key(b)));
      expect(found.map((r) => ({ prompt_id: r.prompt_id, platform: r.platform, run: r.run, mentioned: r.mentioned, created_at: r.created_at }))).toEqual(expected);
      expect((await h.store.recentRunAnswers(args({ platforms: ["chatgpt"] }))).every((r) => r.platform === "chatgpt")).toBe(true);
      expect(await h.store.recentRunAnswers(args({ window: { from: "2025-01-01", to: "2025-01-31" } }))).toEqual([]);
    });

    test("crawler reads: totals per bot, class and verdict; buckets of named bots by day, week or month; paths per bot", async () => {
      const gpt = { bot: "GPTBot", class: "ai_training", verdict: "verified" };
      await h.fixtures.crawlerHit({ brandId: brand, at: "2026-02-20T08:00:00.000Z", ...gpt, hit: "robots", path: "/robots.txt", status: 200 });
      await h.fixtures.crawlerHit({ brandId: brand, at: "2026-03-02T08:00:00.000Z", ...gpt, hit: "page", path: "/a", status: 200 });
      await h.fixtures.crawlerHit({ brandId: brand, at: "2026-03-03T08:00:00.000Z", ...gpt, hit: "page", path: "/a", status: 403 });
      await h.fixtures.crawlerHit({ brandId: brand, at: "2026-03-04T08:00:00.000Z", bot: null, class: "human", hit: "page", path: "/", status: 200 });
      await h.fixtures.crawlerHit({ brandId: brand, at: "2026-04-05T08:00:00.000Z", ...gpt, hit: "page", path: "/b", status: 404 });
      const totals = (await h.store.crawlerTotals(args())).sort((a, b) => a.bot.localeCompare(b.bot));
      expect(totals).toEqual([
        { bot: "", class: "human", verdict: "", requests: 1, pages: 1, refused: 0, not_found: 0, server_errors: 0 },
        { ...gpt, requests: 3, pages: 2, refused: 1, not_found: 0, server_errors: 0 },
      ]);
      const byBucket = (rows: { bucket: string; bot: string; requests: number; pages: number }[]) => rows.sort((a, b) => a.bucket.localeCompare(b.bucket));
      expect(byBucket(await h.store.crawlerBuckets({ query: args(), interval: "day" }))).toEqual([
        { bucket: "2026-02-20", bot: "GPTBot", requests: 1, pages: 0 },
        { bucket: "2026-03-02", bot: "GPTBot", requests: 1, pages: 1 },
        { bucket: "2026-03-03", bot: "GPTBot", requests: 1, pages: 1 },
      ]);
      expect(byBucket(await h.store.crawlerBuckets({ query: args(), interval: "month" }))).toEqual([
        { bucket: "2026-02-20", bot: "GPTBot", requests: 1, pages: 0 },
        { bucket: "2026-03", bot: "GPTBot", requests: 2, pages: 2 },
      ]);
      // By week: whole ISO weeks by their Monday (the window's first day, a Sunday, and its last two by day).
      expect(byBucket(await h.store.crawlerBuckets({ query: args(), interval: "week" }))).toEqual([
        { bucket: "2026-02-16", bot: "GPTBot", requests: 1, pages: 0 },
        { bucket: "2026-03-02", bot: "GPTBot", requests: 2, pages: 2 },
      ]);
      const paths = (await h.store.crawlerPathTotals(args())).filter((p) => p.bot === "GPTBot").sort((a, b) => a.path.localeCompare(b.path));
      expect(paths.map(({ bot, path, hit, requests, refused, not_found, server_errors }) => ({ bot, path, hit, requests, refused, not_found, server_errors }))).toEqual([
        { bot: "GPTBot", path: "/a", hit: "page", requests: 2, refused: 1, not_found: 0, server_errors: 0 },
        { bot: "GPTBot", path: "/robots.txt", hit: "robots", requests: 1, refused: 0, not_found: 0, server_errors: 0 },
      ]);
      expect(await h.store.crawlerTotals(args({ window: { from: "2025-01-01", to: "2025-01-31" } }))).toEqual([]);
      expect(await h.store.crawlerPathTotals(args({ window: { from: "2025-01-01", to: "2025-01-31" } }))).toEqual([]);
    });
  });
}
