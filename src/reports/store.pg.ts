// The reports store on Postgres (store.ts says what each read answers): the traffic rollups
// (src/rollups, kept by triggers.pg.ts) for whole days and weeks, the landing pages' running totals,
// ai_traffic_logs for the partial days at a window's ends. Ranges go as arrays of bounds, so each read is one fixed statement.
import type { SQL } from "bun";
import { isUuid } from "../db/pg/values";
import type { LandingPageCell, Range, ReportsStore } from "./store";
import { keyList } from "../rollups/spec";

const DAY = "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')";
/**
 * The raw rows inside any of the [from, to) instants of `raw` (its bounds as $2, $3 arrays), as a
 * join: each range is then an index range of the brand (the ranges never overlap), where an
 * EXISTS per row read every row of the brand first (issue #32).
 */
const RAW_LOGS = "unnest($2::timestamptz[], $3::timestamptz[]) AS w(a, b) JOIN ai_traffic_logs ON brand_id = $1 AND created_at >= w.a AND created_at < w.b";
/** The same for a rollup's day buckets ($from, $to arrays of days). */
const inDays = (table: string, from: string, to: string) => `unnest(${from}::text[], ${to}::text[]) AS d(a, b) JOIN ${table} ON brand_id = $1 AND day >= d.a AND day < d.b`;
const starts = (ranges: Range[]) => ranges.map((r) => r[0]);
const ends = (ranges: Range[]) => ranges.map((r) => r[1]);
const counts = <T extends Record<string, unknown>>(rows: T[], columns: (keyof T)[]): T[] =>
  rows.map((r) => ({ ...r, ...Object.fromEntries(columns.map((c) => [c, Number(r[c])])) }));

export function createPgReportsStore(sql: SQL): ReportsStore {
  return {
    async trafficCells({ brandId, days, weeks, raw }) {
      if (!isUuid(brandId)) return [];
      const rows = await sql.unsafe(
        `SELECT day, platform, sum(visits) AS visits, sum(visitors) AS visitors FROM (
            SELECT day, platform, visits, 0 AS visitors FROM ${inDays("traffic_platform_daily", "$4", "$5")}
            UNION ALL SELECT day, platform, 0, visitors FROM ${inDays("traffic_visitors_daily", "$4", "$5")}
            UNION ALL SELECT week, platform, visits, 0 FROM traffic_platform_weekly WHERE brand_id = $1 AND week >= $6 AND week < $7
            UNION ALL SELECT week, platform, 0, visitors FROM traffic_visitors_weekly WHERE brand_id = $1 AND week >= $6 AND week < $7
            UNION ALL SELECT ${DAY}, coalesce(source_platform, ''), count(*), count(DISTINCT visitor_hash) FROM ${RAW_LOGS} GROUP BY 1, 2
            UNION ALL SELECT ${DAY}, '*', 0, count(DISTINCT visitor_hash) FROM ${RAW_LOGS} WHERE source_platform IS NOT NULL GROUP BY 1) AS cells
          GROUP BY day, platform`,
        [brandId, starts(raw), ends(raw), starts(days), ends(days), weeks?.[0] ?? "", weeks?.[1] ?? ""],
      );
      return counts(rows as { day: string; platform: string; visits: number; visitors: number }[], ["visits", "visitors"]);
    },
    async landingPageCells({ brandId, days, raw }) {
      if (!isUuid(brandId)) return [];
      // A page's visits in [from, to): its running total before `to` ($5) minus its running total before `from` ($4).
      const before = (bound: string) => `(SELECT q.visits FROM traffic_page_totals AS q WHERE q.key_id = k.id AND q.day < ${bound} ORDER BY q.day DESC LIMIT 1)`;
      const rows = await sql.unsafe(
        `SELECT path, platform, sum(visits) AS visits FROM (
            SELECT k.path, k.platform, coalesce(${before("$5")}, 0) - coalesce(${before("$4")}, 0) AS visits FROM ${keyList("traffic_page_totals", "$1")} WHERE $4 <> ''
            UNION ALL SELECT path, source_platform, 1 FROM ${RAW_LOGS} WHERE source_platform IS NOT NULL) AS cells
          GROUP BY path, platform HAVING sum(visits) > 0`,
        [brandId, starts(raw), ends(raw), days?.[0] ?? "", days?.[1] ?? ""],
      );
      return counts(rows as LandingPageCell[], ["visits"]);
    },
  };
}
