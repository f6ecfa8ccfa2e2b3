// The members store's contract (src/members/store.ts), for every backend.
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import type { MembersStore } from "../../src/members/store";
import type { Harness } from "./harness";

const NOW = "2026-05-01T12:00:00.000Z";
const LATER = "2026-05-15T12:00:00.000Z";
const PAST = "2026-04-01T12:00:00.000Z";

export function describeMembersStoreContract(name: string, make: () => Promise<Harness & { store: MembersStore }>) {
  describe(`MembersStore contract (${name})`, () => {
    let h: Harness & { store: MembersStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    const email = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;
    async function orgWithOwner() {
      const owner = await h.fixtures.user(email("owner"));
      const org = await h.fixtures.organization();
      await h.fixtures.member(org, owner, "owner");
      return { org, owner };
    }
    const invite = (org: string, invitedBy: string, to: string, extra: { role?: "owner" | "admin" | "member" | "viewer"; at?: string; expiresAt?: string; maxPending?: number; keyHash?: string } = {}) =>
      h.store.invite({ organizationId: org, email: to, role: extra.role ?? "member", invitedBy, expiresAt: extra.expiresAt ?? LATER, at: extra.at ?? NOW, maxPending: extra.maxPending ?? 200, keyHash: extra.keyHash ?? "k0" });

    test("members: the organization's only, owners then admins, members, viewers, then by e-mail", async () => {
      const org = await h.fixtures.organization();
      const add = async (address: string, role: string) => {
        const user = await h.fixtures.user(address);
        await h.fixtures.member(org, user, role);
        return user;
      };
      const v = await add(`a-viewer-${crypto.randomUUID()}@example.com`, "viewer");
      const m2 = await add(`b-member-${crypto.randomUUID()}@example.com`, "member");
      const m1 = await add(`a-member-${crypto.randomUUID()}@example.com`, "member");
      const o = await add(`z-owner-${crypto.randomUUID()}@example.com`, "owner");
      const a = await add(`y-admin-${crypto.randomUUID()}@example.com`, "admin");
      await orgWithOwner();
      const rows = await h.store.members(org);
      expect(rows.map((r) => r.user_id)).toEqual([o, a, m1, m2, v]);
      expect(rows[0]).toMatchObject({ user_id: o, role: "owner" });
      expect(rows[0]!.email).toStartWith("z-owner-");
      expect(Object.keys(rows[0]!).sort()).toEqual(["created_at", "email", "id", "role", "user_id"]);
      expect(await h.store.members(crypto.randomUUID())).toEqual([]);
    });

    test("invite creates; inviting the same address again renews role, inviter, expiry, created_at and key on the same invitation; the key's hash is read by id only", async () => {
      const { org, owner } = await orgWithOwner();
      const admin = await h.fixtures.user();
      await h.fixtures.member(org, admin, "admin");
      const to = email("invitee");
      const first = await invite(org, owner, to, { role: "admin", keyHash: "first" });
      expect(first).toMatchObject({ organization_id: org, email: to, role: "admin", invited_by: owner, expires_at: LATER, created_at: NOW });
      expect(await h.store.invitationById(first!.id)).toEqual({ ...first!, key_hash: "first" });
      const again = await invite(org, admin, to, { role: "viewer", at: "2026-05-02T00:00:00.000Z", expiresAt: "2026-05-16T00:00:00.000Z", keyHash: "second" });
      expect(again).toEqual({ id: first!.id, organization_id: org, email: to, role: "viewer", invited_by: admin, expires_at: "2026-05-16T00:00:00.000Z", created_at: "2026-05-02T00:00:00.000Z" });
      expect(await h.store.invitationById(first!.id)).toEqual({ ...again!, key_hash: "second" });
      expect((await h.store.pendingInvitations({ organizationId: org, now: NOW, limit: 10 }))[0]).not.toHaveProperty("key_hash");
    });

    test("invite refuses (null, nothing written) once maxPending live invitations exist; expired ones do not count", async () => {
      const { org, owner } = await orgWithOwner();
      await invite(org, owner, email("old"), { at: PAST, expiresAt: "2026-04-15T00:00:00.000Z" });
      await invite(org, owner, email("one"));
      await invite(org, owner, email("two"));
      const refused = email("three");
      expect(await invite(org, owner, refused, { maxPending: 2 })).toBeNull();
      expect((await h.store.pendingInvitations({ organizationId: org, now: NOW, limit: 10 })).map((i) => i.email)).not.toContain(refused);
      expect(await invite(org, owner, refused, { maxPending: 3 })).toMatchObject({ email: refused });
    });

    test("pruneExpired deletes invitations expired before `before`, at most `limit`; live ones and those expired later stay", async () => {
      const { org, owner } = await orgWithOwner();
      const long = [await invite(org, owner, email("long-1"), { at: "2020-01-01T00:00:00.000Z", expiresAt: "2020-01-15T00:00:00.000Z" }), await invite(org, owner, email("long-2"), { at: "2020-01-01T00:00:00.000Z", expiresAt: "2020-01-16T00:00:00.000Z" })];
      const lately = await invite(org, owner, email("lately"), { at: PAST, expiresAt: "2026-04-20T00:00:00.000Z" });
      const live = await invite(org, owner, email("live"));
      const left = async () => (await h.inspect<{ id: string }>("SELECT id FROM organization_invitations WHERE organization_id = ?", org)).map((r) => r.id).sort();
      const expiredLongAgo = async () => (await left()).filter((id) => long.some((i) => i!.id === id)).length;
      expect(await expiredLongAgo()).toBe(2);
      // One at a time when the limit is one.
      expect(await h.store.pruneExpired({ before: "2020-02-01T00:00:00.000Z", limit: 1 })).toBe(1);
      expect(await expiredLongAgo()).toBe(1);
      while ((await h.store.pruneExpired({ before: "2020-02-01T00:00:00.000Z", limit: 1000 })) > 0);
      expect(await left()).toEqual([lately!.id, live!.id].sort());
    });

    test("pendingInvitations: live ones of the organization, newest first, at most limit", async () => {
      const { org, owner } = await orgWithOwner();
      const other = await orgWithOwner();
      await invite(org, owner, email("expired"), { at: PAST, expiresAt: NOW });
      const older = await invite(org, owner, email("older"), { at: "2026-05-01T10:00:00.000Z" });
      const newer = await invite(org, owner, email("newer"), { at: "2026-05-01T11:00:00.000Z" });
      await invite(other.org, other.owner, email("elsewhere"));
      expect((await h.store.pendingInvitations({ organizationId: org, now: NOW, limit: 10 })).map((i) => i.id)).toEqual([newer!.id, older!.id]);
      expect((await h.store.pendingInvitations({ organizationId: org, now: NOW, limit: 1 })).map((i) => i.id)).toEqual([newer!.id]);
      expect(await h.store.pendingInvitations({ organizationId: org, now: LATER, limit: 10 })).toEqual([]);
    });

    test("organizationName: the organization's name; an unknown id or one that is no uuid gives null", async () => {
      const org = await h.fixtures.organization("Named Org");
      expect(await h.store.organizationName(org)).toBe("Named Org");
      expect(await h.store.organizationName(crypto.randomUUID())).toBeNull();
      expect(await h.store.organizationName("not-a-uuid")).toBeNull();
    });

    test("withdraw deletes the organization's invitation; another organization's or an unknown id is false", async () => {
      const { org, owner } = await orgWithOwner();
      const other = await orgWithOwner();
      const inv = await invite(org, owner, email("w"));
      expect(await h.store.withdraw({ id: inv!.id, organizationId: other.org })).toBe(false);
      expect(await h.store.invitationById(inv!.id)).not.toBeNull();
      expect(await h.store.withdraw({ id: inv!.id, organizationId: org })).toBe(true);
      expect(await h.store.invitationById(inv!.id)).toBeNull();
      expect(await h.store.withdraw({ id: inv!.id, organizationId: org })).toBe(false);
    });

    test("invitationsFor: live invitations to that address with the organization's name and the inviter's e-mail, newest first, at most limit", async () => {
      const to = email("person");
      const a = await orgWithOwner();
      const b = await orgWithOwner();
      const fromA = await invite(a.org, a.owner, to, { role: "viewer", at: "2026-05-01T10:00:00.000Z" });
      const fromB = await invite(b.org, b.owner, to, { at: "2026-05-01T11:00:00.000Z" });
      const c = await orgWithOwner();
      await invite(c.org, c.owner, to, { at: PAST, expiresAt: NOW });
      await invite(a.org, a.owner, email("someone-else"));
      const rows = await h.store.invitationsFor({ email: to, now: NOW, limit: 10 });
      expect(rows.map((r) => r.id)).toEqual([fromB!.id, fromA!.id]);
      expect(rows[1]).toMatchObject({ id: fromA!.id, organization_id: a.org, role: "viewer", expires_at: LATER, created_at: "2026-05-01T10:00:00.000Z" });
      expect(rows[1]!.organization_name).toBeString();
      expect(rows[1]!.invited_by_email).toStartWith("owner-");
      expect(await h.store.invitationsFor({ email: to, now: NOW, limit: 1 })).toHaveLength(1);
    });

    test("invitationById and deleteInvitation; unknown ids are null, deleting twice is harmless", async () => {
      const { org, owner } = await orgWithOwner();
      const inv = await invite(org, owner, email("d"));
      expect(await h.store.invitationById(inv!.id)).toEqual({ ...inv!, key_hash: "k0" });
      await h.store.deleteInvitation(inv!.id);
      expect(await h.store.invitationById(inv!.id)).toBeNull();
      await h.store.deleteInvitation(inv!.id);
      expect(await h.store.invitationById(crypto.randomUUID())).toBeNull();
    });

    test("accept: the invitation is consumed and the person joins at its role; the inviter's current role is what the rule is asked", async () => {
      const { org, owner } = await orgWithOwner();
      const to = email("joiner");
      const user = await h.fixtures.user(to);
      const inv = await invite(org, owner, to, { role: "admin" });
      const asked: unknown[] = [];
      const result = await h.store.accept({ id: inv!.id, email: to, userId: user, now: NOW, keyHash: "k0", inviterMayGrant: (r, role) => (asked.push([r, role]), true) });
      expect(asked).toEqual([["owner", "admin"]]);
      expect(result).toMatchObject({ outcome: "accepted", membership: { organization_id: org, user_id: user, role: "admin" } });
      expect(await h.store.invitationById(inv!.id)).toBeNull();
      expect((await h.store.members(org)).find((m) => m.user_id === user)?.role).toBe("admin");
      // Consumed: a second accept finds nothing.
      expect(await h.store.accept({ id: inv!.id, email: to, userId: user, now: NOW, keyHash: "k0", inviterMayGrant: () => true })).toEqual({ outcome: "not_found" });
    });

    test("accept keeps an existing membership as it is", async () => {
      const { org, owner } = await orgWithOwner();
      const to = email("member");
      const user = await h.fixtures.user(to);
      await h.fixtures.member(org, user, "viewer");
      const inv = await invite(org, owner, to, { role: "admin" });
      const result = await h.store.accept({ id: inv!.id, email: to, userId: user, now: NOW, keyHash: "k0", inviterMayGrant: () => true });
      expect(result).toMatchObject({ outcome: "accepted", membership: { user_id: user, role: "viewer" } });
      expect(await h.store.invitationById(inv!.id)).toBeNull();
    });

    test("accept: another address, an expired or unknown invitation is not_found; a refused rule is void; nothing changes", async () => {
      const { org, owner } = await orgWithOwner();
      const to = email("target");
      const user = await h.fixtures.user(to);
      const inv = await invite(org, owner, to);
      const yes = () => true;
      expect(await h.store.accept({ id: inv!.id, email: email("intruder"), userId: user, now: NOW, keyHash: "k0", inviterMayGrant: yes })).toEqual({ outcome: "not_found" });
      expect(await h.store.accept({ id: inv!.id, email: to, userId: user, now: LATER, keyHash: "k0", inviterMayGrant: yes })).toEqual({ outcome: "not_found" });
      expect(await h.store.accept({ id: crypto.randomUUID(), email: to, userId: user, now: NOW, keyHash: "k0", inviterMayGrant: yes })).toEqual({ outcome: "not_found" });
      expect(await h.store.accept({ id: inv!.id, email: to, userId: user, now: NOW, keyHash: "k0", inviterMayGrant: () => false })).toEqual({ outcome: "void" });
      // Another key's hash: not found, and the rule is not even asked.
      expect(await h.store.accept({ id: inv!.id, email: to, userId: user, now: NOW, keyHash: "k1", inviterMayGrant: () => { throw new Error("asked"); } })).toEqual({ outcome: "not_found" });
      expect(await h.store.invitationById(inv!.id)).toEqual({ ...inv!, key_hash: "k0" });
      expect((await h.store.members(org)).map((m) => m.user_id)).toEqual([owner]);
    });

    test("accept asks the rule with no role once the inviter left the organization", async () => {
      const org = await h.fixtures.organization();
      const inviter = await h.fixtures.user();
      const to = email("orphan");
      const user = await h.fixtures.user(to);
      const inv = await invite(org, inviter, to);
      const asked: unknown[] = [];
      expect(await h.store.accept({ id: inv!.id, email: to, userId: user, now: NOW, keyHash: "k0", inviterMayGrant: (r) => (asked.push(r), false) })).toEqual({ outcome: "void" });
      expect(asked).toEqual([undefined]);
    });
  });
}
