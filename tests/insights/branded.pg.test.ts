// prompts.is_branded on Postgres (src/insights/branded.pg.ts): Postgres cannot call the brand
// matcher, so its triggers notify and a listener rechecks in TypeScript. Every write path that
// SQLite's triggers cover (tests/insights/branded.test.ts) ends with the same flags here, a moment
// later: plain SQL writes of prompts, of the brand's name and aliases, of its domains, and a client
// writing the flag itself. A writer can also recheck inside its own transaction, at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SQL } from "bun";
import { ensureBrandedPg, listenBranded, recheckBranded } from "../../src/insights/branded.pg";
import { pgHarness } from "../contracts/harness.pg";

const h = await pgHarness();
let sql: SQL;
let brand: string;
let listener: { stop(): Promise<void> };

const flag = async (id: string) => (await sql`SELECT is_branded FROM prompts WHERE id = ${id}`)[0].is_branded as boolean;
/** The flags once the listener has caught up (it rechecks asynchronously). */
async function settled(ids: string[], expected: boolean[]): Promise<boolean[]> {
  let got: boolean[] = [];
  for (let i = 0; i < 100; i++) {
    got = await Promise.all(ids.map(flag));
    if (JSON.stringify(got) === JSON.stringify(expected)) break;
    await Bun.sleep(20);
  }
  return got;
}

beforeAll(async () => {
  if (!h) return;
  sql = h.pg.sql;
  const org = await h.fixtures.organization();
  brand = await h.fixtures.brand(org, "Northwind");
  listener = await listenBranded(sql, (e) => console.error(e));
});
afterAll(async () => {
  await listener?.stop();
  await h?.close();
});

test.skipIf(!h)("a prompt inserted or edited by plain SQL is rechecked, with the answers' word boundaries", async () => {
  const a = await h!.fixtures.prompt(brand, "Is Northwind worth it for a small team?");
  const b = await h!.fixtures.prompt(brand, "is NORTHWIND any good");
  const c = await h!.fixtures.prompt(brand, "Best CRM for a small team?");
  const d = await h!.fixtures.prompt(brand, "Northwindy weather tools");
  expect(await settled([a, b, c, d], [true, true, false, false])).toEqual([true, true, false, false]);
  await sql`UPDATE prompts SET text = 'Northwind or Contoso?' WHERE id = ${c}`;
  await sql`UPDATE prompts SET text = 'Which CRM?' WHERE id = ${a}`;
  expect(await settled([a, c], [false, true])).toEqual([false, true]);
});

test.skipIf(!h)("renaming the brand, its aliases and its domains recheck every prompt of the brand; a client's flag is put right", async () => {
  const a = await h!.fixtures.prompt(brand, "Tailspin Toys reviews");
  const b = await h!.fixtures.prompt(brand, "is tailspin.io down?");
  const c = await h!.fixtures.prompt(brand, "TT toys pricing");
  expect(await settled([a, b, c], [false, false, false])).toEqual([false, false, false]);
  await sql`UPDATE brands SET name = 'Tailspin Toys' WHERE id = ${brand}`;
  expect(await settled([a, b, c], [true, false, false])).toEqual([true, false, false]);
  await sql`INSERT INTO brand_domains (brand_id, domain) VALUES (${brand}, 'tailspin.io')`;
  expect(await settled([a, b, c], [true, true, false])).toEqual([true, true, false]);
  await sql`UPDATE brands SET aliases = ${["TT toys"]}::jsonb WHERE id = ${brand}`;
  expect(await settled([a, b, c], [true, true, true])).toEqual([true, true, true]);
  await sql`UPDATE prompts SET is_branded = false WHERE id = ${a}`;
  await Bun.sleep(50);
  expect(await settled([a], [true])).toEqual([true]);
  await sql`DELETE FROM brand_domains WHERE brand_id = ${brand}`;
  await sql`UPDATE brands SET name = 'Northwind', aliases = '[]'::jsonb WHERE id = ${brand}`;
  expect(await settled([a, b, c], [false, false, false])).toEqual([false, false, false]);
});

test.skipIf(!h)("a writer rechecks inside its own transaction: right at its commit; the schema part is idempotent and rechecks all when it had to", async () => {
  await listener.stop();
  try {
    const id = await sql.begin(async (tx) => {
      const [{ id: set }] = await tx`INSERT INTO prompt_sets (brand_id, name) VALUES (${brand}, 'writer') RETURNING id`;
      const [{ id }] = await tx`INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (${set}, ${brand}, 'Northwind alternatives') RETURNING id`;
      expect(await recheckBranded(tx, [brand], { inTransaction: true })).toBe(1);
      return id as string;
    });
    expect(await flag(id)).toBe(true);
    // Nobody listening: a plain write stays stale (the documented gap) until a recheck.
    const [{ id: set }] = await sql`INSERT INTO prompt_sets (brand_id, name) VALUES (${brand}, 'plain') RETURNING id`;
    const [{ id: stale }] = await sql`INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (${set}, ${brand}, 'Northwind pricing') RETURNING id`;
    await Bun.sleep(50);
    expect(await flag(stale)).toBe(false);
    expect(await sql.begin((tx) => ensureBrandedPg(tx))).toBe(false);
    await sql`DROP TRIGGER brands_branded_notify ON brands`;
    expect(await sql.begin((tx) => ensureBrandedPg(tx))).toBe(true);
    expect(await flag(stale)).toBe(true);
  } finally {
    listener = await listenBranded(sql);
  }
});
