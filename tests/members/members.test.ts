// /api/organizations/:id/members: owners and admins see the members with their e-mail addresses
// (checked against the users table) and invite people by e-mail at a role the membership rules allow
// them to grant; the invited accept or decline (/api/invitations); everyone may leave but the last
// owner. Everyone else is refused, and bad input gets a 4xx.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { memberOf, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let admin: { token: string };
let viewer: Awaited<ReturnType<typeof memberOf>>;
let stranger: Org;

beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Members");
  admin = await memberOf(server, org.id, "admin");
  viewer = await memberOf(server, org.id, "viewer");
  stranger = await signedUpOrg(server, "Stranger");
});
afterAll(() => server.stop());

const call = async (token: string, method: string, orgId = org.id, body?: unknown) => {
  const res = await fetch(`${server.url}/api/organizations/${orgId}/members`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};
const emailOf = (userId: string) => (server.dbh.sqlite.query("SELECT email FROM users WHERE id = ?").get(userId) as { email: string }).email;
const strangerEmail = () => (server.dbh.sqlite.query("SELECT u.email FROM users u JOIN organization_members m ON m.user_id = u.id WHERE m.organization_id = ?").get(stranger.id) as { email: string }).email;

test("owners and admins list the members with their e-mail addresses; others are refused", async () => {
  const listed = await call(org.ownerToken, "GET");
  expect(listed.status).toBe(200);
  const rows = server.dbh.sqlite.query("SELECT id, user_id, role FROM organization_members WHERE organization_id = ?").all(org.id) as { id: string; user_id: string; role: string }[];
  expect(listed.body.members.map((m: any) => [m.id, m.email, m.role]).sort()).toEqual(rows.map((r) => [r.id, emailOf(r.user_id), r.role]).sort());
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
const membershipsIn = (orgId: string) => server.dbh.sqlite.query("SELECT u.email, m.role FROM organization_members m JOIN users u ON u.id = m.user_id WHERE m.organization_id = ? ORDER BY u.email").all(orgId) as { email: string; role: string }[];
const invitationsIn = (orgId: string) => server.dbh.sqlite.query("SELECT email, role FROM organization_invitations WHERE organization_id = ? ORDER BY email").all(orgId) as { email: string; role: string }[];

test("adding someone makes an invitation: the same answer whether or not the address has an account, and nothing is granted until they accept", async () => {
  const email = strangerEmail();
  const before = membershipsIn(org.id);
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
  expect(membershipsIn(org.id)).toEqual(before);
  expect(invitationsIn(org.id)).toEqual([{ email, role: "member" }, { email: "nobody-at-all@example.com", role: "member" }].sort((a, b) => a.email.localeCompare(b.email)));
  // Until they accept, the invited person sees nothing of the organization.
  const brandsBefore = await api(stranger.ownerToken, "GET", `/api/organizations/${org.id}/members`);
  expect(brandsBefore.status).toBe(404);
  const listed = (await call(org.ownerToken, "GET")).body;
  expect(listed.invitations.map((i: any) => i.email).sort()).toEqual([email, "nobody-at-all@example.com"].sort());

  // The invited person sees it, with the organization's name; nobody else can answer it.
  const mine = await api(stranger.ownerToken, "GET", "/api/invitations");
  expect(mine.status).toBe(200);
  expect(mine.body.invitations).toEqual([expect.objectContaining({ id: invited.body.invitation.id, organization_id: org.id, organization_name: "Members", role: "member" })]);
  expect((await api(viewer.token, "GET", "/api/invitations")).body.invitations).toEqual([]);
  expect((await api(viewer.token, "POST", `/api/invitations/${invited.body.invitation.id}/accept`)).status).toBe(404);
  expect((await api(stranger.ownerToken, "POST", "/api/invitations/not-a-uuid/accept")).status).toBe(400);

  const accepted = await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/accept`);
  expect(accepted.status).toBe(200);
  expect(accepted.body.membership).toMatchObject({ organization_id: org.id, role: "member" });
  expect(membershipsIn(org.id)).toContainEqual({ email, role: "member" });
  expect(invitationsIn(org.id).map((i) => i.email)).toEqual(["nobody-at-all@example.com"]);
  expect((await api(stranger.ownerToken, "POST", `/api/invitations/${invited.body.invitation.id}/accept`)).status).toBe(404);
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
  expect(invitationsIn(org.id)).toEqual([]);
});

test("a declined invitation grants nothing; an invitation dies with its inviter's right to grant the role", async () => {
  const invitee = await signedUpOrg(server, "Invitee");
  const inviteeEmail = (server.dbh.sqlite.query("SELECT u.email FROM users u JOIN organization_members m ON m.user_id = u.id WHERE m.organization_id = ?").get(invitee.id) as { email: string }).email;
  const first = await call(admin.token, "POST", org.id, { email: inviteeEmail, role: "viewer" });
  expect((await api(invitee.ownerToken, "POST", `/api/invitations/${first.body.invitation.id}/decline`)).status).toBe(200);
  expect(membershipsIn(org.id).map((m) => m.email)).not.toContain(inviteeEmail);
  expect(invitationsIn(org.id)).toEqual([]);

  // An admin invites, then is made a viewer before the answer: the invitation no longer holds.
  const demotable = await memberOf(server, org.id, "admin");
  const second = await api(demotable.token, "POST", `/api/organizations/${org.id}/invitations`, { email: inviteeEmail, role: "member" });
  expect(second.status).toBe(201);
  const demotedId = (await demotable.sb.auth.getUser()).data.user!.id;
  expect((await org.owner.from("organization_members").update({ role: "viewer" }).eq("organization_id", org.id).eq("user_id", demotedId)).error).toBeNull();
  const refused = await api(invitee.ownerToken, "POST", `/api/invitations/${second.body.invitation.id}/accept`);
  expect(refused.status).toBe(410);
  expect(membershipsIn(org.id).map((m) => m.email)).not.toContain(inviteeEmail);
});

test("every member may leave; the last owner may not; nobody is added by a write to organization_members", async () => {
  const leaver = await memberOf(server, org.id, "viewer");
  const leaverId = (await leaver.sb.auth.getUser()).data.user!.id;
  const left = await leaver.sb.from("organization_members").delete().eq("organization_id", org.id).eq("user_id", leaverId).select("id");
  expect(left.error).toBeNull();
  expect(left.data).toHaveLength(1);
  expect(server.dbh.sqlite.query("SELECT 1 FROM organization_members WHERE user_id = ? AND organization_id = ?").get(leaverId, org.id)).toBeNull();
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
  expect(server.dbh.sqlite.query("SELECT role FROM organization_members WHERE user_id = ? AND organization_id = ?").get(ownerId, org.id)).toEqual({ role: "owner" });
  // Nobody writes a membership directly, not even an owner for someone else.
  const forced = await org.owner.from("organization_members").insert({ organization_id: org.id, user_id: leaverId, role: "viewer" });
  expect([forced.status, forced.error?.code]).toEqual([403, "42501"]);
  expect(server.dbh.sqlite.query("SELECT 1 FROM organization_members WHERE user_id = ? AND organization_id = ?").get(leaverId, org.id)).toBeNull();
});
