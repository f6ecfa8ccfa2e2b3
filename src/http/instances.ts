// The instances of one deployment on a shared database (Postgres mode): each registers itself and
// renews a heartbeat; /healthz and /metrics say how many are alive. A SQLite deployment is one
// process (DATA_DIR's lock), so it has no registry.
export interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  version: string;
  url: string | null;
  started_at: string;
  heartbeat_at: string;
}

/** An instance as it registers: `schema` is how many Postgres migrations its release carries (src/db/pg/schema-level.ts). */
export interface InstanceInput {
  id: string;
  host: string;
  pid: number;
  version: string;
  url: string | null;
  schema: number;
}

export interface InstanceStore {
  register(input: InstanceInput): Promise<void>;
  /** Renews the heartbeat (and registers again a row another instance pruned); prunes rows gone ten times GONE_AFTER_MS. */
  heartbeat(input: InstanceInput): Promise<void>;
  remove(id: string): Promise<void>;
  /** The instances whose heartbeat is newer than `withinMs`, oldest first (a read only: /healthz asks it). */
  live(withinMs: number): Promise<InstanceRow[]>;
}

/** How often an instance renews its heartbeat, and after how long without one it counts as gone. */
export const HEARTBEAT_MS = 10_000;
export const GONE_AFTER_MS = 30_000;
