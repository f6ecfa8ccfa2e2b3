// Issue #32: the release before keyed its log-fed running totals (crawler paths, landing pages) by
// their text in every day's row (crawler_paths_running, traffic_pages_running). Its database is made
// here as that release left it — migrations up to 0025, every rollup's triggers and rows in that
// layout with their state (the same generator, each rollup in its former layout) — then written to
// through those triggers. Migration 0026 makes the tables of totals keyed by id (crawler_path_totals,
// traffic_page_totals) and the start moves the rows into them: nothing rebuilt, every rollup equal to
// its raw rows, ids given in key order, the former tables retired, and writes after the start kept
// current by the new triggers.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { registerSqlFunctions } from "../../src/database";
import { applyMigrations } from "../../src/db/migrations";
import { embeddedMigrations } from "../../src/db/migrations.generated";
import { DB_FILE } from "../../src/db/open";
import { formerLayout, ROLLUPS } from "../../src/rollups/spec";
import { definitionHash, ensureRollups, rebuildSql, triggerSql } from "../../src/rollups/triggers.sqlite";
import { tempDir } from "../helpers/app";
import { seededRandom } from "../helpers/random";
import { rollupCounts, rollupDifferences, rollupsOfRelease } from "../rollups/recompute";

const BEFORE = embeddedMigrations.slice(0, embeddedMigrations.findIndex((m) => m.tag === "0026_keyed_running_totals"));
const KEYED = ["crawler_path_totals", "crawler_path_totals_keys", "traffic_page_totals", "traffic_page_totals_keys"];
const FORMER = ["crawler_paths_running", "crawler_paths_running_keys", "traffic_pages_running", "traffic_pages_running_keys"];

function databaseOfTheReleaseBefore(dir: string) {
  const db = new Database(join(dir, DB_FILE));
  registerSqlFunctions(db);
  db.run("PRAGMA foreign_keys = ON");
  expect(BEFORE.at(-1)!.tag).toBe("0025_traffic_pages_running");
  applyMigrations(db, BEFORE);
  // What that release's start did: each rollup's triggers, its rows and its definition's hash.
  const { specs: textSpecs, later } = rollupsOfRelease(db, ROLLUPS.map((spec) => formerLayout(spec) ?? spec));
  expect(textSpecs.filter((s) => FORMER.includes(s.table)).length).toBe(4);
  expect(textSpecs.some((s) => s.keyIds || KEYED.includes(s.table))).toBe(false);
  db.transaction(() => {
    db.run("DELETE FROM rollup_state");
    for (const spec of textSpecs) {
      for (const sql of [...triggerSql(spec), ...rebuildSql(spec)]) db.run(sql);
      db.run("INSERT INTO rollup_state (name, hash) VALUES (?, ?)", [spec.table, definitionHash(spec)]);
    }
  })();
  const { int, pick } = seededRandom(2626);
  const one = (sql: string, ...params: (string | number | null | Uint8Array)[]) => (db.query(`${sql} RETURNING id`).get(...params) as { id: string | number }).id;
  const org = one("INSERT INTO organizations (name, slug) VALUES ('Org', 'org')");
  const brands = [0, 1].map((i) => String(one("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?)", org, `Brand ${i}`, `brand-${i}`)));
  const day = (n: number) => new Date(Date.UTC(2026, 2, 10) + n * 86_400_000 + int(86_400_000)).toISOString();
  for (const brand of brands) {
    for (let i = 0; i < 120; i++)
      one("INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at) VALUES (?, 'https://acme.com/x', ?, ?, ?, ?)", brand, pick(["/", "/pricing", "/docs"]), pick(["chatgpt", "perplexity", null]), `v${int(20)}`, day(int(40)));
    for (let i = 0; i < 200; i++) {
      const bot = pick(["GPTBot", "ClaudeBot", null]);
      one(
        "INSERT INTO crawler_hits (brand_id, at, method, path, status, bytes, user_agent, bot, class, hit, verdict, record_key) VALUES (?, ?, 'GET', ?, ?, ?, 'ua', ?, ?, ?, ?, ?)",
        brand, day(int(40)), pick(["/", "/docs", "/docs/a", "/robots.txt"]), pick([200, 403, 404, 503]), int(9000), bot, bot ? "ai_training" : "human", pick(["page", "robots"]), bot ? "verified" : null, crypto.getRandomValues(new Uint8Array(16)),
      );
    }
  }
  // A key whose requests all went (its totals back at nothing) and raw rows moved between keys, as that release's triggers kept them.
  db.run("DELETE FROM crawler_hits WHERE path = '/docs/a' AND bot = 'GPTBot'");
  db.run("UPDATE ai_traffic_logs SET path = '/moved' WHERE rowid IN (SELECT rowid FROM ai_traffic_logs WHERE source_platform IS NOT NULL LIMIT 7)");
  const keys = db.query("SELECT brand_id, bot, hit, path FROM crawler_paths_running_keys ORDER BY brand_id, bot, hit, path").all();
  const counts = Object.fromEntries(FORMER.map((t) => [t, (db.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));
  db.close();
  return { keys, counts, later };
}

test("the release before's running totals keyed by text are moved to totals keyed by id: nothing rebuilt, nothing lost, kept current after", () => {
  const dir = tempDir();
  const before = databaseOfTheReleaseBefore(dir);
  for (const table of FORMER) expect(before.counts[table], table).toBeGreaterThan(0);
  const db = new Database(join(dir, DB_FILE));
  registerSqlFunctions(db);
  db.run("PRAGMA foreign_keys = ON");
  // What a start does: the migrations, then the rollups made to match spec.ts.
  expect(applyMigrations(db, embeddedMigrations)).toBe(embeddedMigrations.length - BEFORE.length);
  for (const table of KEYED) expect(db.query(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
  // A crawler request written between the migrations and the rollups' start (another process's import): the former tables' triggers still count it.
  const late = (db.query("SELECT id FROM brands ORDER BY name DESC LIMIT 1").get() as { id: string }).id;
  db.run("INSERT INTO crawler_hits (brand_id, at, method, path, status, user_agent, bot, class, hit, verdict, record_key) VALUES (?, '2026-03-11T10:00:00.000Z', 'GET', '/late', 200, 'ua', 'ClaudeBot', 'ai_training', 'page', 'verified', randomblob(16))", [late]);
  const rebuilt = ensureRollups(db);
  for (const table of KEYED) expect(rebuilt, table).not.toContain(table);
  // Only the totals fed by results, made from none (this database has no results; their former
  // tables, empty, went at the start: upgrade-result-totals.test.ts has them full), and the rollups
  // later releases added.
  expect(rebuilt.filter((t) => !ROLLUPS.some((spec) => spec.moveLater && spec.table === t) && !before.later.includes(t))).toEqual([]);
  expect(rebuilt).toEqual(expect.arrayContaining(before.later));
  for (const table of rebuilt) expect(db.query(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
  // The former tables are retired: small, they went at the start, and their triggers with them.
  expect(db.query(`SELECT name FROM sqlite_master WHERE name IN (${FORMER.map(() => "?").join(", ")}) OR (type = 'trigger' AND (name LIKE '%crawler_paths_running%' OR name LIKE '%traffic_pages_running%'))`).all(...FORMER)).toEqual([]);
  // The totals hold key ids, given in key order; every listed key came across with its totals.
  expect(db.query("SELECT * FROM crawler_path_totals LIMIT 1").get()).toContainKey("key_id");
  expect(db.query("SELECT brand_id, bot, hit, path FROM crawler_path_totals_keys WHERE path != '/late' ORDER BY id").all()).toEqual(before.keys);
  expect(rollupDifferences(db)).toEqual([]);
  const counts = rollupCounts(db);
  expect(counts.crawler_path_totals_keys).toBe(before.counts.crawler_paths_running_keys! + 1);
  expect(counts.traffic_page_totals_keys).toBe(before.counts.traffic_pages_running_keys!);
  // New writes through the new triggers: inserts, an update moving rows between keys, deletes.
  const brand = (db.query("SELECT id FROM brands ORDER BY name LIMIT 1").get() as { id: string }).id;
  db.run("INSERT INTO crawler_hits (brand_id, at, method, path, status, user_agent, bot, class, hit, verdict, record_key) VALUES (?, '2026-03-12T10:00:00.000Z', 'GET', '/new', 200, 'ua', 'GPTBot', 'ai_training', 'page', 'verified', randomblob(16))", [brand]);
  db.run("INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at) VALUES (?, 'https://acme.com/x', '/pricing', 'chatgpt', 'v1', '2026-03-01T10:00:00.000Z')", [brand]);
  db.run("UPDATE crawler_hits SET path = '/docs/b' WHERE rowid IN (SELECT rowid FROM crawler_hits WHERE bot IS NOT NULL LIMIT 9)");
  db.run("DELETE FROM ai_traffic_logs WHERE rowid IN (SELECT rowid FROM ai_traffic_logs WHERE source_platform IS NOT NULL LIMIT 5)");
  expect(rollupDifferences(db)).toEqual([]);
  db.close();
});

test("a former key list that is not current: the pair is rebuilt from the raw rows, the former tables' triggers go all the same, and writes go on", () => {
  const dir = tempDir();
  databaseOfTheReleaseBefore(dir);
  const db = new Database(join(dir, DB_FILE));
  registerSqlFunctions(db);
  db.run("PRAGMA foreign_keys = ON");
  // As if an older release had defined the key list otherwise: its rows are not what spec.ts makes.
  db.run("UPDATE rollup_state SET hash = 'an older definition' WHERE name = 'crawler_paths_running_keys'");
  applyMigrations(db, embeddedMigrations);
  const rebuilt = ensureRollups(db);
  expect(rebuilt.filter((t) => KEYED.includes(t)).sort()).toEqual(["crawler_path_totals", "crawler_path_totals_keys"]);
  expect(db.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND (name LIKE '%crawler_paths_running%' OR name LIKE '%traffic_pages_running%')").all()).toEqual([]);
  const brand = (db.query("SELECT id FROM brands ORDER BY name LIMIT 1").get() as { id: string }).id;
  db.run("INSERT INTO crawler_hits (brand_id, at, method, path, status, user_agent, bot, class, hit, verdict, record_key) VALUES (?, '2026-03-12T10:00:00.000Z', 'GET', '/new', 200, 'ua', 'GPTBot', 'ai_training', 'page', 'verified', randomblob(16))", [brand]);
  expect(rollupDifferences(db)).toEqual([]);
  db.close();
});
