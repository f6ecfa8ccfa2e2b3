// The share links store's contract (src/share/store.ts), for every backend.
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import type { ShareStore } from "../../src/share/store";
import type { Harness } from "./harness";

export function describeShareStoreContract(name: string, make: () => Promise<Harness & { store: ShareStore }>) {
  describe(`ShareStore contract (${name})`, () => {
    let h: Harness & { store: ShareStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    async function seed(role = "admin") {
      const user = await h.fixtures.user();
      const org = await h.fixtures.organization();
      await h.fixtures.member(org, user, role);
      const brand = await h.fixtures.brand(org, `Brand ${crypto.randomUUID().slice(0, 8)}`);
      return { user, org, brand };
    }
    const hash = () => new Bun.CryptoHasher("sha256").update(crypto.randomUUID()).digest("hex");

    test("create returns the row without its hash; findByHash finds it with the creator's current role", async () => {
      const { user, org, brand } = await seed("admin");
      const h1 = hash();
      const row = await h.store.create({ brandId: brand, organizationId: org, createdBy: user, hash: h1, prefix: "aws_abcdef", expiresAt: "2030-01-01T00:00:00.000Z" });
      expect(row).toMatchObject({ brand_id: brand, organization_id: org, created_by: user, prefix: "aws_abcdef", expires_at: "2030-01-01T00:00:00.000Z", revoked_at: null });
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.created_at).toBeString();
      expect(JSON.stringify(row)).not.toContain(h1);
      const found = await h.store.findByHash(h1);
      expect(found).toEqual({ id: row.id, brand_id: brand, organization_id: org, created_by: user, expires_at: "2030-01-01T00:00:00.000Z", revoked_at: null, created_at: row.created_at, creator_role: "admin", creator_since: expect.any(String) });
      // The creator's membership began before the link was made.
      expect(Date.parse(found!.creator_since!)).toBeLessThanOrEqual(Date.parse(row.created_at));
      expect(await h.store.findByHash(hash())).toBeNull();
    });

    test("findByHash says creator_role null once the creator left the organization", async () => {
      const user = await h.fixtures.user();
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      const h1 = hash();
      await h.store.create({ brandId: brand, organizationId: org, createdBy: user, hash: h1, prefix: "aws_x", expiresAt: null });
      expect((await h.store.findByHash(h1))!.creator_role).toBeNull();
    });

    test("brand: the brand with its organization; null when unknown", async () => {
      const { org, brand } = await seed();
      expect(await h.store.brand(brand)).toMatchObject({ id: brand, organization_id: org });
      expect((await h.store.brand(brand))!.name).toStartWith("Brand ");
      expect(await h.store.brand(crypto.randomUUID())).toBeNull();
    });

    test("brandView: name and slug, platforms and topics by name; null when unknown", async () => {
      const { brand } = await seed();
      await h.fixtures.brandPlatform(brand, "perplexity");
      await h.fixtures.brandPlatform(brand, "chatgpt");
      const pricing = await h.fixtures.topic(brand, "Pricing");
      const alternatives = await h.fixtures.topic(brand, "Alternatives");
      const view = await h.store.brandView(brand);
      expect(view!.brand.id).toBe(brand);
      expect(Object.keys(view!.brand).sort()).toEqual(["id", "name", "slug"]);
      expect(view!.platforms).toEqual(["chatgpt", "perplexity"]);
      expect(view!.topics).toEqual([{ id: alternatives, name: "Alternatives" }, { id: pricing, name: "Pricing" }]);
      const bare = (await seed()).brand;
      expect(await h.store.brandView(bare)).toMatchObject({ platforms: [], topics: [] });
      expect(await h.store.brandView(crypto.randomUUID())).toBeNull();
    });

    test("listForBrand: that brand's links only, newest first", async () => {
      const { user, org, brand } = await seed();
      const other = await h.fixtures.brand(org);
      const first = await h.store.create({ brandId: brand, organizationId: org, createdBy: user, hash: hash(), prefix: "aws_1", expiresAt: null });
      await Bun.sleep(2);
      const second = await h.store.create({ brandId: brand, organizationId: org, createdBy: user, hash: hash(), prefix: "aws_2", expiresAt: null });
      await h.store.create({ brandId: other, organizationId: org, createdBy: user, hash: hash(), prefix: "aws_3", expiresAt: null });
      expect((await h.store.listForBrand(brand)).map((l) => l.id)).toEqual([second.id, first.id]);
      expect(await h.store.listForBrand(crypto.randomUUID())).toEqual([]);
    });

    test("byId and revoke: revoked once, the first time kept; unknown ids are null", async () => {
      const { user, org, brand } = await seed();
      const row = await h.store.create({ brandId: brand, organizationId: org, createdBy: user, hash: hash(), prefix: "aws_r", expiresAt: null });
      expect(await h.store.byId(row.id)).toEqual(row);
      expect((await h.store.revoke({ id: row.id, at: "2026-02-01T00:00:00.000Z" }))!.revoked_at).toBe("2026-02-01T00:00:00.000Z");
      expect((await h.store.revoke({ id: row.id, at: "2026-03-01T00:00:00.000Z" }))!.revoked_at).toBe("2026-02-01T00:00:00.000Z");
      expect((await h.store.byId(row.id))!.revoked_at).toBe("2026-02-01T00:00:00.000Z");
      expect(await h.store.revoke({ id: crypto.randomUUID(), at: "2026-03-01T00:00:00.000Z" })).toBeNull();
      expect(await h.store.byId(crypto.randomUUID())).toBeNull();
    });
  });
}
