// backends: sqlite, postgres
// /api/organizations/:id/members: owners and admins see the members with their e-mail addresses
// (checked against the users table) and invite people by e-mail at a role the membership rules allow
// them to grant; the invited accept or decline (/api/invitations); everyone may leave but the last
// owner. Everyone else is refused, and bad input gets a 4xx.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { serverDb, usersTable } from "../helpers/server-db";
import type { Harness } from "../contracts/harness";
import { createBrand, memberOf, serviceClient, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let admin: { token: string };
let viewer: Awaited<ReturnType<typeof memberOf>>;
let stranger: Org;
let db: Harness;
/** The first row (null: none), read from the server's database. */
const one = async <T>(sql: string, ...params: unknown[]) => (await db.inspect<T>(sql, ...params))[0] ?? null;

beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
  org = await signedUpOrg(server, "Members");
  admin = await memberOf(server, org.id, "admin");
  viewer = await memberOf(server, org.id, "viewer");
  stranger = await signedUpOrg(server, "Stranger");
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

const call = async (token: string, method: string, orgId = org.id, body?: unknown) => {
  const res = await fetch(`${server.url}/api/organizations/${orgId}/members`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};
const emailOf = async (userId: string) => (await one<{ email: string }>(`SELECT email FROM ${usersTable(db)} WHERE id = ?`, userId))!.email;
const strangerEmail = async () => (await one<{ email: string }>(`SELECT u.email FROM ${usersTable(db)} u JOIN organization_members m ON m.user_id = u.id WHERE m.organization_id = ?`, stranger.id))!.email;

test("owners and admins list the members with their e-mail addresses; others are refused", async () => {
  const listed = await call(org.ownerToken, "GET");
  expect(listed.status).toBe(200);
  const rows = await db.inspect<{ id: string; user_id: string; role: string }>("SELECT id, user_id, role FROM organization_members WHERE organization_id = ?", org.id);
  const expected = await Promise.all(rows.map(async (r) => [r.id, await emailOf(r.user_id), r.role]));
  expect(listed.body.members.map((m: any) => [m.id, m.email, m.role]).sort()).toEqual(expected.sort());
  expect(listed.body.members[0].role).toBe("owner");
  expect((await call(admin.token, "GET")).status).toBe(200);
  expect((await call(viewer.token, "GET")).status).toBe(403);
  expect((await call(stranger.ownerToken, "GET")).status).toBe(404);
  expect((await call("not-a-token", "GET")).status).toBe(401);
  expect((await call(org.ownerToken, "GET", "not-a-uuid")).status).toBe(400);
});

const api = async (token: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};
const membershipsIn = (orgId: string) => db.inspect<{ email: string; role: string }>(`SELECT u.email, m.role FROM organization_members m JOIN ${usersTable(db)} u ON u.id = m.user_id WHERE m.organization_id = ? ORDER BY u.email`, orgId);
/** The key an invitation's link carries (the invite answer's `link`). */
const keyOf = (invited: { body: { link: string } }) => new URL(invited.body.link).searchParams.get("key")!;
const invitationsIn = (orgId: string) => db.inspect<{ email: string; role: string }>("SELECT email, role FROM organization_invitations WHERE organization_id = ? ORDER BY email", orgId);

test("adding someone makes an invitation: the same answer whether or not the address has an account, and nothing is granted until they accept", async () => {
  const email = await strangerEmail();
  const before = await membershipsIn(org.id);
  const asOwner = await call(admin.token, "POST", org.id, { email, role: "owner" });
  expect(asOwner.status).toBe(403);
  expect(asOwner.body.error?.message ?? asOwner.body.message).toContain("Only owners");
  const invited = await call(admin.token, "POST", org.id, { email: email.toUpperCase(), role: "member" });
  const unknown = await call(admin.token, "POST", org.id, { email: "nobody-at-all@example.com", role: "member" });
  // No difference tells whether someone uses the address.
  expect([invited.status, unknown.status]).toEqual([201, 201]);
  expect(Object.keys(invited.body.invitation).sort()).toEqual(Object.keys(unknown.body.invitation).sort());
  expect(invited.body.invitation).toMatchObject({ email, role: "member", organization_id: org.id });
  expect(unknown.body.invitation).toMatchObject({ email: "nobody-at-all@example.com", role: "member" });
  expect(await membershipsIn(org.id)).toEqual(before);
  expect(await invitationsIn(org.id)).toEqual([{ email, role: "member" }, { email: "nobody-at-all@example.com", role: "member" }].sort((a, b) => a.email.localeCompare(b.email)));
  // Until they accept, the invited person sees nothing of the organization.
  const brandsBefore = await api(stranger.ownerToken, "GET", `/api/organizations/${org.id}/members`);
  expect(brandsBefore.status).toBe(404);
  const listed = (await call(org.ownerToken, "GET")).body;
  expect(listed.invitations.map((i: any) => i.email).sort()).toEqual([email, "nobody-at-all@example.com"].sort());

  // The invited person sees it, with the organization's name; nobody else can answer it.
  const mine = await api(stranger.ownerToken, "GET", "/api/invitations");
  expect(mine.status).toBe(200);
  // The list says the role and until when; who invites, and where, is for the link's holder.
  expect(mine.body.invitations).toEqual([{ id: invited.body.invitation.id, role: "member", expires_at: invited.body.invitation.expires_at, created_at: invited.body.invitation.created_at }]);
  const opened = await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/open`, { key: keyOf(invited) });
  expect(opened.body.invitation).toMatchObject({ id: invited.body.invitation.id, organization_id: org.id, organization_name: "Members", role: "member" });
  expect((await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/open`, { key: keyOf(unknown) })).status).toBe(404);
  expect((await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/open`)).status).toBe(403);
  expect((await api(viewer.token, "POST", `/api/invitations/${invited.body.invitation.id}/open`, { key: keyOf(invited) })).status).toBe(404);
  expect((await api(viewer.token, "GET", "/api/invitations")).body.invitations).toEqual([]);
  expect((await api(viewer.token, "POST", `/api/invitations/${invited.body.invitation.id}/accept`, { key: keyOf(invited) })).status).toBe(404);
  expect((await api(stranger.ownerToken, "POST", "/api/invitations/not-a-uuid/accept")).status).toBe(400);
  // Whoever signed up with the address needs the link's key too (this server proves no address).
  expect(invited.body.link).toBe(`${server.url}/?invitation=${invited.body.invitation.id}&key=${keyOf(invited)}`);
  expect(keyOf(invited)).not.toBe(keyOf(unknown));
  const keyless = await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/accept`);
  expect([keyless.status, keyless.body.error.code]).toEqual([403, "invitation_key_required"]);
  expect((await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/accept`, { key: keyOf(unknown) })).status).toBe(404);
  expect((await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/decline`, { key: keyOf(unknown) })).status).toBe(404);
  expect((await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/accept`, { key: 42 })).status).toBe(400);
  expect(await membershipsIn(org.id)).toEqual(before);

  const accepted = await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/accept`, { key: keyOf(invited) });
  expect(accepted.status).toBe(200);
  expect(accepted.body.membership).toMatchObject({ organization_id: org.id, role: "member" });
  expect(await membershipsIn(org.id)).toContainEqual({ email, role: "member" });
  expect((await invitationsIn(org.id)).map((i) => i.email)).toEqual(["nobody-at-all@example.com"]);
  expect((await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/accept`, { key: keyOf(invited) })).status).toBe(404);
  const { data } = await stranger.owner.from("organizations").select("id").eq("id", org.id);
  expect(data).toEqual([{ id: org.id }]);

  // Bad input.
  expect((await call(admin.token, "POST", org.id, { email: "not an address" })).status).toBe(400);
  expect((await call(admin.token, "POST", org.id, { email, role: "emperor" })).status).toBe(400);
  expect((await call(admin.token, "POST", org.id, null)).status).toBe(400);
  expect((await call(viewer.token, "POST", org.id, { email: "x@example.com" })).status).toBe(403);
  // Withdrawn by an admin.
  const pending = (await call(org.ownerToken, "GET")).body.invitations[0];
  expect((await api(admin.token, "DELETE", `/api/organizations/${org.id}/invitations/${pending.id}`)).status).toBe(200);
  expect(await invitationsIn(org.id)).toEqual([]);
});

test("a declined invitation grants nothing; an invitation dies with its inviter's right to grant the role", async () => {
  const invitee = await signedUpOrg(server, "Invitee");
  const inviteeEmail = (await one<{ email: string }>(`SELECT u.email FROM ${usersTable(db)} u JOIN organization_members m ON m.user_id = u.id WHERE m.organization_id = ?`, invitee.id))!.email;
  const first = await call(admin.token, "POST", org.id, { email: inviteeEmail, role: "viewer" });
  expect((await api(invitee.ownerToken, "POST", `/api/invitations/${first.body.invitation.id}/decline`)).status).toBe(403);
  expect((await api(invitee.ownerToken, "POST", `/api/invitations/${first.body.invitation.id}/decline`, { key: keyOf(first) })).status).toBe(200);
  expect((await membershipsIn(org.id)).map((m) => m.email)).not.toContain(inviteeEmail);
  expect(await invitationsIn(org.id)).toEqual([]);

  // An admin invites, then is made a viewer before the answer: the invitation no longer holds.
  const demotable = await memberOf(server, org.id, "admin");
  const second = await api(demotable.token, "POST", `/api/organizations/${org.id}/invitations`, { email: inviteeEmail, role: "member" });
  expect(second.status).toBe(201);
  const demotedId = (await demotable.sb.auth.getUser()).data.user!.id;
  expect((await org.owner.from("organization_members").update({ role: "viewer" }).eq("organization_id", org.id).eq("user_id", demotedId)).error).toBeNull();
  const refused = await api(invitee.ownerToken, "POST", `/api/invitations/${second.body.invitation.id}/accept`, { key: keyOf(second) });
  expect(refused.status).toBe(410);
  expect((await membershipsIn(org.id)).map((m) => m.email)).not.toContain(inviteeEmail);
});

test("every member may leave; the last owner may not; nobody is added by a write to organization_members", async () => {
  const leaver = await memberOf(server, org.id, "viewer");
  const leaverId = (await leaver.sb.auth.getUser()).data.user!.id;
  const left = await leaver.sb.from("organization_members").delete().eq("organization_id", org.id).eq("user_id", leaverId).select("id");
  expect(left.error).toBeNull();
  expect(left.data).toHaveLength(1);
  expect(await one("SELECT 1 FROM organization_members WHERE user_id = ? AND organization_id = ?", leaverId, org.id)).toBeNull();
  // An admin may leave too (leaving is not "removing an admin").
  const leavingAdmin = await memberOf(server, org.id, "admin");
  const adminId = (await leavingAdmin.sb.auth.getUser()).data.user!.id;
  const adminLeft = await leavingAdmin.sb.from("organization_members").delete().eq("user_id", adminId).select("id");
  expect([adminLeft.error, adminLeft.data?.length]).toEqual([null, 1]);
  // A viewer can still not remove someone else.
  const other = await viewer.sb.from("organization_members").delete().eq("organization_id", org.id).neq("user_id", (await viewer.sb.auth.getUser()).data.user!.id).select("id");
  expect(other.data ?? []).toEqual([]);
  // The last owner stays.
  const ownerId = (await org.owner.auth.getUser()).data.user!.id;
  const lastOwner = await org.owner.from("organization_members").delete().eq("organization_id", org.id).eq("user_id", ownerId).select("id");
  expect(lastOwner.error?.code).toBe("P0001");
  expect(await one("SELECT role FROM organization_members WHERE user_id = ? AND organization_id = ?", ownerId, org.id)).toEqual({ role: "owner" });
  // Nobody writes a membership directly, not even an owner for someone else.
  const forced = await org.owner.from("organization_members").insert({ organization_id: org.id, user_id: leaverId, role: "viewer" });
  expect([forced.status, forced.error?.code]).toEqual([403, "42501"]);
  expect(await one("SELECT 1 FROM organization_members WHERE user_id = ? AND organization_id = ?", leaverId, org.id)).toBeNull();
  // Nor by moving a membership: a manager changes a member's role, never whose or where it is.
  const kept = await memberOf(server, org.id, "viewer");
  const keptId = (await kept.sb.auth.getUser()).data.user!.id;
  const [row] = (await org.owner.from("organization_members").select("id").eq("organization_id", org.id).eq("user_id", keptId)).data as { id: string }[];
  for (const patch of [{ user_id: leaverId }, { organization_id: stranger.id }, { user_id: leaverId, role: "viewer" }]) {
    const moved = await org.owner.from("organization_members").update(patch).eq("id", row!.id).select("id");
    expect([JSON.stringify(patch), moved.status, moved.error?.code]).toEqual([JSON.stringify(patch), 403, "42501"]);
  }
  expect(await one("SELECT user_id, organization_id FROM organization_members WHERE id = ?", row!.id)).toEqual({ user_id: keptId, organization_id: org.id });
  expect(await one("SELECT 1 FROM organization_members WHERE user_id = ?", leaverId)).toBeNull();
  const promoted = await org.owner.from("organization_members").update({ role: "member" }).eq("id", row!.id).select("role");
  expect([promoted.error, promoted.data]).toEqual([null, [{ role: "member" }]]);
});

test("a brand moves to another organization only by someone who manages both: a member of one who owns the other is refused", async () => {
  const own = await signedUpOrg(server, "Elsewhere");
  const ownId = (await own.owner.auth.getUser()).data.user!.id;
  const brand = await createBrand(org.owner, org.id, `movable-${crypto.randomUUID().slice(0, 8)}`, { domains: 0, competitors: 0 });
  // The owner of "Elsewhere" is a plain member here.
  const service = serviceClient(server);
  expect((await service.from("organization_members").insert({ organization_id: org.id, user_id: ownId, role: "member" })).error).toBeNull();
  await own.owner.auth.refreshSession();
  const moved = await own.owner.from("brands").update({ organization_id: own.id }).eq("id", brand.id).select("id");
  expect([moved.status, moved.error?.code]).toEqual([403, "42501"]);
  expect(await one("SELECT organization_id FROM brands WHERE id = ?", brand.id)).toEqual({ organization_id: org.id });
  // Any other edit of a plain member goes through as before.
  const renamed = await own.owner.from("brands").update({ name: "Renamed" }).eq("id", brand.id).select("name");
  expect([renamed.error, renamed.data]).toEqual([null, [{ name: "Renamed" }]]);
  // Made an admin here, the same person manages both, and the brand moves.
  expect((await service.from("organization_members").update({ role: "admin" }).eq("organization_id", org.id).eq("user_id", ownId)).error).toBeNull();
  await own.owner.auth.refreshSession();
  const allowed = await own.owner.from("brands").update({ organization_id: own.id }).eq("id", brand.id).select("organization_id");
  expect([allowed.error, allowed.data]).toEqual([null, [{ organization_id: own.id }]]);
});

test("an organization sends at most 50 invitations an hour, renewals and withdrawn ones counted: the 51st is 429", async () => {
  const busy = await signedUpOrg(server, "Busy");
  const statuses: number[] = [];
  for (let i = 0; i < 51; i++) {
    const made = await call(busy.ownerToken, "POST", busy.id, { email: `invitee-${i % 3}@example.com`, role: "viewer" });
    statuses.push(made.status);
    // Withdrawn at once: the pending cap alone would never stop this loop.
    if (made.status === 201) expect((await api(busy.ownerToken, "DELETE", `/api/organizations/${busy.id}/invitations/${made.body.invitation.id}`)).status).toBe(200);
  }
  expect(statuses).toEqual([...Array.from({ length: 50 }, () => 201), 429]);
  expect(await invitationsIn(busy.id)).toEqual([]);
  // Another organization is counted apart.
  expect((await call(org.ownerToken, "POST", org.id, { email: "elsewhere@example.com", role: "viewer" })).status).toBe(201);
});

test("an API key cannot take its user out of an organization, its own or another; the user's session can leave", async () => {
  // Someone in two organizations: a member of `org` and the owner of their own.
  const own = await signedUpOrg(server, "Two Hats");
  const userId = (await own.owner.auth.getUser()).data.user!.id;
  await db.inspect("INSERT INTO organization_members (organization_id, user_id, role) VALUES (?, ?, 'member')", org.id, userId);
  const memberships = () => db.inspect<{ organization_id: string }>("SELECT organization_id FROM organization_members WHERE user_id = ? ORDER BY organization_id", userId);
  const before = await memberships();
  expect(before).toHaveLength(2);
  const key = await api(own.ownerToken, "POST", "/api/keys", { name: "read-only", organization_id: org.id, role: "viewer" });
  expect(key.status).toBe(200);
  const leave = (bearer: string) =>
    fetch(`${server.url}/rest/v1/organization_members?user_id=eq.${userId}`, { method: "DELETE", headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${bearer}`, prefer: "return=representation" } });
  // Before: on SQLite this removed the user from every organization, on Postgres from the key's.
  const byKey = await leave(key.body.secret);
  expect([byKey.status, await byKey.json()]).toEqual([200, []]);
  expect(await memberships()).toEqual(before);
  // Nor an owner's admin key, whose organization's rows it may otherwise manage: the owner row is its user's own.
  const adminKey = await api(own.ownerToken, "POST", "/api/keys", { name: "admin", organization_id: own.id, role: "admin" });
  expect(adminKey.status).toBe(200);
  const byAdminKey = await leave(adminKey.body.secret);
  expect([byAdminKey.status, (await byAdminKey.json() as { code?: string }).code]).toEqual([403, "42501"]);
  expect(await memberships()).toEqual(before);
  // The person, signed in, may leave the organization they are a member of.
  const bySession = await fetch(`${server.url}/rest/v1/organization_members?user_id=eq.${userId}&organization_id=eq.${org.id}`, { method: "DELETE", headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${own.ownerToken}` } });
  expect(bySession.status).toBe(204);
  expect(await memberships()).toEqual([{ organization_id: own.id }]);
});
