// The one way result rows enter Postgres (the counterpart of store.sqlite.ts): prompt_results rows
// and their citation rows, a whole batch in a few multi-row statements, inside the caller's
// transaction. The batch travels as ONE jsonb parameter (an array of objects, never a JSON string)
// and is unpacked by jsonb_to_recordset, so a batch of any size is one round trip per statement.
import type { SQL } from "bun";
import type { Citation } from "../analysis/citations";
import type { ResultValues } from "../tracking/unit";
import type { ResultKey } from "./store";
import { withoutNul } from "../db/pg/values";

/** The columns JSON text holds in ResultValues, stored as jsonb here. */
const parseJson = (text: string | undefined, fallback: unknown): unknown => (text === undefined ? fallback : JSON.parse(text));

/**
 * Inserts the results (a unit that already has its row is skipped: a repeated unit is a no-op) and
 * one citation row per entry of each inserted result's `citations`. Returns the ids inserted. Call
 * inside a transaction; two entries of one batch for the same unit: the first one is kept.
 */
export async function insertResults(tx: SQL, batch: { key: ResultKey; values: ResultValues }[]): Promise<Set<string>> {
  if (!batch.length) return new Set();
  const rows = batch.map(({ key, values: r }) => withoutNul({
    id: key.id, job_id: key.jobId, brand_id: key.brandId, prompt_id: key.promptId, platform: key.platform, model: key.model, region: key.region, sample: key.sample ?? 0,
    reported_model: r.reported_model ?? "", surface: r.surface, response: r.response, mentioned: !!r.mentioned, mention_count: r.mention_count, mention_position: r.mention_position,
    competitor_mentions: parseJson(r.competitor_mentions, []), citations: parseJson(r.citations, []), citation_count: r.citation_count, brand_citation_count: r.brand_citation_count,
    sources: parseJson(r.sources, []), source_count: r.source_count ?? 0, sentiment: r.sentiment, sentiment_score: r.sentiment_score, visibility_score: r.visibility_score,
    search_queries: parseJson(r.search_queries, []), details: parseJson(r.details, {}), created_at: key.createdAt ?? null, n: 0,
  }));
  rows.forEach((row, i) => (row.n = i));
  // In the batch's order, so of two entries for one unit the first is the one kept.
  const inserted = await tx`
    INSERT INTO prompt_results (id, job_id, brand_id, prompt_id, platform, model, region, sample, reported_model, surface, response, mentioned, mention_count,
      mention_position, competitor_mentions, citations, citation_count, brand_citation_count, sources, source_count, sentiment, sentiment_score,
      visibility_score, search_queries, details, created_at)
    SELECT id, job_id, brand_id, prompt_id, platform, model, region, sample, reported_model, surface, response, mentioned, mention_count,
           mention_position, competitor_mentions, citations, citation_count, brand_citation_count, sources, source_count, sentiment, sentiment_score,
           visibility_score, search_queries, details, coalesce(created_at, now())
      FROM jsonb_to_recordset(${rows}::jsonb) AS x(id uuid, job_id uuid, brand_id uuid, prompt_id uuid, platform text, model text, region text, sample int,
           reported_model text, surface text, response text, mentioned boolean, mention_count int, mention_position int, competitor_mentions jsonb, citations jsonb,
           citation_count int, brand_citation_count int, sources jsonb, source_count int, sentiment text, sentiment_score float8, visibility_score float8,
           search_queries jsonb, details jsonb, created_at timestamptz, n int)
     ORDER BY n
    ON CONFLICT (job_id, prompt_id, platform, model, region, sample) DO NOTHING
    RETURNING id`;
  const ids = new Set<string>(inserted.map((r: { id: string }) => r.id));
  const cited = rows
    .filter((row) => ids.has(row.id))
    .flatMap((row) =>
      (row.citations as Citation[]).map((c) => ({
        id: Bun.randomUUIDv7(), result_id: row.id, brand_id: row.brand_id, position: c.position, url: c.url, normalized_url: c.normalized_url, title: c.title ?? "",
        domain: c.domain ?? c.host ?? "", is_brand: !!c.is_brand, competitor_id: c.competitor_id, created_at: row.created_at,
      })),
    );
  if (!cited.length) return ids;
  // Every cited URL once: missing ones added in a fixed order (two batches adding the same URLs
  // wait for each other instead of deadlocking), a concurrent insert of the same URL caught by the
  // unique index.
  await tx`
    INSERT INTO citation_urls (url, normalized_url, title)
    SELECT DISTINCT x.url, x.normalized_url, x.title FROM jsonb_to_recordset(${cited}::jsonb) AS x(url text, normalized_url text, title text)
     WHERE NOT EXISTS (SELECT 1 FROM citation_urls u WHERE u.url = x.url AND u.normalized_url = x.normalized_url AND u.title = x.title)
     ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING`;
  // Each URL's id looked up by its unique key (a subquery per row): a join was planned from
  // statistics of a citation_urls a fraction of its size, and scanned all of it per batch.
  await tx`
    INSERT INTO citations (id, result_id, brand_id, position, url_id, domain, is_brand, competitor_id, created_at)
    SELECT x.id, x.result_id, x.brand_id, x.position,
           (SELECT u.id FROM citation_urls u WHERE u.url = x.url AND u.normalized_url = x.normalized_url AND u.title = x.title),
           x.domain, x.is_brand, x.competitor_id, coalesce(x.created_at, now())
      FROM jsonb_to_recordset(${cited}::jsonb) AS x(id uuid, result_id uuid, brand_id uuid, position int, url text, normalized_url text, title text, domain text,
           is_brand boolean, competitor_id uuid, created_at timestamptz)`;
  return ids;
}

/** Marks pending units done (error: why, for a unit done without an answer); each (job, seq) once, the first entry kept. */
export async function markUnitsDone(tx: SQL, units: { job_id: string; seq: number; error: string | null }[]): Promise<void> {
  const seen = new Set<string>();
  const once = units.filter((u) => !seen.has(`${u.job_id}:${u.seq}`) && seen.add(`${u.job_id}:${u.seq}`));
  if (!once.length) return;
  await tx`
    UPDATE job_units AS u SET status = 'done', attempts = u.attempts + 1, error = x.error
      FROM jsonb_to_recordset(${once}::jsonb) AS x(job_id uuid, seq int, error text)
     WHERE u.job_id = x.job_id AND u.seq = x.seq AND u.status = 'pending'`;
}
