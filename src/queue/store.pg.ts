// The job queue on Postgres (store.ts says what each operation does). Several instances share
// it: a claim locks the job row it takes with FOR UPDATE SKIP LOCKED (the job's units go with it),
// every write to a claimed job checks in the same statement that the lease is still the caller's,
// and leases end by time only. Enqueues, hand-backs and cancels are announced on NOTIFY
// (QUEUE_CHANNEL) so that every instance's dispatcher wakes at once instead of at its next poll.
import type { SQL } from "bun";
import { isUuid, plainRow } from "../db/pg/values";
import type { EnqueueInput, FinishInput, JobRow, QueueEvents, QueueStore, UnitCounts, UnitRow } from "./store";

/** The LISTEN/NOTIFY channel of the queue: payload "work", or "cancel:<job id>". */
export const QUEUE_CHANNEL = "aw_queue";

const JOB_COLUMNS = `id, type, brand_id, organization_id, status, data, progress, result, failed_reason, attempts, max_attempts,
  run_at, lease_owner, lease_until, created_by, created_at, started_at, finished_at, updated_at`;
const UNIT_COLUMNS = "job_id, seq, brand_id, prompt_id, platform, model, region, sample, status, attempts, run_at, error";

/** jsonb arrives parsed; the interface (and SQLite) give JSON text. */
const jsonText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

function jobOf(row: Record<string, unknown>): JobRow {
  const job = plainRow<JobRow>(row);
  return { ...job, data: jsonText(row.data), progress: jsonText(row.progress) };
}

/**
 * The finish-if-still-ours write on a given handle (a transaction of the tracking store, so a
 * run's summary and its job's end commit together, as prepareJobFinish does on SQLite).
 */
export async function finishJobPg(sql: SQL, f: FinishInput & { at: string }): Promise<boolean> {
  if (!isUuid(f.jobId)) return false;
  const rows = await sql`
    UPDATE jobs SET status = ${f.status}, result = ${JSON.stringify(f.result)}, failed_reason = ${f.failedReason}, progress = ${f.progress as object},
           finished_at = ${f.at}, updated_at = ${f.at}, lease_owner = NULL, lease_until = NULL
     WHERE id = ${f.jobId} AND lease_owner = ${f.owner} AND status = 'active'
    RETURNING id`;
  return rows.length > 0;
}

/** First key of the per-brand enqueue lock (pg_advisory_xact_lock(int, int)); any constant unused elsewhere. */
const ENQUEUE_LOCK = 424_202;

/** A waiting job and its units (one statement whatever their number: columns as arrays); its id. */
async function insertJob(tx: SQL, input: EnqueueInput, at: string): Promise<string> {
  const units = input.units;
  const [{ id }] = await tx`
    INSERT INTO jobs (type, brand_id, organization_id, status, data, progress, max_attempts, run_at, created_by, created_at, updated_at)
    VALUES (${input.type}, ${input.brandId}, ${input.organizationId}, 'waiting', ${(input.data ?? {}) as object},
            ${{ phase: "waiting", completed: 0, total: units.length }}, ${input.maxAttempts ?? 5}, ${at}, ${input.createdBy ?? null}, ${at}, ${at})
    RETURNING id`;
  // One statement whatever the number of units (a run may have thousands): columns as arrays.
  if (units.length)
    await tx`
      INSERT INTO job_units (job_id, seq, brand_id, prompt_id, platform, model, region, sample)
      SELECT ${id}, u.seq - 1, ${input.brandId}, u.prompt_id, u.platform, u.model, u.region, u.sample
        FROM unnest(${tx.array(units.map((u) => u.promptId), "UUID")}::uuid[], ${tx.array(units.map((u) => u.platform), "TEXT")}::text[],
                    ${tx.array(units.map((u) => u.model), "TEXT")}::text[], ${tx.array(units.map((u) => u.region), "TEXT")}::text[],
                    ${tx.array(units.map((u) => u.sample ?? 0), "INT")}::int[])
             WITH ORDINALITY AS u(prompt_id, platform, model, region, sample, seq)`;
  return id as string;
}

async function openJobsOf(tx: SQL, brandId: string, type: string): Promise<Pick<JobRow, "id" | "data">[]> {
  const rows = await tx`SELECT id, data FROM jobs WHERE brand_id = ${brandId} AND type = ${type} AND status IN ('waiting', 'active') ORDER BY created_at`;
  return rows.map((r: { id: string; data: unknown }) => ({ id: r.id, data: jsonText(r.data) }));
}

export function createPgQueueStore(sql: SQL, now: () => Date = () => new Date()): QueueStore {
  const iso = (offsetMs = 0) => new Date(now().getTime() + offsetMs).toISOString();
  const notifyWork = (tx: SQL) => tx`SELECT pg_notify(${QUEUE_CHANNEL}, 'work')`;

  return {
    async enqueue(input) {
      return sql.begin(async (tx) => {
        const id = await insertJob(tx, input, iso());
        await notifyWork(tx);
        return id;
      });
    },

    async enqueueUnlessOpen(input, same) {
      return sql.begin(async (tx) => {
        // One enqueuer per brand at a time, whichever instance it runs on: the next one sees this one's job.
        await tx`SELECT pg_advisory_xact_lock(${ENQUEUE_LOCK}, hashtext(${input.brandId}))`;
        const open = isUuid(input.brandId) ? await openJobsOf(tx, input.brandId, input.type) : [];
        const existing = same(open);
        if (existing) return { jobId: existing, enqueued: false };
        const id = await insertJob(tx, input, iso());
        await notifyWork(tx);
        return { jobId: id, enqueued: true };
      });
    },

    async claim({ owner, leaseMs }) {
      const at = iso();
      // SKIP LOCKED: a job another instance is claiming right now is passed over, not waited for;
      // the row lock then makes the take-over of an expired lease exclusive too.
      const [row] = await sql.unsafe(
        `UPDATE jobs SET status = 'active', lease_owner = $1, lease_until = $2, attempts = attempts + 1,
                started_at = coalesce(started_at, $3), updated_at = $3
          WHERE id = (SELECT id FROM jobs
                       WHERE (status = 'waiting' AND run_at <= $3) OR (status = 'active' AND lease_until < $3)
                       ORDER BY run_at, created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING ${JOB_COLUMNS}`,
        [owner, iso(leaseMs), at],
      );
      return row ? jobOf(row) : null;
    },

    async heartbeat({ jobId, owner, leaseMs }) {
      if (!isUuid(jobId)) return false;
      const rows = await sql`UPDATE jobs SET lease_until = ${iso(leaseMs)}, updated_at = ${iso()} WHERE id = ${jobId} AND lease_owner = ${owner} AND status = 'active' RETURNING id`;
      return rows.length > 0;
    },

    // Instances share the database from several hosts (containers may all be pid 1 on one host
    // name), so "this owner's process is gone" cannot be told from here: a lease ends by time only.
    async expireDeadLeases() {
      return 0;
    },

    async releaseOwned(owner) {
      await sql.begin(async (tx) => {
        const rows = await tx`
          UPDATE jobs SET status = 'waiting', lease_owner = NULL, lease_until = NULL, attempts = greatest(0, attempts - 1)
           WHERE lease_owner = ${owner} AND status = 'active' RETURNING id`;
        if (rows.length) await notifyWork(tx);
      });
    },

    async pendingUnits(jobId) {
      if (!isUuid(jobId)) return [];
      const rows = await sql.unsafe(`SELECT ${UNIT_COLUMNS} FROM job_units WHERE job_id = $1 AND status = 'pending' ORDER BY seq`, [jobId]);
      return rows.map((r: Record<string, unknown>) => plainRow<UnitRow>(r));
    },

    async counts(jobId) {
      if (!isUuid(jobId)) return { total: 0, done: 0, failed: 0, pending: 0 };
      const [row] = await sql`
        SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'done')::int AS done,
               count(*) FILTER (WHERE status = 'failed')::int AS failed, count(*) FILTER (WHERE status = 'pending')::int AS pending
          FROM job_units WHERE job_id = ${jobId}`;
      return row as UnitCounts;
    },

    async scheduleRetry({ jobId, seq, delayMs, error }) {
      if (!isUuid(jobId)) return;
      await sql`UPDATE job_units SET attempts = attempts + 1, run_at = ${iso(delayMs)}, error = ${error} WHERE job_id = ${jobId} AND seq = ${seq} AND status = 'pending'`;
    },

    async failUnit({ jobId, seq, error }) {
      if (!isUuid(jobId)) return;
      await sql`UPDATE job_units SET status = 'failed', attempts = attempts + 1, error = ${error} WHERE job_id = ${jobId} AND seq = ${seq} AND status = 'pending'`;
    },

    async setProgress({ jobId, progress }) {
      if (!isUuid(jobId)) return;
      // Only while the job runs: a cancel committed by another connection between the dispatcher's
      // last unit and its summary must keep its "cancelled" phase (SQLite's single writer cannot interleave them).
      await sql`UPDATE jobs SET progress = ${progress as object}, updated_at = ${iso()} WHERE id = ${jobId} AND status IN ('waiting', 'active')`;
    },

    async finish(input) {
      return finishJobPg(sql, { ...input, at: input.at ?? iso() });
    },

    async cancel(jobId) {
      if (!isUuid(jobId)) return false;
      const at = iso();
      return sql.begin(async (tx) => {
        const rows = await tx`
          UPDATE jobs SET status = 'cancelled', progress = jsonb_set(progress, '{phase}', '"cancelled"'), finished_at = ${at}, updated_at = ${at},
                 lease_owner = NULL, lease_until = NULL
           WHERE id = ${jobId} AND status IN ('waiting', 'active') RETURNING id`;
        // The instance running it (whichever) stops its units at once, not at its next heartbeat.
        if (rows.length) await tx`SELECT pg_notify(${QUEUE_CHANNEL}, ${`cancel:${jobId}`})`;
        return rows.length > 0;
      });
    },

    async get(jobId) {
      if (!isUuid(jobId)) return null;
      const [row] = await sql.unsafe(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [jobId]);
      return row ? jobOf(row) : null;
    },

    async openJobs({ brandId, type }) {
      return isUuid(brandId) ? openJobsOf(sql, brandId, type) : [];
    },

    async listJobs({ organizationIds, type, brandId, status, limit }) {
      const orgs = organizationIds.filter(isUuid);
      if (!orgs.length || (brandId !== undefined && !isUuid(brandId))) return [];
      const rows = await sql.unsafe(
        `SELECT ${JOB_COLUMNS} FROM jobs
          WHERE organization_id = ANY($1::uuid[]) AND type = $2 AND ($3::uuid IS NULL OR brand_id = $3) AND ($4::text IS NULL OR status = $4)
          ORDER BY created_at DESC LIMIT $5`,
        [sql.array(orgs, "UUID"), type, brandId ?? null, status ?? null, Math.floor(limit)],
      );
      return rows.map(jobOf);
    },

    async listen(events: QueueEvents) {
      const subscription = await sql.listen(QUEUE_CHANNEL, (payload) => {
        if (payload.startsWith("cancel:")) events.cancelled(payload.slice("cancel:".length));
        else events.work();
      });
      return () => subscription.unlisten();
    },
  };
}
