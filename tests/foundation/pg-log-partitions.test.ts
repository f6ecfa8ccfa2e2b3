// Issue #29: the pixel's and the crawler logs' raw rows live in monthly partitions on Postgres
// (drizzle-pg/0005_log_partitions.sql): the months around now exist after every start, a row of any
// time is stored (outside them: the default partition), retention drops whole months, and a database
// migrated before 0004 keeps its rows.
import { afterAll, expect, test } from "bun:test";
import type { SQL } from "bun";
import { openPostgresDatabase } from "../../src/database";
import { migratePostgres } from "../../src/db/pg/open";
import { embeddedMigrations } from "../../src/db/pg/migrations.generated";
import { dropLogPartitionsBefore, ensureLogPartitions } from "../../src/db/pg/partitions";
import { testPostgres } from "../helpers/postgres";

const server = await testPostgres();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function fresh() {
  const pg = await openPostgresDatabase(await server!.createDatabase("partitions"), { poolSize: 2 });
  closers.push(() => pg.close());
  return pg.sql;
}
async function brand(sql: SQL) {
  const [{ id: org }] = await sql`INSERT INTO organizations (name, slug) VALUES ('Org', ${`org-${crypto.randomUUID()}`}) RETURNING id`;
  const [{ id }] = await sql`INSERT INTO brands (organization_id, name, slug) VALUES (${org}, 'Brand', 'brand') RETURNING id`;
  return id as string;
}
const visit = (sql: SQL, brandId: string, at: string) =>
  sql`INSERT INTO ai_traffic_logs (brand_id, url, path, visitor_hash, created_at) VALUES (${brandId}, 'https://a.example/', '/', 'v', ${at})`;
const crawl = (sql: SQL, brandId: string, at: string) =>
  sql`INSERT INTO crawler_hits (brand_id, at, method, path, status, class, hit, record_key) VALUES (${brandId}, ${at}, 'GET', '/', 200, 'ai_search', 'page', ${new TextEncoder().encode(at)})`;
/** Where each row sits: its partition's name. */
const placed = async (sql: SQL, table: string) =>
  (await sql.unsafe(`SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM ${table} GROUP BY 1 ORDER BY 1`)).map((r: { part: string; n: number }) => [r.part, r.n]);
const month = (d: Date, add = 0) => {
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + add, 1));
  return `y${m.getUTCFullYear()}m${String(m.getUTCMonth() + 1).padStart(2, "0")}`;
};

test.skipIf(!server)("a new database: both tables partitioned by month, last month through two ahead made; every row lands somewhere", async () => {
  const sql = await fresh();
  const now = new Date();
  for (const table of ["ai_traffic_logs", "crawler_hits"]) {
    const parts = (await sql`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ${table}::regclass ORDER BY 1`).map((r: { relname: string }) => r.relname);
    expect(parts).toEqual([`${table}_default`, ...[-1, 0, 1, 2].map((m) => `${table}_${month(now, m)}`)].sort());
  }
  const id = await brand(sql);
  const thisMonth = now.toISOString();
  await visit(sql, id, thisMonth);
  await visit(sql, id, "2019-03-04T05:06:07.000Z");
  await crawl(sql, id, thisMonth);
  expect(await placed(sql, "ai_traffic_logs")).toEqual([["ai_traffic_logs_default", 1], [`ai_traffic_logs_${month(now)}`, 1]]);
  expect(await placed(sql, "crawler_hits")).toEqual([[`crawler_hits_${month(now)}`, 1]]);
  // The trigger-kept organization and the keys hold on the partitioned tables.
  expect((await sql`SELECT count(*)::int AS n FROM ai_traffic_logs WHERE organization_id IS NOT NULL`)[0].n).toBe(2);
  await expect(crawl(sql, id, thisMonth)).rejects.toThrow();
  await expect(visit(sql, crypto.randomUUID(), thisMonth)).rejects.toMatchObject({ errno: "23503" });
  // Starting again makes nothing new.
  expect(await ensureLogPartitions(sql)).toEqual([]);
});

test.skipIf(!server)("a month whose rows wait in the default partition stays there; other months are made; retention drops whole months", async () => {
  const sql = await fresh();
  const id = await brand(sql);
  await visit(sql, id, "2031-05-10T00:00:00.000Z");
  const later = new Date("2031-06-15T00:00:00.000Z");
  const made = await ensureLogPartitions(sql, { now: later });
  // May 2031 (last month from there) holds a row in the default partition: not made, the row stays.
  expect(made.filter((n) => n.startsWith("ai_traffic_logs"))).toEqual(["ai_traffic_logs_y2031m06", "ai_traffic_logs_y2031m07", "ai_traffic_logs_y2031m08"]);
  await visit(sql, id, "2031-06-20T00:00:00.000Z");
  await visit(sql, id, "2031-05-11T00:00:00.000Z");
  expect(await placed(sql, "ai_traffic_logs")).toEqual([["ai_traffic_logs_default", 2], ["ai_traffic_logs_y2031m06", 1]]);

  const now = new Date();
  await visit(sql, id, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 3)).toISOString());
  await visit(sql, id, now.toISOString());
  // Before the middle of this month: last month goes, this month (which holds `before`) stays.
  const dropped = await dropLogPartitionsBefore(sql, "ai_traffic_logs", new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 15)));
  expect(dropped).toEqual([`ai_traffic_logs_${month(now, -1)}`]);
  expect((await sql`SELECT count(*)::int AS n FROM ai_traffic_logs WHERE created_at >= ${new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString()} AND created_at < '2031-01-01'`)[0].n).toBe(1);
  expect(await dropLogPartitionsBefore(sql, "crawler_hits", new Date("2000-01-01T00:00:00.000Z"))).toEqual([]);
});

test.skipIf(!server)("a database migrated before 0004 keeps its rows, in their months, and crawler_hits ids go on after the last", async () => {
  const url = await server!.createDatabase("partitions-upgrade");
  const { SQL } = await import("bun");
  const sql = new SQL(url, { max: 2 });
  closers.push(() => sql.close());
  const before = embeddedMigrations.filter((m) => m.tag < "0004");
  await migratePostgres(sql, { migrations: before, parts: [] });
  expect((await sql`SELECT relkind FROM pg_class WHERE relname = 'ai_traffic_logs'`)[0].relkind).toBe("r");
  const id = await brand(sql);
  await visit(sql, id, "2025-01-31T23:59:59.999Z");
  await visit(sql, id, "2025-02-01T00:00:00.000Z");
  await crawl(sql, id, "2025-02-02T00:00:00.000Z");
  await crawl(sql, id, "2025-02-03T00:00:00.000Z");
  const lastId = Number((await sql`SELECT max(id) AS id FROM crawler_hits`)[0].id);

  await migratePostgres(sql, { migrations: embeddedMigrations, parts: [] });
  expect((await sql`SELECT relkind FROM pg_class WHERE relname = 'ai_traffic_logs'`)[0].relkind).toBe("p");
  expect(await placed(sql, "ai_traffic_logs")).toEqual([["ai_traffic_logs_y2025m01", 1], ["ai_traffic_logs_y2025m02", 1]]);
  expect(await placed(sql, "crawler_hits")).toEqual([["crawler_hits_y2025m02", 2]]);
  await crawl(sql, id, "2025-02-04T00:00:00.000Z");
  expect(Number((await sql`SELECT max(id) AS id FROM crawler_hits`)[0].id)).toBe(lastId + 1);
  expect((await sql`SELECT count(DISTINCT organization_id)::int AS n FROM ai_traffic_logs`)[0].n).toBe(1);
});
