// A /rest/v1 thread's connection (thread-worker.ts), opened from its serialisable init message:
// read-only for a reader, read-write for the writer, and the reports it can compute over it.
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../database";
import { createSqliteClientReportStore } from "../../client-report/store.sqlite";
import { createSqliteInsightsStore } from "../../insights/store.sqlite";
import { createSqlitePortfolioStore } from "../../portfolio/store.sqlite";
import { REPORTS, type ReportReads } from "../../reports/registry";
import { createSqliteReportsStore } from "../../reports/store.sqlite";
import { createSqliteRestExecutor } from "./executor.sqlite";
import type { RestExecutor, RestExecutorOptions } from "./executor";

export interface RestThreadConnection {
  executor: RestExecutor;
  /** A report of src/reports/registry.ts over this connection. */
  report(name: string, args: unknown): Promise<unknown>;
}

export function openRestThreadConnection(init: { dbPath: string; writable: boolean; statementTimeoutMs: number }, options: RestExecutorOptions = {}): RestThreadConnection {
  const sqlite = new Database(init.dbPath, { readonly: !init.writable, strict: true });
  sqlite.run("PRAGMA busy_timeout = 5000");
  registerSqlFunctions(sqlite);
  if (init.writable) sqlite.run("PRAGMA foreign_keys = ON");
  // Made at the first report: the writer thread never runs one.
  let reads: ReportReads | undefined;
  const readsOf = () =>
    (reads ??= {
      reports: createSqliteReportsStore(sqlite),
      insights: createSqliteInsightsStore(sqlite),
      portfolio: createSqlitePortfolioStore(sqlite),
      clientReport: createSqliteClientReportStore(sqlite),
      sourceCategories: options.sourceCategories,
      timeoutMs: init.statementTimeoutMs,
    });
  return {
    executor: createSqliteRestExecutor(sqlite, options),
    report: (name, args) => (REPORTS[name as keyof typeof REPORTS] as (reads: ReportReads, args: unknown) => Promise<unknown>)(readsOf(), args),
  };
}
