// The rollup tables (src/rollups) equal the aggregates of their raw rows, recomputed here in
// TypeScript from prompt_results, citations and ai_traffic_logs (recompute.ts), row by row — after
// random writes through every path that writes those rows: the result store (the tracking run's
// writer), /rest/v1 with the service role key (inserts, upserts, single- and multi-row PATCHes that
// move rows between buckets, DELETEs, a competitor's SET NULL, a prompt's and a brand's cascades),
// and traffic rows as the pixel writes them; then across a restart of the server on the same file.
// Also: rebuildRollups restores emptied tables exactly, and ensureRollups is a no-op when nothing
// changed and rebuilds (only) a rollup whose stored definition differs.
import { seededRandom } from "../helpers/random";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testServer, tempDir } from "../helpers/app";
import { seedBrand } from "../helpers/tracking";
import { signedUpClient } from "../helpers/supabase";
import { createResultStore } from "../../src/results/store.sqlite";
import { ROLLUPS } from "../../src/rollups/spec";
import { ensureRollups, rebuildRollups, rebuildSql, triggerNames, triggerSql } from "../../src/rollups/triggers.sqlite";
import { createSqliteCrawlerStore } from "../../src/crawlers/store.sqlite";
import { logicalRowsSql, ROLLUP_TABLES, rollupCounts, rollupDifferences, TABLES } from "./recompute";

const SEED = Number(process.env.ROLLUPS_SEED ?? Math.floor(Math.random() * 2 ** 32));

const { random, int, pick, chance, sample } = seededRandom(SEED);

const PLATFORMS = ["chatgpt", "perplexity", "gemini"] as const;
const MODELS = ["m-1", "m-2"] as const;
const REGIONS = ["", "US", "DE"] as const;
const DOMAINS = ["acme.com", "globex.com", "news.example", "wiki.example", "blog.example"] as const;
const SOURCES = [null, "chatgpt", "perplexity", "gemini"] as const;
const VISITORS = ["v1", "v2", "v3", "v4", "v5"] as const;
const PATHS = ["/", "/pricing", "/blog/a"] as const;
const SENTIMENTS = [null, "positive", "neutral", "negative"] as const;

/** A timestamp over a month and a year boundary, often on a day's first or last millisecond. */
function timestamp(): string {
  const dayMs = Date.UTC(2024, 11, 27) + int(40) * 86_400_000;
  const r = random();
  const offset = r < 0.15 ? 0 : r < 0.3 ? 86_400_000 - 1 : int(86_400_000);
  return new Date(dayMs + offset).toISOString();
}

type Server = Awaited<ReturnType<typeof testServer>>;
let server: Server;
let dataDir: string;
let organizationId: string;

const db = () => server.dbh.sqlite;
const fail = (what: string, problems: string[]) => {
  if (problems.length) throw new Error(`rollups differ from raw rows ${what} (ROLLUPS_SEED=${SEED}):\n${problems.join("\n")}`);
};
const check = (what: string) => fail(what, rollupDifferences(db()));

/** /rest/v1 with the service role key; throws on anything but 2xx. */
async function service(method: string, path: string, body?: unknown, prefer = "return=minimal"): Promise<any> {
  const key = server.secrets.serviceRoleKey;
  const res = await fetch(`${server.url}/rest/v1${path}`, {
    method,
    headers: { apikey: key, authorization: `Bearer ${key}`, "content-type": "application/json", prefer },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} ${JSON.stringify(body)} → ${res.status} ${text} (ROLLUPS_SEED=${SEED})`);
  return text ? JSON.parse(text) : null;
}

// ---- what exists now (read from the database, so cascades and deletes are followed) ----------

const ids = (sql: string, ...params: string[]) => (db().query(sql).all(...params) as { id: string }[]).map((r) => r.id);
const brands = () => ids("SELECT id FROM brands WHERE organization_id = ? ORDER BY id", organizationId);
const promptsOf = (brandId: string) => ids("SELECT id FROM prompts WHERE brand_id = ? ORDER BY id", brandId);
const competitorsOf = (brandId: string) => ids("SELECT id FROM competitors WHERE brand_id = ? ORDER BY id", brandId);
const resultIds = () => ids("SELECT id FROM prompt_results ORDER BY id");
const citationIds = () => ids("SELECT id FROM citations ORDER BY id");
const trafficIds = () => ids("SELECT id FROM ai_traffic_logs ORDER BY id");
const brandOfResult = (id: string) => (db().query("SELECT brand_id FROM prompt_results WHERE id = ?").get(id) as { brand_id: string }).brand_id;

// ---- random values -------------------------------------------------------------------------------

function competitorMentions(brandId: string): Record<string, unknown>[] {
  const competitors = sample(competitorsOf(brandId), int(3));
  const list: Record<string, unknown>[] = competitors.map((id, i) => (chance(0.15) ? { competitor_id: id, name: `C${i}` } : { competitor_id: id, name: `C${i}`, mention_count: int(5) }));
  // A competitor the analysis found by name only (no competitor row): counted in the sum, in no competitor bucket.
  if (chance(0.3)) list.push({ competitor_id: null, name: "Unlisted", mention_count: 1 + int(3) });
  return list;
}

function citationList(brandId: string) {
  const competitors = competitorsOf(brandId);
  return Array.from({ length: int(5) }, (_, i) => {
    const domain = pick(DOMAINS);
    const url = `https://${domain}/p${int(3)}`;
    return {
      position: i + 1,
      url,
      normalized_url: url,
      domain,
      host: domain,
      title: null,
      is_brand: domain === "acme.com" || chance(0.1),
      competitor_id: competitors.length && chance(0.3) ? pick(competitors) : null,
    };
  });
}

function measures(brandId: string) {
  const sentiment = pick(SENTIMENTS);
  const mentioned = chance(0.6);
  return {
    mentioned,
    mention_count: mentioned ? 1 + int(4) : 0,
    mention_position: mentioned && chance(0.8) ? 1 + int(5) : null,
    competitor_mentions: competitorMentions(brandId),
    citation_count: int(6),
    brand_citation_count: chance(0.5) ? 0 : 1 + int(3),
    sentiment,
    sentiment_score: sentiment === null && chance(0.5) ? null : Math.round((random() * 2 - 1) * 1000) / 1000 + random() * 1e-6,
    visibility_score: random() * 100,
  };
}

// ---- writers -------------------------------------------------------------------------------------

/** Results (and their citation rows) through the product's result store, in one transaction; and a few crawler requests. */
function storeInserts(n: number) {
  const store = createResultStore(db());
  db().transaction(() => {
    for (let i = 0; i < Math.ceil(n / 3); i++)
      db().run(
        "INSERT INTO crawler_hits (brand_id, at, method, path, status, bytes, user_agent, bot, class, hit, verdict, record_key) VALUES (?, ?, 'GET', ?, ?, ?, 'ua', ?, ?, ?, ?, ?)",
        [pick(brands()), timestamp(), pick(["/", "/pricing", "/robots.txt"]), pick([200, 404, 500]), chance(0.3) ? null : Math.floor(random() * 5000), pick(["GPTBot", null]), pick(["ai_training", "human"]), pick(["page", "robots"]), pick(["verified", "spoofed", null]), crypto.randomUUID()],
      );
    for (let i = 0; i < n; i++) {
      const brandId = pick(brands());
      const prompts = promptsOf(brandId);
      if (!prompts.length) continue;
      const m = measures(brandId);
      const citations = citationList(brandId);
      store.insert(
        {
          id: crypto.randomUUID(),
          jobId: chance(0.5) ? null : crypto.randomUUID(),
          brandId,
          promptId: pick(prompts),
          platform: pick(PLATFORMS),
          model: pick(MODELS),
          region: pick(REGIONS),
          createdAt: chance(0.05) ? undefined : timestamp(),
        },
        {
          surface: "api",
          response: "answer",
          mentioned: m.mentioned ? 1 : 0,
          mention_count: m.mention_count,
          mention_position: m.mention_position,
          competitor_mentions: JSON.stringify(m.competitor_mentions),
          citations: JSON.stringify(citations),
          citation_count: citations.length,
          brand_citation_count: citations.filter((c) => c.is_brand).length,
          sources: "[]",
          source_count: 0,
          sentiment: m.sentiment,
          sentiment_score: m.sentiment_score,
          visibility_score: m.visibility_score,
          search_queries: JSON.stringify(queryList()),
          details: "{}",
        },
      );
    }
  })();
}

/** Fan-out queries: a few from a small set (repeats within an answer included), now and then a non-text entry or a blank. */
function queryList(): unknown[] {
  const list: unknown[] = [];
  for (let i = 0, n = Math.floor(random() * 4); i < n; i++) list.push(pick(["best crm", "crm pricing", "acme reviews", "  ", 42, "best crm"]));
  return list;
}

/** A result and its citation rows through /rest/v1 (POST), as an import with the service key would. */
async function restInsert() {
  const brandId = pick(brands());
  const prompts = promptsOf(brandId);
  if (!prompts.length) return;
  const id = crypto.randomUUID();
  const createdAt = timestamp();
  await service("POST", "/prompt_results", {
    id,
    brand_id: brandId,
    prompt_id: pick(prompts),
    platform: pick(PLATFORMS),
    model: pick(MODELS),
    region: pick(REGIONS),
    created_at: createdAt,
    ...measures(brandId),
    visibility_score: chance(0.2) ? null : random() * 100,
  });
  const citations = citationList(brandId).map(({ host: _h, title: _t, ...c }) => ({ ...c, result_id: id, brand_id: brandId, created_at: chance(0.8) ? createdAt : timestamp() }));
  if (citations.length) await service("POST", "/citations", citations);
}

/** An upsert of an existing result (ON CONFLICT DO UPDATE) that changes what it adds and where. */
async function restUpsert() {
  const id = pick(resultIds());
  if (!id) return;
  const row = db().query("SELECT brand_id, prompt_id FROM prompt_results WHERE id = ?").get(id) as { brand_id: string; prompt_id: string };
  await service(
    "POST",
    "/prompt_results?on_conflict=id",
    { id, brand_id: row.brand_id, prompt_id: row.prompt_id, platform: pick(PLATFORMS), model: pick(MODELS), region: pick(REGIONS), created_at: timestamp(), ...measures(row.brand_id) },
    "return=minimal,resolution=merge-duplicates",
  );
}

/** A PATCH of one result changing some of: its day, bucket keys, and measures. */
async function restPatchOne() {
  const id = pick(resultIds());
  if (!id) return;
  const m = measures(brandOfResult(id));
  const body: Record<string, unknown> = {};
  if (chance(0.5)) body.created_at = timestamp();
  if (chance(0.4)) body.platform = pick(PLATFORMS);
  if (chance(0.2)) body.model = pick(MODELS);
  if (chance(0.2)) body.region = pick(REGIONS);
  if (chance(0.4)) body.mentioned = m.mentioned;
  if (chance(0.3)) body.mention_position = m.mention_position;
  if (chance(0.4)) body.sentiment_score = m.sentiment_score;
  if (chance(0.3)) body.sentiment = m.sentiment;
  if (chance(0.4)) body.competitor_mentions = m.competitor_mentions;
  if (chance(0.2)) body.brand_citation_count = m.brand_citation_count;
  if (chance(0.2)) body.visibility_score = chance(0.5) ? null : m.visibility_score;
  if (!Object.keys(body).length) body.created_at = timestamp();
  await service("PATCH", `/prompt_results?id=eq.${id}`, body);
}

/** One PATCH over many rows (row triggers fire once per row, against a half-updated table). */
async function restPatchMany() {
  const brandId = pick(brands());
  const platform = pick(PLATFORMS);
  const m = measures(brandId);
  const body = pick<Record<string, unknown>>([
    { created_at: timestamp() },
    { platform: pick(PLATFORMS) },
    { mentioned: m.mentioned, mention_position: m.mention_position },
    { competitor_mentions: m.competitor_mentions, sentiment_score: m.sentiment_score },
    { region: pick(REGIONS), created_at: timestamp() },
  ]);
  await service("PATCH", `/prompt_results?brand_id=eq.${brandId}&platform=eq.${platform}&model=eq.${pick(MODELS)}`, body);
}

async function restDeleteResults() {
  const victims = sample(resultIds(), 1 + int(4));
  if (victims.length) await service("DELETE", `/prompt_results?id=in.(${victims.join(",")})`);
}

async function restCitationWrites() {
  const id = pick(citationIds());
  if (!id) return;
  if (chance(0.3)) return service("DELETE", `/citations?id=eq.${id}`);
  const brandId = (db().query("SELECT brand_id FROM citations WHERE id = ?").get(id) as { brand_id: string }).brand_id;
  const competitors = competitorsOf(brandId);
  const body: Record<string, unknown> = {};
  if (chance(0.5)) body.domain = pick(DOMAINS);
  if (chance(0.4)) body.is_brand = chance(0.5);
  if (chance(0.4)) body.competitor_id = competitors.length && chance(0.5) ? pick(competitors) : null;
  if (chance(0.4) || !Object.keys(body).length) body.created_at = timestamp();
  await service("PATCH", `/citations?id=eq.${id}`, body);
}

/** Traffic rows as the pixel's writer inserts them (its statement, on the file). */
function trafficInserts(n: number) {
  const insert = db().prepare(
    `INSERT INTO ai_traffic_logs (id, brand_id, url, path, referrer_host, source_platform, utm_source, visitor_hash, country, language, screen, user_agent_family, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db().transaction(() => {
    for (let i = 0; i < n; i++) {
      const path = pick(PATHS);
      const source = pick(SOURCES);
      insert.run(crypto.randomUUID(), pick(brands()), `https://acme.com${path}`, path, source ? `${source}.com` : null, source, null, pick(VISITORS), "US", "en", "1x1", "chrome", timestamp());
    }
  })();
}

async function trafficChanges() {
  const rows = trafficIds();
  for (const id of sample(rows, 3)) {
    const body: Record<string, unknown> = {};
    if (chance(0.5)) body.source_platform = pick(SOURCES);
    if (chance(0.5)) body.visitor_hash = pick(VISITORS);
    if (chance(0.3)) body.path = pick(PATHS);
    if (chance(0.4) || !Object.keys(body).length) body.created_at = timestamp();
    await service("PATCH", `/ai_traffic_logs?id=eq.${id}`, body);
  }
  const victims = sample(trafficIds(), 1 + int(4));
  if (victims.length) await service("DELETE", `/ai_traffic_logs?id=in.(${victims.join(",")})`);
  // And a delete as retention would do it, straight on the file.
  const more = sample(trafficIds(), int(3));
  for (const id of more) db().run("DELETE FROM ai_traffic_logs WHERE id = ?", [id]);
}

async function randomRound(writes = 25) {
  storeInserts(15 + int(15));
  trafficInserts(20 + int(20));
  for (let i = 0; i < writes; i++) {
    const r = random();
    if (r < 0.15) await restInsert();
    else if (r < 0.25) await restUpsert();
    else if (r < 0.5) await restPatchOne();
    else if (r < 0.6) await restPatchMany();
    else if (r < 0.72) await restDeleteResults();
    else if (r < 0.87) await restCitationWrites();
    else await trafficChanges();
  }
}

function newBrand(name: string) {
  const b = seedBrand(db(), organizationId, { prompts: 3, name });
  // A third competitor, so competitor lists vary in length.
  db().run("INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Hooli', 'hooli.com')", [b.brandId]);
  return b.brandId;
}

beforeAll(async () => {
  dataDir = tempDir("aw-rollups-");
  server = await testServer({ DATA_DIR: dataDir });
  const { sb } = await signedUpClient(server.url, server.secrets.anonKey, "Rollups");
  organizationId = ((await sb.from("organizations").select("id")).data as { id: string }[])[0].id;
  for (const name of ["Acme", "Bravo", "Charlie"]) newBrand(name);
});
afterAll(() => server?.stop());

describe("rollup tables equal the aggregates of their raw rows", () => {
  test("after random writes through the result store, /rest/v1 (service key) and the pixel's statement", async () => {
    for (let round = 0; round < 6; round++) {
      await randomRound();
      check(`after round ${round}`);
    }
    const counts = rollupCounts(db());
    for (const table of ROLLUP_TABLES) expect(counts[table], `${table} holds rows (seed ${SEED})`).toBeGreaterThan(0);
  });

  test("a bulk import's batches keep the crawler rollups set-based and equal to their raw rows, whatever else writes between them; the per-row triggers are back afterwards", async () => {
    const triggers = () => db().query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all();
    const before = triggers();
    const store = createSqliteCrawlerStore(db(), { bulkImport: true });
    const other = new Database(join(dataDir, "answerwatch.db"));
    other.run("PRAGMA busy_timeout = 5000");
    const keys: Uint8Array[] = [];
    for (let batch = 0; batch < 6; batch++) {
      const brandId = pick(brands());
      const hits = Array.from({ length: 50 + int(100) }, () => {
        const bot = pick(["GPTBot", "ClaudeBot", null]);
        // Some records again (duplicates add nothing), days before and after the ones already kept.
        const recordKey = keys.length && chance(0.1) ? pick(keys) : crypto.getRandomValues(new Uint8Array(16));
        keys.push(recordKey);
        return { at: timestamp(), host: "", method: "GET", path: pick(["/", "/pricing", "/robots.txt", "/blog/a"]), status: pick([200, 401, 404, 500]), bytes: chance(0.3) ? null : int(5000), userAgent: "ua", refererHost: null, bot, operator: null, class: bot ? "ai_training" : "human", hit: pick(["page", "robots"]), verdict: bot ? pick(["verified", "spoofed", null]) : null, listVersion: null, recordKey, mayAnnounce: false };
      });
      await store.appendHits({ brandId, hits: hits as never, at: new Date().toISOString() });
      check(`after bulk batch ${batch}`);
      // Between batches, rows the bulk writer did not add (its remembered running totals must not survive them):
      // per-row writes on the same connection, then through another connection.
      const hit = [brandId, timestamp(), pick(["/", "/pricing"]), pick([200, 404]), "GPTBot", "ai_training", "page", "verified", crypto.getRandomValues(new Uint8Array(16))];
      const insert = "INSERT INTO crawler_hits (brand_id, at, method, path, status, user_agent, bot, class, hit, verdict, record_key) VALUES (?, ?, 'GET', ?, ?, 'ua', ?, ?, ?, ?, ?)";
      if (batch === 1) db().run(insert, hit as never);
      if (batch === 3) other.run(insert, hit as never);
    }
    other.close();
    check("after the bulk batches and the writes between them");
    expect(triggers()).toEqual(before);
    storeInserts(6);
    check("after per-row writes following the bulk batches");
  });

  test("a bulk import in time order, each batch beginning inside the day the one before ended in, for keys listed before and new ones, keeps the running totals equal to their raw rows", async () => {
    const store = createSqliteCrawlerStore(db(), { bulkImport: true });
    const brandId = brands()[0]!;
    // Paths already listed by the batches above ("/", "/pricing") and new ones; one bot new here.
    const paths = ["/", "/pricing", `/import-${SEED}-a`, `/import-${SEED}-b`];
    const start = Date.UTC(2025, 2, 1);
    let at = start;
    for (let batch = 0; batch < 5; batch++) {
      // ~1.5 days a batch, so a day's hits of one key are split between two batches.
      const hits = Array.from({ length: 60 }, (_, i) => {
        at += 36 * 60_000 + int(60_000);
        const bot = i % 3 === 2 ? "PerplexityBot" : "GPTBot";
        return { at: new Date(at).toISOString(), host: "", method: "GET", path: paths[i % paths.length]!, status: pick([200, 403, 404, 503]), bytes: int(5000), userAgent: "ua", refererHost: null, bot, operator: null, class: "ai_training", hit: "page", verdict: "verified", listVersion: null, recordKey: crypto.getRandomValues(new Uint8Array(16)), mayAnnounce: false };
      });
      await store.appendHits({ brandId, hits: hits as never, at: new Date().toISOString() });
      check(`after time-ordered batch ${batch}`);
    }
    // The split days exist: a key's hits on one day came in two batches (so that day's row was written twice).
    const days = db().query("SELECT count(DISTINCT substr(at, 1, 10)) AS n FROM crawler_hits WHERE brand_id = ? AND at >= ?").get(brandId, new Date(start).toISOString()) as { n: number };
    expect(days.n).toBeGreaterThanOrEqual(5);
  });

  test("a deleted competitor's citations (ON DELETE SET NULL) stay counted", async () => {
    const brandId = brands()[0];
    const competitor = competitorsOf(brandId).find((c) => db().query("SELECT 1 FROM citations WHERE competitor_id = ?").get(c)) ?? competitorsOf(brandId)[0];
    await service("DELETE", `/competitors?id=eq.${competitor}`);
    expect(db().query("SELECT count(*) AS n FROM citations WHERE competitor_id = ?").get(competitor)).toEqual({ n: 0 });
    check("after a competitor's delete");
  });

  test("a prompt deleted through /rest/v1 takes its results, citations and their buckets", async () => {
    const brandId = brands()[1];
    const prompt = promptsOf(brandId)[0];
    expect((db().query("SELECT count(*) AS n FROM prompt_results WHERE prompt_id = ?").get(prompt) as { n: number }).n).toBeGreaterThan(0);
    await service("DELETE", `/prompts?id=eq.${prompt}`);
    expect(db().query("SELECT count(*) AS n FROM result_rollups_daily WHERE prompt_id = ?").get(prompt)).toEqual({ n: 0 });
    check("after a prompt's cascade");
  });

  test("a brand deleted through /rest/v1 leaves no rollup rows and the others intact", async () => {
    const doomed = newBrand("Doomed");
    await randomRound(10);
    storeInserts(10);
    trafficInserts(10);
    check("before the brand's delete");
    await service("DELETE", `/brands?id=eq.${doomed}`);
    // Totals keyed by id hold no brand: read with their keys, and none left without one (check()'s snapshot shows those too).
    const columnsOf = (table: string) => (db().query("SELECT name FROM pragma_table_info(?)").all(table) as { name: string }[]).map((c) => c.name);
    for (const table of ROLLUP_TABLES) expect(db().query(`SELECT count(*) AS n FROM (${logicalRowsSql(table, columnsOf)}) WHERE brand_id = ? OR brand_id IS NULL`).get(doomed), table).toEqual({ n: 0 });
    check("after a brand's cascade");
  });

  test("JSON a client wrote badly adds nothing and does not fail its write", async () => {
    const brandId = brands()[0];
    const promptId = promptsOf(brandId)[0];
    // Not JSON at all, straight into the column (REST refuses it with 22P02 before SQLite sees it).
    const id = crypto.randomUUID();
    db().run("INSERT INTO prompt_results (id, brand_id, prompt_id, platform, model, competitor_mentions, created_at) VALUES (?, ?, ?, 'chatgpt', 'm-1', 'not json', ?)", [id, brandId, promptId, timestamp()]);
    check("after a result with invalid competitor_mentions");
    db().run("UPDATE prompt_results SET competitor_mentions = '[{\"competitor_id\":null,\"mention_count\":2}' WHERE id = ?", [id]);
    check("after an update to truncated JSON");
    // Valid JSON whose elements are not objects: a list of names, numbers, nulls.
    await service("PATCH", `/prompt_results?id=eq.${id}`, { competitor_mentions: [1, null, true, [2]] });
    check("after a list of scalars");
  });

  test("a competitor_mentions list of plain names (strings) is stored and adds nothing", async () => {
    const brandId = brands()[0];
    const id = crypto.randomUUID();
    await service("POST", "/prompt_results", { id, brand_id: brandId, prompt_id: promptsOf(brandId)[0], platform: "chatgpt", model: "m-1", created_at: timestamp(), competitor_mentions: ["Globex", "Initech"] });
    expect(db().query("SELECT competitor_mentions FROM prompt_results WHERE id = ?").get(id)).toEqual({ competitor_mentions: '["Globex","Initech"]' });
    check("after a list of names");
  });

  test("after a restart on the same file: no rebuild, still equal, and kept on new writes", async () => {
    const state = db().query("SELECT name, hash, created_at FROM rollup_state ORDER BY name").all();
    expect(state).toHaveLength(ROLLUP_TABLES.length);
    await server.stop();
    server = await testServer({ DATA_DIR: dataDir });
    expect(db().query("SELECT name, hash, created_at FROM rollup_state ORDER BY name").all()).toEqual(state);
    check("after the restart");
    for (let round = 0; round < 3; round++) {
      await randomRound();
      check(`after round ${round} since the restart`);
    }
  });

  test("ensureRollups changes nothing when the definitions did not change", () => {
    const triggers = () => db().query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all();
    const before = { triggers: triggers(), state: db().query("SELECT * FROM rollup_state ORDER BY name").all(), counts: rollupCounts(db()) };
    expect(ensureRollups(db())).toEqual([]);
    expect({ triggers: triggers(), state: db().query("SELECT * FROM rollup_state ORDER BY name").all(), counts: rollupCounts(db()) }).toEqual(before);
  });

  test("ensureRollups rebuilds a rollup whose stored definition differs, and the rollups fed by it", () => {
    db().run("UPDATE rollup_state SET hash = 'stale' WHERE name = 'traffic_visitor_days'");
    db().run("DELETE FROM traffic_visitor_days");
    db().run("UPDATE traffic_visitors_daily SET visitors = visitors + 7");
    expect(ensureRollups(db())).toEqual(["traffic_visitor_days", "traffic_visitors_daily", "traffic_visitors_weekly"]);
    check("after ensureRollups of a stale definition");
    expect(ensureRollups(db())).toEqual([]);
  });

  test("ensureRollups replaces triggers written differently (a hash of the release before, which covered their text) and keeps the rows", async () => {
    await randomRound(4);
    const spec = ROLLUPS.find((r) => r.table === "url_totals")!;
    // The release before stored a hash of its triggers' text and the rebuild; its triggers differ in writing only.
    const older = triggerSql(spec).map((sql) => sql.replace(" BEGIN\n", " BEGIN\n  -- kept by the release before\n"));
    for (const [i, name] of triggerNames(spec).entries()) db().run(`DROP TRIGGER ${name}`), db().run(older[i]!);
    db().run("UPDATE rollup_state SET hash = ? WHERE name = ?", [Bun.hash([...older, ...rebuildSql(spec)].join("\n")).toString(16), spec.table]);
    // A marker row a rebuild would remove: the rows must survive.
    db().run("UPDATE url_totals SET citations = citations + 1000 WHERE (key_id, day) = (SELECT key_id, day FROM url_totals LIMIT 1)");
    expect(ensureRollups(db())).toEqual([]);
    expect(db().query("SELECT count(*) AS n FROM url_totals WHERE citations >= 1000").get()).toEqual({ n: 1 });
    const now = db().query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rollup_url_totals_%' AND name NOT LIKE '%keys%' ORDER BY name").all() as { name: string; sql: string }[];
    expect(now.map((t) => t.sql).sort()).toEqual([...triggerSql(spec)].sort());
    db().run("UPDATE url_totals SET citations = citations - 1000 WHERE citations >= 1000");
    check("after triggers rewritten in place");
    expect(ensureRollups(db())).toEqual([]);
  });

  test("the update triggers of the release before (no WHEN: any update of a watched column ran them) are rewritten in place, the rows kept", () => {
    const spec = ROLLUPS.find((r) => r.table === "domain_rollups_monthly")!;
    const update = triggerNames(spec)[2]!;
    const current = triggerSql(spec)[2]!;
    expect(current).toContain(" WHEN OLD.brand_id IS NOT NEW.brand_id OR ");
    expect(current).toContain(" OR aw_text(OLD.citations) IS NOT aw_text(NEW.citations) BEGIN");
    db().run(`DROP TRIGGER ${update}`);
    db().run(current.replace(/ WHEN .* BEGIN\n/, " BEGIN\n"));
    // A marker row a rebuild would remove: the rows must survive.
    const key = "brand_id, month, prompt_id, platform, model, region, domain";
    db().run(`UPDATE domain_rollups_monthly SET citations = citations + 1000 WHERE (${key}) = (SELECT ${key} FROM domain_rollups_monthly LIMIT 1)`);
    expect(ensureRollups(db())).toEqual([]);
    expect(db().query("SELECT count(*) AS n FROM domain_rollups_monthly WHERE citations >= 1000").get()).toEqual({ n: 1 });
    expect(db().query("SELECT sql FROM sqlite_master WHERE name = ?").get(update)).toEqual({ sql: current });
    db().run("UPDATE domain_rollups_monthly SET citations = citations - 1000 WHERE citations >= 1000");
    check("after the update trigger was given its WHEN");
  });

  test("rebuildRollups restores emptied rollup tables exactly", async () => {
    const expectedCounts = rollupCounts(db());
    for (const table of ROLLUP_TABLES) db().run(`DELETE FROM ${table}`);
    expect(Object.values(rollupCounts(db())).every((n) => n === 0)).toBe(true);
    const rebuilt = rebuildRollups(db());
    // Running totals keep the days of raw rows since removed; rebuilt, they hold only the days raw rows are on.
    // (And key lists keeping their emptied keys: rebuilt, they list only keys with raw rows.)
    const running = new Set(ROLLUP_TABLES.filter((t) => TABLES[t]!.running || TABLES[t]!.keepsEmpty));
    for (const r of rebuilt) {
      if (running.has(r.table)) expect(r.rows, r.table).toBeLessThanOrEqual(expectedCounts[r.table]!);
      else expect({ table: r.table, rows: r.rows }).toEqual({ table: r.table, rows: expectedCounts[r.table]! });
    }
    check("after rebuildRollups");
    // And the triggers keep the rebuilt tables current.
    await randomRound(10);
    check("after writes on rebuilt tables");
  });
});
