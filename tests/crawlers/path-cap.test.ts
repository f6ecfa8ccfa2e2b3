// backends: sqlite, postgres
// CRAWLER_MAX_PATHS: a brand's crawler paths keep that many paths (bot × hit kind × path); requests
// for paths beyond them — a scanner claiming to be a known bot can send any number of made-up
// paths — count under "(other)", so the paths report, which reads every path the brand keeps,
// stays bounded, and no request is lost from the totals. Records go through the HTTP endpoint.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { createBrand, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
beforeAll(async () => {
  server = await testServer({ CRAWLER_MAX_PATHS: "3" });
  org = await signedUpOrg(server, "Capped crawls");
});
afterAll(async () => {
  await server.stop();
});

const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
let second = 0;
const record = (path: string, userAgent = GPTBOT) => ({ timestamp: `2026-11-20T08:00:${String(second++ % 60).padStart(2, "0")}Z`, method: "GET", path, status: 200, ip: "20.171.206.17", user_agent: userAgent, host: `h${second}.example` });

test("past the cap new paths count as (other): the paths and the totals add up to the requests sent; known paths keep counting as themselves", async () => {
  const brand = await createBrand(org.owner, org.id, "capped-crawls");
  const post = async (records: unknown[]) => {
    const res = await fetch(`${server.url}/api/brands/${brand.id}/crawler-logs`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify(records) });
    expect(res.status).toBe(200);
    return (await res.json()) as { accepted: number };
  };
  // Three paths fill the cap; /d and /e come after, /a again, and a person's request (no path key).
  const first = ["/a", "/b", "/c"].map((p) => record(p));
  const then = [record("/d"), record("/a"), record("/e"), record("/x", "Mozilla/5.0 (X11; Linux x86_64) Chrome/142.0 Safari/537.36")];
  expect((await post(first)).accepted).toBe(3);
  expect((await post(then)).accepted).toBe(4);
  // Only known paths: nothing new to place.
  expect((await post([record("/b"), record("/c")])).accepted).toBe(2);

  const window = { p_brand_id: brand.id, p_from: "2026-11-20", p_to: "2026-11-20" };
  const paths = (await org.owner.rpc("insights_crawler_paths", window)).data as { bot: string; path: string; requests: number }[];
  expect(paths.filter((p) => p.bot === "GPTBot").map((p) => [p.path, p.requests]).sort()).toEqual([["(other)", 2], ["/a", 2], ["/b", 2], ["/c", 2]]);
  const totals = (await org.owner.rpc("insights_crawlers", window)).data as { bot: string | null; requests: number }[];
  expect(totals.find((t) => t.bot === "GPTBot")!.requests).toBe(8);
});
