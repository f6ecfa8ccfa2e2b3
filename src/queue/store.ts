// The durable job queue in SQLite (DESIGN §6): jobs claimed atomically with a lease that a
// heartbeat extends, and job_units as the idempotent pieces of work of a job.
import type { Database } from "bun:sqlite";

export type JobStatus = "waiting" | "active" | "completed" | "failed" | "cancelled";
export type Phase = "waiting" | "querying" | "summarizing" | "done" | "failed" | "cancelled";

export interface JobRow {
  id: string;
  type: string;
  brand_id: string | null;
  organization_id: string | null;
  status: JobStatus;
  data: string;
  progress: string;
  result: string | null;
  failed_reason: string | null;
  attempts: number;
  max_attempts: number;
  run_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface UnitRow {
  job_id: string;
  seq: number;
  brand_id: string;
  prompt_id: string;
  platform: string;
  model: string;
  region: string;
  sample: number;
  status: "pending" | "done" | "failed";
  attempts: number;
  run_at: string | null;
  error: string | null;
}

export interface NewUnit {
  promptId: string;
  platform: string;
  model: string;
  region: string;
  /** Which repeated ask of the same prompt × platform × model × region (0-based; default 0). */
  sample?: number;
}

export interface UnitCounts {
  total: number;
  done: number;
  failed: number;
  pending: number;
}

export function createQueueStore(sqlite: Database, now: () => Date = () => new Date()) {
  const iso = (offsetMs = 0) => new Date(now().getTime() + offsetMs).toISOString();
  const q = {
    insertJob: sqlite.prepare(
      `INSERT INTO jobs (id, type, brand_id, organization_id, status, data, progress, max_attempts, run_at, created_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'waiting', ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertUnit: sqlite.prepare(
      `INSERT INTO job_units (job_id, seq, brand_id, prompt_id, platform, model, region, sample) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // One statement claims: no two claimers can take the same job (DESIGN §6).
    // A read first: an UPDATE takes the database's write lock even when it matches nothing, and
    // an idle server polls every second.
    claimable: sqlite.prepare(
      `SELECT EXISTS (SELECT 1 FROM jobs WHERE (status = 'waiting' AND run_at <= ?1) OR (status = 'active' AND lease_until < ?1)) AS due`,
    ),
    claim: sqlite.prepare(
      `UPDATE jobs SET status = 'active', lease_owner = ?1, lease_until = ?2, attempts = attempts + 1,
              started_at = coalesce(started_at, ?3), updated_at = ?3
       WHERE id = (SELECT id FROM jobs
                   WHERE (status = 'waiting' AND run_at <= ?3) OR (status = 'active' AND lease_until < ?3)
                   ORDER BY run_at LIMIT 1)
       RETURNING *`,
    ),
    heartbeat: sqlite.prepare(`UPDATE jobs SET lease_until = ?3, updated_at = ?4 WHERE id = ?1 AND lease_owner = ?2 AND status = 'active'`),
    activeLeases: sqlite.prepare(`SELECT id, lease_owner FROM jobs WHERE status = 'active'`),
    expireLease: sqlite.prepare(`UPDATE jobs SET lease_until = ?2 WHERE id = ?1 AND status = 'active'`),
    pendingUnits: sqlite.prepare(`SELECT * FROM job_units WHERE job_id = ? AND status = 'pending' ORDER BY seq`),
    counts: sqlite.prepare(
      `SELECT count(*) AS total, coalesce(sum(status = 'done'), 0) AS done, coalesce(sum(status = 'failed'), 0) AS failed,
              coalesce(sum(status = 'pending'), 0) AS pending FROM job_units WHERE job_id = ?`,
    ),
    retryUnit: sqlite.prepare(`UPDATE job_units SET attempts = attempts + 1, run_at = ?3, error = ?4 WHERE job_id = ?1 AND seq = ?2 AND status = 'pending'`),
    failUnit: sqlite.prepare(`UPDATE job_units SET status = 'failed', attempts = attempts + 1, error = ?3 WHERE job_id = ?1 AND seq = ?2 AND status = 'pending'`),
    setProgress: sqlite.prepare(`UPDATE jobs SET progress = ?2, updated_at = ?3 WHERE id = ?1`),
    finish: sqlite.prepare(
      `UPDATE jobs SET status = ?3, result = ?4, failed_reason = ?5, progress = ?6, finished_at = ?7, updated_at = ?7,
              lease_owner = NULL, lease_until = NULL
       WHERE id = ?1 AND lease_owner = ?2 AND status = 'active'`,
    ),
    cancel: sqlite.prepare(
      `UPDATE jobs SET status = 'cancelled', progress = json_set(progress, '$.phase', 'cancelled'), finished_at = ?2, updated_at = ?2,
              lease_owner = NULL, lease_until = NULL
       WHERE id = ?1 AND status IN ('waiting', 'active') RETURNING id`,
    ),
    get: sqlite.prepare(`SELECT * FROM jobs WHERE id = ?`),
  };

  return {
    enqueue(input: {
      type: string;
      brandId: string | null;
      organizationId: string | null;
      data: unknown;
      units: NewUnit[];
      createdBy?: string | null;
      maxAttempts?: number;
    }): string {
      const id = crypto.randomUUID();
      const at = iso();
      sqlite.transaction(() => {
        q.insertJob.run(
          id,
          input.type,
          input.brandId,
          input.organizationId,
          JSON.stringify(input.data ?? {}),
          JSON.stringify({ phase: "waiting", completed: 0, total: input.units.length }),
          input.maxAttempts ?? 5,
          at,
          input.createdBy ?? null,
          at,
          at,
        );
        input.units.forEach((u, seq) => q.insertUnit.run(id, seq, input.brandId, u.promptId, u.platform, u.model, u.region, u.sample ?? 0));
      }).immediate();
      return id;
    },

    claim(owner: string, leaseMs: number): JobRow | null {
      const at = iso();
      if ((q.claimable.get(at) as { due: number }).due === 0) return null;
      return (q.claim.get(owner, iso(leaseMs), at) as JobRow | null) ?? null;
    },

    /** False when the lease is gone (cancelled, finished, or taken over): stop working on the job. */
    heartbeat(jobId: string, owner: string, leaseMs: number): boolean {
      return q.heartbeat.run(jobId, owner, iso(leaseMs), iso()).changes > 0;
    },

    /** Expires the leases of owners that are known dead (a previous process on this host), so restart resumes at once. */
    expireDeadLeases(isDead: (owner: string) => boolean): number {
      let n = 0;
      for (const row of q.activeLeases.all() as { id: string; lease_owner: string | null }[]) {
        if (row.lease_owner && isDead(row.lease_owner)) n += q.expireLease.run(row.id, new Date(0).toISOString()).changes;
      }
      return n;
    },

    pendingUnits: (jobId: string) => q.pendingUnits.all(jobId) as UnitRow[],
    counts: (jobId: string) => q.counts.get(jobId) as UnitCounts,
    scheduleRetry(jobId: string, seq: number, delayMs: number, error: string) {
      q.retryUnit.run(jobId, seq, iso(delayMs), error);
    },
    failUnit(jobId: string, seq: number, error: string) {
      q.failUnit.run(jobId, seq, error);
    },
    setProgress(jobId: string, progress: { phase: Phase; completed: number; total: number }) {
      q.setProgress.run(jobId, JSON.stringify(progress), iso());
    },
    finish(jobId: string, owner: string, status: "completed" | "failed", result: unknown, failedReason: string | null, progress: object): boolean {
      return q.finish.run(jobId, owner, status, JSON.stringify(result), failedReason, JSON.stringify(progress), iso()).changes > 0;
    },
    cancel(jobId: string): boolean {
      return q.cancel.get(jobId, iso()) !== null;
    },
    get: (jobId: string) => (q.get.get(jobId) as JobRow | null) ?? null,
  };
}

export type QueueStore = ReturnType<typeof createQueueStore>;
