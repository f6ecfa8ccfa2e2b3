// What /healthz and /metrics read from the database: whether it answers, and a few counts for the
// gauges. The SQLite implementation is status-store.sqlite.ts.
export interface StatusCounts {
  jobs: { status: string; n: number }[];
  /** Units of waiting and running jobs by state. */
  activeUnits: { status: string; n: number }[];
  /** Pending units of waiting and running jobs. */
  queueDepth: number;
  deliveries: { status: string; n: number }[];
  databaseBytes: number;
}

export interface StatusStore {
  /** Resolves when the database answers a trivial read; rejects when it does not. */
  ping(): Promise<void>;
  counts(): Promise<StatusCounts>;
  /** Whether a job waits or runs, a webhook delivery is pending, or rollup rows wait to move to a new layout: work a lazily started server must load its runtime for. */
  pendingWork(): Promise<boolean>;
}
