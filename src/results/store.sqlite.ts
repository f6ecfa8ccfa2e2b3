// The one way result rows enter the SQLite database: a prompt_results row and its citation rows, written
// together. The tracking writer and bulk imports (bench/scale.ts) go through it, so the storage
// layout (compressed answers and their JSON, cited URLs once in citation_urls: src/db/stored-columns.ts)
// is decided here once.
import type { Database } from "bun:sqlite";
import type { Citation } from "../analysis/citations";
import { packText } from "../db/text-codec";
import type { ResultValues } from "../tracking/unit";
import type { ResultKey } from "./store";

export type { ResultKey };

export function createResultStore(sqlite: Database) {
  const q = {
    insertResult: sqlite.prepare(
      `INSERT INTO prompt_results (id, job_id, brand_id, prompt_id, platform, model, region, sample, reported_model, surface, response, mentioned, mention_count,
         mention_position, competitor_mentions, citations, citation_count, brand_citation_count, sources, source_count, sentiment, sentiment_score,
         visibility_score, search_queries, details, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, coalesce(?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))
       ON CONFLICT (job_id, prompt_id, platform, model, region, sample) DO NOTHING`,
    ),
    insertCitation: sqlite.prepare(
      `INSERT INTO citations (id, result_id, brand_id, position, url_id, domain, is_brand, competitor_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, coalesce(?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`,
    ),
    findUrl: sqlite.prepare("SELECT id FROM citation_urls WHERE url = ? AND normalized_url = ? AND title = ?"),
    insertUrl: sqlite.prepare("INSERT INTO citation_urls (url, normalized_url, title) VALUES (?, ?, ?) RETURNING id"),
  };
  // Looked up each time rather than cached: an id cached from a transaction that rolled back would not exist.
  const urlId = (url: string, normalizedUrl: string, title: string): number =>
    ((q.findUrl.get(url, normalizedUrl, title) ?? q.insertUrl.get(url, normalizedUrl, title)) as { id: number }).id;

  return {
    /**
     * Inserts one result and one citation row per entry of its `citations` column. False when the
     * unit already has its row (a repeated unit is a no-op). Call inside a transaction.
     */
    insert(key: ResultKey, r: ResultValues): boolean {
      const inserted = q.insertResult.run(
        key.id, key.jobId, key.brandId, key.promptId, key.platform, key.model, key.region, key.sample ?? 0, r.reported_model ?? "", r.surface, packText(r.response), r.mentioned, r.mention_count,
        r.mention_position, r.competitor_mentions, packText(r.citations), r.citation_count, r.brand_citation_count, packText(r.sources ?? "[]"),
        r.source_count ?? 0, r.sentiment, r.sentiment_score, r.visibility_score, r.search_queries, packText(r.details), key.createdAt ?? null,
      );
      if (inserted.changes === 0) return false;
      for (const c of JSON.parse(r.citations) as Citation[]) {
        q.insertCitation.run(
          Bun.randomUUIDv7(), key.id, key.brandId, c.position, urlId(c.url, c.normalized_url, c.title ?? ""), c.domain ?? c.host ?? "", c.is_brand ? 1 : 0,
          c.competitor_id, key.createdAt ?? null,
        );
      }
      return true;
    },
  };
}

export type ResultStore = ReturnType<typeof createResultStore>;
