import { createPgAuthStore } from "../../src/platform/auth/store.pg";
import { describeAuthStoreContract } from "./auth.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeAuthStoreContract("postgres", async () => ({ ...h, store: createPgAuthStore(h.pg.sql) }));

// What only a shared database asks of the store: several instances calling at the same moment.
// A database of its own (the contract's harness is closed when its suite ends).
const c = await pgHarness();
if (c) {
  const { afterAll, describe, expect, test } = await import("bun:test");
  const store = createPgAuthStore(c.pg.sql);
  afterAll(() => c.close());
  const at = "2026-03-01T10:00:00.000Z";
  const hash = () => new Bun.CryptoHasher("sha256").update(crypto.randomUUID()).digest("hex");
  const newUser = (email: string, slugs = [`race-${crypto.randomUUID().slice(0, 8)}`], organizationId?: string) => ({
    id: crypto.randomUUID(),
    email,
    passwordHash: "$argon2id$not-a-real-hash",
    userMetadata: {},
    appMetadata: {},
    emailConfirmedAt: at,
    at,
    membership: organizationId ? { organizationId, role: "owner" as const } : { organization: { id: crypto.randomUUID(), name: "Race" }, slugs, role: "owner" as const },
  });

  describe("AuthStore on Postgres under concurrency", () => {
    test("one live token rotated at once by many instances: a single winner (no reuse interval: every other use is a reuse)", async () => {
      const user = newUser(`rotate-${crypto.randomUUID()}@example.com`);
      await store.createUser(user);
      const sessionId = crypto.randomUUID();
      const tokenHash = hash();
      await store.startSession({ sessionId, userId: user.id, refreshTokenId: crypto.randomUUID(), tokenHash, at });
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, () => store.rotateRefreshToken({ tokenHash, newTokenId: crypto.randomUUID(), newTokenHash: hash(), at, reuseIntervalMs: -1 })),
      );
      expect(outcomes.filter((o) => o.kind === "rotated")).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === "reused")).toHaveLength(1);
      expect((await store.sessionById(sessionId))!.revokedAt).toBe(at);
      const [{ n }] = await c.inspect<{ n: number }>("SELECT count(*)::int AS n FROM auth.refresh_tokens WHERE session_id = ? AND NOT revoked", sessionId);
      expect(n).toBe(0);
    });

    test("the same address signed up at once: one account, the others null", async () => {
      const email = `signup-${crypto.randomUUID()}@example.com`;
      const created = await Promise.all(Array.from({ length: 5 }, () => store.createUser(newUser(email))));
      expect(created.filter((u) => u !== null)).toHaveLength(1);
      const [{ n }] = await c.inspect<{ n: number }>("SELECT count(*)::int AS n FROM auth.users WHERE lower(email) = ?", email);
      expect(n).toBe(1);
    });

    test("the same first slug at once: the constraint sends the second sign-up to its next candidate", async () => {
      const slug = `slug-${crypto.randomUUID().slice(0, 8)}`;
      const [a, b] = await Promise.all([0, 1].map((i) => store.createUser(newUser(`slug-${i}-${crypto.randomUUID()}@example.com`, [slug, `${slug}-${i}`]))));
      const slugs = await Promise.all([a!, b!].map(async (u) => (await c.inspect<{ slug: string }>("SELECT o.slug FROM organizations o JOIN organization_members m ON m.organization_id = o.id WHERE m.user_id = ?", u.id))[0]!.slug));
      expect(slugs).toContain(slug);
      expect(new Set(slugs).size).toBe(2);
    });

    test("two co-owners removed at once: one goes, the other is the last owner", async () => {
      const first = newUser(`owner-a-${crypto.randomUUID()}@example.com`);
      await store.createUser(first);
      const orgId = (await store.memberships(first.id))[0]!.organizationId;
      const second = newUser(`owner-b-${crypto.randomUUID()}@example.com`, [], orgId);
      await store.createUser(second);
      const outcomes = await Promise.all([store.removeUser({ email: first.email }), store.removeUser({ email: second.email })]);
      expect(outcomes.map((o) => o.kind).sort()).toEqual(["last_owner", "removed"]);
    });
  });
}
