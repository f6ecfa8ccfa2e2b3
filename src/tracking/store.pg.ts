// The tracking store on Postgres (store.ts says what each operation does; store.sqlite.ts is the
// SQLite twin). Several instances write at once here, so each write is one transaction that takes
// the locks it needs instead of relying on SQLite's single writer.
import type { SQL } from "bun";
import { alertOf, alertWindows, type VisibilityAlert } from "../insights/alerts";
import { visibilityChangeOf } from "../insights/service";
import { RESULT_MEASURES, type ResultSumsRow } from "../insights/store";
import type { DateWindow } from "../insights/window";
import { isUuid, plainRow, plainRows } from "../db/pg/values";
import { insertResults, markUnitsDone } from "../results/store.pg";
import type { ResultKey } from "../results/store";
import { failedRetryAt } from "../schedule/due";
import type { FailedUnitRow, FinishRunInput, RunBrand, RunPrompt, SummaryResultRow, TrackingStore, WriteOutcome } from "./store";
import type { ResultValues } from "./unit";

/** SQLite's truthiness of a JSON value (`CASE WHEN value ->> 'x'`): true, or a non-zero number. */
const truthy = (json: string) => `(CASE jsonb_typeof(${json}) WHEN 'boolean' THEN (${json})::boolean WHEN 'number' THEN (${json})::numeric <> 0 ELSE false END)`;
const arrayOf = (column: string) => `(CASE WHEN jsonb_typeof(${column}) = 'array' THEN ${column} ELSE '[]'::jsonb END)`;

// What the summary reads of each answer, cut down by Postgres from the stored jsonb (as the SQLite
// store does): the citations' keys, the brand's uncited sources of answers citing none of its
// pages, the passages of negative answers. Text, as the interface keeps the JSON columns.
const SUMMARY_SQL = `
  SELECT id, prompt_id, platform, model, mentioned::int AS mentioned, mention_count, mention_position, competitor_mentions::text AS competitor_mentions,
         citation_count, brand_citation_count, visibility_score, sentiment, sentiment_score, created_at, brand_id,
         (SELECT coalesce(json_agg(json_build_object('domain', e ->> 'domain', 'normalized_url', e ->> 'normalized_url', 'is_brand', ${truthy("e -> 'is_brand'")},
                    'competitor_id', e ->> 'competitor_id') ORDER BY o), '[]'::json)
            FROM jsonb_array_elements(${arrayOf("citations")}) WITH ORDINALITY AS t(e, o))::text AS citations,
         CASE WHEN brand_citation_count = 0 THEN
           (SELECT coalesce(json_agg(json_build_object('normalized_url', e ->> 'normalized_url', 'is_brand', true, 'cited', false) ORDER BY o), '[]'::json)
              FROM jsonb_array_elements(${arrayOf("sources")}) WITH ORDINALITY AS t(e, o)
             WHERE ${truthy("e -> 'is_brand'")} AND NOT ${truthy("e -> 'cited'")})::text ELSE '[]' END AS sources,
         CASE WHEN sentiment = 'negative' THEN json_build_object('sentiment_passages', CASE WHEN jsonb_typeof(details) = 'object' THEN details -> 'sentiment_passages' END)::text
              ELSE '{}' END AS details
    FROM prompt_results WHERE job_id = $1 ORDER BY created_at, id`;

/**
 * Results gathered for up to 150 ms a commit. A commit's rollup triggers cost PostgreSQL ~6 ms
 * whatever its size (some 45 statements) plus ~1.3 ms a result: at the writer's default 10 ms a
 * commit held 5–16 results, and in bench/postgres.ts's 10,000-unit run PostgreSQL's CPU went
 * 24.4–25.5 s → 20.1 s with this window (19.0 s at 300 ms). The calls do not wait on it (a unit's
 * slot is released when the engine answers, not when its row commits); the rows' visibility and a
 * job's end (its last commit, then its summary and webhooks) wait up to 150 ms more.
 */
const PG_WRITE_BATCHING = { idleMs: 50, maxWaitMs: 150 };

/**
 * A table is analyzed after a run when the rows changed since its last analysis are at least this
 * many and this share of its rows (autovacuum's own defaults are 50 rows and 10 %, seen within a
 * minute); at most STALE_TABLES_MAX a call, the most changed first.
 */
const STALE_ROWS_MIN = 1000;
const STALE_SHARE_MIN = 0.2;
const STALE_TABLES_MAX = 16;

export function createPgTrackingStore(sql: SQL): TrackingStore {
  return {
    writeBatching: PG_WRITE_BATCHING,
    async brandForRun(brandId) {
      if (!isUuid(brandId)) return null;
      const [row] = await sql`SELECT id, organization_id, region, is_active::int AS is_active FROM brands WHERE id = ${brandId}`;
      return row ? plainRow<RunBrand>(row) : null;
    },
    async enabledPlatforms(brandId) {
      if (!isUuid(brandId)) return [];
      return [...(await sql`SELECT platform, model, samples FROM brand_platforms WHERE brand_id = ${brandId} AND is_enabled ORDER BY platform COLLATE "C"`)];
    },
    async platformSamples(brandId) {
      if (!isUuid(brandId)) return [];
      return [...(await sql`SELECT platform, samples FROM brand_platforms WHERE brand_id = ${brandId}`)];
    },
    async activePrompts(brandId) {
      if (!isUuid(brandId)) return [];
      return [...(await sql`SELECT id, platforms::text AS platforms, models::text AS models, regions::text AS regions FROM prompts WHERE brand_id = ${brandId} AND is_active ORDER BY created_at, id`)] as RunPrompt[];
    },
    async brandsBySlug({ slug, organization }) {
      const org = organization ?? null;
      return [
        ...(await sql`SELECT b.id, o.name AS org FROM brands b JOIN organizations o ON o.id = b.organization_id
                       WHERE b.slug = ${slug} AND (${org}::text IS NULL OR o.name = ${org} OR o.slug = ${org})`),
      ];
    },

    async recordResults(batch) {
      if (!batch.length) return [];
      return sql.begin(async (tx) => {
        // The jobs' rows are share-locked: a cancel (or a finish) waits for this batch, and a job
        // cancelled before it keeps nothing of it, as under SQLite's single writer.
        const jobIds = [...new Set(batch.map((p) => p.task.jobId))].filter(isUuid);
        const active = new Set<string>(
          (await tx`SELECT id FROM jobs WHERE id = ANY(${tx.array(jobIds, "uuid")}) AND status = 'active' ORDER BY id FOR SHARE`).map((r: { id: string }) => r.id),
        );
        const outcomes: (WriteOutcome | null)[] = [];
        const answers: { index: number; key: ResultKey; values: ResultValues }[] = [];
        const done: { job_id: string; seq: number; error: string | null }[] = [];
        batch.forEach(({ task, outcome }, index) => {
          if (!active.has(task.jobId)) return void outcomes.push("job_inactive");
          if (outcome.kind === "no_surface") {
            done.push({ job_id: task.jobId, seq: task.seq, error: `no_surface: ${outcome.reason}` });
            return void outcomes.push("no_surface");
          }
          // Time-ordered ids append to the primary-key index; the requested model keys the row.
          const key = { id: Bun.randomUUIDv7(), jobId: task.jobId, brandId: task.brandId, promptId: task.promptId, platform: task.platform, model: task.model, region: task.region, sample: task.sample };
          answers.push({ index, key, values: JSON.parse(outcome.result) as ResultValues });
          done.push({ job_id: task.jobId, seq: task.seq, error: null });
          outcomes.push(null);
        });
        const written = await insertResults(tx, answers);
        for (const a of answers) outcomes[a.index] = written.has(a.key.id) ? "written" : "duplicate";
        await markUnitsDone(tx, done);
        return outcomes as WriteOutcome[];
      });
    },

    async runForSummary({ jobId, brandId }) {
      const job = isUuid(jobId);
      const brandOk = isUuid(brandId);
      // Five independent reads side by side: the run's end waits on them (issue #29).
      const [rows, failedUnits, noSurface, jobRow, brand, texts] = await Promise.all([
        job ? sql.unsafe(SUMMARY_SQL, [jobId]).then((r) => plainRows<SummaryResultRow>(r)) : [],
        job ? sql`SELECT seq, prompt_id, platform, model, region, error FROM job_units WHERE job_id = ${jobId} AND status = 'failed' ORDER BY seq`.then((r) => [...r] as FailedUnitRow[]) : [],
        job ? sql`SELECT platform, count(*)::int AS n FROM job_units WHERE job_id = ${jobId} AND status = 'done' AND error LIKE 'no_surface%' GROUP BY platform`.then((r) => [...r] as { platform: string; n: number }[]) : [],
        job ? sql`SELECT created_at, coalesce(jsonb_typeof(data -> 'promptIds'), 'null') = 'null' AS every FROM jobs WHERE id = ${jobId}`.then((r) => r[0] as { created_at: Date; every: boolean } | undefined) : undefined,
        brandOk ? sql`SELECT name FROM brands WHERE id = ${brandId}`.then((r) => r[0] as { name: string } | undefined) : undefined,
        brandOk ? sql`SELECT id, text FROM prompts WHERE brand_id = ${brandId}`.then((r) => [...r] as { id: string; text: string }[]) : [],
      ]);
      return {
        results: rows,
        failedUnits,
        noSurface: noSurface.reduce((n, r) => n + r.n, 0),
        noSurfacePlatforms: noSurface.map((r) => r.platform),
        job: jobRow ? { createdAt: new Date(jobRow.created_at).toISOString(), everyPrompt: jobRow.every } : null,
        brandName: brand?.name ?? null,
        promptTexts: new Map(texts.map((p) => [p.id, p.text])),
      };
    },

    async refreshStatistics() {
      const stale = (await sql`
        SELECT s.relname AS name FROM pg_stat_user_tables AS s JOIN pg_class AS c ON c.oid = s.relid
         WHERE s.schemaname = 'public' AND s.n_mod_since_analyze >= ${STALE_ROWS_MIN} AND s.n_mod_since_analyze >= ${STALE_SHARE_MIN} * greatest(c.reltuples, 0)
         ORDER BY s.n_mod_since_analyze DESC LIMIT ${STALE_TABLES_MAX}`) as { name: string }[];
      // SKIP_LOCKED: another instance analyzing the same table after its own run is enough.
      for (const { name } of stale) await sql.unsafe(`ANALYZE (SKIP_LOCKED) "public"."${name.replaceAll('"', '""')}"`);
      return stale.map((t) => t.name);
    },

    async finishRun(input) {
      const at = input.now.toISOString();
      return sql.begin(async (tx) => {
        if (!isUuid(input.jobId)) return false;
        // The queue's finish first (src/queue/store.ts: only while `owner` holds the lease): an
        // instance whose lease ran out (another took the job over) records nothing — the run is the
        // other's to finish, and recording it here too would send its webhooks twice.
        const finished = await tx`
          UPDATE jobs SET status = ${input.status}, result = ${JSON.stringify(input.result) ?? null}, failed_reason = ${input.jobFailedReason}, progress = ${input.progress}::jsonb,
                 finished_at = ${at}, updated_at = ${at}, lease_owner = NULL, lease_until = NULL
           WHERE id = ${input.jobId} AND lease_owner = ${input.owner} AND status = 'active'`;
        if (finished.count === 0) return false;
        const created = await upsertSuggestions(tx, input, at);
        if (input.checked) {
          const { at: checkedAt, platforms, failed } = input.checked;
          // Locked in one order (two runs of a brand ending together, one's checked platform the
          // other's failed one, would otherwise wait on each other), then each written.
          const rows = (await tx`SELECT platform, check_frequency, failed_runs FROM brand_platforms WHERE brand_id = ${input.brandId} AND platform = ANY(${tx.array([...platforms, ...failed], "text")}) ORDER BY platform FOR UPDATE`) as { platform: string; check_frequency: string; failed_runs: number }[];
          for (const row of rows)
            if (platforms.includes(row.platform))
              // Never back: a run made earlier may end after a later one.
              await tx`UPDATE brand_platforms SET last_checked_at = GREATEST(coalesce(last_checked_at, ${checkedAt}::timestamptz), ${checkedAt}::timestamptz), failed_runs = 0, retry_at = NULL WHERE brand_id = ${input.brandId} AND platform = ${row.platform}`;
            else await tx`UPDATE brand_platforms SET failed_runs = failed_runs + 1, retry_at = ${failedRetryAt(row.check_frequency, row.failed_runs, checkedAt)} WHERE brand_id = ${input.brandId} AND platform = ${row.platform}`;
        }
        if (input.organizationId) {
          const events: { type: string; data: unknown }[] = [
            { type: input.status === "completed" ? "tracking.completed" : "tracking.failed", data: { job_id: input.jobId, status: input.status, failed_reason: input.eventFailedReason, result: input.result } },
            ...created.map((s) => ({ type: "suggestion.created", data: { job_id: input.jobId, suggestion: s } })),
          ];
          for (const alert of await visibilityAlerts(tx, { brandId: input.brandId, platforms: input.answeredPlatforms, now: input.now, points: input.visibilityAlertPoints }))
            events.push({ type: "visibility.changed", data: { job_id: input.jobId, ...alert } });
          await recordEvents(tx, { organizationId: input.organizationId, brandId: input.brandId, events, at });
        }
        return true;
      });
    },
  };
}

/** Upserts the run's suggestions in one statement; the ones it created, in the input's order. */
async function upsertSuggestions(tx: SQL, input: FinishRunInput, at: string) {
  // One row per (type, key), the last one given winning as when upserted one by one; a fixed order,
  // so two runs of a brand finishing at once lock its suggestions in the same order.
  const byKey = new Map(input.suggestions.map((s, n) => [`${s.type}\u0000${s.key}`, { ...s, n }]));
  if (!byKey.size) return [];
  const rows = [...byKey.values()];
  const upserted = await tx`
    INSERT INTO suggestions (brand_id, type, key, title, detail, evidence, priority, created_at, updated_at)
    SELECT ${input.brandId}, type, key, title, detail, evidence, priority, ${at}, ${at}
      FROM jsonb_to_recordset(${rows}::jsonb) AS x(type text, key text, title text, detail text, evidence jsonb, priority text, n int)
     ORDER BY type, key
    ON CONFLICT (brand_id, type, key) DO UPDATE SET title = excluded.title, detail = excluded.detail, evidence = excluded.evidence,
      priority = excluded.priority, updated_at = excluded.updated_at
    RETURNING id, type, key, (xmax = 0) AS created`;
  const ids = new Map<string, { id: string; created: boolean }>(upserted.map((r: { id: string; type: string; key: string; created: boolean }) => [`${r.type}\u0000${r.key}`, r]));
  return rows
    .sort((a, b) => a.n - b.n)
    .filter((s) => ids.get(`${s.type}\u0000${s.key}`)?.created)
    .map((s) => ({ id: ids.get(`${s.type}\u0000${s.key}`)!.id, type: s.type, key: s.key, title: s.title, priority: s.priority }));
}

/**
 * Webhook events of one brand with one pending delivery each per subscribed, active endpoint of the
 * organization (the rows src/webhooks/events.sqlite.ts writes), in the caller's transaction: an
 * event is never recorded without its deliveries. The payload is text, signed as stored.
 */
async function recordEvents(tx: SQL, input: { organizationId: string; brandId: string; events: { type: string; data: unknown }[]; at: string }) {
  const rows = input.events.map((e) => ({ id: crypto.randomUUID(), type: e.type, payload: JSON.stringify(e.data) }));
  await tx`
    INSERT INTO webhook_events (id, organization_id, brand_id, type, payload, created_at)
    SELECT id, ${input.organizationId}, ${input.brandId}, type, payload, ${input.at} FROM jsonb_to_recordset(${rows}::jsonb) AS x(id uuid, type text, payload text)`;
  // An endpoint with no event list gets every event; one scoped to a brand gets only that brand's.
  await tx`
    INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_at, created_at, updated_at)
    SELECT e.id, x.id, 'pending', ${input.at}, ${input.at}, ${input.at}
      FROM jsonb_to_recordset(${rows}::jsonb) AS x(id uuid, type text)
      JOIN webhook_endpoints e ON e.organization_id = ${input.organizationId} AND e.is_active AND (e.brand_id IS NULL OR e.brand_id = ${input.brandId})
       AND (jsonb_typeof(e.events) <> 'array' OR jsonb_array_length(e.events) = 0 OR e.events @> jsonb_build_array(x.type))`;
}

/**
 * The run's visibility alerts (src/insights/alerts.ts decides), read inside its transaction. The
 * two weeks' sums come from a plain query of prompt_results, not from the rollups SQLite reads:
 * the alert needs only answers and answers naming the brand per (prompt, platform, reported
 * model), which a brand's two weeks of results give directly. A transaction lock per brand makes
 * two runs finishing together decide one after the other, so they cannot both alert for a day.
 */
async function visibilityAlerts(tx: SQL, input: { brandId: string; platforms: string[]; now: Date; points: number }): Promise<VisibilityAlert[]> {
  if (!input.platforms.length) return [];
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`answerwatch:visibility-alert:${input.brandId}`}, 0))`;
  const windows = alertWindows(input.now);
  const sums = async (platform: string, window: DateWindow) => {
    const rows = await tx`
      SELECT prompt_id, platform, reported_model, count(*)::int AS results, (count(*) FILTER (WHERE mentioned))::int AS mentioned
        FROM prompt_results
       WHERE brand_id = ${input.brandId} AND platform = ${platform} AND created_at >= ${`${window.from}T00:00:00.000Z`} AND created_at < ${`${nextDay(window.to)}T00:00:00.000Z`}
         -- Non-branded prompts, as alertArgs (src/insights/alerts.ts) reads them on SQLite.
         AND prompt_id IN (SELECT id FROM prompts WHERE brand_id = ${input.brandId} AND NOT is_branded)
       GROUP BY prompt_id, platform, reported_model -- VISIBILITY_CHANGE_GROUPS (src/insights/service.ts)
    `;
    // The other measures are not read by the visibility change: zero.
    const zero = Object.fromEntries(RESULT_MEASURES.map((m) => [m, 0]));
    return rows.map((r: Record<string, unknown>) => ({ ...zero, ...r }) as ResultSumsRow);
  };
  const alerts: VisibilityAlert[] = [];
  for (const platform of input.platforms) {
    const alert = alertOf(platform, windows, visibilityChangeOf(await sums(platform, windows.window), await sums(platform, windows.previous)), input.points);
    if (!alert) continue;
    const [fired] = await tx`
      SELECT 1 FROM webhook_events WHERE brand_id = ${input.brandId} AND type = 'visibility.changed' AND created_at >= ${`${windows.today}T00:00:00.000Z`}
         AND payload::jsonb ->> 'platform' = ${platform} LIMIT 1`;
    if (!fired) alerts.push(alert);
  }
  return alerts;
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
