// The finalizer reads only a projection of each stored answer (citation keys, the brand's uncited
// sources, negative passages) to keep a 10,000-answer run's memory flat. The suggestions it writes
// must be exactly those buildSuggestions makes from the full answers, computed here from the
// values the test stored.
import { expect, test } from "bun:test";
import { join } from "node:path";
import type { AnalyzedSource, Citation } from "../../src/analysis/citations";
import { buildSuggestions, type SuggestionAnswer } from "../../src/analysis/suggestions";
import { DB_FILE } from "../../src/db/open";
import { openDatabase } from "../../src/database";
import { createSqliteQueueStore } from "../../src/queue/store.sqlite";
import { createSqliteTrackingStore } from "../../src/tracking/store.sqlite";
import { createResultStore } from "../../src/results/store.sqlite";
import { finalizeJob } from "../../src/tracking/finalize";
import { tempDir } from "../helpers/app";
import { seededRandom } from "../helpers/random";

test("suggestions from the finalizer's projection equal buildSuggestions over the full answers", async () => {
  const { pick, chance, int } = seededRandom(99);
  const dbh = openDatabase(join(tempDir(), DB_FILE));
  const db = dbh.sqlite;
  db.run("INSERT INTO organizations (id, name, slug) VALUES ('o', 'O', 'o')");
  db.run("INSERT INTO brands (id, organization_id, name, slug) VALUES ('b', 'o', 'Acme', 'acme')");
  db.run("INSERT INTO competitors (id, brand_id, name) VALUES ('c1', 'b', 'Globex')");
  db.run("INSERT INTO prompt_sets (id, brand_id, name) VALUES ('s', 'b', 'S')");
  const prompts = ["p1", "p2", "p3", "p4"];
  for (const p of prompts) db.run("INSERT INTO prompts (id, prompt_set_id, brand_id, text) VALUES (?, 's', 'b', ?)", [p, `question ${p}`]);
  const store = createSqliteQueueStore(db);
  const platforms = ["chatgpt", "perplexity"];
  const units = prompts.flatMap((promptId) => platforms.map((platform) => ({ promptId, platform, model: "m", region: "" })));
  const jobId = await store.enqueue({ type: "tracking", brandId: "b", organizationId: "o", data: {}, units });
  const claimed = (await store.claim({ owner: "owner", leaseMs: 60_000 }))!;
  expect(claimed.id).toBe(jobId);

  const domains = ["acme.com", "globex.com", "news.example", "wiki.example", "blog.example"];
  const answers: SuggestionAnswer[] = [];
  const results = createResultStore(db);
  units.forEach((u, seq) => {
    const citations: Citation[] = Array.from({ length: int(5) }, (_, i) => {
      const domain = pick(domains);
      return { position: i + 1, url: `https://${domain}/${i}?q=1`, normalized_url: `${domain}/${i}`, domain, host: domain, title: `Title ${i} `.repeat(10), is_brand: domain === "acme.com", competitor_id: domain === "globex.com" ? "c1" : null };
    });
    const sources: AnalyzedSource[] = [
      ...citations.map((c) => ({ ...c, cited: true })),
      ...(chance(0.6) ? [{ position: 9, url: "https://acme.com/pricing", normalized_url: "acme.com/pricing", domain: "acme.com", host: "acme.com", title: "Pricing", is_brand: true, competitor_id: null, cited: false }] : []),
    ] as AnalyzedSource[];
    const mentioned = chance(0.6);
    const sentiment = mentioned ? pick(["positive", "neutral", "negative"] as const) : null;
    const passages = sentiment === "negative" ? [`Acme is slow ${seq}.`, "Acme support is poor."] : mentioned ? ["Acme is fine."] : [];
    const competitor_mentions = chance(0.5) ? [{ competitor_id: "c1", name: "Globex", mention_count: 1 }] : [];
    const brandCitations = citations.filter((c) => c.is_brand).length;
    results.insert({ id: `r${seq}`, jobId, brandId: "b", promptId: u.promptId, platform: u.platform, model: "m", region: "" }, {
      surface: "api", response: "An answer. ".repeat(40), mentioned: mentioned ? 1 : 0, mention_count: mentioned ? 1 : 0, mention_position: mentioned ? 1 : null,
      competitor_mentions: JSON.stringify(competitor_mentions), citations: JSON.stringify(citations), citation_count: citations.length, brand_citation_count: brandCitations,
      sources: JSON.stringify(sources), source_count: sources.length, sentiment, sentiment_score: sentiment === "negative" ? -0.6 : mentioned ? 0.3 : null,
      visibility_score: 50, search_queries: "[]", details: JSON.stringify({ sentiment_passages: passages, list_rank: 1, geo: { b: 3 } }),
    });
    db.run("UPDATE job_units SET status = 'done' WHERE job_id = ? AND seq = ?", [jobId, seq]);
    answers.push({ prompt_id: u.promptId, prompt_text: `question ${u.promptId}`, platform: u.platform, analysis: { mentioned, competitor_mentions: competitor_mentions as never, citations, sources, brand_citation_count: brandCitations, sentiment, sentiment_score: sentiment === "negative" ? -0.6 : mentioned ? 0.3 : null, sentiment_passages: passages } });
  });
  const expected = buildSuggestions({ brand: { name: "Acme" }, answers });
  expect(new Set(expected.map((s) => s.type)).size).toBeGreaterThanOrEqual(3);

  await finalizeJob({ store: createSqliteTrackingStore(db), jobId, owner: "owner", brandId: "b", organizationId: "o", counts: await store.counts(jobId), retries: 0, now: () => new Date(), visibilityAlertPoints: 10 });
  const stored = db.query("SELECT type, key, title, detail, evidence, priority FROM suggestions WHERE brand_id = 'b' ORDER BY type, key").all() as { evidence: string }[];
  expect(stored.map((s) => ({ ...s, evidence: JSON.parse(s.evidence) }))).toEqual(
    expected.map((s) => ({ type: s.type, key: s.key, title: s.title, detail: s.detail, evidence: JSON.parse(JSON.stringify(s.evidence)), priority: s.priority })).sort((a, b) => (a.type + a.key < b.type + b.key ? -1 : 1)),
  );
  dbh.close();
});
