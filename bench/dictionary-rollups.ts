// Issue #32, a measurement for a design not built yet: the six largest result rollups keyed by small
// integers from two dictionaries (entity UUIDs; text values — platform, model, region, domain,
// normalized URL, search query) and days as day numbers instead of UUID and ISO text, copied from a
// cached bench/scale.ts world (`bun bench/scale.ts` makes it) into a file of their own. Prints each
// table's bytes a result before and after (dbstat, dictionaries included) and the copy's time, which
// is what an upgrade converting those tables in place would cost.
// Knobs: SCALE=1m (10k, 100k)
import { Database } from "bun:sqlite";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "./lib";

const SCALE = Bun.env.SCALE ?? "1m";
const source = join(ROOT, "bench/.cache/scale", SCALE, "answerwatch.db");
if (!existsSync(source)) throw new Error(`${source}: no cached ${SCALE} world (run SCALES=${SCALE} bun bench/scale.ts first)`);
const dir = tempDir("aw-bench-dict-");
const db = new Database(join(dir, "dictionary.db"));
db.run("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -1000000; PRAGMA temp_store = MEMORY");
db.run("ATTACH ? AS src", [source]);
const results = (db.query("SELECT count(*) AS n FROM src.prompt_results").get() as { n: number }).n;

const E = (column: string) => `(SELECT id FROM ids WHERE uuid = r.${column})`;
const V = (column: string) => `(SELECT id FROM dims WHERE value = r.${column})`;
const DAY = (column: string) => `CAST(julianday(r.${column}) - 2440587.5 AS INTEGER)`;
const MONTH = "CAST(substr(r.month, 1, 4) AS INTEGER) * 12 + CAST(substr(r.month, 6, 2) AS INTEGER) - 1";
const RESULT_MEASURES = "results, mentioned, mention_sum, position_sum, position_n, cited, citation_sum, brand_citation_sum, competitor_mention_sum, sentiment_sum, sentiment_n, positive, neutral, negative, visibility_sum, visibility_n";

/** Each table: its integer key columns (name, expression over the source row `r`), its measures, and its extra indexes. */
const TABLES: { name: string; keys: [string, string][]; measures: string; indexes?: { name: string; columns: string }[] }[] = [
  { name: "url_running", keys: [["brand", E("brand_id")], ["url", V("normalized_url")], ["domain", V("domain")], ["day", DAY("day")]], measures: "citations, answers" },
  { name: "domain_prompt_running", keys: [["brand", E("brand_id")], ["domain", V("domain")], ["prompt", E("prompt_id")], ["day", DAY("day")]], measures: "answers" },
  {
    name: "competitor_running",
    keys: [["brand", E("brand_id")], ["prompt", E("prompt_id")], ["platform", V("platform")], ["model", V("model")], ["region", V("region")], ["competitor", E("competitor_id")], ["day", DAY("day")]],
    measures: "results, mentions, position_sum, position_n, both",
  },
  {
    name: "result_rollups_daily",
    keys: [["brand", E("brand_id")], ["day", DAY("day")], ["prompt", E("prompt_id")], ["platform", V("platform")], ["model", V("model")], ["region", V("region")], ["reported_model", V("reported_model")]],
    measures: RESULT_MEASURES,
    indexes: [{ name: "result_rollups_daily_prompt_idx", columns: "prompt, day" }],
  },
  {
    name: "domain_rollups_monthly",
    keys: [["brand", E("brand_id")], ["month", MONTH], ["prompt", E("prompt_id")], ["platform", V("platform")], ["model", V("model")], ["region", V("region")], ["domain", V("domain")]],
    measures: "citations, answers, brand_mentioned",
  },
  { name: "query_running", keys: [["brand", E("brand_id")], ["platform", V("platform")], ["query", V("query")], ["day", DAY("day")]], measures: "answers" },
];

const started = performance.now();
db.run(`CREATE TABLE ids (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE);
  INSERT OR IGNORE INTO ids (uuid) SELECT id FROM src.brands UNION SELECT id FROM src.prompts UNION SELECT id FROM src.competitors`);
db.run(`CREATE TABLE dims (id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
  INSERT OR IGNORE INTO dims (value)
    SELECT platform FROM src.result_rollups_daily UNION SELECT model FROM src.result_rollups_daily UNION SELECT region FROM src.result_rollups_daily
    UNION SELECT reported_model FROM src.result_rollups_daily UNION SELECT domain FROM src.domain_running_keys
    UNION SELECT normalized_url FROM src.url_running_keys UNION SELECT query FROM src.query_running_keys`);
for (const t of TABLES) {
  const measures = t.measures.split(", ");
  const columns = [...t.keys.map(([k]) => `${k} INTEGER NOT NULL`), ...measures.map((m) => `${m} NOT NULL`)].join(", ");
  db.run(`CREATE TABLE ${t.name} (${columns}, PRIMARY KEY (${t.keys.map(([k]) => k).join(", ")})) WITHOUT ROWID`);
  // In key order: the table is written as one ascending run of pages.
  db.run(`INSERT INTO ${t.name} SELECT ${t.keys.map(([, e]) => e).join(", ")}, ${t.measures} FROM src.${t.name} AS r ORDER BY ${t.keys.map((_, i) => i + 1).join(", ")}`);
  for (const index of t.indexes ?? []) db.run(`CREATE INDEX ${index.name} ON ${t.name} (${index.columns})`);
}
const seconds = (performance.now() - started) / 1000;
db.run("DETACH src");

const bytesOf = (d: Database, names: string[]) =>
  new Map((d.query(`SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name IN (${names.map(() => "?").join(", ")}) GROUP BY name`).all(...names) as { name: string; bytes: number }[]).map((r) => [r.name, r.bytes]));
const names = TABLES.flatMap((t) => [t.name, ...(t.indexes ?? []).map((i) => i.name)]);
const stored = new Database(source, { readonly: true });
const before = bytesOf(stored, names);
stored.close();
const after = bytesOf(db, [...names, "ids", "dims", "sqlite_autoindex_ids_1", "sqlite_autoindex_dims_1"]);
const perResult = (bytes: number) => (bytes / results).toFixed(0);
for (const name of names) console.log(`${name}: ${perResult(before.get(name) ?? 0)} → ${perResult(after.get(name) ?? 0)} B a result`);
const dictionaries = ["ids", "dims", "sqlite_autoindex_ids_1", "sqlite_autoindex_dims_1"].reduce((a, n) => a + (after.get(n) ?? 0), 0);
console.log(`dictionaries: ${perResult(dictionaries)} B a result`);
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
console.log(`${SCALE} world, ${results.toLocaleString("en")} results: these rollups ${perResult(sum(before))} → ${perResult(sum(after))} B a result; copied in ${seconds.toFixed(1)} s = ${(seconds / (results / 1e6)).toFixed(1)} s per million results`);
db.close();
rmSync(dir, { recursive: true, force: true });
