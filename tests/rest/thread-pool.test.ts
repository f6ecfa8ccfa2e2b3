// backends: sqlite, postgres
// The reader pool keeps one thread for table reads: RPCs (and reports) may take all threads but
// one, so a small read is not queued behind dashboards looping a year-long RPC; otherwise requests
// go in arrival order.
import { expect, test } from "bun:test";
import { createRestThreadPool } from "../../src/platform/rest/thread-pool";

const caller = { role: "service_role" as const, orgRoles: new Map() };

test("with RPCs filling the queue, a table read is answered on the thread kept for it", async () => {
  const pool = createRestThreadPool({ size: 2, dbPath: ":memory:", workerUrl: new URL("./fixtures/sleepy-thread.ts", import.meta.url), statementTimeoutMs: 1000 });
  const finished: string[] = [];
  const ask = (path: string) => pool.run(new Request(`http://localhost${path}`), caller as never).then(async (r) => finished.push(await r.text()));
  const heavy = [1, 2, 3].map((i) => ask(`/rest/v1/rpc/heavy${i}?sleep=400`));
  await Bun.sleep(100);
  const light = ask("/rest/v1/brands?sleep=10");
  await Promise.all([...heavy, light]);
  // The table read finished first although three RPCs were waiting before it…
  expect(finished[0]).toBe("/rest/v1/brands");
  // …and the RPCs ran in their order, one thread at a time.
  expect(finished.slice(1)).toEqual(["/rest/v1/rpc/heavy1", "/rest/v1/rpc/heavy2", "/rest/v1/rpc/heavy3"]);
  await pool.stop();
});

test("table reads use every thread", async () => {
  const pool = createRestThreadPool({ size: 2, dbPath: ":memory:", workerUrl: new URL("./fixtures/sleepy-thread.ts", import.meta.url), statementTimeoutMs: 1000 });
  const started = performance.now();
  await Promise.all([pool.run(new Request("http://localhost/rest/v1/a?sleep=300"), caller as never), pool.run(new Request("http://localhost/rest/v1/b?sleep=300"), caller as never)]);
  // Side by side, not one after the other.
  expect(performance.now() - started).toBeLessThan(550);
  await pool.stop();
});
