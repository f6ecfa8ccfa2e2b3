// The reports store on SQLite (store.ts says what each read answers): the traffic rollups
// (src/rollups) for whole days and weeks, the landing pages' running totals, ai_traffic_logs for the
// partial days at a window's ends.
import type { Database } from "bun:sqlite";
import type { LandingPageCell, Range, ReportsStore, TrafficCell } from "./store";
import { keyList } from "../rollups/spec";

/**
 * One SELECT per range, joined by UNION ALL: each reads its range through the primary key (or the
 * brand's time index), where one OR of ranges made SQLite read every row of the brand (a year's
 * landing pages, when they were day buckets: 73 ms against 18 ms for a month; issue #32). `select`
 * gets a range's condition.
 */
function perRange(column: string, ranges: Range[], select: (where: string) => string): { sql: string[]; params: string[] } {
  return { sql: ranges.map(() => select(`${column} >= ? AND ${column} < ?`)), params: ranges.flat() };
}

export function createSqliteReportsStore(sqlite: Database): ReportsStore {
  /** The parts' rows (each part's SELECTs bound to the brand and its ranges) summed by `outer`. */
  function cellsOf<T>(parts: { sql: string[]; params: string[] }[], brandId: string, outer: (cells: string) => string): T[] {
    const selects = parts.flatMap((p) => p.sql);
    const params = parts.flatMap((p) => p.sql.map((_, i) => [brandId, p.params[2 * i]!, p.params[2 * i + 1]!]).flat());
    return selects.length ? (sqlite.query(outer(selects.join(" UNION ALL "))).all(...params) as T[]) : [];
  }
  return {
    async trafficCells({ brandId, days, weeks, raw }) {
      const parts = [
        perRange("day", days, (w) => `SELECT day, platform, visits, 0 AS visitors FROM traffic_platform_daily WHERE brand_id = ? AND ${w}`),
        perRange("day", days, (w) => `SELECT day, platform, 0, visitors FROM traffic_visitors_daily WHERE brand_id = ? AND ${w}`),
        perRange("week", weeks ? [weeks] : [], (w) => `SELECT week, platform, visits, 0 FROM traffic_platform_weekly WHERE brand_id = ? AND ${w}`),
        perRange("week", weeks ? [weeks] : [], (w) => `SELECT week, platform, 0, visitors FROM traffic_visitors_weekly WHERE brand_id = ? AND ${w}`),
        perRange("created_at", raw, (w) => `SELECT substr(created_at, 1, 10), coalesce(source_platform, ''), count(*), count(DISTINCT visitor_hash) FROM ai_traffic_logs WHERE brand_id = ? AND ${w} GROUP BY 1, 2`),
        perRange("created_at", raw, (w) => `SELECT substr(created_at, 1, 10), '*', 0, count(DISTINCT visitor_hash) FROM ai_traffic_logs WHERE brand_id = ? AND ${w} AND source_platform IS NOT NULL GROUP BY 1`),
      ];
      return cellsOf<TrafficCell>(
        parts,
        brandId,
        (cells) => `SELECT day, platform, sum(visits) AS visits, sum(visitors) AS visitors FROM (SELECT '' AS day, '' AS platform, 0 AS visits, 0 AS visitors WHERE 0 UNION ALL ${cells}) GROUP BY day, platform`,
      );
    },
    async landingPageCells({ brandId, days, raw }) {
      const selects: string[] = [];
      const params: string[] = [];
      if (days) {
        // A page's visits in [from, to): its running total before `to` minus its running total before `from`.
        const before = `coalesce((SELECT q.visits FROM traffic_page_totals AS q WHERE q.key_id = k.id AND q.day < ? ORDER BY q.day DESC LIMIT 1), 0)`;
        selects.push(`SELECT k.path AS path, k.platform AS platform, ${before} - ${before} AS visits FROM ${keyList("traffic_page_totals", "?")}`);
        params.push(days[1], days[0], brandId);
      }
      for (const [from, to] of raw) {
        selects.push("SELECT path, source_platform AS platform, 1 AS visits FROM ai_traffic_logs WHERE brand_id = ? AND created_at >= ? AND created_at < ? AND source_platform IS NOT NULL");
        params.push(brandId, from, to);
      }
      if (!selects.length) return [];
      return sqlite.query(`SELECT path, platform, sum(visits) AS visits FROM (${selects.join(" UNION ALL ")}) GROUP BY path, platform HAVING sum(visits) > 0`).all(...params) as LandingPageCell[];
    },
  };
}
