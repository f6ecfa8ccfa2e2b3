// The auth store's contract (src/platform/auth/store.ts), for every backend.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AuthStore, NewUser } from "../../src/platform/auth/store";
import type { Harness } from "./harness";

export function describeAuthStoreContract(name: string, make: () => Promise<Harness & { store: AuthStore }>) {
  describe(`AuthStore contract (${name})`, () => {
    let h: Harness & { store: AuthStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    let counter = 0;
    const email = () => `person-${process.pid}-${++counter}@example.com`;
    const at = "2026-03-01T10:00:00.000Z";
    const later = (ms: number) => new Date(Date.parse(at) + ms).toISOString();
    const hash = () => new Bun.CryptoHasher("sha256").update(crypto.randomUUID()).digest("hex");
    const newUser = (over: Partial<NewUser> = {}): NewUser => ({
      id: crypto.randomUUID(),
      email: email(),
      passwordHash: "$argon2id$not-a-real-hash",
      userMetadata: { full_name: "Ada" },
      appMetadata: {},
      emailConfirmedAt: at,
      at,
      membership: { organization: { id: crypto.randomUUID(), name: "Ada's organization" }, slugs: [`ada-${crypto.randomUUID().slice(0, 8)}`], role: "owner" },
      ...over,
    });
    async function session(userId: string) {
      const sessionId = crypto.randomUUID();
      const tokenHash = hash();
      await h.store.startSession({ sessionId, userId, refreshTokenId: crypto.randomUUID(), tokenHash, at });
      return { sessionId, tokenHash };
    }

    test("createUser stores the user, a new organization (first free slug) and the membership; a taken address gives null", async () => {
      const taken = `taken-${crypto.randomUUID().slice(0, 8)}`;
      await h.store.createUser(newUser({ membership: { organization: { id: crypto.randomUUID(), name: "First" }, slugs: [taken], role: "owner" } }));
      const input = newUser({ membership: { organization: { id: crypto.randomUUID(), name: "Second" }, slugs: [taken, `${taken}-b`], role: "admin" } });
      const user = await h.store.createUser(input);
      expect(user).toMatchObject({ id: input.id, email: input.email, passwordHash: input.passwordHash, role: "authenticated", userMetadata: { full_name: "Ada" }, appMetadata: {}, emailConfirmedAt: at, lastSignInAt: null, createdAt: at, updatedAt: at });
      const org = await h.store.findOrganizationBySlugOrName(`${taken}-b`);
      expect(org).toMatchObject({ name: "Second", slug: `${taken}-b` });
      expect(await h.store.memberships(input.id)).toEqual([{ organizationId: org!.id, role: "admin" }]);
      expect(await h.store.organizationExists(org!.id)).toBe(true);
      expect(await h.store.organizationExists(crypto.randomUUID())).toBe(false);

      const before = await h.store.listUsers({ limit: 1000, offset: 0 });
      expect(await h.store.createUser(newUser({ email: input.email }))).toBeNull();
      expect((await h.store.listUsers({ limit: 1000, offset: 0 })).length).toBe(before.length);
    });

    test("createUser can join an existing organization with a role", async () => {
      const org = await h.fixtures.organization();
      const input = newUser({ membership: { organizationId: org, role: "viewer" } });
      await h.store.createUser(input);
      expect(await h.store.memberships(input.id)).toEqual([{ organizationId: org, role: "viewer" }]);
    });

    test("createUser with an unknown organization changes nothing", async () => {
      const input = newUser({ membership: { organizationId: crypto.randomUUID(), role: "member" } });
      await expect(h.store.createUser(input)).rejects.toThrow();
      expect(await h.store.userById(input.id)).toBeNull();
    });

    test("findUserByEmail matches whatever the case of the stored address; userById; unknown → null", async () => {
      const input = newUser({ email: `Mixed.Case-${crypto.randomUUID().slice(0, 8)}@Example.com` });
      await h.store.createUser(input);
      expect((await h.store.findUserByEmail(input.email.toLowerCase()))?.id).toBe(input.id);
      expect((await h.store.userById(input.id))?.email).toBe(input.email);
      expect(await h.store.createUser(newUser({ email: input.email.toLowerCase() }))).toBeNull();
      expect(await h.store.findUserByEmail(`nobody-${crypto.randomUUID()}@example.com`)).toBeNull();
      // A row written before addresses were NFC-normalized is found by the canonical spelling.
      const nfc = `jos\u00e9-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const old = newUser({ email: nfc.normalize("NFD") });
      await h.store.createUser(old);
      expect((await h.store.findUserByEmail(nfc))?.id).toBe(old.id);
      expect(await h.store.userById(crypto.randomUUID())).toBeNull();
    });

    test("updateUser sets the given fields; unknown → null", async () => {
      const input = newUser();
      await h.store.createUser(input);
      const next = email();
      const updated = await h.store.updateUser({ id: input.id, patch: { email: next, userMetadata: { a: 1 }, updatedAt: later(5) } });
      expect(updated).toMatchObject({ email: next, userMetadata: { a: 1 }, passwordHash: input.passwordHash, updatedAt: later(5) });
      expect(await h.store.updateUser({ id: crypto.randomUUID(), patch: { updatedAt: later(5) } })).toBeNull();
    });

    test("listUsers pages by creation time; removeUser by id removes once", async () => {
      const b = newUser({ at: "2000-01-01T00:00:01.000Z" });
      await h.store.createUser(b);
      // A member of b's organization (an owner of its own would be its last owner: never removed).
      const a = newUser({ at: "2000-01-01T00:00:00.000Z", membership: { organizationId: (await h.store.memberships(b.id))[0]!.organizationId, role: "member" } });
      await h.store.createUser(a);
      expect((await h.store.listUsers({ limit: 2, offset: 0 })).map((u) => u.id)).toEqual([a.id, b.id]);
      expect((await h.store.listUsers({ limit: 1, offset: 1 })).map((u) => u.id)).toEqual([b.id]);
      expect(await h.store.removeUser({ id: a.id })).toEqual({ kind: "removed", id: a.id });
      expect(await h.store.removeUser({ id: a.id })).toEqual({ kind: "unknown" });
      expect(await h.store.removeUser({ id: "not-a-uuid" })).toEqual({ kind: "unknown" });
      expect(await h.store.userById(a.id)).toBeNull();
    });

    test("one-time tokens: used once by the link's hash or by the user's code, not after expiry, not by another user; a new one replaces the unused one", async () => {
      const input = newUser();
      const user = (await h.store.createUser(input))!.id;
      const other = (await h.store.createUser(newUser()))!.id;
      const hash = () => crypto.randomUUID();
      const issue = async (tokenHash: string, otpHash: string, expiresAt = "2030-01-01T00:00:00.000Z") => h.store.createOneTimeToken({ userId: user, type: "recovery", tokenHash, otpHash, at: "2026-01-01T00:00:00.000Z", expiresAt });
      const byLink = (tokenHash: string, at = "2026-01-01T00:10:00.000Z") => h.store.consumeOneTimeToken({ type: "recovery", tokenHash, at });
      const byCode = (userId: string, otpHash: string, at = "2026-01-01T00:10:00.000Z") => h.store.consumeOneTimeToken({ type: "recovery", userId, otpHash, at });

      const [link1, code1] = [hash(), hash()];
      await issue(link1, code1);
      expect(await h.store.consumeOneTimeToken({ type: "invite", tokenHash: link1, at: "2026-01-01T00:10:00.000Z" })).toBeNull();
      expect(await byLink(link1)).toBe(user);
      expect(await byLink(link1)).toBeNull();
      expect(await byCode(user, code1)).toBeNull();

      const [link2, code2] = [hash(), hash()];
      await issue(link2, code2);
      expect(await byCode(other, code2)).toBeNull();
      expect(await byCode(user, code2)).toBe(user);
      expect(await byLink(link2)).toBeNull();

      const [link3, code3] = [hash(), hash()];
      await issue(link3, code3, "2026-01-01T01:00:00.000Z");
      expect(await byLink(link3, "2026-01-01T01:00:00.000Z")).toBeNull();

      const [link4, code4] = [hash(), hash()];
      const [link5, code5] = [hash(), hash()];
      await issue(link4, code4);
      await issue(link5, code5);
      expect(await byLink(link4)).toBeNull();
      expect(await byCode(user, code5)).toBe(user);
      // Two uses at once: one wins.
      const [link6, code6] = [hash(), hash()];
      await issue(link6, code6);
      const outcomes = await Promise.all([byLink(link6), byLink(link6), byCode(user, code6)]);
      expect(outcomes.filter((o) => o === user)).toHaveLength(1);
    });

    test("startSession makes a live session and records the sign-in", async () => {
      const input = newUser();
      await h.store.createUser(input);
      const { sessionId } = await session(input.id);
      expect(await h.store.sessionById(sessionId)).toEqual({ revokedAt: null, userId: input.id });
      expect((await h.store.userById(input.id))!.lastSignInAt).toBe(at);
      expect(await h.store.sessionById(crypto.randomUUID())).toBeNull();
    });

    test("rotateRefreshToken: a live token rotates once; its successor rotates; unknown → not_found", async () => {
      const input = newUser();
      await h.store.createUser(input);
      const { sessionId, tokenHash } = await session(input.id);
      const second = hash();
      expect(await h.store.rotateRefreshToken({ tokenHash, newTokenId: crypto.randomUUID(), newTokenHash: second, at: later(1000), reuseIntervalMs: 10_000 })).toEqual({ kind: "rotated", userId: input.id, sessionId });
      expect(await h.store.rotateRefreshToken({ tokenHash: second, newTokenId: crypto.randomUUID(), newTokenHash: hash(), at: later(2000), reuseIntervalMs: 10_000 })).toEqual({ kind: "rotated", userId: input.id, sessionId });
      expect(await h.store.rotateRefreshToken({ tokenHash: hash(), newTokenId: crypto.randomUUID(), newTokenHash: hash(), at: later(3000), reuseIntervalMs: 10_000 })).toEqual({ kind: "not_found" });
    });

    test("a replaced token used again within the interval gets a sibling; after it, the session is revoked", async () => {
      const input = newUser();
      await h.store.createUser(input);
      const { sessionId, tokenHash } = await session(input.id);
      await h.store.rotateRefreshToken({ tokenHash, newTokenId: crypto.randomUUID(), newTokenHash: hash(), at: later(0), reuseIntervalMs: 10_000 });
      const sibling = hash();
      // Two tabs refreshing at once: the old token still works for the interval.
      expect(await h.store.rotateRefreshToken({ tokenHash, newTokenId: crypto.randomUUID(), newTokenHash: sibling, at: later(10_000), reuseIntervalMs: 10_000 })).toEqual({ kind: "rotated", userId: input.id, sessionId });
      expect(await h.store.sessionById(sessionId)).toMatchObject({ revokedAt: null });
      // Later, its reuse means it leaked: the whole session ends, its tokens too.
      expect(await h.store.rotateRefreshToken({ tokenHash, newTokenId: crypto.randomUUID(), newTokenHash: hash(), at: later(10_001), reuseIntervalMs: 10_000 })).toEqual({ kind: "reused" });
      expect((await h.store.sessionById(sessionId))!.revokedAt).toBe(later(10_001));
      expect(await h.store.rotateRefreshToken({ tokenHash: sibling, newTokenId: crypto.randomUUID(), newTokenHash: hash(), at: later(10_002), reuseIntervalMs: 10_000 })).toEqual({ kind: "not_found" });
    });

    test("revokeSessions: one session, all of a user's but one, or all; revoked tokens no longer rotate", async () => {
      const input = newUser();
      await h.store.createUser(input);
      const a = await session(input.id);
      const b = await session(input.id);
      const c = await session(input.id);
      await h.store.revokeSessions({ sessionId: a.sessionId, at: later(1) });
      expect((await h.store.sessionById(a.sessionId))!.revokedAt).toBe(later(1));
      expect((await h.store.sessionById(b.sessionId))!.revokedAt).toBeNull();
      expect(await h.store.rotateRefreshToken({ tokenHash: a.tokenHash, newTokenId: crypto.randomUUID(), newTokenHash: hash(), at: later(2), reuseIntervalMs: 10_000 })).toEqual({ kind: "not_found" });

      await h.store.revokeSessions({ userId: input.id, exceptSessionId: c.sessionId, at: later(3) });
      expect((await h.store.sessionById(a.sessionId))!.revokedAt).toBe(later(1)); // already revoked: kept
      expect((await h.store.sessionById(b.sessionId))!.revokedAt).toBe(later(3));
      expect((await h.store.sessionById(c.sessionId))!.revokedAt).toBeNull();

      await h.store.revokeSessions({ userId: input.id, at: later(4) });
      expect((await h.store.sessionById(c.sessionId))!.revokedAt).toBe(later(4));
    });

    test("findOrganizationBySlugOrName matches either exactly; unknown → null", async () => {
      const name = `Org ${crypto.randomUUID().slice(0, 8)}`;
      const id = await h.fixtures.organization(name);
      expect((await h.store.findOrganizationBySlugOrName(name))?.id).toBe(id);
      expect((await h.store.findOrganizationBySlugOrName(name.toLowerCase()))?.id).toBe(id); // the harness's slug
      expect(await h.store.findOrganizationBySlugOrName(`missing-${crypto.randomUUID()}`)).toBeNull();
      expect(await h.store.memberships(crypto.randomUUID())).toEqual([]);
    });

    test("pruneEnded deletes sessions revoked before `before` (their refresh tokens with them) and links used or expired before it; live ones stay", async () => {
      const user = newUser();
      await h.store.createUser(user);
      const session = (revokedAt: string | null) => {
        const s = { sessionId: crypto.randomUUID(), refreshTokenId: crypto.randomUUID() };
        return { ...s, revokedAt };
      };
      const ended = session("2020-01-01T00:00:00.000Z");
      const alsoEnded = session("2020-01-02T00:00:00.000Z");
      const live = session(null);
      for (const s of [ended, alsoEnded, live]) await h.store.startSession({ sessionId: s.sessionId, userId: user.id, refreshTokenId: s.refreshTokenId, tokenHash: `hash-${s.refreshTokenId}`, at });
      for (const s of [ended, alsoEnded]) await h.inspect("UPDATE " + (h.backend === "postgres" ? "auth.sessions" : "sessions") + " SET revoked_at = ? WHERE id = ?", s.revokedAt, s.sessionId);
      await h.store.createOneTimeToken({ userId: user.id, type: "recovery", tokenHash: `old-${user.id}`, otpHash: `otp-old-${user.id}`, at: "2020-01-01T00:00:00.000Z", expiresAt: "2020-01-01T01:00:00.000Z" });
      await h.store.createOneTimeToken({ userId: user.id, type: "invite", tokenHash: `old2-${user.id}`, otpHash: `otp-old2-${user.id}`, at: "2020-01-01T00:00:00.000Z", expiresAt: "2020-01-01T01:00:00.000Z" });
      await h.store.createOneTimeToken({ userId: user.id, type: "confirmation", tokenHash: `new-${user.id}`, otpHash: `otp-new-${user.id}`, at, expiresAt: "2999-01-01T00:00:00.000Z" });
      // At most `limit` of each kind a call: of two ended sessions and two expired links, one of each.
      const mine = async () => (await h.inspect<{ n: number | string }>(`SELECT (SELECT count(*) FROM ${h.backend === "postgres" ? "auth.sessions" : "sessions"} WHERE user_id = ?) + (SELECT count(*) FROM ${h.backend === "postgres" ? "auth.one_time_tokens" : "one_time_tokens"} WHERE user_id = ?) AS n`, user.id, user.id))[0]!.n;
      expect(Number(await mine())).toBe(6);
      await h.store.pruneEnded({ before: "2021-01-01T00:00:00.000Z", limit: 1 });
      expect(Number(await mine())).toBeGreaterThanOrEqual(4);
      while ((await h.store.pruneEnded({ before: "2021-01-01T00:00:00.000Z", limit: 1000 })) > 0);
      expect(await h.store.sessionById(ended.sessionId)).toBeNull();
      expect(await h.store.sessionById(alsoEnded.sessionId)).toBeNull();
      expect(await h.store.sessionById(live.sessionId)).not.toBeNull();
      const tokens = h.backend === "postgres" ? "auth.one_time_tokens" : "one_time_tokens";
      const refresh = h.backend === "postgres" ? "auth.refresh_tokens" : "refresh_tokens";
      expect((await h.inspect<{ token_hash: string }>(`SELECT token_hash FROM ${tokens} WHERE user_id = ?`, user.id)).map((t) => t.token_hash)).toEqual([`new-${user.id}`]);
      expect((await h.inspect<{ id: string }>(`SELECT id FROM ${refresh} WHERE user_id = ?`, user.id)).map((r) => r.id)).toEqual([live.refreshTokenId]);
    });

    test("listUsersWithOrganizations and removeUser by address or id (never an organization's last owner)", async () => {
      const owner = newUser();
      await h.store.createUser(owner);
      const orgId = (await h.store.memberships(owner.id))[0]!.organizationId;
      const member = newUser({ membership: { organizationId: orgId, role: "member" } });
      await h.store.createUser(member);
      const listed = await h.store.listUsersWithOrganizations();
      expect(listed.find((u) => u.id === owner.id)).toMatchObject({ email: owner.email, orgs: "Ada's organization (owner)", created_at: at });

      expect(await h.store.removeUser({ email: owner.email })).toEqual({ kind: "last_owner", organizations: ["Ada's organization"] });
      expect(await h.store.removeUser({ id: owner.id })).toEqual({ kind: "last_owner", organizations: ["Ada's organization"] });
      expect(await h.store.userById(owner.id)).not.toBeNull();
      expect(await h.store.removeUser({ email: member.email })).toEqual({ kind: "removed", id: member.id });
      expect(await h.store.userById(member.id)).toBeNull();
      expect(await h.store.removeUser({ email: member.email })).toEqual({ kind: "unknown" });
    });
  });
}
