// prompt_results_latest on Postgres (src/results/latest.pg.ts) against a brute force over the raw
// rows: a random database mutated in rounds on every path the triggers watch — the result writer's
// batches (src/results/store.pg.ts), plain inserts, updates of created_at (single rows, often a
// group's newest; whole groups at once) and of the group and brand columns, deletes of results
// and of whole prompts (the cascade) — equals, after each round, the newest row per (prompt,
// platform, model, region), ties to the greater id. Then: the schema part is idempotent, and a
// lost trigger is put back with the table rebuilt.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SQL } from "bun";
import { ensureLatestPg } from "../../src/results/latest.pg";
import { insertResults } from "../../src/results/store.pg";
import type { ResultValues } from "../../src/tracking/unit";
import { pgHarness } from "../contracts/harness.pg";
import { seededRandom } from "../helpers/random";

const SEED = Number(process.env.LATEST_SEED ?? Math.floor(Math.random() * 2 ** 32));
const { int, pick, chance, sample } = seededRandom(SEED);
const PLATFORMS = ["chatgpt", "perplexity"] as const;
const MODELS = ["gpt-4o", "sonar"] as const;
const REGIONS = ["", "US"] as const;
// A small pool of instants, so exact ties (decided by the id) are common.
const INSTANTS = Array.from({ length: 8 }, (_, i) => new Date(Date.UTC(2025, 0, 1 + (i >> 1), 9, 0, 0, i % 2)).toISOString());

const VALUES: ResultValues = {
  surface: "api", response: "answer", mentioned: 0, mention_count: 0, mention_position: null, competitor_mentions: "[]", citations: "[]", citation_count: 0,
  brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: 50, search_queries: "[]", details: "{}",
};

const h = await pgHarness();
let sql: SQL;
const brands: string[] = [];
const prompts = new Map<string, string[]>();

const group = () => {
  const brandId = pick(brands);
  return { brandId, promptId: pick(prompts.get(brandId)!), platform: pick(PLATFORMS), model: pick(MODELS), region: pick(REGIONS) };
};

async function check() {
  const kept = await sql`SELECT prompt_id, platform, model, region, brand_id, result_id, created_at FROM prompt_results_latest ORDER BY 1, 2, 3, 4`;
  const brute = await sql`SELECT DISTINCT ON (prompt_id, platform, model, region) prompt_id, platform, model, region, brand_id, id AS result_id, created_at
    FROM prompt_results ORDER BY prompt_id, platform, model, region, created_at DESC, id DESC`;
  expect([...kept], `LATEST_SEED=${SEED}`).toEqual([...brute]);
}

async function round() {
  await sql.begin((tx) =>
    insertResults(
      tx,
      Array.from({ length: 40 }, () => {
        const g = group();
        return { key: { id: crypto.randomUUID(), jobId: null, ...g, createdAt: pick(INSTANTS) }, values: VALUES };
      }),
    ),
  );
  for (let i = 0; i < 5; i++) {
    const g = group();
    await sql`INSERT INTO prompt_results (brand_id, prompt_id, platform, model, region, created_at) VALUES (${g.brandId}, ${g.promptId}, ${g.platform}, ${g.model}, ${g.region}, ${pick(INSTANTS)})`;
  }
  const newest = (await sql`SELECT result_id FROM prompt_results_latest`).map((r: { result_id: string }) => r.result_id);
  for (const id of sample(newest, 6)) await sql`UPDATE prompt_results SET created_at = ${pick(INSTANTS)} WHERE id = ${id}`;
  const all = (await sql`SELECT id, brand_id FROM prompt_results`) as { id: string; brand_id: string }[];
  for (const r of sample(all, 4)) await sql`UPDATE prompt_results SET created_at = ${pick(INSTANTS)} WHERE id = ${r.id}`;
  // A whole group at once: one statement, the triggers of all its rows see the statement's end.
  const g = group();
  await sql`UPDATE prompt_results SET created_at = ${pick(INSTANTS)} WHERE prompt_id = ${g.promptId} AND platform = ${g.platform}`;
  for (const r of sample(all, 4)) {
    const to = group();
    if (to.brandId !== r.brand_id) continue;
    await sql`UPDATE prompt_results SET prompt_id = ${to.promptId}, platform = ${to.platform}, model = ${to.model}, region = ${to.region} WHERE id = ${r.id}`;
  }
  for (const id of sample(newest, 4)) await sql`DELETE FROM prompt_results WHERE id = ${id}`;
  for (const r of sample(all, 3)) await sql`DELETE FROM prompt_results WHERE id = ${r.id}`;
  if (chance(0.5)) {
    // A prompt deleted: its results go with it (and their latest rows).
    const brandId = pick(brands);
    const list = prompts.get(brandId)!;
    if (list.length > 1) await sql`DELETE FROM prompts WHERE id = ${list.splice(int(list.length), 1)[0]!}`;
  }
}

beforeAll(async () => {
  if (!h) return;
  sql = h.pg.sql;
  for (let b = 0; b < 2; b++) {
    const org = await h.fixtures.organization();
    const brand = await h.fixtures.brand(org);
    brands.push(brand);
    const list: string[] = [];
    for (let p = 0; p < 4; p++) list.push(await h.fixtures.prompt(brand));
    prompts.set(brand, list);
  }
});
afterAll(() => h?.close());

test.skipIf(!h)("prompt_results_latest equals the newest row per group after random writes on every path", async () => {
  for (let i = 0; i < 6; i++) {
    await round();
    await check();
  }
});

test.skipIf(!h)("the schema part is idempotent, and puts back a lost trigger with the table rebuilt", async () => {
  expect(await sql.begin((tx) => ensureLatestPg(tx))).toBe(false);
  await sql`DROP TRIGGER aw_latest_insert ON prompt_results`;
  const g = group();
  await sql`INSERT INTO prompt_results (brand_id, prompt_id, platform, model, region, created_at) VALUES (${g.brandId}, ${g.promptId}, ${g.platform}, ${g.model}, ${g.region}, '2030-01-01T00:00:00Z')`;
  expect(await sql.begin((tx) => ensureLatestPg(tx))).toBe(true);
  await check();
  expect(await sql.begin((tx) => ensureLatestPg(tx))).toBe(false);
});
