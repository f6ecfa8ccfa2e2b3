// The traffic report: AI-referred visits per platform and period, and the pages they landed on.
// A row with a source_platform is a visit an AI assistant sent; rows without one are the other
// page views (counted only as the denominator).
import type { Database } from "bun:sqlite";
import { AppError } from "../http/errors";

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

function tally(rows: { key: string; platform: string; visits: number }[]): Map<string, { visits: number; byPlatform: Record<string, number> }> {
  const out = new Map<string, { visits: number; byPlatform: Record<string, number> }>();
  for (const row of rows) {
    const entry = out.get(row.key) ?? { visits: 0, byPlatform: {} };
    entry.visits += row.visits;
    entry.byPlatform[row.platform] = row.visits;
    out.set(row.key, entry);
  }
  return out;
}

export function trafficReport(sqlite: Database, brandId: string, q: TrafficQuery): TrafficReport {
  type Range = [brandId: string, from: string, to: string];
  const range: Range = [brandId, q.from.toISOString(), q.to.toISOString()];
  const where = "brand_id = ? AND created_at >= ? AND created_at < ?";
  const totals = sqlite
    .query<{ pageViews: number; visits: number; visitors: number }, Range>(
      `SELECT count(*) AS pageViews, count(source_platform) AS visits,
              count(DISTINCT CASE WHEN source_platform IS NOT NULL THEN visitor_hash END) AS visitors
         FROM ai_traffic_logs WHERE ${where}`,
    )
    .get(...range)!;
  const platforms = sqlite
    .query<{ platform: string; visits: number; visitors: number }, Range>(
      `SELECT source_platform AS platform, count(*) AS visits, count(DISTINCT visitor_hash) AS visitors
         FROM ai_traffic_logs WHERE ${where} AND source_platform IS NOT NULL
        GROUP BY source_platform ORDER BY visits DESC, platform`,
    )
    .all(...range);
  // SQLite's 'weekday 0' moves to the next Sunday (or stays on one); minus six days is that week's Monday.
  const periodSql = q.interval === "day" ? "substr(created_at, 1, 10)" : "date(created_at, 'weekday 0', '-6 days')";
  const byPeriod = tally(
    sqlite
      .query<{ key: string; platform: string; visits: number }, Range>(
        `SELECT ${periodSql} AS key, source_platform AS platform, count(*) AS visits
           FROM ai_traffic_logs WHERE ${where} AND source_platform IS NOT NULL
          GROUP BY key, platform`,
      )
      .all(...range),
  );
  const periods: TrafficReport["periods"] = [];
  const step = (q.interval === "day" ? 1 : 7) * DAY_MS;
  for (let t = periodStart(q.from, q.interval).getTime(); t < q.to.getTime(); t += step) {
    const key = new Date(t).toISOString().slice(0, 10);
    periods.push({ period: key, ...(byPeriod.get(key) ?? { visits: 0, byPlatform: {} }) });
  }
  const pages = tally(
    sqlite
      .query<{ key: string; platform: string; visits: number }, [...Range, ...Range]>(
        `SELECT path AS key, source_platform AS platform, count(*) AS visits
           FROM ai_traffic_logs
          WHERE ${where} AND source_platform IS NOT NULL
            AND path IN (SELECT path FROM ai_traffic_logs WHERE ${where} AND source_platform IS NOT NULL
                          GROUP BY path ORDER BY count(*) DESC, path LIMIT ${TOP_PAGES})
          GROUP BY path, source_platform`,
      )
      .all(...range, ...range),
  );
  const topLandingPages = [...pages]
    .map(([path, entry]) => ({ path, ...entry }))
    .sort((a, b) => b.visits - a.visits || (a.path < b.path ? -1 : 1));
  return { from: q.from.toISOString(), to: q.to.toISOString(), interval: q.interval, totals, platforms, periods, topLandingPages };
}
