// backends: sqlite, postgres
// Read-only share links (issue #20): a link opens one brand's insights and nothing else — not
// another brand, no table, no write, not /api or /mcp — and answers 404 once revoked or expired.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createClient } from "@supabase/supabase-js";
import { testServer } from "../helpers/app";
import { writeResults } from "../helpers/server-db";
import { createBrand, memberOf, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let brandId: string;
let otherBrandId: string;

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => null) }));
const asLink = (token: string) => createClient(server.url, server.secrets.anonKey, { auth: { persistSession: false, autoRefreshToken: false }, global: { headers: { Authorization: `Bearer ${token}` } } });
const tokenOf = (url: string) => url.split("/share/")[1]!;

beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Share");
  brandId = (await createBrand(org.owner, org.id, "shared")).id;
  otherBrandId = (await createBrand(org.owner, org.id, "private")).id;
  const set = (await org.owner.from("prompt_sets").insert({ brand_id: brandId, name: "S" }).select().single()).data!;
  const prompt = (await org.owner.from("prompts").insert({ prompt_set_id: set.id, brand_id: brandId, text: "best tools?" }).select().single()).data!;
  await writeResults(
    server,
    Array.from({ length: 6 }, (_, i) => ({
      key: { id: crypto.randomUUID(), jobId: null, brandId, promptId: prompt.id, platform: "chatgpt", model: "m", region: "" },
      values: { surface: "api", response: "x", mentioned: i % 2, mention_count: i % 2, mention_position: i % 2 ? 1 : null, competitor_mentions: "[]", citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: 0, search_queries: "[]", details: "{}" },
    })),
  );
});
afterAll(() => server.stop());

test("an owner's link opens the brand's page and insights, the same numbers the owner reads", async () => {
  const made = await api("/api/share-links", org.ownerToken, { method: "POST", body: JSON.stringify({ brand_id: brandId }) });
  expect(made.status).toBe(200);
  expect(made.body.url).toStartWith(`${server.url}/share/aws_`);
  const token = tokenOf(made.body.url);
  const page = await fetch(made.body.url);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("<title>answerwatch</title>");
  expect((await fetch(`${made.body.url}/prompts`)).status).toBe(200);
  expect((await api(`/api/share/${token}`, "")).body).toMatchObject({ brand: { id: brandId, name: "Brand shared" }, platforms: [] });
  const viaLink = (await asLink(token).rpc("insights_overview", { p_brand_id: brandId })).data;
  const viaOwner = (await org.owner.rpc("insights_overview", { p_brand_id: brandId })).data;
  expect(viaLink).toEqual(viaOwner);
  expect(viaLink.answers).toBe(6);
  expect(JSON.stringify(made.body)).not.toContain("token_hash");
  expect((await api(`/api/share-links?brand_id=${brandId}`, org.ownerToken)).body.links).toHaveLength(1);
});

test("the link reads nothing else: another brand, tables, writes, /api and /mcp are refused", async () => {
  const token = tokenOf((await api("/api/share-links", org.ownerToken, { method: "POST", body: JSON.stringify({ brand_id: brandId }) })).body.url);
  const sb = asLink(token);
  expect((await sb.rpc("insights_overview", { p_brand_id: otherBrandId })).error?.code).toBe("42501");
  expect((await sb.rpc("get_latest_prompt_results", { p_brand_id: brandId })).error?.code).toBe("42501");
  expect((await sb.from("brands").select("id")).error?.code).toBe("42501");
  expect((await sb.from("prompt_sets").insert({ brand_id: brandId, name: "x" })).error?.code).toBe("42501");
  expect((await api(`/api/tracking/jobs?brandId=${brandId}`, token)).status).toBe(401);
  expect((await api("/api/share-links", token, { method: "POST", body: JSON.stringify({ brand_id: brandId }) })).status).toBe(401);
  const mcp = await fetch(`${server.url}/mcp`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
  expect(mcp.status).toBe(401);
});

test("only owners and admins share; revoked and expired links answer 404", async () => {
  const member = await memberOf(server, org.id, "member");
  expect((await api("/api/share-links", member.token, { method: "POST", body: JSON.stringify({ brand_id: brandId }) })).status).toBe(403);
  const stranger = await signedUpOrg(server, "Stranger");
  expect((await api("/api/share-links", stranger.ownerToken, { method: "POST", body: JSON.stringify({ brand_id: brandId }) })).status).toBe(404);

  const made = await api("/api/share-links", org.ownerToken, { method: "POST", body: JSON.stringify({ brand_id: brandId }) });
  const token = tokenOf(made.body.url);
  expect((await api(`/api/share-links/${made.body.link.id}`, stranger.ownerToken, { method: "DELETE" })).status).toBe(404);
  expect((await api(`/api/share-links/${made.body.link.id}`, org.ownerToken, { method: "DELETE" })).body.link.revoked_at).not.toBeNull();
  const gone = await fetch(made.body.url);
  expect(gone.status).toBe(404);
  expect(await gone.text()).toContain("does not exist, was revoked, or has expired");
  expect((await api(`/api/share/${token}`, "")).status).toBe(404);
  expect((await asLink(token).rpc("insights_overview", { p_brand_id: brandId })).error?.code).toBe("PGRST301");

  const soon = await api("/api/share-links", org.ownerToken, { method: "POST", body: JSON.stringify({ brand_id: brandId, expires_at: new Date(Date.now() + 1200).toISOString() }) });
  expect((await fetch(soon.body.url)).status).toBe(200);
  await Bun.sleep(1400);
  expect((await fetch(soon.body.url)).status).toBe(404);
  expect((await fetch(`${server.url}/share/aws_nonsense`)).status).toBe(404);
});
