// Client reports (issue #31): which window a request asks for, who may read a brand's report, and
// the document with the name it is saved under. buildClientReport is the one door every surface
// uses: the /api route, the share link's, and the digest mail that attaches it.
import type { ApiUser } from "../common/identity";
import { dayInRange, FIRST_DAY, LAST_DAY } from "../http/date-range";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import { DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS } from "../insights/args";
import { addDays, daysBetween, isoDay, type DateWindow } from "../insights/window";
import { statementTimeout } from "../platform/rest/deadline";
import { reportData, type ReportDataDeps } from "./data";
import { renderReport } from "./render";
import type { ClientReportStore } from "./store";

export interface ClientReportDeps extends ReportDataDeps {
  now?: () => Date;
}

export interface ClientReport {
  /** The whole document: no script, nothing fetched. */
  html: string;
  /** `<brand slug>-report-<from>-<to>.html`. */
  filename: string;
  window: DateWindow;
}

/** The report of a brand over a window; 404 when there is no such brand (who may read it is the caller's check). */
export async function buildClientReport(deps: ClientReportDeps, input: { brandId: string; window: DateWindow }): Promise<ClientReport> {
  const data = await reportData(deps, { ...input, now: deps.now?.() });
  if (!data) throw new AppError(404, "brand_not_found", "No such brand");
  // Slugs are checked on write (a-z, 0-9, -); the name of a file is no place to trust a row.
  const slug = data.header.brand.slug.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 80) || "brand";
  return { html: renderReport(data), filename: `${slug}-report-${data.window.from}-${data.window.to}.html`, window: data.window };
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function day(name: string, value: unknown): string | null {
  if (value === undefined || value === null || value === "") return null;
  const bad = () => new AppError(400, "invalid_date", `${name} must be a date written YYYY-MM-DD, got ${JSON.stringify(String(value).slice(0, 40))}`);
  if (typeof value !== "string" || !DAY.test(value)) throw bad();
  // 2026-02-30 is no day: a Date would roll it over into March.
  const parsed = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || isoDay(parsed) !== value) throw bad();
  if (!dayInRange(value)) throw new AppError(400, "invalid_date", `${name} must be between ${FIRST_DAY} and ${LAST_DAY}`);
  return value;
}

/** The window a request asks for: `from` and `to` (YYYY-MM-DD, both included); by default the 30 days ending today (UTC). */
export function reportWindow(query: { from?: unknown; to?: unknown }, today: Date): DateWindow {
  const to = day("to", query.to) ?? (isoDay(today) > LAST_DAY ? LAST_DAY : isoDay(today));
  const from = day("from", query.from) ?? addDays(to, -(DEFAULT_WINDOW_DAYS - 1));
  if (from > to) throw new AppError(400, "invalid_window", `from (${from}) is after to (${to})`);
  if (daysBetween(from, to) > MAX_WINDOW_DAYS) throw new AppError(400, "invalid_window", `A report covers at most ${MAX_WINDOW_DAYS} days`);
  return { from, to };
}

/**
 * `deps` whose every insights read checks the deadline `timeoutMs` from now first (a report is a
 * dozen and more of them): past it, 503 57014, as the RPCs answer.
 */
export function withDeadline(deps: ClientReportDeps, timeoutMs: number): ClientReportDeps {
  const at = performance.now() + timeoutMs;
  const checkDeadline = () => {
    if (performance.now() > at) throw statementTimeout(timeoutMs);
  };
  const insights = new Proxy(deps.insights, {
    get: (store, name) => {
      const read = Reflect.get(store, name) as unknown;
      return typeof read === "function" ? (...args: unknown[]) => (checkDeadline(), read.apply(store, args)) : read;
    },
  });
  return { ...deps, insights, checkDeadline };
}

/** Makes a brand's report for a request: on a reader thread where there are some (reports/registry.ts' `client`). */
type ClientReportMaker = (input: { brandId: string; window: DateWindow; at: string }) => Promise<ClientReport>;

export function createClientReportService(deps: { store: Pick<ClientReportStore, "header">; make: ClientReportMaker; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  const make = (brandId: string, window: DateWindow) => deps.make({ brandId, window, at: now().toISOString() });
  return {
    /** A brand's report for a member of its organization (any role); another organization's brand reads as missing. */
    async forUser(user: ApiUser, brandId: unknown, query: { from?: unknown; to?: unknown }): Promise<ClientReport> {
      const id = requireUuid(brandId, "brandId");
      const window = reportWindow(query, now());
      const header = await deps.store.header(id);
      if (!header || !user.orgRoles.has(header.brand.organization_id)) throw new AppError(404, "brand_not_found", "No such brand");
      return make(id, window);
    },

    /** The report of the brand a live share link opens. */
    async forShare(shared: { brandId: string }, query: { from?: unknown; to?: unknown }): Promise<ClientReport> {
      return make(shared.brandId, reportWindow(query, now()));
    },
  };
}

export type ClientReportService = ReturnType<typeof createClientReportService>;
