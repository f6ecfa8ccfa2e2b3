// Messages between the main thread and the worker threads.
import type { UnitTask } from "../tracking/unit";

export interface WorkerInit {
  type: "init";
  dbPath: string;
  /** Set in Postgres mode: the thread opens a small pool to it instead of the SQLite file. */
  databaseUrl?: string;
  env: Record<string, string | undefined>;
  judge?: { platform: string; model: string };
}

export type WorkerCommand = WorkerInit | { type: "run"; id: number; task: UnitTask } | { type: "abort"; id: number };

/** An error as it crosses the thread boundary (class identity is lost in structured clone). */
export interface TaskError {
  message: string;
  kind: string;
  permanent: boolean;
  retryAfterMs?: number;
  platform?: string;
  variable?: string;
}

export type WorkerReply =
  | { type: "ready" }
  /** The upstream has answered: its concurrency slot can go to the next unit while this one is analysed. */
  | { type: "answered"; id: number }
  | { type: "done"; id: number; ok: true; value: unknown } | { type: "done"; id: number; ok: false; error: TaskError };
