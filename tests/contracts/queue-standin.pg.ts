// The queue operations the tracking and demo contracts make and claim their jobs with, in plain SQL
// on Postgres, as of a clock: a stand-in until the queue's Postgres store (src/queue/store.pg.ts,
// written in parallel for #29) replaces it in tracking.pg.test.ts and demo.pg.test.ts. Not a queue:
// what it lacks rejects.
import type { SQL } from "bun";
import { plainRow, plainRows } from "../../src/db/pg/values";
import type { JobRow, QueueStore, UnitRow } from "../../src/queue/store";

export function queueStandIn(sql: SQL, now: () => Date = () => new Date()): QueueStore {
  const iso = (offsetMs = 0) => new Date(now().getTime() + offsetMs).toISOString();
  const job = (row: Record<string, unknown> | undefined) => (row ? plainRow<JobRow>(row) : null);
  const columns = sql.unsafe("*, data::text AS data, progress::text AS progress");
  const missing = (name: string) => () => Promise.reject(new Error(`the contracts' queue stand-in has no ${name}`));
  return {
    async enqueue(input) {
      const at = iso();
      return sql.begin(async (tx) => {
        const [{ id }] = await tx`INSERT INTO jobs (type, brand_id, organization_id, data, progress, max_attempts, run_at, created_by, created_at, updated_at)
          VALUES (${input.type}, ${input.brandId}, ${input.organizationId}, ${input.data ?? {}}::jsonb, ${{ phase: "waiting", completed: 0, total: input.units.length }}::jsonb,
                  ${input.maxAttempts ?? 5}, ${at}, ${input.createdBy ?? null}, ${at}, ${at}) RETURNING id`;
        for (const [seq, u] of input.units.entries())
          await tx`INSERT INTO job_units (job_id, seq, brand_id, prompt_id, platform, model, region, sample) VALUES (${id}, ${seq}, ${input.brandId}, ${u.promptId}, ${u.platform}, ${u.model}, ${u.region}, ${u.sample ?? 0})`;
        return id as string;
      });
    },
    async claim({ owner, leaseMs }) {
      const at = iso();
      const [row] = await sql`
        UPDATE jobs SET status = 'active', lease_owner = ${owner}, lease_until = ${iso(leaseMs)}, attempts = attempts + 1, started_at = coalesce(started_at, ${at}), updated_at = ${at}
         WHERE id = (SELECT id FROM jobs WHERE (status = 'waiting' AND run_at <= ${at}) OR (status = 'active' AND lease_until < ${at}) ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING ${columns}`;
      return job(row);
    },
    async get(jobId) {
      return job((await sql`SELECT ${columns} FROM jobs WHERE id = ${jobId}`)[0]);
    },
    async openJobs({ brandId, type }) {
      return [...(await sql`SELECT id, data::text AS data FROM jobs WHERE brand_id = ${brandId} AND type = ${type} AND status IN ('waiting', 'active') ORDER BY created_at`)];
    },
    async pendingUnits(jobId) {
      return plainRows<UnitRow>(await sql`SELECT * FROM job_units WHERE job_id = ${jobId} AND status = 'pending' ORDER BY seq`);
    },
    async cancel(jobId) {
      const at = iso();
      const rows = await sql`UPDATE jobs SET status = 'cancelled', finished_at = ${at}, lease_owner = NULL, lease_until = NULL WHERE id = ${jobId} AND status IN ('waiting', 'active') RETURNING id`;
      return rows.length > 0;
    },
    async counts(jobId) {
      const [c] = await sql`SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = 'done'))::int AS done, (count(*) FILTER (WHERE status = 'failed'))::int AS failed,
        (count(*) FILTER (WHERE status = 'pending'))::int AS pending FROM job_units WHERE job_id = ${jobId}`;
      return { ...c };
    },
    async failUnit({ jobId, seq, error }) {
      await sql`UPDATE job_units SET status = 'failed', attempts = attempts + 1, error = ${error} WHERE job_id = ${jobId} AND seq = ${seq} AND status = 'pending'`;
    },
    heartbeat: missing("heartbeat"),
    expireDeadLeases: missing("expireDeadLeases"),
    releaseOwned: missing("releaseOwned"),
    scheduleRetry: missing("scheduleRetry"),
    setProgress: missing("setProgress"),
    finish: missing("finish"),
    listJobs: missing("listJobs"),
  };
}
