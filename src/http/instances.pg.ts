// The instance registry on Postgres (instances.ts): answerwatch_instances, timed by the database's
// clock so the instances' own clocks need not agree.
import type { SQL } from "bun";
import { plainRows } from "../db/pg/values";
import { GONE_AFTER_MS, type InstanceInput, type InstanceRow, type InstanceStore } from "./instances";

export function createPgInstanceStore(sql: SQL): InstanceStore {
  const upsert = async (i: InstanceInput) => {
    await sql`INSERT INTO answerwatch_instances (id, host, pid, version, url, schema) VALUES (${i.id}, ${i.host}, ${i.pid}, ${i.version}, ${i.url}, ${i.schema})
              ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), url = excluded.url, schema = excluded.schema`;
  };
  return {
    register: upsert,
    async heartbeat(i) {
      await upsert(i);
      // Rows of instances gone ten times as long as counts as gone are dropped, on the heartbeat's
      // timer: the table stays the size of the deployment, and /healthz (anyone's) only reads.
      await sql`DELETE FROM answerwatch_instances WHERE heartbeat_at < now() - make_interval(secs => ${(GONE_AFTER_MS * 10) / 1000})`;
    },
    async remove(id) {
      await sql`DELETE FROM answerwatch_instances WHERE id = ${id}`;
    },
    async live(withinMs) {
      const rows = await sql`SELECT id, host, pid, version, url, started_at, heartbeat_at FROM answerwatch_instances
                              WHERE heartbeat_at >= now() - make_interval(secs => ${withinMs / 1000}) ORDER BY started_at, id`;
      return plainRows<InstanceRow>(rows);
    },
  };
}
