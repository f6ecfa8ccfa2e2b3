// The reports store's contract (src/reports/store.ts), for every backend: page views seeded through
// the fixtures; whole days, weeks and landing pages read from the rollups, instants from the visits, alike.
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import type { ReportsStore } from "../../src/reports/store";
import type { Harness } from "./harness";

const VISITS = [
  { at: "2026-03-01T10:00:00.000Z", path: "/", platform: "chatgpt", visitor: "v1" },
  { at: "2026-03-01T11:00:00.000Z", path: "/", platform: "chatgpt", visitor: "v1" },
  { at: "2026-03-01T12:00:00.000Z", path: "/pricing", platform: "perplexity", visitor: "v2" },
  { at: "2026-03-01T13:00:00.000Z", path: "/", platform: null, visitor: "v3" },
  { at: "2026-03-02T09:00:00.000Z", path: "/pricing", platform: "chatgpt", visitor: "v4" },
  { at: "2026-04-10T09:00:00.000Z", path: "/", platform: "chatgpt", visitor: "v5" },
];

export function describeReportsStoreContract(name: string, make: () => Promise<Harness & { store: ReportsStore }>) {
  describe(`ReportsStore contract (${name})`, () => {
    let h: Harness & { store: ReportsStore };
    let brand: string;
    beforeAll(async () => {
      h = await make();
      brand = await h.fixtures.brand(await h.fixtures.organization());
      for (const v of VISITS) await h.fixtures.visit({ brandId: brand, ...v });
    });
    afterAll(() => h.close());

    const sorted = <T extends object>(rows: T[]) => rows.map((r) => JSON.stringify(r)).sort();
    const MARCH_CELLS = [
      { day: "2026-03-01", platform: "chatgpt", visits: 2, visitors: 1 },
      { day: "2026-03-01", platform: "perplexity", visits: 1, visitors: 1 },
      { day: "2026-03-01", platform: "", visits: 1, visitors: 1 },
      { day: "2026-03-01", platform: "*", visits: 0, visitors: 2 },
      { day: "2026-03-02", platform: "chatgpt", visits: 1, visitors: 1 },
      { day: "2026-03-02", platform: "*", visits: 0, visitors: 1 },
    ];

    test("trafficCells: visits and visitors per day (or whole week) and platform, the same from whole days as from the visits' instants", async () => {
      expect(sorted(await h.store.trafficCells({ brandId: brand, days: [["2026-03-01", "2026-03-03"]], weeks: null, raw: [] }))).toEqual(sorted(MARCH_CELLS));
      expect(sorted(await h.store.trafficCells({ brandId: brand, days: [["2026-03-01", "2026-03-02"], ["2026-03-02", "2026-03-03"]], weeks: null, raw: [] }))).toEqual(sorted(MARCH_CELLS));
      expect(sorted(await h.store.trafficCells({ brandId: brand, days: [], weeks: null, raw: [["2026-03-01T00:00:00.000Z", "2026-03-03T00:00:00.000Z"]] }))).toEqual(sorted(MARCH_CELLS));
      // A whole week (Monday 2026-03-02 to the next Monday) comes as one cell per platform keyed by its Monday; the Sunday before by day.
      expect(sorted(await h.store.trafficCells({ brandId: brand, days: [["2026-03-01", "2026-03-02"]], weeks: ["2026-03-02", "2026-04-13"], raw: [] }))).toEqual(
        sorted([
          ...MARCH_CELLS.filter((c) => c.day === "2026-03-01"),
          { day: "2026-03-02", platform: "chatgpt", visits: 1, visitors: 1 },
          { day: "2026-03-02", platform: "*", visits: 0, visitors: 1 },
          { day: "2026-04-06", platform: "chatgpt", visits: 1, visitors: 1 },
          { day: "2026-04-06", platform: "*", visits: 0, visitors: 1 },
        ]),
      );
      // Part of a day: only the visits inside it.
      expect(sorted(await h.store.trafficCells({ brandId: brand, days: [], weeks: null, raw: [["2026-03-01T11:30:00.000Z", "2026-03-01T12:30:00.000Z"]] }))).toEqual(
        sorted([{ day: "2026-03-01", platform: "perplexity", visits: 1, visitors: 1 }, { day: "2026-03-01", platform: "*", visits: 0, visitors: 1 }]),
      );
      expect(await h.store.trafficCells({ brandId: brand, days: [], weeks: null, raw: [] })).toEqual([]);
      expect(await h.store.trafficCells({ brandId: crypto.randomUUID(), days: [["2026-01-01", "2026-12-31"]], weeks: ["2025-12-29", "2026-12-28"], raw: [] })).toEqual([]);
    });

    test("landingPageCells: AI-referred visits per path and platform from whole days (running totals) and instants alike; other views and empty windows left out", async () => {
      const march = sorted([{ path: "/", platform: "chatgpt", visits: 2 }, { path: "/pricing", platform: "perplexity", visits: 1 }, { path: "/pricing", platform: "chatgpt", visits: 1 }]);
      expect(sorted(await h.store.landingPageCells({ brandId: brand, days: ["2026-03-01", "2026-04-01"], raw: [] }))).toEqual(march);
      expect(sorted(await h.store.landingPageCells({ brandId: brand, days: ["2026-02-01", "2026-03-03"], raw: [] }))).toEqual(march);
      expect(sorted(await h.store.landingPageCells({ brandId: brand, days: null, raw: [["2026-03-01T00:00:00.000Z", "2026-03-03T00:00:00.000Z"]] }))).toEqual(march);
      // A window starting after a page's first days: the running total before its start is taken off.
      expect(sorted(await h.store.landingPageCells({ brandId: brand, days: ["2026-03-02", "2026-05-01"], raw: [] }))).toEqual(sorted([{ path: "/pricing", platform: "chatgpt", visits: 1 }, { path: "/", platform: "chatgpt", visits: 1 }]));
      // Days and instants add up.
      expect(sorted(await h.store.landingPageCells({ brandId: brand, days: ["2026-03-01", "2026-04-01"], raw: [["2026-04-10T00:00:00.000Z", "2026-04-11T00:00:00.000Z"]] }))).toEqual(
        sorted([{ path: "/", platform: "chatgpt", visits: 3 }, { path: "/pricing", platform: "perplexity", visits: 1 }, { path: "/pricing", platform: "chatgpt", visits: 1 }]),
      );
      // Nothing in the window: no rows, not rows of zero.
      expect(await h.store.landingPageCells({ brandId: brand, days: ["2026-03-03", "2026-04-10"], raw: [] })).toEqual([]);
      expect(await h.store.landingPageCells({ brandId: brand, days: null, raw: [] })).toEqual([]);
      expect(await h.store.landingPageCells({ brandId: crypto.randomUUID(), days: ["2026-01-01", "2026-12-31"], raw: [] })).toEqual([]);
    });
  });
}
