// rollups.test.ts on Postgres: the rollup tables (src/rollups, triggers.pg.ts) equal the aggregates
// of their raw rows, recomputed in TypeScript by recompute.ts (the same comparison, over rows read
// by recompute.pg.ts), after random writes on every path that writes those rows in Postgres' SQL:
// results with their citation rows and crawler requests in one transaction (the writers'), upserts
// (ON CONFLICT DO UPDATE, as /rest/v1's merge-duplicates), single- and multi-row UPDATEs that move
// rows between buckets, DELETEs, a competitor's SET NULL, a prompt's and a brand's cascades,
// multi-row traffic inserts (the pixel's group commit), JSON that adds nothing; and, Postgres only,
// several sessions writing one brand at once. Then: a reopen changes nothing, a stale definition
// or a lost trigger is rebuilt, and a rebuild restores emptied tables exactly.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import type { PgHandle } from "../../src/db/pg/open";
import { openPostgresDatabase } from "../../src/database";
import { ensurePgRollups, PG_ROLLUPS, rebuildPgRollups, rebuildSql, triggerNames, triggerSql } from "../../src/rollups/triggers.pg";
import { seededRandom } from "../helpers/random";
import { testPostgres } from "../helpers/postgres";
import { logicalRowsSql, ROLLUP_TABLES, snapshotDifferences, TABLES } from "./recompute";
import { ORGANIZATION_THROUGH_KEY } from "../../src/db/pg/schema";
import { pgColumns, pgRollupCounts, pgSnapshot } from "./recompute.pg";

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

function timestamp(): string {
  const dayMs = Date.UTC(2024, 11, 27) + int(40) * 86_400_000;
  const r = random();
  const offset = r < 0.15 ? 0 : r < 0.3 ? 86_400_000 - 1 : int(86_400_000);
  return new Date(dayMs + offset).toISOString();
}

const server = await testPostgres();
let url: string;
let pg: PgHandle;
let organizationId: string;
const sql = (): SQL => pg.sql;

const check = async (what: string) => {
  const problems = snapshotDifferences(await pgSnapshot(sql()));
  if (problems.length) throw new Error(`rollups differ from raw rows ${what} (ROLLUPS_SEED=${SEED}):\n${problems.join("\n")}`);
};

const ids = async (text: string, ...params: unknown[]) => ((await sql().unsafe(text, params as never[])) as { id: string }[]).map((r) => r.id);
const brands = () => ids("SELECT id FROM brands WHERE organization_id = $1 ORDER BY id", organizationId);
const promptsOf = (brandId: string) => ids("SELECT id FROM prompts WHERE brand_id = $1 ORDER BY id", brandId);
const competitorsOf = (brandId: string) => ids("SELECT id FROM competitors WHERE brand_id = $1 ORDER BY id", brandId);
const resultIds = () => ids("SELECT id FROM prompt_results ORDER BY id");
const citationIds = () => ids("SELECT id FROM citations ORDER BY id");
const trafficIds = () => ids("SELECT id FROM ai_traffic_logs ORDER BY id");

// ---- random values (as rollups.test.ts draws them) -------------------------------------------------

function competitorMentions(competitors: string[]): Record<string, unknown>[] {
  const list: Record<string, unknown>[] = sample(competitors, int(3)).map((id, i) => (chance(0.15) ? { competitor_id: id, name: `C${i}` } : { competitor_id: id, name: `C${i}`, mention_count: int(5) }));
  if (chance(0.3)) list.push({ competitor_id: null, name: "Unlisted", mention_count: 1 + int(3) });
  return list;
}

function citationList(competitors: string[]) {
  return Array.from({ length: int(5) }, (_, i) => {
    const domain = pick(DOMAINS);
    const url = `https://${domain}/p${int(3)}`;
    return { position: i + 1, url, normalized_url: url, domain, host: domain, title: null, is_brand: domain === "acme.com" || chance(0.1), competitor_id: competitors.length && chance(0.3) ? pick(competitors) : null };
  });
}

function queryList(): unknown[] {
  const list: unknown[] = [];
  for (let i = 0, n = Math.floor(random() * 4); i < n; i++) list.push(pick(["best crm", "crm pricing", "acme reviews", "  ", 42, "best crm"]));
  return list;
}

function measures(competitors: string[]) {
  const sentiment = pick(SENTIMENTS);
  const mentioned = chance(0.6);
  return {
    mentioned,
    mention_count: mentioned ? 1 + int(4) : 0,
    mention_position: mentioned && chance(0.8) ? 1 + int(5) : null,
    competitor_mentions: competitorMentions(competitors),
    citation_count: int(6),
    brand_citation_count: chance(0.5) ? 0 : 1 + int(3),
    sentiment,
    sentiment_score: sentiment === null && chance(0.5) ? null : Math.round((random() * 2 - 1) * 1000) / 1000 + random() * 1e-6,
    visibility_score: random() * 100,
  };
}

// ---- writers ---------------------------------------------------------------------------------------

/** A result, its citation rows and a crawler request, in `tx`, as the writers do. */
async function insertResult(tx: SQL, brandId: string, prompts: string[], competitors: string[]) {
  const m = measures(competitors);
  const citations = citationList(competitors);
  const id = crypto.randomUUID();
  const createdAt = chance(0.05) ? null : timestamp();
  await tx`INSERT INTO prompt_results (id, job_id, brand_id, prompt_id, platform, model, region, response, mentioned, mention_count, mention_position, competitor_mentions,
             citations, citation_count, brand_citation_count, sentiment, sentiment_score, visibility_score, search_queries, created_at)
           VALUES (${id}, ${chance(0.5) ? null : crypto.randomUUID()}, ${brandId}, ${pick(prompts)}, ${pick(PLATFORMS)}, ${pick(MODELS)}, ${pick(REGIONS)}, 'answer', ${m.mentioned}, ${m.mention_count},
             ${m.mention_position}, ${m.competitor_mentions}, ${citations}, ${citations.length}, ${citations.filter((c) => c.is_brand).length}, ${m.sentiment}, ${m.sentiment_score},
             ${m.visibility_score}, ${queryList()}, coalesce(${createdAt}::timestamptz, now()))`;
  for (const c of citations)
    await tx`INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain, is_brand, competitor_id, created_at)
             VALUES (${id}, ${brandId}, ${c.position}, ${c.url}, ${c.normalized_url}, ${c.domain}, ${c.is_brand}, ${c.competitor_id}, ${chance(0.8) && createdAt ? createdAt : timestamp()})`;
}

async function crawlerHit(tx: SQL, brandId: string) {
  await tx`INSERT INTO crawler_hits (brand_id, at, method, path, status, bytes, user_agent, bot, class, hit, verdict, record_key)
           VALUES (${brandId}, ${timestamp()}, 'GET', ${pick(["/", "/pricing", "/robots.txt"])}, ${pick([200, 404, 500])}, ${chance(0.3) ? null : Math.floor(random() * 5000)}, 'ua',
             ${pick(["GPTBot", null])}, ${pick(["ai_training", "human"])}, ${pick(["page", "robots"])}, ${pick(["verified", "spoofed", null])}, gen_random_uuid()::text::bytea)`;
}

/** Results and crawler requests in one transaction: of random brands, or of `only` (as the tracking writer's, a unit of one brand). */
async function storeInserts(n: number, only?: string) {
  const all = only ? [only] : await brands();
  const context = new Map<string, { prompts: string[]; competitors: string[] }>();
  for (const b of all) context.set(b, { prompts: await promptsOf(b), competitors: await competitorsOf(b) });
  await sql().begin(async (tx) => {
    for (let i = 0; i < Math.ceil(n / 3); i++) await crawlerHit(tx, pick(all));
    for (let i = 0; i < n; i++) {
      const brandId = pick(all);
      const { prompts, competitors } = context.get(brandId)!;
      if (prompts.length) await insertResult(tx, brandId, prompts, competitors);
    }
  });
}

/** An upsert of an existing result (INSERT … ON CONFLICT DO UPDATE) that changes what it adds and where. */
async function upsert() {
  const id = pick(await resultIds());
  if (!id) return;
  const [row] = await sql()`SELECT brand_id, prompt_id FROM prompt_results WHERE id = ${id}`;
  const m = measures(await competitorsOf(row.brand_id));
  await sql()`INSERT INTO prompt_results (id, brand_id, prompt_id, platform, model, region, created_at, mentioned, mention_count, mention_position, competitor_mentions, citation_count,
                brand_citation_count, sentiment, sentiment_score, visibility_score)
              VALUES (${id}, ${row.brand_id}, ${row.prompt_id}, ${pick(PLATFORMS)}, ${pick(MODELS)}, ${pick(REGIONS)}, ${timestamp()}, ${m.mentioned}, ${m.mention_count}, ${m.mention_position},
                ${m.competitor_mentions}, ${m.citation_count}, ${m.brand_citation_count}, ${m.sentiment}, ${m.sentiment_score}, ${m.visibility_score})
              ON CONFLICT (id) DO UPDATE SET platform = EXCLUDED.platform, model = EXCLUDED.model, region = EXCLUDED.region, created_at = EXCLUDED.created_at, mentioned = EXCLUDED.mentioned,
                mention_count = EXCLUDED.mention_count, mention_position = EXCLUDED.mention_position, competitor_mentions = EXCLUDED.competitor_mentions, citation_count = EXCLUDED.citation_count,
                brand_citation_count = EXCLUDED.brand_citation_count, sentiment = EXCLUDED.sentiment, sentiment_score = EXCLUDED.sentiment_score, visibility_score = EXCLUDED.visibility_score`;
}

async function patchOne() {
  const id = pick(await resultIds());
  if (!id) return;
  const [{ brand_id }] = await sql()`SELECT brand_id FROM prompt_results WHERE id = ${id}`;
  await updateFixed("id = $1", [id], brand_id, false);
}

async function patchMany() {
  const brandId = pick(await brands());
  await updateFixed("brand_id = $1 AND platform = $2 AND model = $3", [brandId, pick(PLATFORMS), pick(MODELS)], brandId, true);
}

/** An UPDATE of the rows of `where` setting some of: day, bucket keys, measures (the SET list from fixed pieces). */
async function updateFixed(where: string, params: unknown[], brandId: string, many: boolean) {
  const m = measures(await competitorsOf(brandId));
  let set: Record<string, unknown> = {};
  if (many) set = pick<Record<string, unknown>>([{ created_at: timestamp() }, { platform: pick(PLATFORMS) }, { mentioned: m.mentioned, mention_position: m.mention_position }, { competitor_mentions: m.competitor_mentions, sentiment_score: m.sentiment_score }, { region: pick(REGIONS), created_at: timestamp() }]);
  else {
    if (chance(0.5)) set.created_at = timestamp();
    if (chance(0.4)) set.platform = pick(PLATFORMS);
    if (chance(0.2)) set.model = pick(MODELS);
    if (chance(0.2)) set.region = pick(REGIONS);
    if (chance(0.4)) set.mentioned = m.mentioned;
    if (chance(0.3)) set.mention_position = m.mention_position;
    if (chance(0.4)) set.sentiment_score = m.sentiment_score;
    if (chance(0.3)) set.sentiment = m.sentiment;
    if (chance(0.4)) set.competitor_mentions = m.competitor_mentions;
    if (chance(0.2)) set.brand_citation_count = m.brand_citation_count;
    if (chance(0.2)) set.visibility_score = chance(0.5) ? null : m.visibility_score;
    if (!Object.keys(set).length) set.created_at = timestamp();
  }
  const columns = Object.keys(set);
  const cast = (c: string) => (c === "competitor_mentions" ? "::jsonb" : c === "created_at" ? "::timestamptz" : "");
  const values = columns.map((c) => (c === "competitor_mentions" ? JSON.stringify(set[c]) : set[c]));
  // The list goes as text cast to jsonb (parsed there): an untyped parameter would not say it is JSON.
  await sql().unsafe(`UPDATE prompt_results SET ${columns.map((c, i) => `${c} = $${i + 1 + params.length}${cast(c) === "::jsonb" ? "::text::jsonb" : cast(c)}`).join(", ")} WHERE ${where}`, [...params, ...values] as never[]);
}

async function deleteResults() {
  const victims = sample(await resultIds(), 1 + int(4));
  if (victims.length) await sql()`DELETE FROM prompt_results WHERE id = ANY(${sql().array(victims, "uuid")})`;
}

async function citationWrites() {
  const id = pick(await citationIds());
  if (!id) return;
  if (chance(0.3)) return void (await sql()`DELETE FROM citations WHERE id = ${id}`);
  const [{ brand_id }] = await sql()`SELECT brand_id FROM citations WHERE id = ${id}`;
  const competitors = await competitorsOf(brand_id);
  const set: [string, unknown][] = [];
  if (chance(0.5)) set.push(["domain", pick(DOMAINS)]);
  if (chance(0.4)) set.push(["is_brand", chance(0.5)]);
  if (chance(0.4)) set.push(["competitor_id", competitors.length && chance(0.5) ? pick(competitors) : null]);
  if (chance(0.4) || !set.length) set.push(["created_at", timestamp()]);
  const cast = (c: string) => (c === "competitor_id" ? "::uuid" : c === "created_at" ? "::timestamptz" : c === "is_brand" ? "::boolean" : "");
  await sql().unsafe(`UPDATE citations SET ${set.map(([c], i) => `${c} = $${i + 2}${cast(c)}`).join(", ")} WHERE id = $1`, [id, ...set.map(([, v]) => v)] as never[]);
}

/** Traffic rows as the pixel's group commit writes them: one multi-row INSERT. */
async function trafficInserts(n: number) {
  const all = await brands();
  const rows = Array.from({ length: n }, () => {
    const path = pick(PATHS);
    const source = pick(SOURCES);
    return { brand_id: pick(all), url: `https://acme.com${path}`, path, referrer_host: source ? `${source}.com` : null, source_platform: source, visitor_hash: pick(VISITORS), country: "US", language: "en", screen: "1x1", user_agent_family: "chrome", created_at: timestamp() };
  });
  await sql()`INSERT INTO ai_traffic_logs ${sql()(rows)}`;
}

async function trafficChanges() {
  for (const id of sample(await trafficIds(), 3)) {
    const set: [string, unknown][] = [];
    if (chance(0.5)) set.push(["source_platform", pick(SOURCES)]);
    if (chance(0.5)) set.push(["visitor_hash", pick(VISITORS)]);
    if (chance(0.3)) set.push(["path", pick(PATHS)]);
    if (chance(0.4) || !set.length) set.push(["created_at", timestamp()]);
    await sql().unsafe(`UPDATE ai_traffic_logs SET ${set.map(([c], i) => `${c} = $${i + 2}${c === "created_at" ? "::timestamptz" : ""}`).join(", ")} WHERE id = $1`, [id, ...set.map(([, v]) => v)] as never[]);
  }
  const victims = sample(await trafficIds(), 1 + int(6));
  if (victims.length) await sql()`DELETE FROM ai_traffic_logs WHERE id = ANY(${sql().array(victims, "uuid")})`;
}

async function randomRound(writes = 25) {
  await storeInserts(15 + int(15));
  await trafficInserts(20 + int(20));
  for (let i = 0; i < writes; i++) {
    const r = random();
    if (r < 0.15) await storeInserts(1);
    else if (r < 0.25) await upsert();
    else if (r < 0.5) await patchOne();
    else if (r < 0.6) await patchMany();
    else if (r < 0.72) await deleteResults();
    else if (r < 0.87) await citationWrites();
    else await trafficChanges();
  }
}

async function newBrand(name: string) {
  const [{ id }] = await sql()`INSERT INTO brands (organization_id, name, slug) VALUES (${organizationId}, ${name}, ${`${name.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}`}) RETURNING id`;
  const [set] = await sql()`INSERT INTO prompt_sets (brand_id, name) VALUES (${id}, 'Set') RETURNING id`;
  for (let i = 0; i < 3; i++) await sql()`INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (${set.id}, ${id}, ${`prompt ${i}`})`;
  for (const [c, domain] of [["Globex", "globex.com"], ["Initech", "initech.com"], ["Hooli", "hooli.com"]]) await sql()`INSERT INTO competitors (brand_id, name, domain) VALUES (${id}, ${c}, ${domain})`;
  return id as string;
}

beforeAll(async () => {
  if (!server) return;
  url = await server.createDatabase("rollups");
  pg = await openPostgresDatabase(url, { poolSize: 6 });
  [{ id: organizationId }] = await pg.sql`INSERT INTO organizations (name, slug) VALUES ('Rollups', 'rollups') RETURNING id`;
  for (const name of ["Acme", "Bravo", "Charlie"]) await newBrand(name);
});
afterAll(() => pg?.close());

describe.skipIf(!server)("rollup tables equal the aggregates of their raw rows (postgres)", () => {
  test("after random writes: inserts in one transaction, upserts, single- and multi-row updates, deletes, traffic group commits", async () => {
    for (let round = 0; round < 6; round++) {
      await randomRound();
      await check(`after round ${round}`);
    }
    const counts = await pgRollupCounts(sql());
    for (const table of ROLLUP_TABLES) expect(counts[table], `${table} holds rows (seed ${SEED})`).toBeGreaterThan(0);
  });

  test("sessions writing the same brands at once (running totals included) still sum up", async () => {
    // Each session adds results on random days (a running total's earlier and later days at once) and
    // deletes or moves one. A transaction keeps to one brand, as the writers' do: two transactions
    // each writing several brands' rows in opposite orders may deadlock (40P01) on any upserted bucket.
    const all = await brands();
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        for (let i = 0; i < 5; i++) {
          await storeInserts(4, pick(all));
          const victim = pick(await resultIds());
          if (chance(0.5)) await sql()`DELETE FROM prompt_results WHERE id = ${victim}`;
          else await patchOne();
        }
      }),
    );
    await check("after concurrent sessions");
  });

  test("a deleted competitor's citations (ON DELETE SET NULL) stay counted", async () => {
    const brandId = (await brands())[0]!;
    const competitors = await competitorsOf(brandId);
    const cited = (await sql()`SELECT competitor_id FROM citations WHERE competitor_id = ANY(${sql().array(competitors, "uuid")}) LIMIT 1`)[0]?.competitor_id ?? competitors[0];
    await sql()`DELETE FROM competitors WHERE id = ${cited}`;
    expect((await sql()`SELECT count(*)::int AS n FROM citations WHERE competitor_id = ${cited}`)[0].n).toBe(0);
    await check("after a competitor's delete");
  });

  test("a deleted prompt takes its results, citations and their buckets", async () => {
    const brandId = (await brands())[1]!;
    const prompt = (await promptsOf(brandId))[0]!;
    expect((await sql()`SELECT count(*)::int AS n FROM prompt_results WHERE prompt_id = ${prompt}`)[0].n).toBeGreaterThan(0);
    await sql()`DELETE FROM prompts WHERE id = ${prompt}`;
    expect((await sql()`SELECT count(*)::int AS n FROM result_rollups_daily WHERE prompt_id = ${prompt}`)[0].n).toBe(0);
    await check("after a prompt's cascade");
  });

  test("a deleted brand leaves no rollup rows and the others intact", async () => {
    const doomed = await newBrand("Doomed");
    await randomRound(10);
    await storeInserts(10);
    await trafficInserts(10);
    await check("before the brand's delete");
    await sql()`DELETE FROM brands WHERE id = ${doomed}`;
    // Totals keyed by id hold no brand: read with their keys, and none left without one.
    const columnsOf = await pgColumns(sql());
    for (const table of ROLLUP_TABLES) expect((await sql().unsafe(`SELECT count(*)::int AS n FROM (${logicalRowsSql(table, columnsOf)}) AS r WHERE brand_id = $1 OR brand_id IS NULL`, [doomed]))[0].n, table).toBe(0);
    await check("after a brand's cascade");
  });

  test("JSON that is not a list of objects adds nothing and does not fail its write", async () => {
    const brandId = (await brands())[0]!;
    const promptId = (await promptsOf(brandId))[0]!;
    // jsonb refuses what is not JSON; what is JSON but not a list (an object, a string, a number), a
    // list of scalars, and objects whose fields are not what the columns hold must all add nothing.
    const id = crypto.randomUUID();
    await sql()`INSERT INTO prompt_results (id, brand_id, prompt_id, platform, model, competitor_mentions, citations, search_queries, created_at)
                VALUES (${id}, ${brandId}, ${promptId}, 'chatgpt', 'm-1', '{"competitor_id": null}'::jsonb, '"not a list"'::jsonb, '42'::jsonb, ${timestamp()})`;
    await check("after a result with lists that are not lists");
    await sql()`UPDATE prompt_results SET competitor_mentions = '[1, null, true, [2], "Globex"]'::jsonb, search_queries = '["a", {"q": 1}, null]'::jsonb WHERE id = ${id}`;
    await check("after lists of scalars");
    // (A competitor_id that is no uuid, a count past 2^31 or a numeric domain are Postgres-only: its
    // columns cannot hold them, so they add nothing there — recompute.ts follows SQLite's columns.)
    await sql()`UPDATE prompt_results SET competitor_mentions = '[{"competitor_id": null, "mention_count": "three"}, {"position": 2.7, "mention_count": 2.5}]'::jsonb,
                  citations = '[{"normalized_url": "https://x.example/"}, {"domain": null}]'::jsonb WHERE id = ${id}`;
    await check("after fields of the wrong kind");
  });

  test("every bucket row carries its brand's organization; a direct write cannot give it another", async () => {
    // (Totals keyed by id have no organization of their own: their key list's rows carry it.)
    const tables = [...ROLLUP_TABLES.filter((t) => t !== "citation_urls" && !(ORGANIZATION_THROUGH_KEY as readonly string[]).includes(t)), "prompt_results_latest"];
    let rows = 0;
    for (const table of tables) {
      const [wrong] = await sql().unsafe(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE t.organization_id IS DISTINCT FROM b.organization_id)::int AS wrong FROM ${table} AS t JOIN brands AS b ON b.id = t.brand_id`,
      );
      expect({ table, wrong: wrong.wrong }).toEqual({ table, wrong: 0 });
      rows += wrong.n;
    }
    expect(rows).toBeGreaterThan(100);
    // Outside a trigger (pg_trigger_depth() = 0) the brand's organization overwrites what a statement gives.
    const [brand] = await brands();
    const [other] = await sql()`INSERT INTO organizations (name, slug) VALUES ('Other', ${`other-${Date.now()}`}) RETURNING id`;
    await sql()`UPDATE result_brand_daily SET organization_id = ${other.id} WHERE brand_id = ${brand}`;
    const [moved] = await sql()`SELECT count(*)::int AS n FROM result_brand_daily WHERE organization_id = ${other.id}`;
    expect(moved.n).toBe(0);
  });

  test("a reopen (another instance starting) rebuilds nothing and the rollups stay equal", async () => {
    const state = await sql()`SELECT name, hash, created_at FROM rollup_state ORDER BY name`;
    expect(state).toHaveLength(ROLLUP_TABLES.length);
    const second = await openPostgresDatabase(url, { poolSize: 2 });
    try {
      expect(await second.sql`SELECT name, hash, created_at FROM rollup_state ORDER BY name`).toEqual(state);
    } finally {
      await second.close();
    }
    expect(await sql().begin((tx) => ensurePgRollups(tx))).toEqual([]);
    await randomRound();
    await check("after the reopen");
  });

  test("a stale definition rebuilds that rollup and the rollups fed by it", async () => {
    await sql()`UPDATE rollup_state SET hash = 'stale' WHERE name = 'traffic_visitor_days'`;
    await sql()`DELETE FROM traffic_visitor_days`;
    await sql()`UPDATE traffic_visitors_daily SET visitors = visitors + 7`;
    expect(await sql().begin((tx) => ensurePgRollups(tx))).toEqual(["traffic_visitor_days", "traffic_visitors_daily", "traffic_visitors_weekly"]);
    await check("after ensure of a stale definition");
    expect(await sql().begin((tx) => ensurePgRollups(tx))).toEqual([]);
  });

  test("trigger functions written differently (an upgrade's, or the release before issue #32's) are replaced and their rows kept", async () => {
    const spec = PG_ROLLUPS.find((s) => s.table === "domain_prompt_totals")!;
    const [insert] = triggerNames(spec);
    const functionOf = async (name: string) => (await sql()`SELECT prosrc AS body, proconfig AS settings FROM pg_proc WHERE proname = ${name}`)[0] as { body: string; settings: string[] };
    const current = await functionOf(insert!);
    expect(current.settings).toContain("enable_seqscan=off");
    // As the previous release left it: its functions set only search_path (their bodies, here an
    // older one), and rollup_state holds its hash of the trigger statements with the rebuild.
    const olderBody = current.body.replace("RETURN NULL;", "PERFORM 1;\n  RETURN NULL;");
    const previous = triggerSql(spec).map((statement) => (statement.startsWith("CREATE OR REPLACE FUNCTION") ? statement.replace(/ SET enable_\w+ = off/g, "") : statement));
    previous[0] = previous[0]!.replace(/\$rollup\$[\s\S]*\$rollup\$/, () => `$rollup$${olderBody}$rollup$`);
    for (const statement of previous.filter((s) => s.startsWith("CREATE OR REPLACE FUNCTION"))) await sql().unsafe(statement);
    await sql()`UPDATE rollup_state SET hash = ${Bun.hash([...previous, ...rebuildSql(spec)].join("\n")).toString(16)} WHERE name = ${spec.table}`;
    expect((await functionOf(insert!)).settings).toEqual(["search_path=public, pg_temp"]);
    // A row off by 100: a rebuild would put it right, so it staying off shows the rows were kept.
    expect((await sql()`SELECT count(*)::int AS n FROM domain_prompt_totals`)[0].n).toBeGreaterThan(0);
    const [row] = await sql()`UPDATE domain_prompt_totals SET answers = answers + 100 WHERE ctid = (SELECT min(ctid) FROM domain_prompt_totals) RETURNING key_id, day, answers`;
    expect(await sql().begin((tx) => ensurePgRollups(tx))).toEqual([]);
    expect(await functionOf(insert!)).toEqual(current);
    const [after] = await sql()`SELECT answers FROM domain_prompt_totals WHERE key_id = ${row.key_id} AND day = ${row.day}`;
    expect(after.answers).toBe(row.answers);
    await sql()`UPDATE domain_prompt_totals SET answers = answers - 100 WHERE key_id = ${row.key_id} AND day = ${row.day}`;
    expect(await sql().begin((tx) => ensurePgRollups(tx))).toEqual([]);
    await randomRound();
    await check("after the functions were replaced");
  });

  test("a lost trigger is put back and what it keeps rebuilt", async () => {
    await sql()`DROP TRIGGER rollup_result_rollups_daily_insert ON prompt_results`;
    await storeInserts(5);
    expect(snapshotDifferences(await pgSnapshot(sql())).length).toBeGreaterThan(0);
    expect(await sql().begin((tx) => ensurePgRollups(tx))).toEqual(["result_rollups_daily"]);
    await check("after the trigger came back");
    await storeInserts(5);
    await check("after writes with the trigger back");
  });

  test("a rebuild restores emptied rollup tables exactly", async () => {
    const before = await pgRollupCounts(sql());
    for (const table of ROLLUP_TABLES) await sql().unsafe(`DELETE FROM ${table}`);
    const rebuilt = await rebuildPgRollups(sql());
    // (And key lists keeping their emptied keys: rebuilt, they list only keys with raw rows.)
    const running = new Set(ROLLUP_TABLES.filter((t) => TABLES[t]!.running || TABLES[t]!.keepsEmpty));
    for (const r of rebuilt) {
      if (running.has(r.table)) expect(r.rows, r.table).toBeLessThanOrEqual(before[r.table]!);
      else expect({ table: r.table, rows: r.rows }).toEqual({ table: r.table, rows: before[r.table]! });
    }
    await check("after the rebuild");
    await randomRound(10);
    await check("after writes on rebuilt tables");
  });
});
