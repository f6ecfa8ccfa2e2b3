// The durable job queue (DESIGN §6): jobs claimed atomically with a lease that a heartbeat
// extends, and job_units as the idempotent pieces of work of a job. Backend implementations:
// store.sqlite.ts (and, with #29, store.pg.ts); the contract both keep is
// tests/contracts/queue.contract.ts. "Now" is the clock the store was made with.

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

export type JobProgress = { phase: Phase; completed: number; total: number };

export interface EnqueueInput {
  type: string;
  brandId: string | null;
  organizationId: string | null;
  data: unknown;
  units: NewUnit[];
  createdBy?: string | null;
  maxAttempts?: number;
}

export interface FinishInput {
  jobId: string;
  owner: string;
  status: "completed" | "failed";
  result: unknown;
  failedReason: string | null;
  progress: object;
  /** finished_at; the store's clock when absent. */
  at?: string;
}

export interface JobFilter {
  organizationIds: string[];
  type: string;
  brandId?: string;
  status?: JobStatus;
  limit: number;
}

/** What a queue announces to every instance sharing it (QueueStore.listen). */
export interface QueueEvents {
  /** A job was enqueued or handed back: claim now rather than at the next poll. */
  work(): void;
  /** The job was cancelled: whichever instance runs it stops its units. */
  cancelled(jobId: string): void;
}

/** Given the brand's open (waiting or active) jobs of the type, the id of one that makes a new job redundant, or null. */
export type SameOpenJob = (open: Pick<JobRow, "id" | "data">[]) => string | null;

export interface QueueStore {
  /** A waiting job and its units, in one transaction; the job's id. */
  enqueue(input: EnqueueInput): Promise<string>;
  /**
   * enqueue, unless `same` finds an open job of the brand and type that this one would repeat: the
   * look and the insert are one step, so two requests at once (on two instances) make one job.
   */
  enqueueUnlessOpen(input: EnqueueInput & { brandId: string }, same: SameOpenJob): Promise<{ jobId: string; enqueued: boolean }>;
  /** Takes the next due job (waiting and due, or active with an expired lease) for `owner`; no two claimers get the same job. Null when none is due. */
  claim(input: { owner: string; leaseMs: number }): Promise<JobRow | null>;
  /** Extends the lease; false when it is gone (cancelled, finished, or taken over): stop working on the job. */
  heartbeat(input: { jobId: string; owner: string; leaseMs: number }): Promise<boolean>;
  /**
   * Expires the leases of owners that are known dead (a previous process on this host), so restart
   * resumes at once; how many. Postgres: 0, always — instances on several hosts (or containers
   * sharing a host name and pid 1) cannot tell a dead owner from a live one there; a lease ends by time.
   */
  expireDeadLeases(isDead: (owner: string) => boolean): Promise<number>;
  /** Hands the owner's active jobs back as waiting, without counting the attempt (a clean stop). */
  releaseOwned(owner: string): Promise<void>;
  pendingUnits(jobId: string): Promise<UnitRow[]>;
  counts(jobId: string): Promise<UnitCounts>;
  /** A pending unit's next attempt, `delayMs` from now. */
  scheduleRetry(input: { jobId: string; seq: number; delayMs: number; error: string }): Promise<void>;
  /** Fails a pending unit for good. */
  failUnit(input: { jobId: string; seq: number; error: string }): Promise<void>;
  setProgress(input: { jobId: string; progress: JobProgress }): Promise<void>;
  /** Finishes the job only if `owner` still holds its lease; false otherwise. */
  finish(input: FinishInput): Promise<boolean>;
  /** Cancels a waiting or active job; false when it was already over (or unknown). */
  cancel(jobId: string): Promise<boolean>;
  get(jobId: string): Promise<JobRow | null>;
  /** Waiting or active jobs of a brand and type, oldest first. */
  openJobs(input: { brandId: string; type: string }): Promise<Pick<JobRow, "id" | "data">[]>;
  /** Jobs of the given organizations, newest first, at most `limit`. */
  listJobs(filter: JobFilter): Promise<JobRow[]>;
  /**
   * Calls `events` when any instance sharing the queue enqueues, hands back or cancels (Postgres:
   * LISTEN/NOTIFY); resolves once listening, with the function that stops it. SQLite: never calls
   * them — one process owns the file, and its tracking service wakes its dispatcher directly.
   */
  listen(events: QueueEvents): Promise<() => Promise<void>>;
}
