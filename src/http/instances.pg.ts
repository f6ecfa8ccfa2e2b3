// The instance registry on Postgres (instances.ts): answerwatch_instances, timed by the database's
// clock so the instances' own clocks need not agree.
import type { SQL } from "bun";
import { plainRows } from "../db/pg/values";
import type { InstanceInput, InstanceRow, InstanceStore } from "./instances";

export function createPgInstanceStore(sql: SQL): InstanceStore {
  const upsert = async (i: InstanceInput) => {
    await sql`INSERT INTO answerwatch_instances (id, host, pid, version, url, schema) VALUES (${i.id}, ${i.host}, ${i.pid}, ${i.version}, ${i.url}, ${i.schema})
              ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), url = excluded.url, schema = excluded.schema`;
  };
  return {
    register: upsert,
    heartbeat: upsert,
    async remove(id) {
      await sql`DELETE FROM answerwatch_instances WHERE id = ${id}`;
    },
    async live(withinMs) {
      // Rows of instances gone for ten times the window are dropped: the table stays the size of the deployment.
      await sql`DELETE FROM answerwatch_instances WHERE heartbeat_at < now() - make_interval(secs => ${(withinMs * 10) / 1000})`;
      const rows = await sql`SELECT id, host, pid, version, url, started_at, heartbeat_at FROM answerwatch_instances
                              WHERE heartbeat_at >= now() - make_interval(secs => ${withinMs / 1000}) ORDER BY started_at, id`;
      return plainRows<InstanceRow>(rows);
    },
  };
}
