import { expect, test } from "bun:test";
import type { TrafficRow } from "../../src/pixel/store";
import { createPgPixelStore } from "../../src/pixel/store.pg";
import { describePixelStoreContract } from "./pixel.contract";
import { pgHarness, pgHarnessOn } from "./harness.pg";

const h = await pgHarness();
if (h) describePixelStoreContract("postgres", async () => ({ ...h, store: createPgPixelStore(h.pg.sql), storeWith: (options) => createPgPixelStore(h.pg.sql, options) }));

// Postgres only (SQLite has one writer): two instances writing one brand's visits whose rollup
// buckets cross (one batch reaches platforms P1, Z, P2 in that order, the other P2, Z, P1) must
// not deadlock. A third session holds bucket Z until both batches wait on it, so without an order
// between the two writers each would then hold the bucket the other needs next.
test.skipIf(!h)("postgres: two instances' batches of one brand with crossing rollup buckets are both written (no deadlock)", async () => {
  const pg = (await pgHarness())!;
  const org = await pg.fixtures.organization();
  const { id: brandId } = await pg.fixtures.trackedBrand(org);
  const row = (platform: string, n: number): TrafficRow => ({
    id: Bun.randomUUIDv7(), brandId, url: `https://acme.com/${n}`, path: `/${n}`, referrerHost: null, sourcePlatform: platform, utmSource: null,
    visitorHash: `v${n}`, country: null, language: null, screen: null, userAgentFamily: "Chrome", createdAt: "2026-11-20T08:00:00.000Z",
  });
  const first = createPgPixelStore(pg.pg.sql);
  // The second instance: a pool of its own on the same database.
  const other = await pgHarnessOn(pg.url);
  const second = createPgPixelStore(other.pg.sql);
  expect(await first.appendBeacons([row("Z", 0), row("P1", 0), row("P2", 0)])).toEqual(new Map());
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const blocker = pg.pg.sql.begin(async (tx) => {
    await tx`SELECT 1 FROM traffic_platform_daily WHERE brand_id = ${brandId} AND platform = 'Z' FOR UPDATE`;
    await held;
  });
  await Bun.sleep(50);
  const a = first.appendBeacons([row("P1", 1), row("Z", 1), row("P2", 1)]);
  const b = second.appendBeacons([row("P2", 2), row("Z", 2), row("P1", 2)]);
  await Bun.sleep(500);
  release();
  await blocker;
  expect(await Promise.all([a, b])).toEqual([new Map(), new Map()]);
  const counts = await pg.inspect<{ platform: string; visits: number }>("SELECT platform, visits FROM traffic_platform_daily WHERE brand_id = ? ORDER BY platform", brandId);
  expect(counts.map((c) => [c.platform, Number(c.visits)])).toEqual([["P1", 3], ["P2", 3], ["Z", 3]]);
  await first.close();
  await second.close();
  await other.close();
  await pg.close();
});

// Postgres only: a row the database refuses for what it holds (here a landing path past what a
// B-tree entry takes; /t/collect refuses such a path before it gets here) fails alone — before,
// the whole group commit failed, every other site's visit in it with a 503.
test.skipIf(!h)("postgres: a row the database refuses fails alone, the rest of its group commit is written", async () => {
  const pg = (await pgHarness())!;
  const org = await pg.fixtures.organization();
  const { id: brandId } = await pg.fixtures.trackedBrand(org);
  const row = (n: number, path = `/${n}`): TrafficRow => ({
    id: Bun.randomUUIDv7(), brandId, url: `https://acme.com/${n}`, path, referrerHost: "chatgpt.com", sourcePlatform: "ChatGPT", utmSource: null,
    visitorHash: `v${n}`, country: null, language: null, screen: null, userAgentFamily: "Chrome", createdAt: "2026-11-20T08:00:00.000Z",
  });
  // ~9 KB of varied characters: no compression brings it under the index's ~2.7 KB.
  const huge = `/${Array.from({ length: 3000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join("")}`;
  const store = createPgPixelStore(pg.pg.sql);
  const rows = [row(0), row(1), row(2, huge), row(3), row(4)];
  const failed = await store.appendBeacons(rows);
  expect([...failed.keys()]).toEqual([2]);
  expect(failed.get(2)).toStartWith("refused by the database (54000)");
  expect((await pg.inspect<{ path: string }>("SELECT path FROM ai_traffic_logs WHERE brand_id = ? ORDER BY path", brandId)).map((r) => r.path)).toEqual(["/0", "/1", "/3", "/4"]);
  await store.close();
  await pg.close();
});
