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

export type WorkerCommand =
  | WorkerInit
  /** `after`: start when that task's upstream call is over (a lane's next unit, handed over ahead). */
  | { type: "run"; id: number; task: UnitTask; after?: number }
  | { type: "abort"; id: number };

/** The error of a unit given back unstarted (its thread would have called a platform just refused). */
export const HANDED_BACK_KIND = "handed-back";

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
