// Reports that run on a reader thread (DESIGN §13): a name, plain-data arguments, a function of a
// reports store (store.ts) over that thread's read-only connection. The serving thread checks who
// may read what, then hands the work over (or, without threads, as in request-level tests, runs the
// same function in-process).
import { trafficReport, type TrafficInterval } from "../pixel/traffic";
import type { ReportsStore } from "./store";

export const REPORTS = {
  traffic: (store: ReportsStore, a: { brandId: string; from: string; to: string; interval: TrafficInterval }) =>
    trafficReport(store, a.brandId, { from: new Date(a.from), to: new Date(a.to), interval: a.interval }),
} satisfies Record<string, (store: ReportsStore, args: never) => Promise<unknown>>;

export type ReportName = keyof typeof REPORTS;
export type ReportArgs<N extends ReportName> = Parameters<(typeof REPORTS)[N]>[1];
export type ReportResult<N extends ReportName> = Awaited<ReturnType<(typeof REPORTS)[N]>>;

/** Runs a report: on a reader thread when there are some, else here. */
export type ReportRunner = <N extends ReportName>(name: N, args: ReportArgs<N>) => Promise<ReportResult<N>>;

export function inProcessReports(store: ReportsStore): ReportRunner {
  return ((name: ReportName, args: never) => (REPORTS[name] as (s: ReportsStore, a: never) => Promise<unknown>)(store, args)) as ReportRunner;
}
