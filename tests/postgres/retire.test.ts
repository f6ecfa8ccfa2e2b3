// Rolling upgrades on Postgres (README: Several instances): a release that retires a rollup table
// (src/rollups/spec.ts RETIRED_ROLLUPS) must not pull it from under the older instances still
// running beside it. The table stays, kept current by the older release's triggers, while an older
// instance is live (answerwatch_instances.schema below this release's, or none); then the hourly
// upkeep drops it with its triggers, and writes go on.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SQL } from "bun";
import { openPostgresDatabase } from "../../src/database";
import { openPostgres, type PgHandle } from "../../src/db/pg/open";
import { embeddedMigrations } from "../../src/db/pg/migrations.generated";
import { PG_SCHEMA_LEVEL } from "../../src/db/pg/schema-level";
import { PG_DIALECT, RETIRED_ROLLUPS, type RollupSpec } from "../../src/rollups/spec";
import { triggerSql } from "../../src/rollups/triggers.pg";
import { createPgStorageStore } from "../../src/storage/store.pg";
import { testPostgres } from "../helpers/postgres";

const server = await testPostgres();
let pg: PgHandle;
let brandId: string;
const sql = (): SQL => pg.sql;
const tableExists = async (name: string) => (await sql()`SELECT to_regclass(${name}) IS NOT NULL AS present`)[0].present as boolean;
const triggersOf = async (table: string) => ((await sql()`SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgparentid = 0 AND tgname LIKE ${`rollup\\_${table}\\_%`}`) as { tgname: string }[]).length;
const visit = (at: string, path: string) =>
  sql()`INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at) VALUES (${brandId}, ${`https://acme.example${path}`}, ${path}, 'chatgpt', ${crypto.randomUUID()}, ${at})`;

/** traffic_pages_daily as the release before #32's landing-page running totals defined and kept it. */
const previousPagesDaily: RollupSpec = {
  table: "traffic_pages_daily",
  source: "ai_traffic_logs",
  where: "{r}.source_platform IS NOT NULL",
  keys: { brand_id: "{r}.brand_id", day: PG_DIALECT.day("{r}.created_at"), platform: "{r}.source_platform", path: "{r}.path" },
  measures: { visits: "1" },
  countColumn: "visits",
  watch: ["brand_id", "created_at", "source_platform", "path"],
};

beforeAll(async () => {
  if (!server) return;
  const url = await server.createDatabase("retire");
  // The database as the release before left it: its migrations (through 0017), the retired table
  // with its triggers, and that release's instance running.
  const before = embeddedMigrations.slice(0, embeddedMigrations.findIndex((m) => m.tag === "0018_traffic_pages_running"));
  expect(before.at(-1)!.tag).toBe("0017_crawler_agents");
  const old = await openPostgres(url, { migrations: before, parts: [], poolSize: 2 });
  try {
    for (const statement of triggerSql(previousPagesDaily)) await old.sql.unsafe(statement);
    await old.sql`INSERT INTO answerwatch_instances (id, host, pid, version) VALUES (${crypto.randomUUID()}, 'old-host', 1, 'previous')`;
  } finally {
    await old.close();
  }
  // This release starts beside it.
  pg = await openPostgresDatabase(url, { poolSize: 2 });
  const [org] = await sql()`INSERT INTO organizations (name, slug) VALUES ('Retire', 'retire') RETURNING id`;
  [{ id: brandId }] = await sql()`INSERT INTO brands (organization_id, name, slug) VALUES (${org.id}, 'Acme', 'acme') RETURNING id`;
});
afterAll(() => pg?.close());

test.skipIf(!server)("while an older instance runs, the retired table stays and is kept current; once none does, the upkeep drops it and writes go on", async () => {
  expect(await tableExists("traffic_pages_daily")).toBe(true);
  expect(await triggersOf("traffic_pages_daily")).toBe(3);
  await visit("2026-03-01T10:00:00Z", "/");
  await visit("2026-03-01T11:00:00Z", "/");
  await visit("2026-03-02T09:00:00Z", "/pricing");
  // What an older instance's traffic report reads is there and current.
  expect(await sql()`SELECT day, path, visits FROM traffic_pages_daily ORDER BY day, path`).toEqual([
    { day: "2026-03-01", path: "/", visits: 2 },
    { day: "2026-03-02", path: "/pricing", visits: 1 },
  ]);
  const storage = createPgStorageStore(sql());
  expect(await storage.dropRetiredTables()).toEqual([]);
  // An instance of this release changes nothing; one of a release in between (fewer migrations) still holds it.
  await sql()`INSERT INTO answerwatch_instances (id, host, pid, version, schema) VALUES (${crypto.randomUUID()}, 'new-host', 2, 'this', ${PG_SCHEMA_LEVEL})`;
  const between = crypto.randomUUID();
  await sql()`INSERT INTO answerwatch_instances (id, host, pid, version, schema) VALUES (${between}, 'mid-host', 3, 'between', ${PG_SCHEMA_LEVEL - 1})`;
  await sql()`UPDATE answerwatch_instances SET heartbeat_at = now() - interval '60 seconds' WHERE host = 'old-host'`;
  expect(await storage.dropRetiredTables()).toEqual([]);
  expect(await tableExists("traffic_pages_daily")).toBe(true);

  // The last older instance gone (no heartbeat for longer than GONE_AFTER_MS): the next upkeep drops the retired tables.
  await sql()`UPDATE answerwatch_instances SET heartbeat_at = now() - interval '60 seconds' WHERE id = ${between}`;
  expect((await storage.dropRetiredTables()).sort()).toEqual([...RETIRED_ROLLUPS].sort());
  expect(await tableExists("traffic_pages_daily")).toBe(false);
  expect(await tableExists("traffic_pages_monthly")).toBe(false);
  expect(await triggersOf("traffic_pages_daily")).toBe(0);
  expect(await sql()`SELECT name FROM rollup_state WHERE name LIKE 'traffic_page%' ORDER BY name`).toEqual([{ name: "traffic_page_totals" }, { name: "traffic_page_totals_keys" }]);
  // Writes go on, and the running totals (kept all along) hold every visit.
  await visit("2026-03-03T09:00:00Z", "/");
  expect(await sql()`SELECT k.path, max(t.visits) AS visits FROM traffic_page_totals AS t JOIN traffic_page_totals_keys AS k ON k.id = t.key_id GROUP BY k.path ORDER BY k.path`).toEqual([
    { path: "/", visits: 3 },
    { path: "/pricing", visits: 1 },
  ]);
  expect(await storage.dropRetiredTables()).toEqual([]);
});

test.skipIf(!server)("a fresh database never keeps the retired tables: no older instance can read them", async () => {
  const fresh = await openPostgresDatabase(await server!.createDatabase("retire"), { poolSize: 1 });
  try {
    expect(RETIRED_ROLLUPS.length).toBe(8);
    for (const table of RETIRED_ROLLUPS) expect((await fresh.sql`SELECT to_regclass(${table}) AS t`)[0].t).toBeNull();
  } finally {
    await fresh.close();
  }
});
