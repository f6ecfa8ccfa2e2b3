// The status store on SQLite (status-store.ts): the queries /healthz and the /metrics gauges run.
import type { Database } from "bun:sqlite";
import { MOVED_LATER } from "../rollups/spec";
import type { StatusStore } from "./status-store";

// Rollup rows still to move to their new layout (issue #32) are work too: the runtime moves them.
const PENDING_WORK = `SELECT EXISTS (SELECT 1 FROM jobs WHERE status IN ('waiting', 'active'))
                         OR EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending')
                         OR EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN (${[...MOVED_LATER.values()].map((m) => `'${m.formerKeys}'`).join(", ")})) AS pending`;

export function createSqliteStatusStore(sqlite: Database): StatusStore {
  const rows = <T>(sql: string) => sqlite.query(sql).all() as T[];
  return {
    async ping() {
      sqlite.query("SELECT count(*) FROM sqlite_master").get();
    },
    async pendingWork() {
      return (sqlite.query(PENDING_WORK).get() as { pending: number }).pending === 1;
    },
    async counts() {
      return {
        jobs: rows<{ status: string; n: number }>("SELECT status, count(*) AS n FROM jobs GROUP BY status"),
        activeUnits: rows<{ status: string; n: number }>("SELECT u.status, count(*) AS n FROM jobs AS j JOIN job_units AS u ON u.job_id = j.id WHERE j.status IN ('waiting', 'active') GROUP BY u.status"),
        queueDepth: rows<{ n: number }>("SELECT count(*) AS n FROM jobs AS j JOIN job_units AS u ON u.job_id = j.id WHERE j.status IN ('waiting', 'active') AND u.status = 'pending'")[0]?.n ?? 0,
        deliveries: rows<{ status: string; n: number }>("SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status"),
        databaseBytes: rows<{ bytes: number }>("SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()")[0]?.bytes ?? 0,
      };
    },
  };
}
