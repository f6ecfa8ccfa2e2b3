// The instance registry (src/http/instances.ts) exists only on Postgres, so its contract is here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPgInstanceStore } from "../../src/http/instances.pg";
import type { InstanceStore } from "../../src/http/instances";
import { pgHarness, type PgHarness } from "./harness.pg";

const h = await pgHarness();
describe.skipIf(!h)("InstanceStore (postgres)", () => {
  let store: InstanceStore;
  let harness: PgHarness;
  beforeAll(() => {
    harness = h!;
    store = createPgInstanceStore(harness.pg.sql);
  });
  afterAll(() => harness.close());
  const me = (n: number) => ({ id: crypto.randomUUID(), host: `host-${n}`, pid: 100 + n, version: "1.0.0", url: `http://127.0.0.1:${3000 + n}`, schema: 20 });

  test("registered instances are live, oldest first; a removed one is not", async () => {
    const [a, b, c] = [me(1), me(2), me(3)];
    for (const i of [a, b, c]) await store.register(i);
    await store.remove(b.id);
    expect((await store.live(30_000)).map((r) => [r.id, r.host, r.pid, r.url])).toEqual([a, c].map((i) => [i.id, i.host, i.pid, i.url]));
    for (const i of [a, c]) await store.remove(i.id);
  });

  test("an instance without a recent heartbeat is not live; a heartbeat brings it back; long-gone rows are pruned", async () => {
    const a = me(4);
    await store.register(a);
    await harness.pg.sql`UPDATE answerwatch_instances SET heartbeat_at = now() - interval '60 seconds' WHERE id = ${a.id}`;
    expect((await store.live(30_000)).map((r) => r.id)).not.toContain(a.id);
    await store.heartbeat(a);
    const [row] = (await store.live(30_000)).filter((r) => r.id === a.id);
    expect(row!.heartbeat_at >= row!.started_at).toBe(true);
    await harness.pg.sql`UPDATE answerwatch_instances SET heartbeat_at = now() - interval '400 seconds' WHERE id = ${a.id}`;
    // /healthz's read writes nothing (anyone may call it); another instance's heartbeat prunes.
    await store.live(30_000);
    expect(await harness.inspect("SELECT id FROM answerwatch_instances WHERE id = ?", a.id)).toEqual([{ id: a.id }]);
    const other = me(5);
    await store.heartbeat(other);
    expect(await harness.inspect("SELECT id FROM answerwatch_instances WHERE id = ?", a.id)).toEqual([]);
    await store.remove(other.id);
  });
});
