// The tracking store on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import { unpackedSql } from "../db/text-codec";
import { visibilityAlerts } from "../insights/alerts.sqlite";
import { prepareJobFinish } from "../queue/store.sqlite";
import { createResultStore } from "../results/store.sqlite";
import { failedRetryAt } from "../schedule/due";
import { recordEvent } from "../webhooks/events.sqlite";
import type { FailedUnitRow, ResultToRecord, RunBrand, RunPrompt, SummaryResultRow, TrackingStore, WriteOutcome } from "./store";
import type { ResultValues } from "./unit";

export function createSqliteTrackingStore(sqlite: Database): TrackingStore {
  const results = createResultStore(sqlite);
  const finishJob = prepareJobFinish(sqlite);
  const q = {
    brand: sqlite.prepare("SELECT id, organization_id, region, is_active FROM brands WHERE id = ?"),
    brandPlatforms: sqlite.prepare("SELECT platform, model, samples FROM brand_platforms WHERE brand_id = ? AND is_enabled = 1 ORDER BY platform"),
    samplesOf: sqlite.prepare("SELECT platform, samples FROM brand_platforms WHERE brand_id = ?"),
    prompts: sqlite.prepare("SELECT id, platforms, models, regions FROM prompts WHERE brand_id = ? AND is_active = 1 ORDER BY created_at, id"),
    jobStatus: sqlite.prepare("SELECT status FROM jobs WHERE id = ?"),
    unitDone: sqlite.prepare("UPDATE job_units SET status = 'done', attempts = attempts + 1, error = ?3 WHERE job_id = ?1 AND seq = ?2 AND status = 'pending'"),
  };

  function recordOne({ task, outcome }: ResultToRecord, jobActive: (jobId: string) => boolean): WriteOutcome {
    // A job cancelled while the answer was on its way keeps nothing of it.
    if (!jobActive(task.jobId)) return "job_inactive";
    if (outcome.kind === "no_surface") {
      q.unitDone.run(task.jobId, task.seq, `no_surface: ${outcome.reason}`);
      return "no_surface";
    }
    const r = JSON.parse(outcome.result) as ResultValues;
    // Time-ordered ids append to the primary-key indexes instead of touching a random page each.
    // The requested model keys the row (stable across dated upstream ids); the reported one is in details.
    const written = results.insert({ id: Bun.randomUUIDv7(), jobId: task.jobId, brandId: task.brandId, promptId: task.promptId, platform: task.platform, model: task.model, region: task.region, sample: task.sample }, r);
    q.unitDone.run(task.jobId, task.seq, null);
    return written ? "written" : "duplicate";
  }

  return {
    brandForRun: async (brandId) => q.brand.get(brandId) as RunBrand | null,
    enabledPlatforms: async (brandId) => q.brandPlatforms.all(brandId) as { platform: string; model: string | null; samples: number }[],
    platformSamples: async (brandId) => q.samplesOf.all(brandId) as { platform: string; samples: number }[],
    activePrompts: async (brandId) => q.prompts.all(brandId) as RunPrompt[],
    async brandsBySlug({ slug, organization }) {
      return sqlite
        .query("SELECT b.id, o.name AS org FROM brands b JOIN organizations o ON o.id = b.organization_id WHERE b.slug = ? AND (?2 IS NULL OR o.name = ?2 OR o.slug = ?2)")
        .all(slug, organization ?? null) as { id: string; org: string }[];
    },

    async recordResults(batch) {
      return sqlite
        .transaction(() => {
          // A batch holds a few jobs at most: their status is read once, inside the transaction.
          const active = new Map<string, boolean>();
          const jobActive = (jobId: string) => {
            let yes = active.get(jobId);
            if (yes === undefined) active.set(jobId, (yes = (q.jobStatus.get(jobId) as { status: string } | null)?.status === "active"));
            return yes;
          };
          return batch.map((p) => recordOne(p, jobActive));
        })
        .immediate();
    },

    async runForSummary({ jobId, brandId }) {
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
                    visibility_score, sentiment, sentiment_score, created_at, brand_id, ${unpackedSql("citations")} AS c,
                    CASE WHEN brand_citation_count = 0 THEN ${unpackedSql("sources")} END AS s, CASE WHEN sentiment = 'negative' THEN ${unpackedSql("details")} END AS d
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
        .all(jobId) as SummaryResultRow[];
      const failedUnits = sqlite.query("SELECT seq, prompt_id, platform, model, region, error FROM job_units WHERE job_id = ? AND status = 'failed' ORDER BY seq").all(jobId) as FailedUnitRow[];
      const noSurface = sqlite.query("SELECT platform, count(*) AS n FROM job_units WHERE job_id = ? AND status = 'done' AND error LIKE 'no_surface%' GROUP BY platform").all(jobId) as { platform: string; n: number }[];
      const brand = sqlite.query("SELECT name FROM brands WHERE id = ?").get(brandId) as { name: string } | null;
      const promptTexts = new Map((sqlite.query("SELECT id, text FROM prompts WHERE brand_id = ?").all(brandId) as { id: string; text: string }[]).map((p) => [p.id, p.text]));
      const job = sqlite.query("SELECT created_at, json_extract(data, '$.promptIds') IS NULL AS every FROM jobs WHERE id = ?").get(jobId) as { created_at: string; every: number } | null;
      return {
        results: rows,
        failedUnits,
        noSurface: noSurface.reduce((n, r) => n + r.n, 0),
        noSurfacePlatforms: noSurface.map((r) => r.platform),
        job: job && { createdAt: job.created_at, everyPrompt: !!job.every },
        brandName: brand?.name ?? null,
        promptTexts,
      };
    },

    // SQLite's planner reads no statistics an insert makes stale: its indexes are chosen by shape.
    async refreshStatistics() {
      return [];
    },
    async finishRun(input) {
      const at = input.now.toISOString();
      return sqlite
        .transaction(() => {
          // The job's end first, only while `owner` holds the lease: a run whose lease ran out is
          // another's to finish, and is recorded (suggestions, stamps, events) by that one only.
          const finished = finishJob({ jobId: input.jobId, owner: input.owner, status: input.status, result: input.result, failedReason: input.jobFailedReason, progress: input.progress, at });
          if (!finished) return false;
          const upsert = sqlite.prepare(
            `INSERT INTO suggestions (brand_id, type, key, title, detail, evidence, priority, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)
             ON CONFLICT (brand_id, type, key) DO UPDATE SET title = excluded.title, detail = excluded.detail, evidence = excluded.evidence,
               priority = excluded.priority, updated_at = excluded.updated_at
             RETURNING id, created_at = updated_at AS created`,
          );
          const created: unknown[] = [];
          for (const s of input.suggestions) {
            const row = upsert.get(input.brandId, s.type, s.key, s.title, s.detail, JSON.stringify(s.evidence), s.priority, at) as { id: string; created: number };
            if (row.created) created.push({ id: row.id, type: s.type, key: s.key, title: s.title, priority: s.priority });
          }
          if (input.checked) {
            const { at: checkedAt, platforms, failed } = input.checked;
            // Never back: a run made earlier may end after a later one.
            const stamp = sqlite.prepare("UPDATE brand_platforms SET last_checked_at = max(coalesce(last_checked_at, ?1), ?1), failed_runs = 0, retry_at = NULL WHERE brand_id = ?2 AND platform = ?3");
            for (const p of platforms) stamp.run(checkedAt, input.brandId, p);
            const schedule = sqlite.prepare("SELECT check_frequency, failed_runs FROM brand_platforms WHERE brand_id = ? AND platform = ?");
            const wait = sqlite.prepare("UPDATE brand_platforms SET failed_runs = failed_runs + 1, retry_at = ? WHERE brand_id = ? AND platform = ?");
            for (const p of failed) {
              const row = schedule.get(input.brandId, p) as { check_frequency: string; failed_runs: number } | null;
              if (row) wait.run(failedRetryAt(row.check_frequency, row.failed_runs, checkedAt), input.brandId, p);
            }
          }
          if (input.organizationId) {
            const emit = (type: Parameters<typeof recordEvent>[1]["type"], data: unknown) =>
              recordEvent(sqlite, { organizationId: input.organizationId!, brandId: input.brandId, type, data }, at);
            emit(input.status === "completed" ? "tracking.completed" : "tracking.failed", { job_id: input.jobId, status: input.status, failed_reason: input.eventFailedReason, result: input.result });
            for (const s of created) emit("suggestion.created", { job_id: input.jobId, suggestion: s });
            // Read inside the transaction: two runs finishing together cannot both alert for the same day.
            for (const alert of visibilityAlerts(sqlite, { brandId: input.brandId, platforms: input.answeredPlatforms, now: input.now, points: input.visibilityAlertPoints }))
              emit("visibility.changed", { job_id: input.jobId, ...alert });
          }
          return true;
        })
        .immediate();
    },
  };
}
