// backends: sqlite, postgres
// The fourth review's findings on API keys, share links and webhooks, replayed over HTTP: what a key
// may do that outlives it, and the counts of what one caller may hold. Each failed before its fix.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { createBrand, memberOf, serviceClient, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let brandId: string;

beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Round four");
  brandId = (await createBrand(org.owner, org.id, "round-four")).id;
});
afterAll(() => server.stop());

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

const newKey = async (role = "owner") => {
  const res = await call(org.ownerToken, "POST", "/api/keys", { name: `k-${crypto.randomUUID().slice(0, 8)}`, organization_id: org.id, role });
  expect(res.status).toBe(200);
  return res.body as { key: { id: string }; secret: string };
};

describe("what an API key may start that would outlive it", () => {
  test("an owner's key cannot invite anyone (the membership would stay after the key is revoked); the owner signed in can", async () => {
    const key = await newKey("owner");
    const byKey = await call(key.secret, "POST", `/api/organizations/${org.id}/invitations`, { email: "accomplice@example.com", role: "owner" });
    expect([byKey.status, byKey.body.error?.code]).toEqual([403, "forbidden"]);
    const pending = await call(org.ownerToken, "GET", `/api/organizations/${org.id}/members`);
    expect(pending.body.invitations.map((i: { email: string }) => i.email)).not.toContain("accomplice@example.com");
    expect((await call(org.ownerToken, "POST", `/api/organizations/${org.id}/invitations`, { email: "colleague@example.com", role: "member" })).status).toBe(201);
  });

  test("a key revokes itself only: a read-only key cannot switch off its user's other keys", async () => {
    const viewer = await newKey("viewer");
    const writer = await newKey("member");
    const other = await call(viewer.secret, "DELETE", `/api/keys/${writer.key.id}`);
    expect([other.status, other.body.error?.code]).toEqual([403, "forbidden"]);
    // The writer's key still works; the viewer's key may end itself.
    expect((await call(writer.secret, "GET", "/api/keys")).status).toBe(200);
    expect((await call(viewer.secret, "DELETE", `/api/keys/${viewer.key.id}`)).status).toBe(200);
    expect((await call(viewer.secret, "GET", "/api/keys")).status).toBe(401);
  });
});

describe("credentials across a membership and a brand's move", () => {
  test("a key and a share link an admin made stay void after the admin was removed and invited back", async () => {
    const admin = await memberOf(server, org.id, "admin");
    const { data: me } = await admin.sb.auth.getUser();
    const key = await call(admin.token, "POST", "/api/keys", { name: "admin's", organization_id: org.id });
    const link = await call(admin.token, "POST", "/api/share-links", { brand_id: brandId });
    const token = (link.body.url as string).split("/share/")[1]!;
    expect((await call(key.body.secret, "GET", "/api/keys")).status).toBe(200);
    expect((await fetch(`${server.url}/api/share/${token}`)).status).toBe(200);
    // Removed by the owner, then invited back and accepted.
    const removed = await org.owner.from("organization_members").delete().eq("organization_id", org.id).eq("user_id", me.user!.id).select();
    expect(removed.data).toHaveLength(1);
    expect((await call(key.body.secret, "GET", "/api/keys")).status).toBe(401);
    const invited = await call(org.ownerToken, "POST", `/api/organizations/${org.id}/invitations`, { email: me.user!.email, role: "admin" });
    expect((await call(admin.token, "POST", `/api/invitations/${invited.body.invitation.id}/accept`, { key: new URL(invited.body.link).searchParams.get("key") })).status).toBe(200);
    expect((await call(admin.token, "GET", `/api/organizations/${org.id}/members`)).status).toBe(200);
    expect((await call(key.body.secret, "GET", "/api/keys")).status).toBe(401);
    expect((await fetch(`${server.url}/api/share/${token}`)).status).toBe(404);
    // What the admin makes now works.
    const fresh = await call(admin.token, "POST", "/api/keys", { name: "admin's again", organization_id: org.id });
    expect((await call(fresh.body.secret, "GET", "/api/keys")).status).toBe(200);
  });

  test("a brand moved to another organization takes its share links and webhook endpoints along: the new organization's admins list and revoke them", async () => {
    const other = await signedUpOrg(server, "Round four, the other");
    const { data: owner } = await org.owner.auth.getUser();
    // The first organization's owner administers the other one too, as a move needs.
    expect((await serviceClient(server).from("organization_members").insert({ organization_id: other.id, user_id: owner.user!.id, role: "admin" })).error).toBeNull();
    const moved = (await createBrand(org.owner, org.id, "moving")).id;
    const link = await call(org.ownerToken, "POST", "/api/share-links", { brand_id: moved });
    const hook = await call(org.ownerToken, "POST", "/api/webhooks", { organization_id: org.id, brand_id: moved, url: "https://moving.example.net/in", events: ["tracking.completed"] });
    expect([link.status, hook.status]).toEqual([200, 200]);
    expect((await org.owner.from("brands").update({ organization_id: other.id }).eq("id", moved).select()).data).toHaveLength(1);
    // The other organization's own owner (not in the first one) sees and removes both.
    const links = await call(other.ownerToken, "GET", `/api/share-links?brand_id=${moved}`);
    expect(links.body.links.map((l: { id: string; organization_id: string }) => [l.id, l.organization_id])).toEqual([[link.body.link.id, other.id]]);
    expect((await call(other.ownerToken, "GET", "/api/webhooks")).body.endpoints.map((e: { id: string }) => e.id)).toContain(hook.body.endpoint.id);
    expect((await call(other.ownerToken, "DELETE", `/api/share-links/${link.body.link.id}`)).status).toBe(200);
    expect((await call(other.ownerToken, "DELETE", `/api/webhooks/${hook.body.endpoint.id}`)).status).toBe(200);
  });
});

describe("what a brand's settings may hold (each is read by every unit of every run)", () => {
  test("a language that is not a code (en_US) is 400 23514; names over 200 characters are 400 22001; nothing changed", async () => {
    const patch = async (table: string, id: string, body: Record<string, unknown>) => {
      const res = await fetch(`${server.url}/rest/v1/${table}?id=eq.${id}`, { method: "PATCH", headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json", prefer: "return=representation" }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const before = (await org.owner.from("brands").select("name, language").eq("id", brandId).single()).data;
    for (const language of ["en_US", "english", "x".repeat(5000)]) expect([language.slice(0, 10), (await patch("brands", brandId, { language })).body.code]).toEqual([language.slice(0, 10), "23514"]);
    expect((await patch("brands", brandId, { name: "n".repeat(201) })).body.code).toBe("22001");
    const { data: rival } = await org.owner.from("competitors").select("id").eq("brand_id", brandId).limit(1).single();
    expect((await patch("competitors", rival!.id, { name: "n".repeat(201) })).body.code).toBe("22001");
    expect((await org.owner.from("brands").select("name, language").eq("id", brandId).single()).data).toEqual(before);
    expect((await org.owner.from("competitors").select("name").eq("id", rival!.id).single()).data!.name).not.toHaveLength(201);
    const ok = await patch("brands", brandId, { language: "pt-BR" });
    expect([ok.status, ok.body[0].language]).toEqual([200, "pt-BR"]);
  });

  test("an organization's managers change its name, slug and logo only (a created_at set back put it first among others)", async () => {
    const before = (await org.owner.from("organizations").select("created_at").eq("id", org.id).single()).data!.created_at;
    const backdated = await org.owner.from("organizations").update({ created_at: "1970-01-01T00:00:00Z" }).eq("id", org.id).select();
    expect(backdated.error).not.toBeNull();
    expect((await org.owner.from("organizations").select("created_at").eq("id", org.id).single()).data!.created_at).toBe(before);
    const renamed = await org.owner.from("organizations").update({ name: "Round four, renamed" }).eq("id", org.id).select("name");
    expect(renamed.data).toEqual([{ name: "Round four, renamed" }]);
  });
});

test("every page the web app opens by address is served, /forgot included (a reload of it answered a JSON 404)", async () => {
  for (const path of ["/login", "/signup", "/forgot", "/onboarding", "/account"]) {
    const res = await fetch(`${server.url}${path}`);
    expect([path, res.status, res.headers.get("content-type")]).toEqual([path, 200, expect.stringContaining("text/html")]);
  }
});

describe("how much one caller may hold", () => {
  test("50 usable keys a person in an organization, then 429 too_many_keys; a revoked one frees a place", async () => {
    const { data: me } = await org.owner.auth.getUser();
    const live = ((await call(org.ownerToken, "GET", "/api/keys")).body.keys as { user_id: string; revoked_at: string | null }[]).filter((k) => k.user_id === me.user!.id && !k.revoked_at).length;
    const made: string[] = [];
    for (let i = live; i < 50; i++) made.push((await newKey("viewer")).key.id);
    const over = await call(org.ownerToken, "POST", "/api/keys", { name: "one too many", organization_id: org.id, role: "viewer" });
    expect([over.status, over.body.error?.code, over.body.error?.details]).toEqual([429, "too_many_keys", { max: 50 }]);
    expect((await call(org.ownerToken, "DELETE", `/api/keys/${made[0]}`)).status).toBe(200);
    expect((await newKey("viewer")).secret).toStartWith("aw_");
  });

  test("100 usable share links a brand, then 429 too_many_share_links; a revoked one frees a place", async () => {
    const brandId = (await createBrand(org.owner, org.id, "shared-often")).id;
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await call(org.ownerToken, "POST", "/api/share-links", { brand_id: brandId });
      expect(res.status).toBe(200);
      ids.push(res.body.link.id);
    }
    const over = await call(org.ownerToken, "POST", "/api/share-links", { brand_id: brandId });
    expect([over.status, over.body.error?.code, over.body.error?.details]).toEqual([429, "too_many_share_links", { max: 100 }]);
    expect((await call(org.ownerToken, "DELETE", `/api/share-links/${ids[0]}`)).status).toBe(200);
    expect((await call(org.ownerToken, "POST", "/api/share-links", { brand_id: brandId })).status).toBe(200);
  });

  test("25 webhook endpoints an organization, then 429 too_many_endpoints and nothing stored; a deleted one frees a place", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await call(org.ownerToken, "POST", "/api/webhooks", { organization_id: org.id, url: `https://hooks-${i}.example.net/in`, events: ["tracking.completed"] });
      expect(res.status).toBe(200);
      ids.push(res.body.endpoint.id);
    }
    const over = await call(org.ownerToken, "POST", "/api/webhooks", { organization_id: org.id, url: "https://hooks-25.example.net/in", events: ["tracking.completed"] });
    expect([over.status, over.body.error?.code, over.body.error?.details]).toEqual([429, "too_many_endpoints", { max: 25 }]);
    expect((await call(org.ownerToken, "GET", "/api/webhooks")).body.endpoints).toHaveLength(25);
    expect((await call(org.ownerToken, "DELETE", `/api/webhooks/${ids[0]}`)).status).toBe(200);
    expect((await call(org.ownerToken, "POST", "/api/webhooks", { organization_id: org.id, url: "https://hooks-25.example.net/in", events: ["tracking.completed"] })).status).toBe(200);
  });
});
