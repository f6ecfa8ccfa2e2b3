// The pixel store's contract (src/pixel/store.ts), for every backend.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OTHER_PAGES, type PixelStore, type PixelStoreOptions, type TrafficRow } from "../../src/pixel/store";
import type { Harness } from "./harness";

export function describePixelStoreContract(name: string, make: () => Promise<Harness & { store: PixelStore; storeWith(options: PixelStoreOptions): PixelStore }>) {
  describe(`PixelStore contract (${name})`, () => {
    let h: Harness & { store: PixelStore; storeWith(options: PixelStoreOptions): PixelStore };
    beforeAll(async () => void (h = await make()));
    afterAll(async () => {
      await h.store.close();
      await h.close();
    });

    let serial = 0;
    const row = (brandId: string, over: Partial<TrafficRow> = {}): TrafficRow => {
      const n = ++serial;
      return {
        id: Bun.randomUUIDv7(),
        brandId,
        url: `https://acme.com/p/${n}?utm_source=chatgpt.com`,
        path: `/p/${n}`,
        referrerHost: "chatgpt.com",
        sourcePlatform: "chatgpt",
        utmSource: "chatgpt.com",
        visitorHash: `visitor-${n}`,
        country: null,
        language: "en-US",
        screen: "1280x720",
        userAgentFamily: "Chrome",
        createdAt: new Date(Date.UTC(2026, 10, 20, 8, 0, n)).toISOString(),
        ...over,
      };
    };
    // The interface's columns by name: a backend may keep more (Postgres adds organization_id).
    const stored = (brandId: string) =>
      h.inspect<Record<string, unknown>>(
        "SELECT id, brand_id, url, path, referrer_host, source_platform, utm_source, visitor_hash, country, language, screen, user_agent_family, created_at FROM ai_traffic_logs WHERE brand_id = ? ORDER BY created_at, id",
        brandId,
      );
    async function brand(options?: { domains?: string[]; respectDnt?: boolean }) {
      const org = await h.fixtures.organization();
      return { org, ...(await h.fixtures.trackedBrand(org, options)) };
    }

    test("brandByTrackingCode: the brand with its domains as entered and its DNT choice; null for an unknown code", async () => {
      const a = await brand({ domains: ["WWW.Acme.com", "shop.acme.com"], respectDnt: true });
      const found = await h.store.brandByTrackingCode(a.trackingCode);
      expect({ ...found!, domains: found!.domains.sort() }).toEqual({ id: a.id, domains: ["WWW.Acme.com", "shop.acme.com"].sort(), respectDnt: true });
      const bare = await brand();
      expect(await h.store.brandByTrackingCode(bare.trackingCode)).toEqual({ id: bare.id, domains: [], respectDnt: false });
      expect(await h.store.brandByTrackingCode("aw_000000000000000000000000")).toBeNull();
    });

    test("brandOrganization: the brand's organization; null for an unknown brand", async () => {
      const a = await brand();
      expect(await h.store.brandOrganization(a.id)).toBe(a.org);
      expect(await h.store.brandOrganization(crypto.randomUUID())).toBeNull();
    });

    test("appendBeacons stores every field, failing nothing; an empty call is answered too", async () => {
      const a = await brand({ domains: ["acme.com"] });
      const rows = [row(a.id), row(a.id, { referrerHost: null, sourcePlatform: null, utmSource: null, language: null, screen: null, country: "DE" })];
      expect(await h.store.appendBeacons(rows)).toEqual(new Map());
      expect(await h.store.appendBeacons([])).toEqual(new Map());
      expect(await stored(a.id)).toEqual(
        rows.map((r) => ({ id: r.id, brand_id: a.id, url: r.url, path: r.path, referrer_host: r.referrerHost, source_platform: r.sourcePlatform, utm_source: r.utmSource, visitor_hash: r.visitorHash, country: r.country, language: r.language, screen: r.screen, user_agent_family: r.userAgentFamily, created_at: r.createdAt })),
      );
    });

    test("a NUL character in a field is stored (as U+FFFD on Postgres, whose text cannot hold it) and fails nothing", async () => {
      const a = await brand();
      const rows = [row(a.id, { path: "/a\u0000b", screen: "\u0000" }), row(a.id)];
      expect(await h.store.appendBeacons(rows)).toEqual(new Map());
      const kept = h.backend === "postgres" ? "\uFFFD" : "\u0000";
      const got = await stored(a.id);
      expect(got.map((r) => r.path).sort()).toEqual([`/a${kept}b`, rows[1]!.path].sort());
      expect(got.find((r) => r.path === `/a${kept}b`)!.screen).toBe(kept);
    });

    test("a row whose brand does not exist fails alone, by its index, naming the foreign key; a repeated id fails alone too", async () => {
      const a = await brand();
      const first = row(a.id);
      const failed = await h.store.appendBeacons([first, row(crypto.randomUUID()), row(a.id), { ...first }]);
      expect([...failed.keys()]).toEqual([1, 3]);
      expect(failed.get(1)).toContain("FOREIGN KEY");
      expect(await stored(a.id)).toHaveLength(2);
    });

    test("concurrent calls (sharing commits) each settle with their own rows written; a large batch in one call", async () => {
      const a = await brand();
      const batches = Array.from({ length: 20 }, () => Array.from({ length: 50 }, () => row(a.id)));
      const results = await Promise.all(batches.map((rows) => h.store.appendBeacons(rows)));
      expect(results.every((r) => r.size === 0)).toBe(true);
      expect(await stored(a.id)).toHaveLength(1000);
      const b = await brand();
      expect(await h.store.appendBeacons(Array.from({ length: 5000 }, () => row(b.id)))).toEqual(new Map());
      expect(await stored(b.id)).toHaveLength(5000);
    });

    test("a brand keeps maxPageKeys landing pages (platform × path); past them a new page's visits are stored as OTHER_PAGES, url intact; known pages, other brands and visits from no assistant are untouched", async () => {
      const capped = h.storeWith({ maxPageKeys: 3 });
      try {
        const a = await brand();
        const b = await brand();
        const visit = (brandId: string, path: string, platform: string | null = "chatgpt") =>
          row(brandId, { path, url: `https://acme.com${path}`, sourcePlatform: platform, referrerHost: platform && `${platform}.com`, utmSource: null });
        // One batch, five new pages (one twice) for a brand with room for three: the first three to come are kept.
        const first = [visit(a.id, "/p5"), visit(a.id, "/p1"), visit(a.id, "/p5"), visit(a.id, "/p4"), visit(a.id, "/p2"), visit(a.id, "/p3"), visit(a.id, "/direct", null)];
        expect(await capped.appendBeacons(first)).toEqual(new Map());
        // A later batch: a known page stays; a new page, on another platform too, goes under OTHER_PAGES; another brand has its own room.
        const second = [visit(a.id, "/p1"), visit(a.id, "/p6"), visit(a.id, "/p1", "perplexity"), visit(b.id, "/p6"), visit(a.id, "/direct-2", null)];
        expect(await capped.appendBeacons(second)).toEqual(new Map());
        const rows = await stored(a.id);
        const pathOf = (r: TrafficRow) => rows.find((s) => s.id === r.id)!.path;
        expect([...first, ...second.filter((r) => r.brandId === a.id)].map(pathOf)).toEqual(["/p5", "/p1", "/p5", "/p4", OTHER_PAGES, OTHER_PAGES, "/direct", "/p1", OTHER_PAGES, OTHER_PAGES, "/direct-2"]);
        // The page itself is still in the row's url.
        expect(rows.filter((r) => r.path === OTHER_PAGES).map((r) => r.url).sort()).toEqual(["https://acme.com/p1", "https://acme.com/p2", "https://acme.com/p3", "https://acme.com/p6"]);
        expect((await stored(b.id)).map((r) => r.path)).toEqual(["/p6"]);
        const keys = await h.inspect<{ platform: string; path: string }>("SELECT platform, path FROM traffic_page_totals_keys WHERE brand_id = ? ORDER BY platform, path", a.id);
        expect(keys.map((k) => `${k.platform} ${k.path}`)).toEqual([`chatgpt ${OTHER_PAGES}`, "chatgpt /p1", "chatgpt /p4", "chatgpt /p5", `perplexity ${OTHER_PAGES}`]);
      } finally {
        await capped.close();
      }
    });

    test("close() lets the writes under way finish; then appendBeacons rejects", async () => {
      const a = await brand();
      const pending = h.store.appendBeacons([row(a.id), row(a.id)]);
      await h.store.close();
      expect(await pending).toEqual(new Map());
      expect(await stored(a.id)).toHaveLength(2);
      await expect(h.store.appendBeacons([row(a.id)])).rejects.toThrow();
      // Reads still answer.
      expect(await h.store.brandOrganization(a.id)).toBe(a.org);
    });
  });
}
