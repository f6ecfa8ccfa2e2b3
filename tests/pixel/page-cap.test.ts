// backends: sqlite, postgres
// PIXEL_MAX_PAGES: a brand keeps that many landing pages (assistant × path); beacons for pages past
// them — anyone holding the tracking code can send beacons for made-up paths — count under
// "(other)", so the traffic report, which reads every page the brand keeps, stays bounded, and no
// visit is lost from the totals. Beacons go through /t/collect; the report is read over whole past
// days (the running totals) and over today (the raw rows), and checked against the beacons sent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testClock, testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { signedUpClient } from "../helpers/supabase";
import type { Harness } from "../contracts/harness";
import { CHROME_UA, beaconJson, seedBrandIn, type SeededBrand } from "./fixtures";

const DAY = 86_400_000;
const clock = testClock(Date.now() - 3 * DAY);
let server: Awaited<ReturnType<typeof testServer>>;
let db: Harness;
let brand: SeededBrand;
let token: string;
let peer = 0;

beforeAll(async () => {
  server = await testServer({ PIXEL_MAX_PAGES: "3" }, { now: clock.now });
  db = await serverDb(server);
  const owner = await signedUpClient(server.url, server.secrets.anonKey, "Capped");
  token = owner.session.access_token;
  const [{ organization_id }] = await db.inspect<{ organization_id: string }>("SELECT organization_id FROM organization_members WHERE user_id = ?", owner.user.id);
  brand = await seedBrandIn(db, { organizationId: organization_id!, domains: ["acme.com"] });
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

/** A visit to `path` from `referrer` (an assistant's host, or none). */
async function beacon(path: string, referrer: string) {
  const body = beaconJson({ brand: brand.trackingCode, url: `https://acme.com${path}`, referrer });
  const headers = { "content-type": "text/plain;charset=UTF-8", origin: "https://acme.com", "user-agent": CHROME_UA };
  const res = await server.app.handle(new Request("http://localhost/t/collect", { method: "POST", headers, body }), `203.0.113.${peer++ % 250}`);
  expect(res.status).toBe(204);
}

test("past the cap new pages count as (other): the report's pages and totals add up to the beacons sent, over past days and today", async () => {
  // Three days ago: three pages fill the cap; two more pages (and /a again) come after.
  const sent: [string, string][] = [
    ["/a", "https://chatgpt.com/"], ["/b", "https://chatgpt.com/"], ["/a", "https://www.perplexity.ai/"],
    ["/c", "https://chatgpt.com/"], ["/a", "https://chatgpt.com/"], ["/d", "https://chatgpt.com/"], ["/e", ""],
  ];
  for (const [path, referrer] of sent.slice(0, 3)) await beacon(path, referrer);
  await Bun.sleep(50);
  for (const [path, referrer] of sent.slice(3)) await beacon(path, referrer);
  // Today: a known page and a new one.
  clock.advance(3 * DAY);
  await beacon("/b", "https://chatgpt.com/");
  await beacon("/f", "https://chatgpt.com/");

  const assisted = [...sent, ["/b", "https://chatgpt.com/"], ["/f", "https://chatgpt.com/"]].filter(([, r]) => r);
  const from = new Date(clock.now().getTime() - 5 * DAY).toISOString().slice(0, 10);
  const to = clock.now().toISOString().slice(0, 10);
  let report: any;
  for (let i = 0; i < 100; i++) {
    report = await (await fetch(`${server.url}/api/brands/${brand.brandId}/traffic?from=${from}&to=${to}&interval=day`, { headers: { authorization: `Bearer ${token}` } })).json();
    if (report.totals?.pageViews === assisted.length + 1) break;
    await Bun.sleep(50);
  }
  // Expected from the beacons themselves: the first three distinct (assistant, page) pairs are kept.
  const kept = new Set<string>();
  const pages = new Map<string, number>();
  for (const [path, referrer] of assisted) {
    const pair = `${referrer} ${path}`;
    if (!kept.has(pair) && kept.size < 3) kept.add(pair);
    const page = kept.has(pair) ? path : "(other)";
    pages.set(page, (pages.get(page) ?? 0) + 1);
  }
  expect(report.totals).toEqual({ visits: assisted.length, visitors: expect.any(Number), pageViews: assisted.length + 1 });
  expect(Object.fromEntries(report.topLandingPages.map((p: { path: string; visits: number }) => [p.path, p.visits]))).toEqual(Object.fromEntries(pages));
  expect(pages.get("(other)")).toBe(3);
  // The keys the report walks: the three pages and one (other) per assistant that reached it.
  const keys = await db.inspect<{ n: number }>("SELECT count(*) AS n FROM traffic_page_totals_keys WHERE brand_id = ?", brand.brandId);
  expect(Number(keys[0]!.n)).toBe(4);
});
