// What the demo's replay of past runs (history.ts) asks of the database: a run enqueued and claimed
// as the dispatcher would, its units answered by the real unit runner, the outcomes written as the
// result writer would, and the run finalised. The SQLite implementation (store.sqlite.ts) composes
// the tracking, queue and result features; a Postgres one (#29) composes theirs.
import type { EngineConfig } from "../engines";
import type { EngineRegistry } from "../engines/registry";
import type { UnitRow } from "../queue/store";
import type { UnitOutcome } from "../tracking/unit-runner";

/** A pending unit of the replayed run, as the queue lists it. */
export type ReplayUnit = Pick<UnitRow, "seq" | "brand_id" | "prompt_id" | "platform" | "model" | "region" | "sample">;

/** A unit's outcome with the time its answer is stamped with; `error` when the runner failed. */
export interface ReplayOutcome {
  unit: ReplayUnit;
  outcome: UnitOutcome | null;
  error: string | null;
  createdAt: Date;
}

export interface DemoHistoryStore {
  /** Enqueues a forced run of the brand as of `now()` and claims it for `owner` (throws when another job was waiting); its pending units. */
  startRun(input: { brandId: string; platforms: string[]; samples: number; createdBy: string; owner: string; leaseMs: number; engines: EngineConfig; now: () => Date }): Promise<{ jobId: string; units: ReplayUnit[] }>;
  /** Runs the units at once through the real engine adapters (`registry`) and analysis; nothing is written. */
  runUnits(input: { jobId: string; units: ReplayUnit[]; registry: EngineRegistry; signal: AbortSignal }): Promise<{ unit: ReplayUnit; outcome: UnitOutcome | null; error: string | null }[]>;
  /** Writes the run's outcomes: answers stored and their units done, and no-surface units done with the reason, in one transaction; then failures failed. */
  recordOutcomes(input: { jobId: string; outcomes: ReplayOutcome[] }): Promise<void>;
  /** Summarises the claimed run as of `now()` and releases it. */
  finishRun(input: { jobId: string; owner: string; brandId: string; organizationId: string; now: () => Date; visibilityAlertPoints: number }): Promise<void>;
}
