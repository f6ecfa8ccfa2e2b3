// Issue #32 on Postgres: the release before kept the running totals fed by results keyed by text in
// every day's row (competitor_running, domain_running, domain_prompt_running, url_running,
// query_running). Its database is made here as that release left it — migrations through 0020, those
// rollups' functions, triggers, rows and state in that layout — with an instance of it registered as
// running. This release starts beside it: nothing is rebuilt or moved at the start; the rows move
// after it, a few keys of one brand per statement, only once no older instance runs, while other
// sessions write the same brands; at every step every rollup equals its raw rows (both layouts read
// together) and the insights read the same answers; the former tables go at a start with no
// instance running.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SQL } from "bun";
import { openPostgresDatabase } from "../../src/database";
import { openPostgres, type PgHandle } from "../../src/db/pg/open";
import { embeddedMigrations } from "../../src/db/pg/migrations.generated";
import { createPgInsightsStore, formerTablesOf } from "../../src/insights/store.pg";
import { formerLayout } from "../../src/rollups/spec";
import { definitionHash, ensurePgRollups, moveFormerPgRows, PG_ROLLUPS, rebuildSql, triggerSql } from "../../src/rollups/triggers.pg";
import { snapshotDifferences } from "../rollups/recompute";
import { pgRollupsOfRelease, pgSnapshot } from "../rollups/recompute.pg";
import { runningTotalsAnswers } from "../rollups/running-answers";
import { testPostgres } from "../helpers/postgres";
import { seededRandom } from "../helpers/random";

const server = await testPostgres();
const BASES = ["competitor", "domain", "domain_prompt", "url", "query"];
const FORMER = BASES.flatMap((b) => [`${b}_running`, `${b}_running_keys`]);
const KEYED = BASES.flatMap((b) => [`${b}_totals`, `${b}_totals_keys`]);
let url: string;
let pg: PgHandle | undefined;
const sql = (): SQL => pg!.sql;
type Brand = { id: string; prompts: string[]; competitors: string[] };
let brands: Brand[] = [];
let olderInstance: string;
const liveInstance = crypto.randomUUID();

/** Results as the tracking writer stores them: citations of a few domains and URLs, competitors named, fan-out queries. */
async function writeResults(s: SQL, n: number, seed: number) {
  const { int, pick, random } = seededRandom(seed);
  for (let i = 0; i < n; i++) {
    const brand = pick(brands);
    const citations = Array.from({ length: int(5) }, () => {
      const domain = pick(["acme.com", "globex.com", "wiki.org", "news.net"]);
      return { url: `https://${domain}/p${int(4)}`, normalized_url: `${domain}/p${int(4)}`, domain };
    });
    const mentions = brand.competitors.filter(() => random() < 0.5).map((id) => ({ competitor_id: id, mention_count: 1 + int(3), position: random() < 0.5 ? 1 + int(4) : null }));
    const at = new Date(Date.UTC(2026, 4, 1) + int(45) * 86_400_000 + int(86_400_000)).toISOString();
    await s`INSERT INTO prompt_results (brand_id, prompt_id, platform, model, region, response, mentioned, competitor_mentions, citations, search_queries, created_at)
            VALUES (${brand.id}, ${pick(brand.prompts)}, ${pick(["chatgpt", "perplexity"])}, 'm-1', '', 'answer', ${random() < 0.5}, ${JSON.stringify(mentions)}::text::jsonb,
                    ${JSON.stringify(citations)}::text::jsonb, ${JSON.stringify(random() < 0.6 ? [pick(["best tool", "top crm", "cheap crm"])] : [])}::text::jsonb, ${at})`;
  }
  // An update moving a few results' citations (to a domain new to the brands) and competitors, and deletes.
  const fresh = `fresh-${seed}.io`;
  await s`UPDATE prompt_results SET citations = ${JSON.stringify([{ url: `https://${fresh}/a`, normalized_url: `${fresh}/a`, domain: fresh }])}::text::jsonb, competitor_mentions = '[]'::jsonb, mentioned = NOT mentioned
           WHERE id IN (SELECT id FROM prompt_results ORDER BY md5(id::text || ${seed}) LIMIT 2)`;
  await s`DELETE FROM prompt_results WHERE id IN (SELECT id FROM prompt_results ORDER BY md5(id::text || ${seed + 1}) LIMIT 3)`;
}

/** What the insights read from the running totals for every brand (a store made fresh: it asks which former tables are there). */
const answers = () => runningTotalsAnswers(createPgInsightsStore(sql()), brands.map((b) => b.id));

const present = async (tables: string[]) =>
  ((await sql()`SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relname = ANY(${sql().array(tables, "text")}::text[]) ORDER BY relname`) as { name: string }[]).map((r) => r.name);
/** The rollup trigger functions whose body names `text` (a former table). */
const triggersNaming = async (text: string) =>
  ((await sql()`SELECT proname FROM pg_proc WHERE proname LIKE 'rollup\\_%' AND strpos(prosrc, ${text}) > 0 ORDER BY proname`) as { proname: string }[]).map((r) => r.proname);
const count = async (table: string) => ((await sql().unsafe(`SELECT count(*)::int AS n FROM ${table}`)) as { n: number }[])[0]!.n;

beforeAll(async () => {
  if (!server) return;
  url = await server.createDatabase("upgrade_result_totals");
  const before = embeddedMigrations.slice(0, embeddedMigrations.findIndex((m) => m.tag === "0021_keyed_result_totals"));
  expect(before.at(-1)!.tag).toBe("0020_keyed_running_totals");
  const old = await openPostgres(url, { migrations: before, parts: [], poolSize: 2 });
  try {
    const { specs } = await pgRollupsOfRelease(old.sql, PG_ROLLUPS.map((spec) => (spec.moveLater ? formerLayout(spec)! : spec)));
    expect(specs.filter((s) => FORMER.includes(s.table))).toHaveLength(FORMER.length);
    olderInstance = crypto.randomUUID();
    await old.sql.begin(async (tx) => {
      for (const spec of specs) {
        for (const statement of [...triggerSql(spec), ...rebuildSql(spec)]) await tx.unsafe(statement);
        await tx`INSERT INTO rollup_state (name, hash) VALUES (${spec.table}, ${definitionHash(spec)})`;
      }
      await tx`INSERT INTO answerwatch_instances (id, host, pid, version, schema) VALUES (${olderInstance}, 'old-host', 1, 'previous', ${before.length})`;
    });
    const [org] = await old.sql`INSERT INTO organizations (name, slug) VALUES ('Upgrade', 'upgrade') RETURNING id`;
    for (const name of ["Acme", "Bravo"]) {
      const [{ id }] = await old.sql`INSERT INTO brands (organization_id, name, slug) VALUES (${org.id}, ${name}, ${name.toLowerCase()}) RETURNING id`;
      const [set] = await old.sql`INSERT INTO prompt_sets (brand_id, name) VALUES (${id}, 'Core') RETURNING id`;
      const prompts = [];
      for (const p of [0, 1, 2]) prompts.push(((await old.sql`INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (${set.id}, ${id}, ${`prompt ${p}`}) RETURNING id`)[0] as { id: string }).id);
      const competitors = [];
      for (const c of ["Globex", "Initech"]) competitors.push(((await old.sql`INSERT INTO competitors (brand_id, name) VALUES (${id}, ${c}) RETURNING id`)[0] as { id: string }).id);
      brands.push({ id, prompts, competitors });
    }
    await writeResults(old.sql, 160, 1);
  } finally {
    await old.close();
  }
});
afterAll(() => pg?.close());

test.skipIf(!server)("the result-fed running totals move after the start, only once no older instance runs: equal to the raw rows, the same answers at every step, then the triggers keep the new layout alone", async () => {
  pg = await openPostgresDatabase(url, { poolSize: 4 });
  // The start: nothing rebuilt, nothing moved; the former tables answer, with their keys.
  expect(await sql().begin((tx) => ensurePgRollups(tx))).toEqual([]);
  for (const table of KEYED) expect(await count(table), table).toBe(0);
  for (const table of FORMER) expect(await count(table), table).toBeGreaterThan(0);
  expect(snapshotDifferences(await pgSnapshot(sql()))).toEqual([]);
  const atStart = await answers();
  // An instance of this release runs too (the former tables are then never dropped under it).
  await sql()`INSERT INTO answerwatch_instances (id, host, pid, version, schema) VALUES (${liveInstance}, 'this-host', 2, 'this', ${embeddedMigrations.length})`;
  // An older instance still runs (it reads only the former tables): nothing moves.
  expect(await moveFormerPgRows(sql(), 5)).toEqual({ moved: 0, done: false });
  await writeResults(sql(), 30, 2);
  expect(snapshotDifferences(await pgSnapshot(sql()))).toEqual([]);
  expect((await sql()`SELECT count(*)::int AS n FROM url_totals_keys WHERE domain = 'fresh-2.io'`)[0].n).toBeGreaterThan(0);
  const beforeMove = await answers();
  // It stops: the rows move, a few keys at a time, each step changing no answer.
  await sql()`UPDATE answerwatch_instances SET heartbeat_at = now() - interval '1 hour' WHERE id = ${olderInstance}`;
  let steps = 0;
  for (; ; steps++) {
    if (steps > 500) throw new Error("the move did not end in 500 steps");
    const step = await moveFormerPgRows(sql(), 6);
    if (step.done) break;
    expect(step.moved).toBeGreaterThan(0);
    expect(await answers(), `step ${steps}`).toEqual(beforeMove);
  }
  expect(steps).toBeGreaterThan(10);
  for (const table of FORMER.filter((t) => t.endsWith("_keys"))) expect(await count(table), table).toBe(0);
  expect(snapshotDifferences(await pgSnapshot(sql()))).toEqual([]);
  expect(await answers()).toEqual(beforeMove);
  expect(atStart).not.toEqual(beforeMove);
  // Done: the triggers keep the new layout alone; the emptied former tables stay while an instance runs.
  expect(await triggersNaming("_running")).toEqual([]);
  expect(await present(FORMER)).toEqual([...FORMER].sort());
});

test.skipIf(!server)("writers of the same brands while the rows move: nothing lost or counted twice; a start with no instance running drops the former tables", async () => {
  // Back to a database mid-move: the former layout made again from the raw rows (rebuilt in its
  // former layout, the new tables emptied); a start writes the triggers in the moving form again.
  await sql().begin(async (tx) => {
    for (const spec of PG_ROLLUPS.filter((s) => s.moveLater)) {
      const former = formerLayout(spec)!;
      await tx.unsafe(`DELETE FROM ${spec.table}`);
      for (const statement of rebuildSql(former)) await tx.unsafe(statement);
    }
  });
  expect(await sql().begin((tx) => ensurePgRollups(tx))).toEqual([]);
  expect((await triggersNaming("_running_keys")).length).toBeGreaterThan(0);
  expect(snapshotDifferences(await pgSnapshot(sql()))).toEqual([]);
  const before = await answers();
  const writer = await openPostgres(url, { migrations: embeddedMigrations, parts: [], poolSize: 2 });
  try {
    const moving = (async () => {
      for (let steps = 0; steps < 500; steps++) if ((await moveFormerPgRows(sql(), 4)).done) return steps;
      throw new Error("the move did not end in 500 steps");
    })();
    await Promise.all([moving, writeResults(writer.sql, 60, 3)]);
  } finally {
    await writer.close();
  }
  expect(snapshotDifferences(await pgSnapshot(sql()))).toEqual([]);
  expect(await answers()).not.toEqual(before);
  // Every former key moved; a start with no instance running drops the former tables.
  for (const table of FORMER.filter((t) => t.endsWith("_keys"))) expect(await count(table), table).toBe(0);
  expect(await triggersNaming("_running")).toEqual([]);
  await sql()`UPDATE answerwatch_instances SET heartbeat_at = now() - interval '1 hour' WHERE id = ${liveInstance}`;
  // Stores that looked before the drop (another instance's, whose heartbeat was late) read on without the former tables.
  const [cachedPool, cachedTx] = [formerTablesOf(sql()), formerTablesOf(sql())];
  expect((await cachedPool.get()).size).toBe(5);
  expect((await cachedTx.get()).size).toBe(5);
  const ids = brands.map((b) => b.id);
  const moved = await answers();
  expect(await sql().begin((tx) => ensurePgRollups(tx))).toEqual([]);
  expect(await present(FORMER)).toEqual([]);
  expect(await runningTotalsAnswers(createPgInsightsStore(sql(), { formerTables: cachedPool }), ids)).toEqual(moved);
  expect(await sql().begin((tx) => runningTotalsAnswers(createPgInsightsStore(tx, { formerTables: cachedTx, inTransaction: true }), ids))).toEqual(moved);
  expect((await cachedPool.get()).size).toBe(0);
  const settled = await answers();
  await writeResults(sql(), 20, 4);
  expect(snapshotDifferences(await pgSnapshot(sql()))).toEqual([]);
  expect(await answers()).not.toEqual(settled);
});
