// The status store on Postgres (status-store.ts): the queries /healthz and the /metrics gauges run,
// against the database every instance shares.
import type { SQL } from "bun";
import { existingTables } from "../db/pg/tables";
import { MOVED_LATER } from "../rollups/spec";
import type { StatusStore } from "./status-store";

type Count = { status: string; n: number };

export function createPgStatusStore(sql: SQL): StatusStore {
  return {
    async ping() {
      await sql`SELECT 1`;
    },
    async pendingWork() {
      const [{ pending }] = await sql`
        SELECT EXISTS (SELECT 1 FROM jobs WHERE status IN ('waiting', 'active'))
            OR EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending') AS pending`;
      if (pending === true) return true;
      // Rollup rows still to move to their new layout (issue #32): the runtime moves them. Emptied
      // former tables may stay while instances run (src/rollups/triggers.pg.ts): only rows count.
      const present = await existingTables(sql, [...MOVED_LATER.values()].map((m) => m.formerKeys));
      if (!present.length) return false;
      const [{ rows }] = await sql.unsafe(`SELECT ${present.map((t) => `EXISTS (SELECT 1 FROM "${t}")`).join(" OR ")} AS rows`);
      return rows === true;
    },
    async counts() {
      // count(*) is bigint (a string through Bun's client): ::int keeps the interface's numbers.
      const [jobs, activeUnits, [depth], deliveries, [size]] = await Promise.all([
        sql`SELECT status, count(*)::int AS n FROM jobs GROUP BY status` as Promise<Count[]>,
        sql`SELECT u.status, count(*)::int AS n FROM jobs AS j JOIN job_units AS u ON u.job_id = j.id WHERE j.status IN ('waiting', 'active') GROUP BY u.status` as Promise<Count[]>,
        sql`SELECT count(*)::int AS n FROM jobs AS j JOIN job_units AS u ON u.job_id = j.id WHERE j.status IN ('waiting', 'active') AND u.status = 'pending'`,
        sql`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status` as Promise<Count[]>,
        sql`SELECT pg_database_size(current_database())::float8 AS bytes`,
      ]);
      return {
        jobs: [...jobs],
        activeUnits: [...activeUnits],
        queueDepth: depth?.n ?? 0,
        deliveries: [...deliveries],
        databaseBytes: size?.bytes ?? 0,
      };
    },
  };
}
