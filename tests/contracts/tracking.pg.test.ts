import type { SQL } from "bun";
import { plainRow } from "../../src/db/pg/values";
import type { JobRow, QueueStore } from "../../src/queue/store";
import { createPgTrackingStore } from "../../src/tracking/store.pg";
import { createPgUnitStore } from "../../src/tracking/units.pg";
import { describeTrackingStoreContract } from "./tracking.contract";
import { pgHarness } from "./harness.pg";

/**
 * The few queue operations the tracking contract makes its jobs with, in plain SQL: a stand-in
 * until the queue's Postgres store (src/queue/store.pg.ts, written in parallel) replaces it here.
 */
function queueStandIn(sql: SQL): QueueStore {
  const job = (row: Record<string, unknown> | undefined) => (row ? plainRow<JobRow>(row) : null);
  const columns = sql.unsafe("*, data::text AS data, progress::text AS progress");
  const missing = (name: string) => () => Promise.reject(new Error(`the tracking contract's queue stand-in has no ${name}`));
  return {
    async enqueue(input) {
      return sql.begin(async (tx) => {
        const [{ id }] = await tx`INSERT INTO jobs (type, brand_id, organization_id, data, progress, run_at) VALUES (${input.type}, ${input.brandId}, ${input.organizationId},
          ${input.data ?? {}}::jsonb, ${{ phase: "waiting", completed: 0, total: input.units.length }}::jsonb, now()) RETURNING id`;
        for (const [seq, u] of input.units.entries())
          await tx`INSERT INTO job_units (job_id, seq, brand_id, prompt_id, platform, model, region, sample) VALUES (${id}, ${seq}, ${input.brandId}, ${u.promptId}, ${u.platform}, ${u.model}, ${u.region}, ${u.sample ?? 0})`;
        return id as string;
      });
    },
    async claim({ owner, leaseMs }) {
      const [row] = await sql`
        UPDATE jobs SET status = 'active', lease_owner = ${owner}, lease_until = now() + ${leaseMs} * interval '1 millisecond', attempts = attempts + 1, started_at = coalesce(started_at, now())
         WHERE id = (SELECT id FROM jobs WHERE (status = 'waiting' AND run_at <= now()) OR (status = 'active' AND lease_until < now()) ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING ${columns}`;
      return job(row);
    },
    async get(jobId) {
      return job((await sql`SELECT ${columns} FROM jobs WHERE id = ${jobId}`)[0]);
    },
    async cancel(jobId) {
      const rows = await sql`UPDATE jobs SET status = 'cancelled', finished_at = now(), lease_owner = NULL, lease_until = NULL WHERE id = ${jobId} AND status IN ('waiting', 'active') RETURNING id`;
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
    pendingUnits: missing("pendingUnits"),
    scheduleRetry: missing("scheduleRetry"),
    setProgress: missing("setProgress"),
    finish: missing("finish"),
    openJobs: missing("openJobs"),
    listJobs: missing("listJobs"),
  };
}

const h = await pgHarness();
if (h) describeTrackingStoreContract("postgres", async () => ({ ...h, store: createPgTrackingStore(h.pg.sql), units: createPgUnitStore(h.pg.sql), queue: queueStandIn(h.pg.sql) }));
