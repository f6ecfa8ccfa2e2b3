// The traffic report: AI-referred visits per platform and period, and the pages they landed on.
// A row with a source_platform is a visit an AI assistant sent; rows without one are the other
// page views (counted only as the denominator).
import { AppError } from "../http/errors";
import { FIRST_DAY, LAST_DAY, dayInRange } from "../http/date-range";
import type { Range, ReportsStore } from "../reports/store";

export type TrafficInterval = "day" | "week";

export interface TrafficQuery {
  from: Date;
  /** Exclusive. */
  to: Date;
  interval: TrafficInterval;
}

export interface TrafficReport {
  from: string;
  to: string;
  interval: TrafficInterval;
  totals: { visits: number; visitors: number; pageViews: number };
  platforms: { platform: string; visits: number; visitors: number }[];
  /** Every period of the range, oldest first, zeros included; a week is keyed by its Monday. */
  periods: { period: string; visits: number; byPlatform: Record<string, number> }[];
  topLandingPages: { path: string; visits: number; byPlatform: Record<string, number> }[];
}

const DAY_MS = 86_400_000;
const MAX_PERIODS = 1000;
const TOP_PAGES = 10;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

function badQuery(message: string): AppError {
  return new AppError(400, "validation_failed", message);
}

/** `YYYY-MM-DD` (a whole UTC day; `to` then includes that day) or an ISO date-time. */
function parseBound(value: string | undefined, name: string, isEnd: boolean): Date | null {
  if (value === undefined || value === "") return null;
  const text = value.trim();
  if (!DATE_ONLY.test(text) && !DATE_TIME.test(text)) throw badQuery(`${name} must be a date (YYYY-MM-DD) or an ISO date-time`);
  const date = new Date(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text);
  // Date rolls 2026-02-30 over to March; a real calendar day survives the round trip.
  const [y, m, d] = text.slice(0, 10).split("-").map(Number);
  const calendar = new Date(Date.UTC(y, m - 1, d));
  if (Number.isNaN(date.getTime()) || calendar.getUTCMonth() !== m - 1 || calendar.getUTCDate() !== d) throw badQuery(`${name} is not a valid date`);
  if (!dayInRange(date.toISOString())) throw badQuery(`${name} must fall between ${FIRST_DAY} and ${LAST_DAY}`);
  return DATE_ONLY.test(text) && isEnd ? new Date(date.getTime() + DAY_MS) : date;
}

/** The key of the period holding `at`: its UTC day, or the Monday of its week. */
function periodStart(at: Date, interval: TrafficInterval): Date {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  if (interval === "day") return day;
  return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
}

export function parseTrafficQuery(query: Record<string, string | undefined>, now: Date): TrafficQuery {
  const interval = query.interval ?? "day";
  if (interval !== "day" && interval !== "week") throw badQuery("interval must be day or week");
  const to = parseBound(query.to, "to", true) ?? now;
  const from = parseBound(query.from, "from", false) ?? new Date(to.getTime() - (interval === "day" ? 30 : 84) * DAY_MS);
  if (from >= to) throw badQuery("from must be before to");
  const periods = (periodStart(new Date(to.getTime() - 1), interval).getTime() - periodStart(from, interval).getTime()) / DAY_MS / (interval === "day" ? 1 : 7) + 1;
  if (periods > MAX_PERIODS) throw badQuery(`The range spans ${periods} ${interval}s; at most ${MAX_PERIODS}`);
  return { from, to, interval };
}

const dayKey = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The window split by what can answer it: whole days (by week, whole weeks among them), and the partial days at its ends (raw rows). */
function splitWindow(q: TrafficQuery) {
  const from = q.from.getTime();
  const to = q.to.getTime();
  const firstWholeDay = Math.ceil(from / DAY_MS) * DAY_MS;
  const endWholeDays = Math.floor(to / DAY_MS) * DAY_MS;
  if (firstWholeDay >= endWholeDays) return { days: null, raw: [[from, to]] as [number, number][], weeks: null, cellDays: [] as Range[] };
  const raw = ([[from, firstWholeDay], [endWholeDays, to]] as [number, number][]).filter(([a, b]) => a < b);
  // By week, the whole weeks inside the whole days come from the weekly rollups, the days around them day by day.
  const firstMonday = periodStart(new Date(firstWholeDay), "week").getTime() === firstWholeDay ? firstWholeDay : periodStart(new Date(firstWholeDay), "week").getTime() + 7 * DAY_MS;
  const endMonday = periodStart(new Date(endWholeDays), "week").getTime();
  const weeks = q.interval === "week" && firstMonday < endMonday ? ([dayKey(firstMonday), dayKey(endMonday)] as Range) : null;
  const cellDays: Range[] = weeks
    ? ([[dayKey(firstWholeDay), weeks[0]], [weeks[1], dayKey(endWholeDays)]] as Range[]).filter(([a, b]) => a < b)
    : [[dayKey(firstWholeDay), dayKey(endWholeDays)]];
  return { days: { from: dayKey(firstWholeDay), to: dayKey(endWholeDays) }, raw, weeks, cellDays };
}

/**
 * Whole UTC days are read from the daily rollups (src/rollups; visitor hashes change every UTC
 * day, so a day's distinct visitors add up across days), by week whole weeks from the weekly ones,
 * landing pages from their running totals (two seeks a page), and only the partial days at the window's
 * ends from raw visits: a year costs about what a month does.
 */
export async function trafficReport(store: ReportsStore, brandId: string, q: TrafficQuery): Promise<TrafficReport> {
  const { days, raw, weeks, cellDays } = splitWindow(q);
  const rawRanges = raw.map(([a, b]) => [new Date(a).toISOString(), new Date(b).toISOString()] as Range);

  // Visits and visitors per (day, platform); platform '' is a view no assistant sent, '*' (visitors only) any assistant.
  const cells = await store.trafficCells({ brandId, days: cellDays, weeks, raw: rawRanges });

  const totals = { visits: 0, visitors: 0, pageViews: 0 };
  const byPlatform = new Map<string, { platform: string; visits: number; visitors: number }>();
  const byPeriod = new Map<string, { visits: number; byPlatform: Record<string, number> }>();
  for (const cell of cells) {
    if (cell.platform === "*") {
      totals.visitors += cell.visitors;
      continue;
    }
    totals.pageViews += cell.visits;
    if (cell.platform === "") continue;
    totals.visits += cell.visits;
    const platform = byPlatform.get(cell.platform) ?? byPlatform.set(cell.platform, { platform: cell.platform, visits: 0, visitors: 0 }).get(cell.platform)!;
    platform.visits += cell.visits;
    platform.visitors += cell.visitors;
    if (!cell.visits) continue;
    const key = dayKey(periodStart(new Date(`${cell.day}T00:00:00Z`), q.interval).getTime());
    const period = byPeriod.get(key) ?? byPeriod.set(key, { visits: 0, byPlatform: {} }).get(key)!;
    period.visits += cell.visits;
    period.byPlatform[cell.platform] = (period.byPlatform[cell.platform] ?? 0) + cell.visits;
  }
  const platforms = [...byPlatform.values()].filter((p) => p.visits > 0).sort((a, b) => b.visits - a.visits || (a.platform < b.platform ? -1 : 1));
  const periods: TrafficReport["periods"] = [];
  const step = (q.interval === "day" ? 1 : 7) * DAY_MS;
  for (let t = periodStart(q.from, q.interval).getTime(); t < q.to.getTime(); t += step) {
    const key = dayKey(t);
    periods.push({ period: key, ...(byPeriod.get(key) ?? { visits: 0, byPlatform: {} }) });
  }

  const pageCells = await store.landingPageCells({ brandId, days: days ? [days.from, days.to] : null, raw: rawRanges });
  const pages = new Map<string, { path: string; visits: number; byPlatform: Record<string, number> }>();
  for (const cell of pageCells) {
    const page = pages.get(cell.path) ?? pages.set(cell.path, { path: cell.path, visits: 0, byPlatform: {} }).get(cell.path)!;
    page.visits += cell.visits;
    page.byPlatform[cell.platform] = cell.visits;
  }
  const topLandingPages = [...pages.values()].sort((a, b) => b.visits - a.visits || (a.path < b.path ? -1 : 1)).slice(0, TOP_PAGES);
  return { from: q.from.toISOString(), to: q.to.toISOString(), interval: q.interval, totals, platforms, periods, topLandingPages };
}
