// The reports store on SQLite (store.ts says what each read answers): the traffic rollups
// (src/rollups) for whole days and months, ai_traffic_logs for the partial days at a window's ends.
import type { Database } from "bun:sqlite";
import type { LandingPageCell, Range, ReportsStore, TrafficCell } from "./store";

const rawWhereOf = (raw: Range[]) => (raw.length ? `(${raw.map(() => "(created_at >= ? AND created_at < ?)").join(" OR ")})` : "0");

export function createSqliteReportsStore(sqlite: Database): ReportsStore {
  return {
    async trafficCells({ brandId, days, weeks, raw }) {
      const rawWhere = rawWhereOf(raw);
      const rawParams = raw.flat();
      const dayWhere = days.length ? `(${days.map(() => "(day >= ? AND day < ?)").join(" OR ")})` : "0";
      const dayParams = days.flat();
      const weekParams = weeks ?? ["", ""];
      return sqlite
        .query<TrafficCell, (string | number)[]>(
          `SELECT day, platform, sum(visits) AS visits, sum(visitors) AS visitors FROM (
              SELECT day, platform, visits, 0 AS visitors FROM traffic_platform_daily WHERE brand_id = ? AND ${dayWhere}
              UNION ALL SELECT day, platform, 0, visitors FROM traffic_visitors_daily WHERE brand_id = ? AND ${dayWhere}
              UNION ALL SELECT week, platform, visits, 0 FROM traffic_platform_weekly WHERE brand_id = ? AND week >= ? AND week < ?
              UNION ALL SELECT week, platform, 0, visitors FROM traffic_visitors_weekly WHERE brand_id = ? AND week >= ? AND week < ?
              UNION ALL SELECT substr(created_at, 1, 10), coalesce(source_platform, ''), count(*), count(DISTINCT visitor_hash) FROM ai_traffic_logs
                     WHERE brand_id = ? AND ${rawWhere} GROUP BY 1, 2
              UNION ALL SELECT substr(created_at, 1, 10), '*', 0, count(DISTINCT visitor_hash) FROM ai_traffic_logs
                     WHERE brand_id = ? AND ${rawWhere} AND source_platform IS NOT NULL GROUP BY 1)
            GROUP BY day, platform`,
        )
        .all(brandId, ...dayParams, brandId, ...dayParams, brandId, ...weekParams, brandId, ...weekParams, brandId, ...rawParams, brandId, ...rawParams);
    },
    async landingPageCells({ brandId, months, days, raw }) {
      const rawWhere = rawWhereOf(raw);
      const dayWhere = days.length ? `(${days.map(() => "(day >= ? AND day < ?)").join(" OR ")})` : "0";
      return sqlite
        .query<LandingPageCell, string[]>(
          `SELECT path, platform, sum(visits) AS visits FROM (
              SELECT path, platform, visits FROM traffic_pages_monthly WHERE brand_id = ? AND month >= ? AND month < ?
              UNION ALL SELECT path, platform, visits FROM traffic_pages_daily WHERE brand_id = ? AND ${dayWhere}
              UNION ALL SELECT path, source_platform, 1 FROM ai_traffic_logs WHERE brand_id = ? AND ${rawWhere} AND source_platform IS NOT NULL)
            GROUP BY path, platform`,
        )
        .all(brandId, ...(months ?? ["", ""]), brandId, ...days.flat(), brandId, ...raw.flat());
    },
  };
}
