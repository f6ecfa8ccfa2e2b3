// Issue #32, target 5: a database made by the release before the storage diet (migrations 0000–0018:
// crawler_hourly and domain_rollups_daily still there, no weekly rollups) is moved to the new layout
// without losing a row. The server starts on it: every raw row is still there byte for byte, the
// dropped tables are gone, and every rollup — the new weekly ones included — equals the sums over
// the raw rows (tests/rollups/recompute.ts computes them independently).
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { registerSqlFunctions } from "../../src/database";
import { applyMigrations } from "../../src/db/migrations";
import { embeddedMigrations } from "../../src/db/migrations.generated";
import { DB_FILE } from "../../src/db/open";
import { dropRetiredRollups, ensureRollups, keepKeysOnce } from "../../src/rollups/triggers.sqlite";
import { tempDir, testServer } from "../helpers/app";
import { seededRandom } from "../helpers/random";
import { ROLLUP_TABLES, rollupCounts, rollupDifferences } from "../rollups/recompute";

const BEFORE_DIET = embeddedMigrations.slice(0, embeddedMigrations.findIndex((m) => m.tag === "0019_drop_crawler_hourly"));
const RAW_TABLES = ["brands", "prompts", "prompt_results", "citations", "ai_traffic_logs", "crawler_hits"];
const dataDir = tempDir();
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

function databaseBeforeTheDiet(dir = dataDir) {
  const { random, int, pick } = seededRandom(3232);
  const db = new Database(join(dir, DB_FILE));
  registerSqlFunctions(db);
  db.run("PRAGMA foreign_keys = ON");
  expect(BEFORE_DIET.at(-1)!.tag).toBe("0018_digests");
  applyMigrations(db, BEFORE_DIET);
  const one = (sql: string, ...params: (string | number | null | Uint8Array)[]) => (db.query(`${sql} RETURNING id`).get(...params) as { id: string | number }).id;
  const org = one("INSERT INTO organizations (name, slug) VALUES ('Org', 'org')");
  const brands = [0, 1].map((i) => String(one("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?)", org, `Brand ${i}`, `brand-${i}`)));
  const competitor = one("INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Globex', 'globex.com')", brands[0]!);
  for (const brand of brands) {
    const set = one("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'Core')", brand);
    const prompts = [0, 1, 2].map((i) => one("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, ?)", set, brand, `prompt ${i}`));
    // Forty days across a month's end and several ISO weeks.
    for (let n = 0; n < 90; n++) {
      const at = new Date(Date.UTC(2026, 2, 10) + int(40) * 86_400_000 + int(86_400_000)).toISOString();
      const cited = Array.from({ length: 1 + int(3) }, (_, i) => ({ position: i + 1, domain: pick(["example.com", "news.example", "globex.com"]), path: `/${int(5)}` }));
      const citations = JSON.stringify(cited.map((c) => ({ position: c.position, url: `https://${c.domain}${c.path}`, normalized_url: `${c.domain}${c.path}`, domain: c.domain, title: null, is_brand: false, competitor_id: null })));
      const mentioned = random() < 0.5 ? 1 : 0;
      const result = one(
        `INSERT INTO prompt_results (brand_id, prompt_id, platform, model, region, response, mentioned, mention_count, citations, citation_count, brand_citation_count,
           competitor_mentions, search_queries, sentiment, sentiment_score, visibility_score, created_at)
         VALUES (?, ?, ?, 'm1', 'US', ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)`,
        brand, pick(prompts), pick(["chatgpt", "perplexity"]), `Answer ${n}: Acme or Globex.`, mentioned, mentioned, citations, cited.length,
        JSON.stringify(brand === brands[0] && random() < 0.5 ? [{ competitor_id: competitor, name: "Globex", mention_count: 1 + int(2), position: 1 }] : []),
        JSON.stringify([pick(["best analytics", "acme pricing"])]), mentioned ? pick(["positive", "negative"]) : null, mentioned ? random() : null, int(100), at,
      );
      for (const c of cited)
        one("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", result, brand, c.position, `https://${c.domain}${c.path}`, `${c.domain}${c.path}`, c.domain, at);
    }
    for (let i = 0; i < 60; i++)
      one(
        "INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        brand, "https://acme.com/x", pick(["/", "/pricing"]), pick(["chatgpt", "perplexity", null]), `v${int(20)}`, new Date(Date.UTC(2026, 2, 10) + int(40) * 86_400_000).toISOString(),
      );
    for (let i = 0; i < 80; i++) {
      const bot = pick(["GPTBot", "ClaudeBot", null]);
      one(
        "INSERT INTO crawler_hits (brand_id, at, method, path, status, bytes, user_agent, bot, class, hit, verdict, record_key) VALUES (?, ?, 'GET', ?, ?, ?, 'ua', ?, ?, ?, ?, ?)",
        brand, new Date(Date.UTC(2026, 2, 10) + int(40) * 86_400_000 + int(86_400_000)).toISOString(), pick(["/", "/docs", "/robots.txt"]), pick([200, 403, 404, 503]), int(9000),
        bot, bot ? "ai_training" : "human", pick(["page", "robots"]), bot ? pick(["verified", "spoofed"]) : null, crypto.getRandomValues(new Uint8Array(16)),
      );
    }
  }
  const snapshot = Object.fromEntries(RAW_TABLES.map((t) => [t, db.query(`SELECT * FROM ${t} ORDER BY id`).all()]));
  const tables = (db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
  db.close();
  return { snapshot, tables };
}

test("the release before the storage diet: raw rows kept, crawler_hourly, domain_rollups_daily and the landing-page buckets dropped, every rollup (the running totals that replace them included) equal to its raw rows", async () => {
  const { snapshot, tables } = databaseBeforeTheDiet();
  expect(tables).toContain("crawler_hourly");
  expect(tables).toContain("domain_rollups_daily");
  expect(tables).toContain("traffic_pages_monthly");
  expect(tables).not.toContain("crawler_weekly");
  const server = await testServer({ DATA_DIR: dataDir });
  stops.push(() => server.stop());
  const sqlite = server.dbh.sqlite;

  // No raw row lost or changed (citations keep their previous columns; the URL columns are checked as stored).
  for (const table of RAW_TABLES) {
    const before = snapshot[table] as Record<string, unknown>[];
    expect(before.length).toBeGreaterThan(0);
    const columns = Object.keys(before[0]!).filter((c) => table !== "citations" || !["url", "normalized_url"].includes(c));
    expect(sqlite.query(`SELECT ${columns.join(", ")} FROM ${table} ORDER BY id`).all()).toEqual(before.map((r) => Object.fromEntries(columns.map((c) => [c, r[c]]))));
  }
  const now = (sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
  expect(now).not.toContain("crawler_hourly");
  expect(now).not.toContain("domain_rollups_daily");
  expect(now).not.toContain("traffic_pages_daily");
  expect(now).not.toContain("traffic_pages_monthly");
  // Every rollup built from the old rows, equal to sums computed here from them, each kept WITHOUT ROWID (small enough to convert at start).
  expect(rollupDifferences(sqlite)).toEqual([]);
  const counts = rollupCounts(sqlite);
  for (const table of ROLLUP_TABLES) expect(counts[table], table).toBeGreaterThan(0);
  expect(withRowids(sqlite)).toEqual([]);
});

/** Rollup tables still keeping rowids, besides the key lists whose rowid is the id their totals hold (drizzle/0026, 0027), which must keep them. */
const withRowids = (sqlite: Database) => {
  const rowids = ROLLUP_TABLES.filter((t) => (sqlite.query("SELECT wr FROM pragma_table_list WHERE name = ?").get(t) as { wr: number }).wr === 0);
  const idLists = ["crawler_path_totals_keys", "traffic_page_totals_keys", ...["competitor", "domain", "domain_prompt", "url", "query"].map((b) => `${b}_totals_keys`)];
  for (const table of idLists) expect(rowids, table).toContain(table);
  return rowids.filter((t) => !idLists.includes(t));
};

test("rollup tables too large for the start keep their rowids (and a retired one its rows) until `answerwatch vacuum --full` keys them once and drops it, every row and trigger kept", () => {
  const dir = tempDir();
  const { snapshot } = databaseBeforeTheDiet(dir);
  // As a start would leave tables above its limit (here: all of them).
  const db = new Database(join(dir, DB_FILE));
  registerSqlFunctions(db);
  db.run("PRAGMA foreign_keys = ON");
  applyMigrations(db, embeddedMigrations);
  // A retired rollup with rows (the release before kept it) is left by a start above its limit.
  const retiredRow = "INSERT INTO domain_rollups_daily (brand_id, day, prompt_id, platform, model, region, domain, citations, answers, brand_mentioned) SELECT brand_id, '2026-03-10', prompt_id, platform, model, region, 'example.com', 1, 1, 0 FROM prompt_results LIMIT 1";
  db.run(retiredRow);
  expect(ensureRollups(db, { convertUpTo: 0 }).length).toBeGreaterThan(0);
  expect(db.query("SELECT count(*) AS n FROM domain_rollups_daily").get()).toEqual({ n: 1 });
  // (Some rollups were made WITHOUT ROWID by their migrations already.)
  const kept = withRowids(db);
  expect(kept.length).toBeGreaterThan(5);
  const triggers = () => db.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all();
  const before = { triggers: triggers(), counts: rollupCounts(db), differences: rollupDifferences(db) };
  expect(before.differences).toEqual([]);

  // What `answerwatch vacuum --full` runs (with no limit).
  expect(dropRetiredRollups(db)).toEqual(["domain_rollups_daily"]);
  expect(db.query("SELECT count(*) AS n FROM sqlite_master WHERE name = 'domain_rollups_daily'").get()).toEqual({ n: 0 });
  expect(keepKeysOnce(db).sort()).toEqual([...kept].sort());
  expect(withRowids(db)).toEqual([]);
  expect({ triggers: triggers(), counts: rollupCounts(db), differences: rollupDifferences(db) }).toEqual(before);
  for (const table of RAW_TABLES) expect(db.query(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: (snapshot[table] as unknown[]).length });
  expect(keepKeysOnce(db)).toEqual([]);
  // Writes after the conversion keep the rollups current (the triggers find rows by key and day).
  db.run("DELETE FROM prompt_results WHERE rowid IN (SELECT rowid FROM prompt_results ORDER BY rowid LIMIT 5)");
  db.run("UPDATE crawler_hits SET status = 404 WHERE rowid IN (SELECT rowid FROM crawler_hits ORDER BY rowid LIMIT 5)");
  expect(rollupDifferences(db)).toEqual([]);
  db.close();
});

test("a migration is checked for the foreign keys it may break — the tables it writes and those referring to them — and only those", () => {
  const dir = tempDir();
  databaseBeforeTheDiet(dir);
  const db = new Database(join(dir, DB_FILE));
  registerSqlFunctions(db);
  applyMigrations(db, embeddedMigrations);
  const last = embeddedMigrations.at(-1)!;
  const migration = (n: number, sql: string) => ({ ...last, tag: `9${n}_test`, when: last.when + n, sql });
  // A parent's rows deleted: its children (citations of those results) now refer to nothing.
  expect(() => applyMigrations(db, [migration(1, "DELETE FROM prompt_results WHERE rowid = (SELECT min(rowid) FROM prompt_results)")])).toThrow(/broken foreign key/);
  // A child's rows pointed at nothing.
  expect(() => applyMigrations(db, [migration(2, "UPDATE crawler_hits SET brand_id = 'no-such-brand' WHERE rowid = (SELECT min(rowid) FROM crawler_hits)")])).toThrow(/broken foreign key/);
  // Nothing changed by either (each ran in a transaction).
  expect((db.query("SELECT count(*) AS n FROM crawler_hits WHERE brand_id = 'no-such-brand'").get() as { n: number }).n).toBe(0);
  // A break the migration did not make (foreign keys off outside it) is not this migration's: it applies.
  db.run("PRAGMA foreign_keys = OFF");
  db.run("UPDATE ai_traffic_logs SET brand_id = 'no-such-brand' WHERE rowid = (SELECT min(rowid) FROM ai_traffic_logs)");
  expect(applyMigrations(db, [migration(3, "UPDATE crawler_hits SET status = status WHERE 0")])).toBe(1);
  db.close();
});
