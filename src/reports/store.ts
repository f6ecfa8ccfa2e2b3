// What the reports (registry.ts) read, and how they ask for it. Backend implementations:
// store.sqlite.ts (and, with #29, store.pg.ts); the contract both must keep is
// tests/contracts/reports.contract.ts.

/** Visits and distinct visitors of a day and platform: platform '' is a page view no assistant sent, '*' (visitors only) any assistant. */
export type TrafficCell = { day: string; platform: string; visits: number; visitors: number };
export type LandingPageCell = { path: string; platform: string; visits: number };

/** Day ranges are [from, to) of YYYY-MM-DD days; month ranges [from, to) of YYYY-MM months; raw ranges [from, to) of ISO instants. */
export type Range = [from: string, to: string];

export interface ReportsStore {
  /**
   * The brand's AI-traffic visits and visitors per (day, platform): the whole days of the `days`
   * ranges from the daily rollups, the whole weeks of `weeks` (from Monday to an excluded Monday) from
   * the weekly ones as cells of their Monday, the instants of `raw` from the visits themselves.
   */
  trafficCells(input: { brandId: string; days: Range[]; weeks: Range | null; raw: Range[] }): Promise<TrafficCell[]>;
  /**
   * The brand's AI-referred visits per (landing path, platform) with any: the whole days of `days`
   * (null: none) from the running totals, two seeks per page whatever its length, and the instants of `raw`.
   */
  landingPageCells(input: { brandId: string; days: Range | null; raw: Range[] }): Promise<LandingPageCell[]>;
}
