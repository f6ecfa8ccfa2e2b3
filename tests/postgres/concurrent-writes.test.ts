// Two sessions writing at once on Postgres (review findings), each race made for real with two
// connections and a transaction held open:
// - a brand moved to another organization while a row of it is being written: the row's
//   organization is read with the brand row locked FOR KEY SHARE, which the move's update conflicts
//   with (drizzle-pg/0023), so the row ends in the brand's new organization — never in the old one,
//   where the old organization's members would keep reading and writing it;
// - two owners demoting each other: each check that an owner is left ran under READ COMMITTED
//   beside the other's uncommitted change, so both passed; changes to an organization's owners now
//   queue (policies.pg.ts, membership_owners_only) and the second is judged on the first's result.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { pgHarness, type PgHarness } from "../contracts/harness.pg";

const h = await pgHarness();
let writer: SQL;
let mover: SQL;
beforeAll(() => {
  if (!h) return;
  writer = new SQL(h.url, { max: 1 });
  mover = new SQL(h.url, { max: 1 });
});
afterAll(async () => {
  await writer?.close();
  await mover?.close();
  await h?.close();
});

/** Whether `promise` is still pending after `ms`. */
const pendingAfter = (promise: Promise<unknown>, ms: number) => Promise.race([promise.then(() => false), Bun.sleep(ms).then(() => true)]);

test.skipIf(!h)("a prompt inserted while its brand moves ends in the new organization, whichever commits first", async () => {
  const a = await h!.fixtures.organization();
  const b = await h!.fixtures.organization();
  const brand = await h!.fixtures.brand(a);
  const [set] = await h!.inspect<{ id: string }>("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'race') RETURNING id", brand);
  // The writer's transaction inserts first and stays open; the move comes meanwhile.
  const w = await writer.reserve();
  const m = await mover.reserve();
  try {
    await w`BEGIN`;
    await w`INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (${set!.id}, ${brand}, 'written during the move')`;
    const move = m`UPDATE brands SET organization_id = ${b} WHERE id = ${brand}`.then(() => "moved");
    // The move waits for the writer (it would otherwise move what it can see and leave the writer's row behind).
    expect(await pendingAfter(move, 300)).toBe(true);
    await w`COMMIT`;
    expect(await move).toBe("moved");
    expect(await h!.inspect("SELECT organization_id FROM prompts WHERE brand_id = ?", brand)).toEqual([{ organization_id: b }]);
    // And a writer starting while the move is uncommitted waits for it, then reads the new organization.
    await m`BEGIN`;
    await m`UPDATE brands SET organization_id = ${a} WHERE id = ${brand}`;
    const late = w`INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (${set!.id}, ${brand}, 'written after the move began')`.then(() => "written");
    expect(await pendingAfter(late, 300)).toBe(true);
    await m`COMMIT`;
    expect(await late).toBe("written");
  } finally {
    w.release();
    m.release();
  }
  const rows = await h!.inspect<{ text: string; organization_id: string }>("SELECT text, organization_id FROM prompts WHERE brand_id = ? ORDER BY text", brand);
  expect(rows).toEqual([
    { text: "written after the move began", organization_id: a },
    { text: "written during the move", organization_id: a },
  ]);
});

test.skipIf(!h)("of two owners demoting each other at once, the second waits and is refused: the organization keeps an owner", async () => {
  const org = await h!.fixtures.organization();
  const [x, y] = [await h!.fixtures.user(), await h!.fixtures.user()];
  await h!.fixtures.member(org, x, "owner");
  await h!.fixtures.member(org, y, "owner");
  const a = await writer.reserve();
  const b = await mover.reserve();
  try {
    // As /rest/v1 runs a request (the keeps-an-owner rule holds for every REST role).
    for (const s of [a, b]) {
      await s`BEGIN`;
      await s`SELECT set_config('role', 'service_role', true)`;
    }
    await a`UPDATE organization_members SET role = 'member' WHERE organization_id = ${org} AND user_id = ${x}`;
    const other = b`UPDATE organization_members SET role = 'member' WHERE organization_id = ${org} AND user_id = ${y}`.then(
      () => "demoted",
      (error: { errno?: string; code?: string }) => error.errno ?? error.code,
    );
    expect(await pendingAfter(other, 300)).toBe(true);
    await a`COMMIT`;
    expect(await other).toBe("P0001");
    await b`ROLLBACK`;
  } finally {
    a.release();
    b.release();
  }
  expect(await h!.inspect("SELECT user_id FROM organization_members WHERE organization_id = ? AND role = 'owner'", org)).toEqual([{ user_id: y }]);
});
