// Issue #32, a measurement for a design built so far for the two running totals fed by logs
// (spec.ts RollupSpec.keyIds), not for those fed by results: every running-totals rollup keyed by a
// small integer instead of its key's text. Each `<t>_keys` table
// gives its keys an integer id (a rowid table, the text key unique), and `<t>` keeps per key id and
// day only the totals — the brand UUID, URLs, domains and prompt UUIDs are no longer repeated in
// every day's row. Copies a cached bench/scale.ts world (`bun bench/scale.ts` makes it), converts
// the tables in place in one transaction as an upgrade would, and prints each table's bytes a
// result before and after (dbstat), the conversion's time per million results (what an upgrade's
// first start would pay, target 5: ≤ 10 s in all), and checks that every key's totals came across.
// Knobs: SCALE=100k (10k, 1m)  DAYS=number (days as day numbers, not YYYY-MM-DD text)  DB=path (another database instead, e.g. bench/crawlers.ts's with KEEP=1)
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROLLUPS } from "../src/rollups/spec";
import { ROOT, tempDir } from "./lib";

const SCALE = Bun.env.SCALE ?? "100k";
const source = Bun.env.DB ?? join(ROOT, "bench/.cache/scale", SCALE, "answerwatch.db");
if (!existsSync(source)) throw new Error(`${source}: no cached ${SCALE} world (run SCALES=${SCALE} GENERATE_ONLY=1 bun bench/scale.ts first)`);
const dir = tempDir("aw-bench-keyids-");
const file = join(dir, "answerwatch.db");
copyFileSync(source, file);
const db = new Database(file);
db.run("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
// The rollup triggers go (an upgrade makes them again for the new layout): they name the tables replaced.
for (const { name } of db.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rollup_%'").all() as { name: string }[]) db.run(`DROP TRIGGER ${name}`);
// Per result, or per crawler request for a database of logs only.
const results = (db.query("SELECT max((SELECT count(*) FROM prompt_results), (SELECT count(*) FROM crawler_hits)) AS n").get() as { n: number }).n;
const bytes = (names: string[]) => (db.query(`SELECT coalesce(sum(pgsize), 0) AS b FROM dbstat WHERE name IN (${names.map(() => "?").join(", ")})`).get(...names) as { b: number }).b;
const indexesOf = (table: string) => (db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(table) as { name: string }[]).map((r) => r.name);
const count = (table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

// The totals keyed by id already (spec.ts keyIds: the crawler paths, the landing pages) are left as they are.
const running = ROLLUPS.filter((spec) => spec.running && !spec.keyIds);
const dayNumbers = Bun.env.DAYS === "number";
const rows: { table: string; rows: number; before: number; after: number; ms: number }[] = [];
let totalMs = 0;
let dropMs = 0;
/** The statements, the drops and the commit (its WAL writes, a checkpoint) — what an upgrade would wait for. */
let wholeMs = 0;
for (const spec of running) {
  const keys = Object.keys(spec.keys).filter((k) => k !== "brand_id");
  const measures = Object.keys(spec.measures);
  const [t, k] = [spec.table, `${spec.table}_keys`];
  const before = bytes([t, k, ...indexesOf(t), ...indexesOf(k)]);
  const n = count(t);
  if (!n) continue;
  let ms = 0;
  let checkMs = 0;
  const began = performance.now();
  db.transaction(() => {
    const started = performance.now();
    db.run(`CREATE TABLE aw_keys_new (id INTEGER PRIMARY KEY, brand_id TEXT NOT NULL, ${keys.map((c) => `${c} TEXT NOT NULL`).join(", ")}, rows INTEGER NOT NULL DEFAULT 0, UNIQUE (brand_id, ${keys.join(", ")}))`);
    // The keys as the reads walk them (a key whose raw rows were all removed is no longer listed,
    // and its totals are back to nothing), ids in key order: the old table is read in that order.
    db.run(`INSERT INTO aw_keys_new (brand_id, ${keys.join(", ")}, rows) SELECT brand_id, ${keys.join(", ")}, rows FROM ${k} ORDER BY brand_id, ${keys.join(", ")}`);
    db.run(`CREATE TABLE aw_totals_new (key_id INTEGER NOT NULL, day ${dayNumbers ? "INTEGER" : "TEXT"} NOT NULL, ${measures.map((m) => `"${m}" INTEGER NOT NULL`).join(", ")}, PRIMARY KEY (key_id, day)) WITHOUT ROWID`);
    // The keys scanned in id order, each seeking its rows: both tables written as ascending runs, no sort.
    db.run(`INSERT INTO aw_totals_new SELECT n.id, ${dayNumbers ? "CAST(julianday(r.day) - 2440587.5 AS INTEGER)" : "r.day"}, ${measures.map((m) => `r."${m}"`).join(", ")} FROM aw_keys_new AS n JOIN ${t} AS r ON r.brand_id = n.brand_id AND ${keys.map((c) => `r.${c} = n.${c}`).join(" AND ")} ORDER BY n.id, r.day`);
    ms += performance.now() - started;
    // Not counted: every listed key's rows came across, totals and all.
    const checked = performance.now();
    const listed = `FROM ${t} AS r WHERE EXISTS (SELECT 1 FROM ${k} AS l WHERE l.brand_id = r.brand_id AND ${keys.map((c) => `l.${c} = r.${c}`).join(" AND ")})`;
    const sums = (select: string) => JSON.stringify(db.query(`SELECT count(*), ${measures.map((m) => `sum("${m}")`).join(", ")} ${select}`).values());
    if (sums(listed) !== sums("FROM aw_totals_new")) throw new Error(`${t}: the converted rows differ from the listed keys' rows`);
    checkMs = performance.now() - checked;
    const dropped = performance.now();
    // An upgrade could keep the old tables aside and drop them later (as retired rollups are).
    db.run(`DROP TABLE ${t}`);
    db.run(`DROP TABLE ${k}`);
    db.run(`ALTER TABLE aw_totals_new RENAME TO ${t}`);
    db.run(`ALTER TABLE aw_keys_new RENAME TO ${k}`);
    dropMs += performance.now() - dropped;
  }).immediate();
  totalMs += ms;
  wholeMs += performance.now() - began - checkMs;
  rows.push({ table: t, rows: n, before, after: bytes([t, k, `sqlite_autoindex_${k}_1`]), ms });
}
db.close();
const perResult = (b: number) => (b / results).toFixed(0);
for (const r of rows) console.log(`${r.table} (+ _keys): ${r.rows.toLocaleString("en")} rows, ${perResult(r.before)} → ${perResult(r.after)} B a result, converted in ${r.ms.toFixed(0)} ms`);
const [before, after] = [rows.reduce((a, r) => a + r.before, 0), rows.reduce((a, r) => a + r.after, 0)];
console.log(`${Bun.env.DB ?? `${SCALE} world`}, ${results.toLocaleString("en")} results (or requests): the running totals ${perResult(before)} → ${perResult(after)} B a result; converted in ${(totalMs / 1000).toFixed(1)} s = ${(totalMs / 1000 / (results / 1e6)).toFixed(1)} s per million results (with the old tables' drops and the commits ${(wholeMs / 1000 / (results / 1e6)).toFixed(1)} s, the drops ${(dropMs / 1000).toFixed(1)} s of it)`);
rmSync(dir, { recursive: true, force: true });
