// The keys store's contract (src/keys/store.ts), for every backend.
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import type { KeyStore } from "../../src/keys/store";
import type { Harness } from "./harness";

export function describeKeyStoreContract(name: string, make: () => Promise<Harness & { store: KeyStore }>) {
  describe(`KeyStore contract (${name})`, () => {
    let h: Harness & { store: KeyStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    async function seed() {
      const user = await h.fixtures.user();
      const org = await h.fixtures.organization();
      await h.fixtures.member(org, user, "admin");
      return { user, org };
    }
    const hash = () => new Bun.CryptoHasher("sha256").update(crypto.randomUUID()).digest("hex");

    test("create returns the row; findByHash finds it with the creator's email and current role", async () => {
      const { user, org } = await seed();
      const h1 = hash();
      const row = await h.store.create({ organizationId: org, userId: user, name: "ci", role: "member", prefix: "aw_abcdefg", hash: h1, expiresAt: null });
      expect(row).toMatchObject({ organization_id: org, user_id: user, name: "ci", role: "member", prefix: "aw_abcdefg", expires_at: null, last_used_at: null, revoked_at: null });
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      const found = await h.store.findByHash(h1);
      expect(found).toMatchObject({ id: row.id, role: "member", member_role: "admin", revoked_at: null, created_at: row.created_at });
      expect(Date.parse(found!.member_since!)).toBeLessThanOrEqual(Date.parse(row.created_at));
      expect(found!.email).toContain("@example.com");
      expect(await h.store.findByHash(hash())).toBeNull();
    });

    test("findByHash says member_role null once the creator left the organization", async () => {
      const user = await h.fixtures.user();
      const org = await h.fixtures.organization();
      const h1 = hash();
      await h.store.create({ organizationId: org, userId: user, name: "orphan", role: "viewer", prefix: "aw_x", hash: h1, expiresAt: null });
      expect((await h.store.findByHash(h1))!.member_role).toBeNull();
    });

    test("markUsed records the time; revoke sets revoked_at once and keeps the first time", async () => {
      const { user, org } = await seed();
      const row = await h.store.create({ organizationId: org, userId: user, name: "k", role: "admin", prefix: "aw_y", hash: hash(), expiresAt: "2030-01-01T00:00:00.000Z" });
      await h.store.markUsed({ id: row.id, at: "2026-01-02T03:04:05.000Z" });
      expect((await h.store.byId(row.id))!.last_used_at).toBe("2026-01-02T03:04:05.000Z");
      expect((await h.store.revoke({ id: row.id, at: "2026-02-01T00:00:00.000Z" }))!.revoked_at).toBe("2026-02-01T00:00:00.000Z");
      expect((await h.store.revoke({ id: row.id, at: "2026-03-01T00:00:00.000Z" }))!.revoked_at).toBe("2026-02-01T00:00:00.000Z");
      expect(await h.store.revoke({ id: crypto.randomUUID(), at: "2026-03-01T00:00:00.000Z" })).toBeNull();
      expect(await h.store.byId(crypto.randomUUID())).toBeNull();
    });

    test("listVisible: own keys and the given organizations' keys, newest first, nothing else", async () => {
      const a = await seed();
      const b = await seed();
      const stranger = await seed();
      const own = await h.store.create({ organizationId: a.org, userId: a.user, name: "own", role: "member", prefix: "aw_1", hash: hash(), expiresAt: null });
      await Bun.sleep(2);
      const managed = await h.store.create({ organizationId: b.org, userId: b.user, name: "managed", role: "member", prefix: "aw_2", hash: hash(), expiresAt: null });
      await h.store.create({ organizationId: stranger.org, userId: stranger.user, name: "other", role: "member", prefix: "aw_3", hash: hash(), expiresAt: null });
      expect((await h.store.listVisible({ userId: a.user, organizationIds: [b.org] })).map((k) => k.id)).toEqual([managed.id, own.id]);
      expect((await h.store.listVisible({ userId: a.user, organizationIds: [] })).map((k) => k.id)).toEqual([own.id]);
    });
  });
}
