// backends: sqlite, postgres
// Reads are admitted REST_READERS at a time: by reader threads on SQLite, by the gate (gate.ts) on
// Postgres, so that a burst of heavy reads holds neither every pooled connection nor every core.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createCallerShares, createGate } from "../../src/platform/rest/gate";
import { testServer } from "../helpers/app";
import { createBrand, rest, signedUpOrg, type Org, type Server } from "./helpers";

test("the gate runs at most `size` at once, in order, and hands a failed run's place on", async () => {
  const gate = createGate(3, 100);
  let active = 0;
  let most = 0;
  const started: number[] = [];
  const runs = Array.from({ length: 20 }, (_, i) =>
    gate.run(async () => {
      started.push(i);
      active++;
      most = Math.max(most, active);
      await Bun.sleep(2 + (i % 3));
      active--;
      if (i % 5 === 0) throw new Error(`run ${i} fails`);
      return i;
    }),
  );
  const outcomes = await Promise.allSettled(runs);
  expect(most).toBe(3);
  expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
  expect(outcomes.filter((o) => o.status === "rejected").length).toBe(4);
  expect(outcomes.filter((o) => o.status === "fulfilled").map((o) => (o as PromiseFulfilledResult<number>).value)).toEqual(Array.from({ length: 20 }, (_, i) => i).filter((i) => i % 5 !== 0));
  expect(gate.load()).toEqual({ active: 0, waiting: 0 });
});

test("beyond the waiting room the gate refuses at once with the database-busy 503", async () => {
  const gate = createGate(1, 2);
  let release!: () => void;
  const held = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
  const queued = [gate.run(async () => 1), gate.run(async () => 2)];
  const refused = await gate.run(async () => 3).catch((e) => e);
  expect(refused.status).toBe(503);
  expect(refused.code).toBe("53300");
  expect(refused.extra.headers?.["retry-after"]).toBe("1");
  release();
  await held;
  expect(await Promise.all(queued)).toEqual([1, 2]);
});

test("each caller holds at most its share: the next is refused at once with 429 (nothing run); others and exempt callers are not counted against it; a share frees as its requests end", async () => {
  const shares = createCallerShares<string>(2, (caller) => (caller === "service" ? null : caller));
  const releases: (() => void)[] = [];
  const hold = (caller: string) => shares.run(caller, () => new Promise<string>((resolve) => releases.push(() => resolve(caller))));
  const held = [hold("alice"), hold("alice")];
  let ran = false;
  const refused = await shares.run("alice", async () => void (ran = true)).catch((e) => e);
  expect([refused.status, refused.code, refused.extra.headers?.["retry-after"], ran]).toEqual([429, "53300", "1", false]);
  // Bob and the exempt service caller still get through while Alice's two wait.
  expect(await shares.run("bob", async () => "bob")).toBe("bob");
  const exempt = [hold("service"), hold("service"), hold("service")];
  releases.shift()!();
  expect(await held[0]).toBe("alice");
  // One of Alice's ended: she has room for one more; a failed run frees its place too.
  await expect(shares.run("alice", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  expect(await shares.run("alice", async () => "again")).toBe("again");
  for (const release of releases.splice(0)) release();
  await Promise.all([...held, ...exempt]);
  expect(shares.callers()).toBe(0);
});

let server: Server;
let org: Org;
const TOKEN = "metrics-token-gate-0123456789";
beforeAll(async () => {
  server = await testServer({ REST_READERS: "1", REST_PER_CALLER: "16", METRICS_TOKEN: TOKEN });
  org = await signedUpOrg(server, "gate@example.com");
});
afterAll(() => server.stop());

/** The readers' wait histogram: [count, sum in seconds]. */
async function waits(): Promise<[number, number]> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const value = (name: string) => Number(text.match(new RegExp(`^answerwatch_reader_pool_wait_seconds_${name} (\\S+)$`, "m"))?.[1] ?? NaN);
  return [value("count"), value("sum")];
}

test("with REST_READERS=1, concurrent reads all answer and wait their turn", async () => {
  const [countBefore, sumBefore] = await waits();
  // Twelve different queries (limits), so that none can be answered from the response cache by one
  // answered before it (on a slow run some were: 8 of 12 passed the readers).
  const reads = await Promise.all(Array.from({ length: 12 }, (_, i) => rest(server, `/organizations?select=id,name,brands(id,name)&limit=${50 + i}`, { token: org.ownerToken })));
  for (const r of reads) {
    expect(r.status).toBe(200);
    expect(r.body).toEqual([{ id: org.id, name: expect.any(String), brands: [] }]);
  }
  const [count, sum] = await waits();
  // Every read passed the readers…
  expect(count - countBefore).toBeGreaterThanOrEqual(12);
  // …and one at a time: eleven of twelve issued together waited for the one before them.
  expect(sum - sumBefore).toBeGreaterThan(0);
});

test("one person's burst past REST_PER_CALLER is refused with 429 in PostgREST's shape, while another person's reads, sent beside it, answer", async () => {
  const other = await signedUpOrg(server, "gate-other@example.com");
  const read = (token: string, i: number) => rest(server, `/organizations?select=id,name,brands(id,name,brand_domains(domain))&limit=${1000 + i}`, { token });
  const [burst, beside] = await Promise.all([Promise.all(Array.from({ length: 80 }, (_, i) => read(org.ownerToken, i))), Promise.all(Array.from({ length: 4 }, (_, i) => read(other.ownerToken, 200 + i)))]);
  const refused = burst.filter((r) => r.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  expect(burst.filter((r) => r.status !== 429).every((r) => r.status === 200)).toBe(true);
  expect(refused[0]!.body).toMatchObject({ code: "53300", message: expect.stringContaining("16 requests waiting") });
  expect(beside.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  // Once the burst is over the share is free again.
  expect((await read(org.ownerToken, 999)).status).toBe(200);
});

test("an RPC is told by its decoded path, not by a substring of the URL: %72pc/… is the RPC and waits for a reader; a query string naming /rest/v1/rpc/ leaves a write a write", async () => {
  const brand = await createBrand(org.owner, org.id, `route-${crypto.randomUUID().slice(0, 8)}`);
  const args = JSON.stringify({ p_brand_id: brand.id, p_from: "2026-01-01", p_to: "2026-01-31" });
  const plain = await rest(server, "/rpc/insights_overview", { method: "POST", token: org.ownerToken, body: args });
  expect(plain.status).toBe(200);
  const [before] = await waits();
  const encoded = await rest(server, "/%72pc/insights_overview", { method: "POST", token: org.ownerToken, body: args });
  expect([encoded.status, encoded.body]).toEqual([200, plain.body]);
  // It passed the readers (their wait was recorded), not the writer.
  expect((await waits())[0] - before).toBe(1);
  const slug = `write-${crypto.randomUUID().slice(0, 8)}`;
  const write = await rest(server, `/brands?select=slug&x=${encodeURIComponent("/rest/v1/rpc/")}`, { method: "POST", token: org.ownerToken, headers: { prefer: "return=representation" }, body: JSON.stringify({ organization_id: org.id, name: "Written", slug }) });
  expect([write.status, write.body]).toEqual([201, [{ slug }]]);
});
