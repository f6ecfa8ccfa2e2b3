// Issue #32 on Postgres: the release before kept its log-fed running totals keyed by text in every
// day's row (crawler_paths_running, traffic_pages_running). Its database is made here as that release
// left it — migrations through 0019, every rollup's functions, triggers, rows and state in that
// layout (the same generator, each rollup in its former layout) — with an instance of it running and
// writing. This release starts beside it: the totals keyed by id (crawler_path_totals,
// traffic_page_totals) get the former tables' rows moved across, nothing rebuilt; every rollup equals
// its raw rows; and while the older instance runs, the former tables stay and are kept current too.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SQL } from "bun";
import { openPostgresDatabase } from "../../src/database";
import { openPostgres, type PgHandle } from "../../src/db/pg/open";
import { embeddedMigrations } from "../../src/db/pg/migrations.generated";
import { formerLayout } from "../../src/rollups/spec";
import { definitionHash, ensurePgRollups, PG_ROLLUPS, rebuildSql, triggerSql } from "../../src/rollups/triggers.pg";
import { snapshotDifferences } from "../rollups/recompute";
import { pgRollupsOfRelease, pgSnapshot } from "../rollups/recompute.pg";
import { testPostgres } from "../helpers/postgres";
import { seededRandom } from "../helpers/random";

const server = await testPostgres();
const KEYED = ["crawler_path_totals", "crawler_path_totals_keys", "traffic_page_totals", "traffic_page_totals_keys"];
const FORMER = ["crawler_paths_running", "crawler_paths_running_keys", "traffic_pages_running", "traffic_pages_running_keys"];
let url: string;
let pg: PgHandle | undefined;
let brandId: string;
let formerKeys: unknown[];
const sql = (): SQL => pg!.sql;

async function writeLogs(s: SQL, brand: string, n: number, seed: number) {
  const { int, pick } = seededRandom(seed);
  for (let i = 0; i < n; i++) {
    const day = `2026-03-${String(1 + int(28)).padStart(2, "0")}`;
    const bot = pick(["GPTBot", "ClaudeBot", null]);
    await s`INSERT INTO crawler_hits (brand_id, at, method, path, status, user_agent, bot, class, hit, verdict, record_key)
            VALUES (${brand}, ${`${day}T${String(int(24)).padStart(2, "0")}:00:00Z`}, 'GET', ${pick(["/", "/docs", "/docs/a"])}, ${pick([200, 403, 404])}, 'ua', ${bot},
                    ${bot ? "ai_training" : "human"}, ${pick(["page", "robots"])}, ${bot ? "verified" : null}, ${crypto.getRandomValues(new Uint8Array(16))})`;
    await s`INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at)
            VALUES (${brand}, 'https://acme.example/x', ${pick(["/", "/pricing"])}, ${pick(["chatgpt", "perplexity", null])}, ${`v${int(9)}`}, ${`${day}T10:00:00Z`})`;
  }
}

/** The rollups a release after that one added (the start fills them from the raw rows). */
let laterRollups: string[] = [];

beforeAll(async () => {
  if (!server) return;
  url = await server.createDatabase("upgrade_keyed");
  const before = embeddedMigrations.slice(0, embeddedMigrations.findIndex((m) => m.tag === "0020_keyed_running_totals"));
  expect(before.at(-1)!.tag).toBe("0019_instance_schema");
  const old = await openPostgres(url, { migrations: before, parts: [], poolSize: 2 });
  try {
    // What that release's start made: each rollup in its former layout, its functions, triggers, rows and state.
    const { specs, later } = await pgRollupsOfRelease(old.sql, PG_ROLLUPS.map((spec) => formerLayout(spec) ?? spec));
    laterRollups = later;
    expect(specs.filter((s) => FORMER.includes(s.table))).toHaveLength(4);
    await old.sql.begin(async (tx) => {
      for (const spec of specs) {
        for (const statement of [...triggerSql(spec), ...rebuildSql(spec)]) await tx.unsafe(statement);
        await tx`INSERT INTO rollup_state (name, hash) VALUES (${spec.table}, ${definitionHash(spec)})`;
      }
      await tx`INSERT INTO answerwatch_instances (id, host, pid, version, schema) VALUES (${crypto.randomUUID()}, 'old-host', 1, 'previous', ${before.length})`;
    });
    const [org] = await old.sql`INSERT INTO organizations (name, slug) VALUES ('Upgrade', 'upgrade') RETURNING id`;
    [{ id: brandId }] = await old.sql`INSERT INTO brands (organization_id, name, slug) VALUES (${org.id}, 'Acme', 'acme') RETURNING id`;
    await writeLogs(old.sql, brandId, 60, 1);
    // A key whose requests all went, and visits moved between keys.
    await old.sql`DELETE FROM crawler_hits WHERE path = '/docs/a' AND bot = 'GPTBot'`;
    await old.sql`UPDATE ai_traffic_logs SET path = '/moved' WHERE id IN (SELECT id FROM ai_traffic_logs WHERE source_platform IS NOT NULL LIMIT 4)`;
    formerKeys = await old.sql`SELECT brand_id, bot, hit, path FROM crawler_paths_running_keys ORDER BY brand_id, bot, hit, path`;
    expect(formerKeys.length).toBeGreaterThan(6);
  } finally {
    await old.close();
  }
});
afterAll(() => pg?.close());

test.skipIf(!server)("the former running totals are moved to totals keyed by id: nothing rebuilt, equal to the raw rows, the former tables kept current while the older instance runs", async () => {
  // The migrations, then the rollups' part of the start, on its own: nothing is rebuilt but the
  // rollups later releases added.
  const migrated = await openPostgres(url, { migrations: embeddedMigrations, parts: [], poolSize: 1 });
  try {
    expect(await migrated.sql.begin((tx) => ensurePgRollups(tx))).toEqual(laterRollups);
  } finally {
    await migrated.close();
  }
  pg = await openPostgresDatabase(url, { poolSize: 2 });
  const state = await sql()`SELECT name FROM rollup_state WHERE name = ANY(${sql().array(KEYED, "text")}::text[]) ORDER BY name`;
  expect(state.map((r: { name: string }) => r.name)).toEqual([...KEYED].sort());
  expect(await sql()`SELECT brand_id, bot, hit, path FROM crawler_path_totals_keys ORDER BY id`).toEqual(formerKeys);
  expect(snapshotDifferences(await pgSnapshot(sql()))).toEqual([]);
  // The older instance still runs: the former tables stay, with their triggers, and count new writes too.
  for (const table of FORMER) expect((await sql()`SELECT to_regclass(${table}) IS NOT NULL AS present`)[0].present, table).toBe(true);
  await writeLogs(sql(), brandId, 20, 5);
  expect(snapshotDifferences(await pgSnapshot(sql()))).toEqual([]);
  const [former] = await sql()`SELECT sum(requests)::int AS n FROM crawler_paths_running AS r WHERE day = (SELECT max(day) FROM crawler_paths_running AS x WHERE x.brand_id = r.brand_id AND x.bot = r.bot AND x.hit = r.hit AND x.path = r.path)`;
  const [now] = await sql()`SELECT sum(t.requests)::int AS n FROM crawler_path_totals AS t WHERE day = (SELECT max(day) FROM crawler_path_totals AS x WHERE x.key_id = t.key_id)`;
  const [hits] = await sql()`SELECT count(*)::int AS n FROM crawler_hits WHERE bot IS NOT NULL`;
  expect({ former: former.n, now: now.n }).toEqual({ former: hits.n, now: hits.n });
  // An older instance reads the former tables under its callers' roles: a member of the brand's
  // organization reads them as before, another organization's owner reads nothing.
  const member = async (org: string) => {
    const [{ id }] = await sql()`WITH placed AS (SELECT set_config('answerwatch.signup', 'placed', true)) INSERT INTO auth.users (email) SELECT ${`${crypto.randomUUID()}@example.com`} FROM placed RETURNING id`;
    await sql()`INSERT INTO organization_members (organization_id, user_id, role) VALUES (${org}, ${id}, 'viewer')`;
    return id as string;
  };
  const [{ organization_id: org }] = await sql()`SELECT organization_id FROM brands WHERE id = ${brandId}`;
  const [other] = await sql()`INSERT INTO organizations (name, slug) VALUES ('Other', 'other') RETURNING id`;
  const readAs = (user: string, table: string) =>
    sql().begin(async (tx) => {
      await tx.unsafe("SET LOCAL ROLE authenticated");
      await tx`SELECT set_config('request.jwt.claims', ${JSON.stringify({ sub: user, role: "authenticated" })}, true)`;
      return ((await tx.unsafe(`SELECT count(*)::int AS n FROM ${table}`)) as { n: number }[])[0]!.n;
    });
  const [viewer, stranger] = [await member(org), await member(other.id)];
  for (const table of [...FORMER, ...KEYED]) {
    const [{ n }] = await sql().unsafe(`SELECT count(*)::int AS n FROM ${table}`);
    expect(n, table).toBeGreaterThan(0);
    expect({ table, viewer: await readAs(viewer, table), stranger: await readAs(stranger, table) }).toEqual({ table, viewer: n, stranger: 0 });
  }
});
