// The client report store's contract (src/client-report/store.ts), for every backend.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientReportStore } from "../../src/client-report/store";
import type { Harness } from "./harness";

export function describeClientReportStoreContract(name: string, make: () => Promise<Harness & { store: ClientReportStore }>) {
  describe(`ClientReportStore contract (${name})`, () => {
    let h: Harness & { store: ClientReportStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    test("header: the brand with its slug and its organization's name and logo; null when unknown or not a uuid", async () => {
      const org = await h.fixtures.organization(`Agency ${crypto.randomUUID().slice(0, 6)}`);
      const brand = await h.fixtures.brand(org, `Brand ${crypto.randomUUID().slice(0, 8)}`);
      const header = await h.store.header(brand);
      expect(header!.brand.id).toBe(brand);
      expect(header!.brand.organization_id).toBe(org);
      expect(header!.brand.name).toStartWith("Brand ");
      expect(header!.brand.slug).toBe(header!.brand.name.toLowerCase());
      expect(header!.organization).toMatchObject({ id: org, logo: null });
      expect(header!.organization.name).toStartWith("Agency ");
      await h.inspect("UPDATE organizations SET logo = ? WHERE id = ?", "data:image/png;base64,AAAA", org);
      expect((await h.store.header(brand))!.organization.logo).toBe("data:image/png;base64,AAAA");
      expect(await h.store.header(crypto.randomUUID())).toBeNull();
      expect(await h.store.header("not-a-uuid")).toBeNull();
    });

    test("topics: the brand's, by name", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      const other = await h.fixtures.brand(org);
      const pricing = await h.fixtures.topic(brand, "Pricing");
      const alternatives = await h.fixtures.topic(brand, "Alternatives");
      await h.fixtures.topic(other, "Elsewhere");
      expect(await h.store.topics(brand)).toEqual([{ id: alternatives, name: "Alternatives" }, { id: pricing, name: "Pricing" }]);
      expect(await h.store.topics("not-a-uuid")).toEqual([]);
    });

    test("openSuggestions: new, accepted and in progress only; high, medium, low; newest first within a priority; at most `limit`", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      const other = await h.fixtures.brand(org);
      const rows: [string, string, string, string][] = [
        ["low new", "low", "new", "2026-01-05T00:00:00.000Z"],
        ["high old", "high", "accepted", "2026-01-01T00:00:00.000Z"],
        ["high new", "high", "in_progress", "2026-01-03T00:00:00.000Z"],
        ["medium", "medium", "new", "2026-01-02T00:00:00.000Z"],
        ["dismissed", "high", "dismissed", "2026-01-06T00:00:00.000Z"],
        ["done", "high", "done", "2026-01-06T00:00:00.000Z"],
        ["sent", "high", "sent", "2026-01-06T00:00:00.000Z"],
      ];
      for (const [i, [title, priority, status, at]] of rows.entries())
        await h.inspect("INSERT INTO suggestions (brand_id, type, key, title, detail, priority, status, created_at) VALUES (?, 'manual', ?, ?, ?, ?, ?, ?)", brand, `k${i}`, title, i === 0 ? "why" : null, priority, status, at);
      await h.inspect("INSERT INTO suggestions (brand_id, type, key, title, priority, status) VALUES (?, 'manual', 'x', 'elsewhere', 'high', 'new')", other);
      const open = await h.store.openSuggestions(brand, 10);
      expect(open.map((s) => s.title)).toEqual(["high new", "high old", "medium", "low new"]);
      expect(open[3]).toMatchObject({ type: "manual", title: "low new", detail: "why", priority: "low", status: "new", created_at: "2026-01-05T00:00:00.000Z" });
      expect(Object.keys(open[0]!).sort()).toEqual(["created_at", "detail", "id", "priority", "status", "title", "type"]);
      expect((await h.store.openSuggestions(brand, 2)).map((s) => s.title)).toEqual(["high new", "high old"]);
      expect(await h.store.openSuggestions("not-a-uuid", 10)).toEqual([]);
    });
  });
}
