// Two owners demoting each other at the same moment (review finding): each statement's check that
// the organization keeps an owner ran under READ COMMITTED beside the other's uncommitted change,
// so both passed and the organization was left with none. Changes to an organization's owners now
// queue (policies.pg.ts, membership_owners_only), and the second is judged on the first's result.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { pgHarness } from "../contracts/harness.pg";

const h = await pgHarness();
let first: SQL;
let second: SQL;
beforeAll(() => {
  if (!h) return;
  first = new SQL(h.url, { max: 1 });
  second = new SQL(h.url, { max: 1 });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  await h?.close();
});

test.skipIf(!h)("of two owners demoting each other at once, the second waits and is refused: the organization keeps an owner", async () => {
  const org = await h!.fixtures.organization();
  const [x, y] = [await h!.fixtures.user(), await h!.fixtures.user()];
  await h!.fixtures.member(org, x, "owner");
  await h!.fixtures.member(org, y, "owner");
  const a = await first.reserve();
  const b = await second.reserve();
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
    expect(await Promise.race([other, Bun.sleep(300).then(() => "waiting")])).toBe("waiting");
    await a`COMMIT`;
    expect(await other).toBe("P0001");
    await b`ROLLBACK`;
  } finally {
    a.release();
    b.release();
  }
  expect(await h!.inspect("SELECT user_id FROM organization_members WHERE organization_id = ? AND role = 'owner'", org)).toEqual([{ user_id: y }]);
});
