// Issue #32: the release before kept the running totals fed by results (competitors, cited domains,
// domains per prompt, cited URLs, fan-out queries) keyed by text in every day's row. Its database is
// made here as that release left it — migrations up to 0026, those rollups in their former layout
// with their state — then written to through its triggers. Migration 0027 makes the tables keyed by
// id; the start moves nothing (an upgrade's first start stays short: target 5) and the rows move
// after it, a few keys at a time. At every step — right after the start, part-way through the move,
// after it — every rollup equals its raw rows (both layouts read together while the move runs), the
// insights read the same answers as a rebuild from the raw rows gives, and writes of every kind keep
// them so.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { registerSqlFunctions } from "../../src/database";
import { applyMigrations } from "../../src/db/migrations";
import { embeddedMigrations } from "../../src/db/migrations.generated";
import { DB_FILE } from "../../src/db/open";
import { createSqliteInsightsStore } from "../../src/insights/store.sqlite";
import { formerLayout, ROLLUPS } from "../../src/rollups/spec";
import { definitionHash, ensureRollups, moveFormerRows, rebuildRollups, rebuildSql, triggerNames, triggerSql } from "../../src/rollups/triggers.sqlite";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/http/log";
import { startServer } from "../../src/server";
import { tempDir, testEnv } from "../helpers/app";
import { seededRandom } from "../helpers/random";
import { rollupDifferences, rollupsOfRelease } from "../rollups/recompute";
import { runningTotalsAnswers } from "../rollups/running-answers";

const BEFORE = embeddedMigrations.slice(0, embeddedMigrations.findIndex((m) => m.tag === "0027_keyed_result_totals"));
const BASES = ["competitor", "domain", "domain_prompt", "url", "query"];
const FORMER = BASES.flatMap((b) => [`${b}_running`, `${b}_running_keys`]);
const KEYED = BASES.flatMap((b) => [`${b}_totals`, `${b}_totals_keys`]);
const { int, pick, random } = seededRandom(2727);

function open(dir: string) {
  const db = new Database(join(dir, DB_FILE));
  registerSqlFunctions(db);
  db.run("PRAGMA foreign_keys = ON");
  return db;
}

/** A result as the tracking writer stores it: citations of a few domains and URLs, competitors named, fan-out queries. */
function addResult(db: Database, brand: { id: string; prompts: string[]; competitors: string[] }, day: number) {
  const citations = Array.from({ length: int(5) }, () => {
    const domain = pick(["acme.com", "globex.com", "wiki.org", "news.net"]);
    return { url: `https://${domain}/p${int(4)}`, normalized_url: `${domain}/p${int(4)}`, domain, title: "t" };
  });
  const mentions = brand.competitors.filter(() => random() < 0.5).map((id) => ({ competitor_id: id, name: "c", mention_count: 1 + int(3), position: random() < 0.5 ? 1 + int(4) : null }));
  const at = new Date(Date.UTC(2026, 4, 1) + day * 86_400_000 + int(86_400_000)).toISOString();
  db.run(
    `INSERT INTO prompt_results (id, job_id, brand_id, prompt_id, platform, model, region, response, mentioned, competitor_mentions, citations, search_queries, created_at)
     VALUES (?, ?, ?, ?, ?, 'm-1', '', 'answer', ?, ?, ?, ?, ?)`,
    [crypto.randomUUID(), crypto.randomUUID(), brand.id, pick(brand.prompts), pick(["chatgpt", "perplexity"]), random() < 0.5 ? 1 : 0, JSON.stringify(mentions), JSON.stringify(citations), JSON.stringify(random() < 0.6 ? [pick(["best tool", "top crm", "cheap crm"])] : []), at],
  );
}

/** Writes of every kind: new results (new keys and known ones, days before the last too), an update moving a result's citations and competitors, deletes. */
function writeAround(db: Database, brands: { id: string; prompts: string[]; competitors: string[] }[], n: number) {
  for (let i = 0; i < n; i++) addResult(db, pick(brands), int(45));
  db.run(`UPDATE prompt_results SET citations = ?, competitor_mentions = '[]', mentioned = 1 - mentioned WHERE rowid IN (SELECT rowid FROM prompt_results ORDER BY random() LIMIT 3)`, [
    JSON.stringify([{ url: "https://fresh.io/a", normalized_url: "fresh.io/a", domain: "fresh.io" }]),
  ]);
  db.run("DELETE FROM prompt_results WHERE rowid IN (SELECT rowid FROM prompt_results ORDER BY random() LIMIT 4)");
}

function databaseOfTheReleaseBefore(dir: string) {
  const db = open(dir);
  expect(BEFORE.at(-1)!.tag).toBe("0026_keyed_running_totals");
  applyMigrations(db, BEFORE);
  // What that release's start did: each rollup's triggers, its rows and its definition's hash — the
  // totals fed by results in their former layout.
  const { specs, later } = rollupsOfRelease(db, ROLLUPS.map((spec) => (spec.moveLater ? formerLayout(spec)! : spec)));
  expect(specs.filter((s) => FORMER.includes(s.table)).length).toBe(FORMER.length);
  db.transaction(() => {
    db.run("DELETE FROM rollup_state");
    for (const spec of specs) {
      for (const sql of [...triggerSql(spec), ...rebuildSql(spec)]) db.run(sql);
      db.run("INSERT INTO rollup_state (name, hash) VALUES (?, ?)", [spec.table, definitionHash(spec)]);
    }
  })();
  const one = (sql: string, ...params: string[]) => String((db.query(`${sql} RETURNING id`).get(...params) as { id: string }).id);
  const org = one("INSERT INTO organizations (name, slug) VALUES ('Org', 'org')");
  const brands = [0, 1, 2].map((i) => {
    const id = one("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?)", org, `Brand ${i}`, `brand-${i}`);
    const set = one("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'Core')", id);
    return {
      id,
      prompts: [0, 1, 2].map((p) => one("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, ?)", set, id, `prompt ${p}`)),
      competitors: ["Globex", "Initech"].map((name) => one("INSERT INTO competitors (brand_id, name) VALUES (?, ?)", id, name)),
    };
  });
  for (let i = 0; i < 240; i++) addResult(db, pick(brands), int(40));
  // Keys whose results all went (their totals at nothing; the former key list no longer lists them).
  db.run("DELETE FROM prompt_results WHERE rowid IN (SELECT rowid FROM prompt_results ORDER BY rowid LIMIT 30)");
  db.close();
  return { brands, later };
}

/** What the insights read from the running totals, for every brand (tests/rollups/running-answers.ts). */
const answers = (db: Database, brands: { id: string }[], days = true) => runningTotalsAnswers(createSqliteInsightsStore(db), brands.map((b) => b.id), days);

/** The same answers from rollups rebuilt from the raw rows, on a copy of the file (the database under test is left as it is). */
async function rebuiltAnswers(db: Database, dir: string, brands: { id: string }[]) {
  const copy = join(dir, `copy-${crypto.randomUUID()}.db`);
  db.run(`VACUUM INTO '${copy}'`);
  const other = new Database(copy);
  registerSqlFunctions(other);
  rebuildRollups(other);
  const out = await answers(other, brands, false);
  other.close();
  return out;
}

const tablesThere = (db: Database, tables: string[]) => (db.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${tables.map(() => "?").join(", ")}) ORDER BY name`).all(...tables) as { name: string }[]).map((r) => r.name);

test("the release before's result-fed running totals move to totals keyed by id after the start: a short start, every step equal to the raw rows and to a rebuild", async () => {
  const dir = tempDir();
  const { brands, later } = databaseOfTheReleaseBefore(dir);
  const db = open(dir);
  for (const table of FORMER) expect((db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n, table).toBeGreaterThan(0);
  expect(applyMigrations(db, embeddedMigrations)).toBe(embeddedMigrations.length - BEFORE.length);
  // The start: nothing rebuilt (but the rollups later releases added) and nothing moved yet, the
  // former tables' triggers replaced by the new ones (which keep both layouts).
  expect(ensureRollups(db)).toEqual(later);
  for (const table of KEYED) expect(db.query(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
  expect(tablesThere(db, FORMER)).toEqual([...FORMER].sort());
  expect(db.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rollup_%_running_%'").all()).toEqual([]);
  expect(rollupDifferences(db)).toEqual([]);
  expect(await answers(db, brands, false)).toEqual(await rebuiltAnswers(db, dir, brands));
  // Writes before any key moved: a known key stays in the former layout, a new one goes to the new.
  writeAround(db, brands, 40);
  expect(rollupDifferences(db)).toEqual([]);
  expect((db.query("SELECT count(*) AS n FROM url_totals_keys WHERE domain = 'fresh.io'").get() as { n: number }).n).toBeGreaterThan(0);
  // A restart part-way: still nothing rebuilt.
  expect(ensureRollups(db)).toEqual([]);
  // The move, a few keys at a time, with writes between the steps; each step's answers as a rebuild's.
  let steps = 0;
  for (let moved = 0; ; steps++) {
    if (steps > 500) throw new Error("the move did not end in 500 steps");
    // A step changes no answer, first and last days included: the keys it moves read the same.
    const before = await answers(db, brands);
    const step = moveFormerRows(db, 7);
    expect(await answers(db, brands), `step ${steps}`).toEqual(before);
    if (step.done) break;
    moved += step.moved;
    if (steps % 9 === 0) {
      writeAround(db, brands, 6);
      expect(rollupDifferences(db), `after step ${steps}`).toEqual([]);
      expect(await answers(db, brands, false), `after step ${steps}`).toEqual(await rebuiltAnswers(db, dir, brands));
    }
  }
  expect(steps).toBeGreaterThan(10);
  // Done: the former tables are gone, the triggers keep the new layout alone.
  expect(tablesThere(db, FORMER)).toEqual([]);
  const deployed = db.query("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?");
  for (const spec of ROLLUPS.filter((s) => s.moveLater)) {
    for (const [i, name] of triggerNames(spec).entries()) expect((deployed.get(name) as { sql: string }).sql, name).toBe(triggerSql(spec)[i]!);
    expect(triggerSql(spec).join("\n")).not.toContain("_running");
  }
  expect(rollupDifferences(db)).toEqual([]);
  writeAround(db, brands, 20);
  expect(rollupDifferences(db)).toEqual([]);
  expect(await answers(db, brands, false)).toEqual(await rebuiltAnswers(db, dir, brands));
  expect(ensureRollups(db)).toEqual([]);
  db.close();
});

test("a former layout that is not current: the new tables are rebuilt from the raw rows and the former tables go at the start", () => {
  const dir = tempDir();
  databaseOfTheReleaseBefore(dir);
  const db = open(dir);
  db.run("UPDATE rollup_state SET hash = 'an older definition' WHERE name = 'url_running'");
  applyMigrations(db, embeddedMigrations);
  expect(ensureRollups(db)).toContain("url_totals");
  expect(tablesThere(db, ["url_running", "url_running_keys"])).toEqual([]);
  expect(rollupDifferences(db)).toEqual([]);
  db.close();
});

test("the server moves the rows by itself after its start — started lazily as `serve` is, it loads its runtime for them — writes going on meanwhile, and the former tables go", async () => {
  const dir = tempDir();
  const { brands } = databaseOfTheReleaseBefore(dir);
  const server = await startServer(loadConfig(testEnv({ DATA_DIR: dir })), createLogger("silent"), { lazy: true, scheduler: false });
  const db = open(dir);
  try {
    // Right after the start the former tables still answer; then the server's mover empties them.
    expect(tablesThere(db, FORMER)).toEqual([...FORMER].sort());
    for (let i = 0; i < 10; i++) addResult(db, pick(brands), int(45));
    const deadline = Date.now() + 60_000;
    while (tablesThere(db, FORMER).length && Date.now() < deadline) await Bun.sleep(100);
    expect(tablesThere(db, FORMER)).toEqual([]);
    expect(rollupDifferences(db)).toEqual([]);
  } finally {
    db.close();
    await server.stop();
  }
});
