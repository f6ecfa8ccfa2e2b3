// Reports that run on a reader thread (DESIGN §13): a name, plain-data arguments, a function of a
// read-only connection. The serving thread checks who may read what, then hands the work over
// (or, without threads, as in request-level tests, runs the same function in-process).
import type { Database } from "bun:sqlite";
import { trafficReport, type TrafficInterval } from "../pixel/traffic";

export const REPORTS = {
  traffic: (sqlite: Database, a: { brandId: string; from: string; to: string; interval: TrafficInterval }) =>
    trafficReport(sqlite, a.brandId, { from: new Date(a.from), to: new Date(a.to), interval: a.interval }),
} satisfies Record<string, (sqlite: Database, args: never) => unknown>;

export type ReportName = keyof typeof REPORTS;
export type ReportArgs<N extends ReportName> = Parameters<(typeof REPORTS)[N]>[1];
export type ReportResult<N extends ReportName> = ReturnType<(typeof REPORTS)[N]>;

/** Runs a report: on a reader thread when there are some, else here. */
export type ReportRunner = <N extends ReportName>(name: N, args: ReportArgs<N>) => Promise<ReportResult<N>>;

export function inProcessReports(sqlite: Database): ReportRunner {
  return async (name, args) => (REPORTS[name] as (s: Database, a: typeof args) => ReportResult<typeof name>)(sqlite, args);
}
