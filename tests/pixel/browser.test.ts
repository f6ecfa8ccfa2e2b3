// backends: sqlite, postgres
// The pixel in a real browser: a page on a registered origin (http://localhost:PORT) embeds t.js
// with utm_source=chatgpt.com → one ChatGPT row; history.pushState → a second row; the same page
// on an unregistered origin (http://127.0.0.1:PORT) → the beacon gets 403 and nothing is stored.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Harness } from "../contracts/harness";
import { testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { signedUpClient } from "../helpers/supabase";
import { launchChromium, until, type Browser } from "./chromium";
import { CHROME_UA } from "./fixtures";

let server: Awaited<ReturnType<typeof testServer>>;
let site: ReturnType<typeof Bun.serve>;
let browser: Browser;
let sb: Awaited<ReturnType<typeof signedUpClient>>["sb"];
let brand: { id: string; tracking_code: string };
let db: Harness;
/** The brand's rows, as last read (until() polls with a synchronous check). */
let latest: Record<string, unknown>[] = [];

beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
  sb = (await signedUpClient(server.url, server.secrets.anonKey, "Acme")).sb;
  const { data: orgs } = await sb.from("organizations").select("id");
  const created = await sb.from("brands").insert({ organization_id: orgs![0].id, name: "Acme", slug: "acme" }).select("id, tracking_code").single();
  if (created.error) throw new Error(created.error.message);
  brand = created.data;
  // REST takes only public host names as brand domains; a development origin is added directly.
  await db.inspect("INSERT INTO brand_domains (brand_id, domain) VALUES (?, 'localhost')", brand.id);

  // The brand's site: any path serves the page that embeds the pixel.
  const page = `<!doctype html><html><head><title>Acme</title>
<script async src="${server.url}/t.js" data-brand="${brand.tracking_code}"></script></head><body>Acme</body></html>`;
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(page, { headers: { "content-type": "text/html" } }) });
  // Headless Chromium says "HeadlessChrome", which the pixel rightly drops as automation; this
  // browser plays a visitor, so it carries the desktop Chrome user agent.
  browser = await launchChromium({ userAgent: CHROME_UA });
});

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  await db?.close();
  await server?.stop();
});

const read = async () => (latest = await db.inspect("SELECT * FROM ai_traffic_logs WHERE brand_id = ? ORDER BY created_at, id", brand.id));
/** Waits until the brand has `n` rows (read from the server's database as the check polls). */
async function untilRows(what: string, n: number): Promise<Record<string, unknown>[]> {
  let reading: Promise<unknown> | null = null;
  return until(what, () => {
    reading ??= read().finally(() => (reading = null));
    return latest.length === n && latest;
  });
}

/** Statuses of the beacon requests the page made, from the browser's network events. */
function beaconStatuses(): number[] {
  const beaconIds = new Set(browser.events.filter((e) => e.method === "Network.requestWillBeSent" && e.params.request.url.endsWith("/t/collect")).map((e) => e.params.requestId));
  return browser.events.filter((e) => e.method === "Network.responseReceived" && beaconIds.has(e.params.requestId)).map((e) => e.params.response.status);
}

test(
  "registered origin: a ChatGPT visit and an SPA navigation are stored; unregistered origin: 403 and nothing stored",
  async () => {
    const registered = `http://localhost:${site.port}`;
    await browser.page("Page.navigate", { url: `${registered}/landing?utm_source=chatgpt.com` });
    const [first] = await untilRows("the first row", 1);
    expect(first).toMatchObject({
      source_platform: "ChatGPT",
      utm_source: "chatgpt.com",
      url: `${registered}/landing?utm_source=chatgpt.com`,
      path: "/landing",
      user_agent_family: "Chrome",
    });
    expect(first.language).toMatch(/^[a-z]{2}/i);
    expect(first.screen).toMatch(/^\d+x\d+$/);

    await browser.page("Runtime.evaluate", { expression: "history.pushState({}, '', '/pricing'); true" });
    const all = await untilRows("the second row", 2);
    // The second page view's referrer is the landing page (the site itself): not an AI visit.
    expect(all[1]).toMatchObject({ path: "/pricing", referrer_host: "localhost", source_platform: null });
    expect(await until("two 204 beacons", () => beaconStatuses().length === 2 && beaconStatuses())).toEqual([204, 204]);

    // The same page from an origin the brand has not registered.
    await browser.page("Page.navigate", { url: `http://127.0.0.1:${site.port}/landing?utm_source=chatgpt.com` });
    expect(await until("the refused beacon", () => beaconStatuses().length === 3 && beaconStatuses())).toEqual([204, 204, 403]);
    expect(await read()).toHaveLength(2);

    // The rows are readable through REST by the brand's organization.
    const viaRest = await sb.from("ai_traffic_logs").select("path, source_platform").eq("brand_id", brand.id).order("created_at");
    expect(viaRest.error).toBeNull();
    expect(viaRest.data).toEqual([
      { path: "/landing", source_platform: "ChatGPT" },
      { path: "/pricing", source_platform: null },
    ]);
  },
  60_000,
);
