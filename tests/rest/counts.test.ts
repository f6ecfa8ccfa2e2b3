// backends: sqlite, postgres
// Issue #17: Prefer: count=exact, planned and estimated. An exact count whose filters are
// equalities on a rollup's keys is read from the rollup; every other one is count(*). Either way
// it equals the number of matching rows counted here from the raw table, row-level security
// included. planned/estimated are exact up to 10,000 rows and an estimate beyond: sampled on
// SQLite, the planner's (EXPLAIN, as PostgREST's count=planned) on Postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { countOf, insertResultIn, serverDb, sqlBool, type ServerDb } from "../helpers/server-db";
import { createBrand, signedUpOrg, type Org, type Server } from "./helpers";

let server: Server;
let a: Org;
let b: Org;
let brandA: { id: string };
let brandB: { id: string };
let promptsA: string[];
let db: ServerDb;

const PLATFORMS = ["chatgpt", "perplexity", "claude"];

beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
  [a, b] = await Promise.all([signedUpOrg(server, "Count A"), signedUpOrg(server, "Count B")]);
  brandA = await createBrand(a.owner, a.id, "count-a", { domains: 0, competitors: 0 });
  brandB = await createBrand(b.owner, b.id, "count-b", { domains: 0, competitors: 0 });
  const set = (await a.owner.from("prompt_sets").insert({ brand_id: brandA.id, name: "Set" }).select().single()).data!;
  promptsA = (await a.owner.from("prompts").insert([0, 1, 2].map((i) => ({ prompt_set_id: set.id, text: `p${i}` }))).select("id")).data!.map((p) => p.id);
  const setB = (await b.owner.from("prompt_sets").insert({ brand_id: brandB.id, name: "B" }).select().single()).data!;
  const promptB = (await b.owner.from("prompts").insert({ prompt_set_id: setB.id, text: "b" }).select().single()).data!.id;
  const inserted: string[] = [];
  for (let i = 0; i < 300; i++) {
    const day = new Date(Date.UTC(2026, 0, 1 + (i % 40), i % 24)).toISOString();
    inserted.push(await insertResultIn(db, { brand_id: brandA.id, prompt_id: promptsA[i % 3]!, platform: PLATFORMS[i % 3 === 0 ? 0 : (i >> 1) % 3]!, model: i % 5 ? "m1" : "m2", created_at: day, mentioned: i % 4 === 0 }));
    if (i % 3 === 0) inserted.push(await insertResultIn(db, { brand_id: brandB.id, prompt_id: promptB, platform: "chatgpt", model: "m1", created_at: day }));
  }
  // Some rows leave, so counts must follow deletes too (every 11th row written).
  for (const id of inserted.filter((_, i) => (i + 1) % 11 === 0)) await db.inspect("DELETE FROM prompt_results WHERE id = ?", id);
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

async function counted(org: Org, path: string, mode: "exact" | "planned" | "estimated" = "exact"): Promise<number> {
  const res = await fetch(`${server.url}/rest/v1/${path}`, { method: "HEAD", headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${org.ownerToken}`, prefer: `count=${mode}` } });
  expect(res.status).toBeLessThan(300);
  const range = res.headers.get("content-range")!;
  expect(range).toMatch(/\/\d+$/);
  return Number(range.split("/")[1]);
}

const raw = (where: string, ...params: unknown[]) => countOf(db, `SELECT count(*) AS n FROM prompt_results WHERE ${where}`, ...params);

test("exact counts equal the raw rows, from rollups (equalities on their keys) and from count(*) alike", async () => {
  const cases: [string, number | Promise<number>][] = [
    [`prompt_results?brand_id=eq.${brandA.id}`, raw("brand_id = ?", brandA.id)],
    [`prompt_results?brand_id=eq.${brandA.id}&platform=eq.perplexity`, raw("brand_id = ? AND platform = 'perplexity'", brandA.id)],
    [`prompt_results?brand_id=eq.${brandA.id}&platform=eq.chatgpt&model=eq.m2`, raw("brand_id = ? AND platform = 'chatgpt' AND model = 'm2'", brandA.id)],
    [`prompt_results?brand_id=eq.${brandA.id}&prompt_id=eq.${promptsA[1]}`, raw("brand_id = ? AND prompt_id = ?", brandA.id, promptsA[1]!)],
    // Not a rollup key: count(*).
    [`prompt_results?brand_id=eq.${brandA.id}&mentioned=eq.true`, raw("brand_id = ? AND mentioned = ?", brandA.id, sqlBool(db, true))],
    [`prompt_results?platform=eq.chatgpt`, raw("brand_id = ? AND platform = 'chatgpt'", brandA.id)],
    [`prompt_results?brand_id=eq.${brandA.id}&platform=eq.nothing`, 0],
  ];
  for (const [path, pending] of cases) {
    const expected = await pending;
    expect(expected).toBeGreaterThanOrEqual(0);
    for (const mode of ["exact", "planned", "estimated"] as const) expect({ path, mode, n: await counted(a, path, mode) }).toEqual({ path, mode, n: expected });
  }
  expect(await raw("brand_id = ?", brandA.id)).toBeGreaterThan(200);
});

test("a count by prompt is read from the monthly rollup (the daily one has no index by prompt), not from the rows", async () => {
  const path = `prompt_results?brand_id=eq.${brandA.id}&prompt_id=eq.${promptsA[2]}`;
  const expected = await raw("brand_id = ? AND prompt_id = ?", brandA.id, promptsA[2]!);
  const shift = (by: number) => db.inspect("UPDATE result_rollups_monthly SET results = results + ? WHERE (brand_id, month, prompt_id, platform, model, region, reported_model) IN (SELECT brand_id, month, prompt_id, platform, model, region, reported_model FROM result_rollups_monthly WHERE brand_id = ? AND prompt_id = ? LIMIT 1)", by, brandA.id, promptsA[2]!);
  expect(expected).toBeGreaterThan(0);
  // This path is read once: Postgres' response cache would not see a write to the rollup alone.
  await shift(1000);
  try {
    expect(await counted(a, path)).toBe(expected + 1000);
  } finally {
    await shift(-1000);
  }
});

test("a brand's citations count as their raw rows, by cited domain or all (citation_domain_counts), after inserts, a moved domain and deletes", async () => {
  const results = (await db.inspect<{ id: string; brand_id: string }>("SELECT id, brand_id FROM prompt_results WHERE brand_id IN (?, ?) ORDER BY id LIMIT 60", brandA.id, brandB.id)).slice();
  const domains = ["a.com", "b.org", "c.net"];
  for (const [n, r] of results.entries())
    for (let position = 1; position <= 1 + (n % 3); position++) {
      const domain = domains[(n + position) % 3]!;
      await db.inspect("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain) VALUES (?, ?, ?, ?, ?, ?)", r.id, r.brand_id, position, `https://${domain}/${n}`, `${domain}/${n}`, domain);
    }
  await db.inspect("UPDATE citations SET domain = 'moved.io' WHERE id IN (SELECT id FROM citations WHERE domain = 'b.org' AND brand_id = ? ORDER BY id LIMIT 4)", brandA.id);
  await db.inspect("DELETE FROM citations WHERE id IN (SELECT id FROM citations WHERE domain = 'c.net' ORDER BY id LIMIT 3)");
  const rawCitations = (where: string, ...params: unknown[]) => countOf(db, `SELECT count(*) AS n FROM citations WHERE ${where}`, ...params);
  const cases: [Org, string, number][] = [
    [a, `citations?brand_id=eq.${brandA.id}`, await rawCitations("brand_id = ?", brandA.id)],
    [b, `citations?brand_id=eq.${brandB.id}`, await rawCitations("brand_id = ?", brandB.id)],
    ...(await Promise.all(["a.com", "b.org", "c.net", "moved.io", "none.dev"].map(async (d): Promise<[Org, string, number]> => [a, `citations?brand_id=eq.${brandA.id}&domain=eq.${d}`, await rawCitations("brand_id = ? AND domain = ?", brandA.id, d)]))),
    // Not on the rollup's keys without a brand: count(*) under row-level security.
    [a, `citations?domain=eq.a.com`, await rawCitations("brand_id = ? AND domain = 'a.com'", brandA.id)],
    [b, `citations?brand_id=eq.${brandA.id}`, 0],
  ];
  expect(cases[0]![2]).toBeGreaterThan(40);
  expect(cases.find(([, path]) => path.endsWith("moved.io"))![2]).toBeGreaterThan(0);
  for (const [org, path, expected] of cases) expect({ path, n: await counted(org, path) }).toEqual({ path, n: expected });
});

test("another organization's brand counts 0, from the rollup as from the rows", async () => {
  expect(await counted(b, `prompt_results?brand_id=eq.${brandA.id}`)).toBe(0);
  expect(await counted(b, `prompt_results?brand_id=eq.${brandA.id}&platform=eq.chatgpt`)).toBe(0);
  expect(await counted(b, `prompt_results?brand_id=eq.${brandB.id}`)).toBe(await raw("brand_id = ?", brandB.id));
});

test("planned and estimated past 10,000 rows: an estimate near the true count; exact stays exact", async () => {
  // In statements of 500 rows: on Postgres the rollup triggers update the same rollup rows once
  // per log row, and one transaction of 24,000 such updates walks ever longer version chains.
  for (let from = 0; from < 24_000; from += 500)
    await db.inspect(
      `WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at)
       SELECT b.id, 'https://a.com/', CASE WHEN i % 3 = 0 THEN '/other' ELSE '/x' END, 'chatgpt', 'v', '2026-01-01T00:00:00.000Z' FROM n, brands b WHERE b.id = ?`,
      from, from + 499, brandA.id,
    );
  // Postgres estimates from the planner's statistics: as autovacuum leaves them a minute after the writes.
  if (db.backend === "postgres") await db.inspect("ANALYZE ai_traffic_logs");
  const truth = 16_000;
  // path is not a rollup key: planned samples (SQLite) or asks the planner (Postgres).
  const path = `ai_traffic_logs?brand_id=eq.${brandA.id}&path=eq./x`;
  expect(await counted(a, path, "exact")).toBe(truth);
  for (const mode of ["planned", "estimated"] as const) {
    const n = await counted(a, path, mode);
    expect(n).toBeGreaterThan(truth * 0.85);
    expect(n).toBeLessThan(truth * 1.15);
  }
  // The stranger's estimate is still 0: the sample goes through row-level security.
  expect(await counted(b, path, "planned")).toBe(0);
});
