// The job queue on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import type { EnqueueInput, FinishInput, JobRow, QueueStore, UnitCounts, UnitRow } from "./store";

/**
 * The finish-if-still-ours write, synchronous: the tracking store calls it inside its own
 * transaction (src/tracking/store.sqlite.ts), so a run's summary and its job's end commit together.
 */
export function prepareJobFinish(sqlite: Database) {
  const finish = sqlite.prepare(
    `UPDATE jobs SET status = ?3, result = ?4, failed_reason = ?5, progress = ?6, finished_at = ?7, updated_at = ?7,
            lease_owner = NULL, lease_until = NULL
     WHERE id = ?1 AND lease_owner = ?2 AND status = 'active'`,
  );
  return (f: FinishInput & { at: string }): boolean =>
    finish.run(f.jobId, f.owner, f.status, JSON.stringify(f.result), f.failedReason, JSON.stringify(f.progress), f.at).changes > 0;
}

export function createSqliteQueueStore(sqlite: Database, now: () => Date = () => new Date()): QueueStore {
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
    releaseOwned: sqlite.prepare(
      "UPDATE jobs SET status = 'waiting', lease_owner = NULL, lease_until = NULL, attempts = max(0, attempts - 1) WHERE lease_owner = ?1 AND status = 'active'",
    ),
    pendingUnits: sqlite.prepare(`SELECT * FROM job_units WHERE job_id = ? AND status = 'pending' ORDER BY seq`),
    counts: sqlite.prepare(
      `SELECT count(*) AS total, coalesce(sum(status = 'done'), 0) AS done, coalesce(sum(status = 'failed'), 0) AS failed,
              coalesce(sum(status = 'pending'), 0) AS pending FROM job_units WHERE job_id = ?`,
    ),
    retryUnit: sqlite.prepare(`UPDATE job_units SET attempts = attempts + 1, run_at = ?3, error = ?4 WHERE job_id = ?1 AND seq = ?2 AND status = 'pending'`),
    failUnit: sqlite.prepare(`UPDATE job_units SET status = 'failed', attempts = attempts + 1, error = ?3 WHERE job_id = ?1 AND seq = ?2 AND status = 'pending'`),
    setProgress: sqlite.prepare(`UPDATE jobs SET progress = ?2, updated_at = ?3 WHERE id = ?1`),
    cancel: sqlite.prepare(
      `UPDATE jobs SET status = 'cancelled', progress = json_set(progress, '$.phase', 'cancelled'), finished_at = ?2, updated_at = ?2,
              lease_owner = NULL, lease_until = NULL
       WHERE id = ?1 AND status IN ('waiting', 'active') RETURNING id`,
    ),
    get: sqlite.prepare(`SELECT * FROM jobs WHERE id = ?`),
    openJobs: sqlite.prepare("SELECT id, data FROM jobs WHERE brand_id = ? AND type = ? AND status IN ('waiting', 'active') ORDER BY created_at"),
  };
  const finish = prepareJobFinish(sqlite);

  /** A waiting job and its units (inside the caller's transaction); its id. */
  function insertJob(input: EnqueueInput) {
    const id = crypto.randomUUID();
    const at = iso();
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
    return id;
  }

  return {
    async enqueue(input) {
      return sqlite.transaction(() => insertJob(input)).immediate();
    },

    async enqueueUnlessOpen(input, same) {
      // One immediate transaction: no other writer between the look and the insert.
      return sqlite
        .transaction(() => {
          const existing = same(q.openJobs.all(input.brandId, input.type) as Pick<JobRow, "id" | "data">[]);
          return existing ? { jobId: existing, enqueued: false } : { jobId: insertJob(input), enqueued: true };
        })
        .immediate();
    },

    async claim({ owner, leaseMs }) {
      const at = iso();
      if ((q.claimable.get(at) as { due: number }).due === 0) return null;
      return (q.claim.get(owner, iso(leaseMs), at) as JobRow | null) ?? null;
    },

    async heartbeat({ jobId, owner, leaseMs }) {
      return q.heartbeat.run(jobId, owner, iso(leaseMs), iso()).changes > 0;
    },

    async expireDeadLeases(isDead) {
      let n = 0;
      for (const row of q.activeLeases.all() as { id: string; lease_owner: string | null }[]) {
        if (row.lease_owner && isDead(row.lease_owner)) n += q.expireLease.run(row.id, new Date(0).toISOString()).changes;
      }
      return n;
    },

    async releaseOwned(owner) {
      q.releaseOwned.run(owner);
    },

    pendingUnits: async (jobId) => q.pendingUnits.all(jobId) as UnitRow[],
    counts: async (jobId) => q.counts.get(jobId) as UnitCounts,
    async scheduleRetry({ jobId, seq, delayMs, error }) {
      q.retryUnit.run(jobId, seq, iso(delayMs), error);
    },
    async failUnit({ jobId, seq, error }) {
      q.failUnit.run(jobId, seq, error);
    },
    async setProgress({ jobId, progress }) {
      q.setProgress.run(jobId, JSON.stringify(progress), iso());
    },
    async finish(input) {
      return finish({ ...input, at: input.at ?? iso() });
    },
    async cancel(jobId) {
      return q.cancel.get(jobId, iso()) !== null;
    },
    get: async (jobId) => (q.get.get(jobId) as JobRow | null) ?? null,
    openJobs: async ({ brandId, type }) => q.openJobs.all(brandId, type) as Pick<JobRow, "id" | "data">[],
    async listJobs({ organizationIds, type, brandId, status, limit }) {
      if (!organizationIds.length) return [];
      const where = [`organization_id IN (${organizationIds.map(() => "?").join(",")})`, "type = ?"];
      const params: (string | number)[] = [...organizationIds, type];
      if (brandId) (where.push("brand_id = ?"), params.push(brandId));
      if (status) (where.push("status = ?"), params.push(status));
      return sqlite.query(`SELECT * FROM jobs WHERE ${where.join(" AND ")} ORDER BY created_at DESC LIMIT ${Math.floor(limit)}`).all(...params) as JobRow[];
    },
    // One process per file: nobody else enqueues or cancels, and this process wakes its own dispatcher.
    async listen() {
      return async () => {};
    },
  };
}
