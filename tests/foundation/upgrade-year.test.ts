// Issue #17, acceptance 3: a database made by the previous release (migrations 0000–0004, answers
// stored as plain text, no latest table, no rollups) is moved to the new layout without loss. The
// server starts on it: every row is still there, the latest-results RPC answers what a brute
// force over the old rows says, the rollups equal sums over the raw rows, and after `vacuum`
// compresses the old answers, /rest/v1 returns every answer and JSON column byte for byte.
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../src/database";
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { applyMigrations } from "../../src/db/migrations";
import { embeddedMigrations } from "../../src/db/migrations.generated";
import { DB_FILE } from "../../src/db/open";
import { ensureSecrets } from "../../src/secrets";
import { shownColumns } from "../helpers/stored";
import { ROOT, tempDir, testServer } from "../helpers/app";

const PREVIOUS_RELEASE = ["0000_init", "0001_suggestion_priority_text", "0002_prompt_results_details", "0003_prompt_results_sources", "0004_ansvisor_parity_topics"];
const dataDir = tempDir();
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

// A seeded PRNG: the same database every run.
let seed = 1717;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;

function previousReleaseDatabase() {
  const db = new Database(join(dataDir, DB_FILE));
  registerSqlFunctions(db);
  db.run("PRAGMA foreign_keys = ON");
  const previous = embeddedMigrations.filter((m) => PREVIOUS_RELEASE.includes(m.tag));
  expect(previous.map((m) => m.tag)).toEqual(PREVIOUS_RELEASE);
  applyMigrations(db, previous);
  const one = (sql: string, ...params: (string | number | null)[]) => (db.query(`${sql} RETURNING id`).get(...params) as { id: string }).id;
  const org = one("INSERT INTO organizations (name, slug) VALUES ('Org', 'org')");
  const brands = [0, 1].map((i) => one("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?)", org, `Brand ${i}`, `brand-${i}`));
  const competitor = one("INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Globex', 'globex.com')", brands[0]!);
  for (const brand of brands) {
    const set = one("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'Core')", brand);
    const prompts = [0, 1, 2].map((i) => one("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, ?)", set, brand, `prompt ${i}`));
    for (let day = 1; day <= 12; day++)
      for (const prompt of prompts)
        for (const platform of ["chatgpt", "perplexity"]) {
          if (random() < 0.2) continue;
          const at = `2026-03-${String(day).padStart(2, "0")}T${String(Math.floor(random() * 24)).padStart(2, "0")}:00:00.000Z`;
          const answer = `Answer ${day} about ${platform}. ` + "Acme is a solid choice for teams that want plain pricing. ".repeat(2 + Math.floor(random() * 30));
          const citations = JSON.stringify([{ position: 1, url: `https://example.com/${day}`, normalized_url: `example.com/${day}`, domain: "example.com", title: "Example ".repeat(20), is_brand: false, competitor_id: null }]);
          const mentioned = random() < 0.5 ? 1 : 0;
          const result = one(
            `INSERT INTO prompt_results (brand_id, prompt_id, platform, model, region, response, mentioned, mention_count, mention_position, citations, citation_count,
               brand_citation_count, sentiment, sentiment_score, visibility_score, competitor_mentions, details, sources, created_at)
             VALUES (?, ?, ?, 'm1', 'US', ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)`,
            brand, prompt, platform, answer, mentioned, mentioned * 2, mentioned ? 1 + Math.floor(random() * 3) : null, citations, mentioned,
            mentioned ? pick(["positive", "neutral", "negative"]) : null, mentioned ? random() * 2 - 1 : null, Math.round(random() * 100),
            JSON.stringify(brand === brands[0] ? [{ competitor_id: competitor, name: "Globex", mention_count: 1 + Math.floor(random() * 3) }] : []),
            JSON.stringify({ note: "detail ".repeat(50) }), citations, at,
          );
          one("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain, created_at) VALUES (?, ?, 1, ?, ?, 'example.com', ?)", result, brand, `https://example.com/${day}`, `example.com/${day}`, at);
        }
    for (let i = 0; i < 200; i++)
      one(
        "INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        brand, "https://acme.com/x", pick(["/", "/pricing", "/blog"]), pick(["chatgpt", "perplexity", null]), `v${Math.floor(random() * 40)}`,
        `2026-03-${String(1 + Math.floor(random() * 12)).padStart(2, "0")}T10:00:00.000Z`,
      );
  }
  const snapshot = (table: string) => db.query(`SELECT * FROM ${table} ORDER BY id`).all();
  const citationColumns = (db.query("SELECT name FROM pragma_table_xinfo('citations')").all() as { name: string }[]).map((c) => c.name);
  const tables = ["brands", "prompts", "prompt_results", "citations", "ai_traffic_logs"];
  const before = Object.fromEntries(tables.map((t) => [t, snapshot(t)]));
  db.close();
  return { brands, before, tables, citationColumns };
}

test("the previous release's database: rows kept, latest table and rollups built, answers compressed and read back unchanged", async () => {
  const { brands, before, tables, citationColumns } = previousReleaseDatabase();
  const server = await testServer({ DATA_DIR: dataDir });
  stops.push(() => server.stop());
  const secrets = await ensureSecrets(loadConfig({ DATA_DIR: dataDir }));
  const service = { apikey: secrets.serviceRoleKey, authorization: `Bearer ${secrets.serviceRoleKey}`, "content-type": "application/json" };
  const sqlite = server.dbh.sqlite;

  // No row lost or changed (citations as /rest/v1 reads them: their URLs now live in citation_urls).
  for (const table of tables) {
    // The previous release's columns: columns this release adds are checked where they are built.
    const columns = table === "citations" ? shownColumns("citations", citationColumns) : Object.keys((before[table] as Record<string, unknown>[])[0]!).join(", ");
    expect(sqlite.query(`SELECT ${columns} FROM ${table} ORDER BY id`).all()).toEqual(before[table]!);
  }
  expect((sqlite.query("SELECT count(*) AS n FROM citations WHERE url IS NULL AND url_id IS NOT NULL").get() as { n: number }).n).toBe((before.citations as unknown[]).length);
  expect((sqlite.query("SELECT count(*) AS n FROM citation_urls").get() as { n: number }).n).toBe(12);

  // The latest table: per (prompt, platform, model, region) the newest row, ties to the greater id.
  type Row = { id: string; brand_id: string; prompt_id: string; platform: string; model: string; region: string; created_at: string; response: string };
  const results = before.prompt_results as Row[];
  for (const brand of brands) {
    const newest = new Map<string, Row>();
    for (const r of results.filter((r) => r.brand_id === brand)) {
      const key = [r.prompt_id, r.platform, r.model, r.region].join("|");
      const seen = newest.get(key);
      if (!seen || r.created_at > seen.created_at || (r.created_at === seen.created_at && r.id > seen.id)) newest.set(key, r);
    }
    const res = await fetch(`${server.url}/rest/v1/rpc/get_latest_prompt_results?select=id`, { method: "POST", headers: service, body: JSON.stringify({ p_brand_id: brand }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }[]).map((r) => r.id).sort()).toEqual([...newest.values()].map((r) => r.id).sort());
  }

  // Rollups rebuilt from the old rows at start-up.
  const perDay = new Map<string, number>();
  for (const r of results) perDay.set(`${r.brand_id}|${r.created_at.slice(0, 10)}|${r.platform}`, (perDay.get(`${r.brand_id}|${r.created_at.slice(0, 10)}|${r.platform}`) ?? 0) + 1);
  const rolled = sqlite.query("SELECT brand_id, day, platform, sum(results) AS n FROM result_brand_daily GROUP BY 1, 2, 3").all() as { brand_id: string; day: string; platform: string; n: number }[];
  expect(new Map(rolled.map((r) => [`${r.brand_id}|${r.day}|${r.platform}`, r.n]))).toEqual(perDay);
  const visits = (before.ai_traffic_logs as { brand_id: string }[]).filter((v) => v.brand_id === brands[0]).length;
  expect((sqlite.query("SELECT sum(visits) AS n FROM traffic_platform_daily WHERE brand_id = ?").get(brands[0]!) as { n: number }).n).toBe(visits);

  // `answerwatch vacuum` compresses what the old release stored as plain text.
  const proc = Bun.spawnSync([process.execPath, join(ROOT, "src/main.ts"), "vacuum"], { env: { ...Bun.env, DATA_DIR: dataDir, LOG_LEVEL: "silent" } });
  expect(proc.stderr.toString()).toBe("");
  expect(proc.exitCode).toBe(0);
  const compressed = Number(/rows compressed: (\d+)/.exec(proc.stdout.toString())?.[1]);
  expect(compressed).toBe(results.length);
  // Short answers stay plain text (a zstd frame would save little); the others are compressed.
  const long = results.filter((r) => Buffer.byteLength(r.response) >= 200).length;
  expect(long).toBeGreaterThan(results.length / 2);
  expect((sqlite.query("SELECT count(*) AS n FROM prompt_results WHERE typeof(response) = 'blob'").get() as { n: number }).n).toBe(long);

  // …and /rest/v1 reads every answer and JSON column as it was written.
  const res = await fetch(`${server.url}/rest/v1/prompt_results?select=id,response,citations,sources,details&order=id`, { headers: service });
  const read = (await res.json()) as { id: string; response: string; citations: unknown; sources: unknown; details: unknown }[];
  const old = results as unknown as Record<string, string>[];
  expect(read.map((r) => ({ id: r.id, response: r.response, citations: r.citations, sources: r.sources, details: r.details }))).toEqual(
    old.map((r) => ({ id: r.id!, response: r.response!, citations: JSON.parse(r.citations!), sources: JSON.parse(r.sources!), details: JSON.parse(r.details!) })),
  );
  // Filters on the answer text still work on compressed rows.
  const needle = old[5]!.response!.slice(0, 12);
  const filtered = await fetch(`${server.url}/rest/v1/prompt_results?select=id&response=like.${encodeURIComponent(needle)}*`, { headers: service });
  expect(((await filtered.json()) as { id: string }[]).map((r) => r.id).sort()).toEqual(old.filter((r) => r.response!.startsWith(needle)).map((r) => r.id).sort());
});
