// backends: sqlite, postgres
// Personal API keys (issue #20): made through /api/keys, shown once; accepted as a bearer on /api,
// /rest/v1 (row-level security by the key's organization and role) and /mcp; refused once revoked
// or expired; never above the creator's role.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createClient } from "@supabase/supabase-js";
import { testServer } from "../helpers/app";
import { createBrand, memberOf, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let other: Org;
let brandId: string;

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers as Record<string, string>) } }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => null) }));
const asKey = (key: string) => createClient(server.url, server.secrets.anonKey, { auth: { persistSession: false, autoRefreshToken: false }, global: { headers: { Authorization: `Bearer ${key}` } } });

async function mcpBrands(token: string): Promise<unknown> {
  const client = new Client({ name: "keys-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const result = (await client.callTool({ name: "list_brands", arguments: {} })) as { content: { text: string }[] };
  await client.close();
  return JSON.parse(result.content[0]!.text);
}

beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Keys");
  other = await signedUpOrg(server, "Other");
  brandId = (await createBrand(org.owner, org.id, "keys")).id;
  await createBrand(other.owner, other.id, "other");
});
afterAll(() => server.stop());

test("a key is shown once, listed by its prefix, and works on /api, /rest/v1 and /mcp within its organization and role", async () => {
  const made = await api("/api/keys", org.ownerToken, { method: "POST", body: JSON.stringify({ name: "CI script", organization_id: org.id, role: "member" }) });
  expect(made.status).toBe(200);
  const secret = made.body.secret as string;
  expect(secret).toMatch(/^aw_[A-Za-z0-9_-]{43}$/);
  expect(made.body.key).toMatchObject({ name: "CI script", role: "member", prefix: secret.slice(0, 10), organization_id: org.id, revoked_at: null });
  const listed = await api("/api/keys", org.ownerToken);
  expect(JSON.stringify(listed.body)).not.toContain(secret.slice(10));
  expect(listed.body.keys.map((k: { id: string }) => k.id)).toContain(made.body.key.id);

  expect((await api(`/api/tracking/jobs?brandId=${brandId}`, secret)).status).toBe(200);
  const sb = asKey(secret);
  expect(((await sb.from("brands").select("id")).data ?? []).map((b) => b.id)).toEqual([brandId]);
  const set = (await sb.from("prompt_sets").insert({ brand_id: brandId, name: "From a key" }).select().single()).data!;
  expect(set.name).toBe("From a key");
  expect(await mcpBrands(secret)).toEqual([expect.objectContaining({ id: brandId })]);
  // last_used_at is recorded.
  const after = (await api("/api/keys", org.ownerToken)).body.keys.find((k: { id: string }) => k.id === made.body.key.id);
  expect(after.last_used_at).not.toBeNull();
});

test("a viewer key reads but cannot write; a viewer cannot mint an admin key; a key cannot mint keys", async () => {
  const viewer = await memberOf(server, org.id, "viewer");
  const refused = await api("/api/keys", viewer.token, { method: "POST", body: JSON.stringify({ name: "too strong", organization_id: org.id, role: "admin" }) });
  expect(refused.status).toBe(403);
  const made = await api("/api/keys", viewer.token, { method: "POST", body: JSON.stringify({ name: "read only", organization_id: org.id }) });
  expect(made.body.key.role).toBe("viewer");
  const sb = asKey(made.body.secret);
  expect(((await sb.from("brands").select("id")).data ?? []).length).toBe(1);
  expect((await sb.from("prompt_sets").insert({ brand_id: brandId, name: "nope" })).error?.code).toBe("42501");
  expect((await api("/api/tracking/start", made.body.secret, { method: "POST", body: JSON.stringify({ brandId }) })).status).toBe(403);
  const nested = await api("/api/keys", made.body.secret, { method: "POST", body: JSON.stringify({ name: "child", organization_id: org.id }) });
  expect(nested.status).toBe(403);
  for (const bad of [{ name: "", organization_id: org.id }, { name: "x", organization_id: org.id, role: "god" }, { name: "x", organization_id: org.id, expires_at: "2001-01-01T00:00:00Z" }, { name: "x", organization_id: "nope" }])
    expect((await api("/api/keys", org.ownerToken, { method: "POST", body: JSON.stringify(bad) })).status).toBe(400);
  expect((await api("/api/keys", org.ownerToken, { method: "POST", body: JSON.stringify({ name: "x", organization_id: other.id }) })).status).toBe(404);
});

test("a revoked or expired key stops working everywhere; another user cannot revoke someone's key", async () => {
  const made = await api("/api/keys", org.ownerToken, { method: "POST", body: JSON.stringify({ name: "short", organization_id: org.id }) });
  const secret = made.body.secret as string;
  expect((await api(`/api/keys/${made.body.key.id}`, other.ownerToken, { method: "DELETE" })).status).toBe(404);
  expect((await api(`/api/keys/${made.body.key.id}`, org.ownerToken, { method: "DELETE" })).body.key.revoked_at).not.toBeNull();
  expect((await api(`/api/tracking/jobs?brandId=${brandId}`, secret)).status).toBe(401);
  const rest = await asKey(secret).from("brands").select("id");
  expect(rest.error?.code).toBe("PGRST301");
  expect((await fetch(`${server.url}/mcp`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" })).status).toBe(401);

  const expiring = await api("/api/keys", org.ownerToken, { method: "POST", body: JSON.stringify({ name: "soon", organization_id: org.id, expires_at: new Date(Date.now() + 1500).toISOString() }) });
  expect((await api(`/api/tracking/jobs?brandId=${brandId}`, expiring.body.secret)).status).toBe(200);
  await Bun.sleep(1700);
  expect((await api(`/api/tracking/jobs?brandId=${brandId}`, expiring.body.secret)).status).toBe(401);
  // An unknown aw_ key is refused, not mistaken for a user token.
  expect((await api(`/api/tracking/jobs?brandId=${brandId}`, `aw_${"x".repeat(43)}`)).status).toBe(401);
});
