// backends: sqlite, postgres
// The finalizer reads only a projection of each stored answer (citation keys, the brand's uncited
// sources, negative passages) to keep a 10,000-answer run's memory flat. The suggestions it writes
// must be exactly those buildSuggestions makes from the full answers, computed here from the
// values the test stored.
import { afterAll, expect, test } from "bun:test";
import type { AnalyzedSource, Citation } from "../../src/analysis/citations";
import { buildSuggestions, type SuggestionAnswer } from "../../src/analysis/suggestions";
import { finalizeJob } from "../../src/tracking/finalize";
import type { UnitTask } from "../../src/tracking/unit";
import { seededRandom } from "../helpers/random";
import { unitDb, type ServerDb } from "../helpers/tracking-db";

const opened: ServerDb[] = [];
afterAll(() => Promise.all(opened.map((db) => db.close())));

test("suggestions from the finalizer's projection equal buildSuggestions over the full answers", async () => {
  const { pick, chance, int } = seededRandom(99);
  const { db, stores } = await unitDb();
  opened.push(db);
  const org = await db.fixtures.organization("O");
  const brand = await db.fixtures.brand(org, "Acme");
  const competitor = await db.fixtures.competitor(brand, "Globex");
  const prompts: string[] = [];
  for (let i = 1; i <= 4; i++) prompts.push(await db.fixtures.prompt(brand, `question p${i}`));
  const textOf = new Map(prompts.map((p, i) => [p, `question p${i + 1}`]));
  const store = stores.queue();
  const platforms = ["chatgpt", "perplexity"];
  const units = prompts.flatMap((promptId) => platforms.map((platform) => ({ promptId, platform, model: "m", region: "" })));
  const jobId = await store.enqueue({ type: "tracking", brandId: brand, organizationId: org, data: {}, units });
  const claimed = (await store.claim({ owner: "owner", leaseMs: 60_000 }))!;
  expect(claimed.id).toBe(jobId);

  const domains = ["acme.com", "globex.com", "news.example", "wiki.example", "blog.example"];
  const answers: SuggestionAnswer[] = [];
  const written: Parameters<typeof stores.tracking.recordResults>[0] = [];
  units.forEach((u, seq) => {
    const citations: Citation[] = Array.from({ length: int(5) }, (_, i) => {
      const domain = pick(domains);
      return { position: i + 1, url: `https://${domain}/${i}?q=1`, normalized_url: `${domain}/${i}`, domain, host: domain, title: `Title ${i} `.repeat(10), is_brand: domain === "acme.com", competitor_id: domain === "globex.com" ? competitor : null };
    });
    const sources: AnalyzedSource[] = [
      ...citations.map((c) => ({ ...c, cited: true })),
      ...(chance(0.6) ? [{ position: 9, url: "https://acme.com/pricing", normalized_url: "acme.com/pricing", domain: "acme.com", host: "acme.com", title: "Pricing", is_brand: true, competitor_id: null, cited: false }] : []),
    ] as AnalyzedSource[];
    const mentioned = chance(0.6);
    const sentiment = mentioned ? pick(["positive", "neutral", "negative"] as const) : null;
    const passages = sentiment === "negative" ? [`Acme is slow ${seq}.`, "Acme support is poor."] : mentioned ? ["Acme is fine."] : [];
    const competitor_mentions = chance(0.5) ? [{ competitor_id: competitor, name: "Globex", mention_count: 1 }] : [];
    const brandCitations = citations.filter((c) => c.is_brand).length;
    // Written as the tracking run writes them: the store's recordResults, which also marks each unit done.
    const task: UnitTask = { jobId, seq, brandId: brand, promptId: u.promptId, platform: u.platform, model: "m", region: "", sample: 0 };
    written.push({ task, outcome: { kind: "answered", result: JSON.stringify({
      surface: "api", response: "An answer. ".repeat(40), mentioned: mentioned ? 1 : 0, mention_count: mentioned ? 1 : 0, mention_position: mentioned ? 1 : null,
      competitor_mentions: JSON.stringify(competitor_mentions), citations: JSON.stringify(citations), citation_count: citations.length, brand_citation_count: brandCitations,
      sources: JSON.stringify(sources), source_count: sources.length, sentiment, sentiment_score: sentiment === "negative" ? -0.6 : mentioned ? 0.3 : null,
      visibility_score: 50, search_queries: "[]", details: JSON.stringify({ sentiment_passages: passages, list_rank: 1, geo: { b: 3 } }),
    }) } });
    answers.push({ prompt_id: u.promptId, prompt_text: textOf.get(u.promptId)!, platform: u.platform, analysis: { mentioned, competitor_mentions: competitor_mentions as never, citations, sources, brand_citation_count: brandCitations, sentiment, sentiment_score: sentiment === "negative" ? -0.6 : mentioned ? 0.3 : null, sentiment_passages: passages } });
  });
  expect(await stores.tracking.recordResults(written)).toEqual(Array(units.length).fill("written"));
  const expected = buildSuggestions({ brand: { name: "Acme" }, answers });
  expect(new Set(expected.map((s) => s.type)).size).toBeGreaterThanOrEqual(3);

  await finalizeJob({ store: stores.tracking, jobId, owner: "owner", brandId: brand, organizationId: org, counts: await store.counts(jobId), retries: 0, now: () => new Date(), visibilityAlertPoints: 10 });
  const stored = await db.inspect<{ type: string; key: string; evidence: unknown }>("SELECT type, key, title, detail, evidence, priority FROM suggestions WHERE brand_id = ? ORDER BY type, key", brand);
  // Keys sorted as the expectation is (byte order: Postgres' collation may order them otherwise).
  stored.sort((a, b) => (a.type + a.key < b.type + b.key ? -1 : 1));
  expect(stored.map((s) => ({ ...s, evidence: typeof s.evidence === "string" ? JSON.parse(s.evidence) : s.evidence }))).toEqual(
    expected.map((s) => ({ type: s.type, key: s.key, title: s.title, detail: s.detail, evidence: JSON.parse(JSON.stringify(s.evidence)), priority: s.priority })).sort((a, b) => (a.type + a.key < b.type + b.key ? -1 : 1)),
  );
  // The run's summary, in all and per platform: answers and answers naming the brand, counted here.
  const raw = (await store.get(jobId))!.result;
  const result = (typeof raw === "string" ? JSON.parse(raw) : raw) as { visibility_rate: { n: number; mentioned: number }; per_platform: Record<string, { answered: number; visibility_rate: { n: number; mentioned: number } }> };
  expect(result.visibility_rate).toMatchObject({ n: answers.length, mentioned: answers.filter((a) => a.analysis.mentioned).length });
  for (const platform of platforms) {
    const mine = answers.filter((a) => a.platform === platform);
    expect([platform, result.per_platform[platform]!.answered, result.per_platform[platform]!.visibility_rate]).toMatchObject([platform, mine.length, { n: mine.length, mentioned: mine.filter((a) => a.analysis.mentioned).length }]);
  }
});
