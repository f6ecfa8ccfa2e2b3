// Reports that run on a reader thread (DESIGN §13): a name, plain-data arguments, a function of the
// stores a request reads (ReportReads) over that thread's read-only connection. The serving thread
// checks who may read what, then hands the work over (or, without threads — on Postgres, or in
// request-level tests — runs the same function in-process). On SQLite a statement cannot be
// stopped from outside its thread: a report computed on the serving thread would hold every other
// request (/healthz, the pixel, sign-ins) until its deadline, so every report a request starts is here.
import type { CategoryList } from "../analysis/source-categories";
import { buildClientReport, withDeadline } from "../client-report/service";
import type { DateWindow } from "../insights/window";
import { trafficReport, type TrafficInterval } from "../pixel/traffic";
import { portfolio, type PortfolioQuery } from "../portfolio/service";
import type { RequestReads } from "../stores";

/** What the reports read (a request's stores), and the deadline of each (STATEMENT_TIMEOUT_MS). */
export type ReportReads = RequestReads & { sourceCategories?: CategoryList; timeoutMs: number };

export const REPORTS = {
  traffic: (reads: ReportReads, a: { brandId: string; from: string; to: string; interval: TrafficInterval }) =>
    trafficReport(reads.reports, a.brandId, { from: new Date(a.from), to: new Date(a.to), interval: a.interval }),
  portfolio: (reads: ReportReads, a: PortfolioQuery) => portfolio({ store: reads.portfolio, insights: reads.insights, timeoutMs: reads.timeoutMs }, a),
  /** A brand's client report; `at` is when it is made (the serving thread's clock, which tests move). */
  client: (reads: ReportReads, a: { brandId: string; window: DateWindow; at: string }) =>
    buildClientReport(withDeadline({ store: reads.clientReport, insights: reads.insights, sourceCategories: reads.sourceCategories, now: () => new Date(a.at) }, reads.timeoutMs), { brandId: a.brandId, window: a.window }),
} satisfies Record<string, (reads: ReportReads, args: never) => Promise<unknown>>;

export type ReportName = keyof typeof REPORTS;
export type ReportArgs<N extends ReportName> = Parameters<(typeof REPORTS)[N]>[1];
export type ReportResult<N extends ReportName> = Awaited<ReturnType<(typeof REPORTS)[N]>>;

/** Runs a report: on a reader thread when there are some, else here. */
export type ReportRunner = <N extends ReportName>(name: N, args: ReportArgs<N>) => Promise<ReportResult<N>>;

export function inProcessReports(reads: ReportReads): ReportRunner {
  return ((name: ReportName, args: never) => (REPORTS[name] as (r: ReportReads, a: never) => Promise<unknown>)(reads, args)) as ReportRunner;
}
