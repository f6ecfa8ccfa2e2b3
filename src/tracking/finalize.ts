// After the last unit: summarise the run, refresh suggestions, stamp brand_platforms and
// record the lifecycle event, all in one transaction with the job's final state.
import type { Database } from "bun:sqlite";
// Straight from the modules, not the index: the main thread has no use for the sentiment lexicon.
import { summarizeResults, type ResultRow } from "../analysis/aggregate";
import type { AnalyzedSource, Citation } from "../analysis/citations";
import type { SentimentLabel } from "../analysis/sentiment";
import { buildSuggestions } from "../analysis/suggestions";
import type { QueueStore, UnitCounts } from "../queue/store";
import { visibilityAlerts } from "../insights/alerts.sqlite";
import { recordEvent } from "../webhooks/events";

export interface FailedUnit {
  seq: number;
  prompt_id: string;
  platform: string;
  model: string;
  region: string;
  reason: string;
}

interface StoredResult extends ResultRow {
  id: string;
  prompt_id: string;
  platform: string;
  citations: Citation[];
  sources: AnalyzedSource[];
  sentiment: SentimentLabel | null;
  sentiment_score: number | null;
  details: { sentiment_passages?: string[] };
}

function parseJson<T>(text: string | null, fallback: T): T {
  try {
    return text ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
}

/** One line naming each distinct cause, most frequent first: what a user must fix. */
export function describeFailures(failed: FailedUnit[]): string | null {
  if (!failed.length) return null;
  const byReason = new Map<string, number>();
  for (const f of failed) byReason.set(f.reason, (byReason.get(f.reason) ?? 0) + 1);
  return [...byReason]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} (${n} unit${n === 1 ? "" : "s"})`)
    .join("; ");
}

export function finalizeJob(input: {
  sqlite: Database;
  store: QueueStore;
  jobId: string;
  owner: string;
  brandId: string;
  organizationId: string | null;
  counts: UnitCounts;
  retries: number;
  now: () => Date;
  /** visibility.changed fires on a significant move of at least this many points (src/insights/alerts.ts). */
  visibilityAlertPoints: number;
}): { status: "completed" | "failed"; failedReason: string | null } {
  const { sqlite, store, jobId } = input;
  // Only what the summary and the suggestions read, cut down by SQLite from the stored JSON: the
  // citations' keys, the brand's uncited sources of answers that cite none of its pages, the
  // passages of negative answers. A run of 10,000 answers would otherwise decompress and parse
  // tens of megabytes here, on the serving thread.
  // Each column is decompressed once (the CTE is materialized), and sources and details only for
  // the answers whose suggestions read them.
  const valid = (column: string, empty: string) => `(CASE WHEN json_valid(r.${column}) THEN r.${column} ELSE '${empty}' END)`;
  const rows = sqlite
    .query(
      `WITH r AS MATERIALIZED (
         SELECT id, prompt_id, platform, model, mentioned, mention_count, mention_position, competitor_mentions, citation_count, brand_citation_count,
                visibility_score, sentiment, sentiment_score, created_at, brand_id, aw_text(citations) AS c,
                CASE WHEN brand_citation_count = 0 THEN aw_text(sources) END AS s, CASE WHEN sentiment = 'negative' THEN aw_text(details) END AS d
           FROM prompt_results WHERE job_id = ?)
       SELECT id, prompt_id, platform, model, mentioned, mention_count, mention_position, competitor_mentions, citation_count, brand_citation_count,
              visibility_score, sentiment, sentiment_score, created_at, brand_id,
              (SELECT json_group_array(json_object('domain', value ->> 'domain', 'normalized_url', value ->> 'normalized_url',
                        'is_brand', json(CASE WHEN value ->> 'is_brand' THEN 'true' ELSE 'false' END), 'competitor_id', value ->> 'competitor_id'))
                 FROM json_each(${valid("c", "[]")})) AS citations,
              CASE WHEN brand_citation_count = 0 THEN
                (SELECT json_group_array(json_object('normalized_url', value ->> 'normalized_url', 'is_brand', json('true'), 'cited', json('false')))
                   FROM json_each(${valid("s", "[]")}) WHERE value ->> 'is_brand' AND NOT coalesce(value ->> 'cited', 0)) ELSE '[]' END AS sources,
              CASE WHEN sentiment = 'negative' THEN json_object('sentiment_passages', json_extract(${valid("d", "{}")}, '$.sentiment_passages')) ELSE '{}' END AS details
         FROM r`,
    )
    .all(jobId) as (Omit<StoredResult, "competitor_mentions" | "mentioned" | "citations" | "sources" | "details"> & {
    competitor_mentions: string;
    mentioned: number;
    citations: string;
    sources: string;
    details: string;
  })[];
  const results: StoredResult[] = rows.map((r) => ({
    ...r,
    mentioned: !!r.mentioned,
    competitor_mentions: parseJson(r.competitor_mentions, []),
    citations: parseJson(r.citations, []),
    sources: parseJson(r.sources, []),
    details: parseJson(r.details, {}),
  }));
  const failedUnits = (
    sqlite.query("SELECT seq, prompt_id, platform, model, region, error FROM job_units WHERE job_id = ? AND status = 'failed' ORDER BY seq").all(jobId) as (Omit<FailedUnit, "reason"> & {
      error: string | null;
    })[]
  ).map(({ error, ...u }) => ({ ...u, reason: error ?? "unknown error" }));
  const noSurface = (sqlite.query("SELECT count(*) AS n FROM job_units WHERE job_id = ? AND status = 'done' AND error LIKE 'no_surface%'").get(jobId) as { n: number }).n;

  const platforms = [...new Set([...results.map((r) => r.platform), ...failedUnits.map((f) => f.platform)])].sort();
  const perPlatform = Object.fromEntries(
    platforms.map((p) => {
      const mine = results.filter((r) => r.platform === p);
      return [p, { answered: mine.length, failed: failedUnits.filter((f) => f.platform === p).length, ...summarizeResults(mine, input.brandId) }];
    }),
  );

  // Suggestions read what the workers stored; nothing is analysed twice.
  const brand = sqlite.query("SELECT name FROM brands WHERE id = ?").get(input.brandId) as { name: string } | null;
  // Titles quote the prompt's text, never its id.
  const promptTexts = new Map((sqlite.query("SELECT id, text FROM prompts WHERE brand_id = ?").all(input.brandId) as { id: string; text: string }[]).map((p) => [p.id, p.text]));
  const suggestions = brand
    ? buildSuggestions({
        brand: { name: brand.name },
        answers: results.map((r) => ({
          prompt_id: r.prompt_id,
          prompt_text: promptTexts.get(r.prompt_id),
          platform: r.platform,
          analysis: {
            mentioned: r.mentioned,
            competitor_mentions: r.competitor_mentions as never,
            citations: r.citations,
            sources: r.sources,
            brand_citation_count: r.brand_citation_count,
            sentiment: r.sentiment,
            sentiment_score: r.sentiment_score,
            sentiment_passages: r.details.sentiment_passages ?? [],
          },
        })),
      })
    : [];

  const succeeded = results.length + noSurface;
  const status = succeeded > 0 || input.counts.total === 0 ? "completed" : "failed";
  const failedReason = describeFailures(failedUnits);
  const at = input.now().toISOString();
  const result = {
    units: { total: input.counts.total, answered: results.length, no_surface: noSurface, failed: failedUnits.length },
    retries: input.retries,
    ...summarizeResults(results, input.brandId),
    per_platform: perPlatform,
    failed_units: failedUnits,
    suggestions: suggestions.length,
  };

  sqlite.transaction(() => {
    const upsert = sqlite.prepare(
      `INSERT INTO suggestions (brand_id, type, key, title, detail, evidence, priority, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)
       ON CONFLICT (brand_id, type, key) DO UPDATE SET title = excluded.title, detail = excluded.detail, evidence = excluded.evidence,
         priority = excluded.priority, updated_at = excluded.updated_at
       RETURNING id, created_at = updated_at AS created`,
    );
    const created: unknown[] = [];
    for (const s of suggestions) {
      const row = upsert.get(input.brandId, s.type, s.key, s.title, s.detail, JSON.stringify(s.evidence), s.priority, at) as { id: string; created: number };
      if (row.created) created.push({ id: row.id, type: s.type, key: s.key, title: s.title, priority: s.priority });
    }
    const answeredPlatforms = new Set(results.map((r) => r.platform));
    const stamp = sqlite.prepare("UPDATE brand_platforms SET last_checked_at = ? WHERE brand_id = ? AND platform = ?");
    for (const p of answeredPlatforms) stamp.run(at, input.brandId, p);
    if (input.organizationId) {
      const emit = (type: Parameters<typeof recordEvent>[1]["type"], data: unknown) =>
        recordEvent(sqlite, { organizationId: input.organizationId!, brandId: input.brandId, type, data }, at);
      emit(status === "completed" ? "tracking.completed" : "tracking.failed", { job_id: jobId, status, failed_reason: failedReason, result });
      for (const s of created) emit("suggestion.created", { job_id: jobId, suggestion: s });
      // Read inside the transaction: two runs finishing together cannot both alert for the same day.
      for (const alert of visibilityAlerts(sqlite, { brandId: input.brandId, platforms: [...answeredPlatforms], now: input.now(), points: input.visibilityAlertPoints }))
        emit("visibility.changed", { job_id: jobId, ...alert });
    }
    const progress = { phase: status === "completed" ? "done" : "failed", completed: input.counts.done + input.counts.failed, total: input.counts.total };
    store.finish(jobId, input.owner, status, result, status === "failed" ? (failedReason ?? "no unit succeeded") : failedReason, progress);
  }).immediate();
  return { status, failedReason };
}
