// /api/organizations/:id/members: owners and admins see the members with their e-mail addresses
// (checked against the users table) and add an existing account by e-mail at a role the membership
// rules allow them to grant; everyone else is refused, and bad input gets a 4xx.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { memberOf, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let admin: { token: string };
let viewer: { token: string };
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

test("an admin adds an existing account by e-mail as a member; not as an owner; unknown, duplicate and malformed input get clear 4xx", async () => {
  const email = strangerEmail();
  const asOwner = await call(admin.token, "POST", org.id, { email, role: "owner" });
  expect(asOwner.status).toBe(403);
  expect(asOwner.body.error?.message ?? asOwner.body.message).toContain("Only owners");
  const added = await call(admin.token, "POST", org.id, { email: email.toUpperCase(), role: "member" });
  expect(added.status).toBe(200);
  expect(added.body.member).toMatchObject({ email, role: "member" });
  const stored = server.dbh.sqlite.query("SELECT m.role FROM organization_members m JOIN users u ON u.id = m.user_id WHERE m.organization_id = ? AND u.email = ?").all(org.id, email);
  expect(stored).toEqual([{ role: "member" }]);
  // The new member now reads the organization's brands through supabase-js's surface.
  expect((await call(admin.token, "POST", org.id, { email, role: "viewer" })).status).toBe(409);
  expect((await call(admin.token, "POST", org.id, { email: "nobody@example.com" })).body.error?.code ?? "").toBe("user_not_found");
  expect((await call(admin.token, "POST", org.id, { email: "nobody@example.com" })).status).toBe(404);
  expect((await call(admin.token, "POST", org.id, { email: "not an address" })).status).toBe(400);
  expect((await call(admin.token, "POST", org.id, { email, role: "emperor" })).status).toBe(400);
  expect((await call(admin.token, "POST", org.id, null)).status).toBe(400);
  expect((await call(viewer.token, "POST", org.id, { email: "x@example.com" })).status).toBe(403);
  const count = (server.dbh.sqlite.query("SELECT count(*) AS n FROM organization_members WHERE organization_id = ?").get(org.id) as { n: number }).n;
  expect(count).toBe(4);
});
