// What the pixel keeps (ai_traffic_logs rows, one per accepted beacon) and reads (the brand behind a
// tracking code), and how it asks for it. Backend implementations: store.sqlite.ts (and, with #29,
// store.pg.ts); the contract both must keep is tests/contracts/pixel.contract.ts.

export interface TrafficRow {
  id: string;
  brandId: string;
  url: string;
  path: string;
  referrerHost: string | null;
  sourcePlatform: string | null;
  utmSource: string | null;
  visitorHash: string;
  country: string | null;
  language: string | null;
  screen: string | null;
  userAgentFamily: string;
  createdAt: string;
}

/** The brand a tracking code names, with its domains as entered (not normalized). */
export interface TrackedBrand {
  id: string;
  domains: string[];
  respectDnt: boolean;
}

/**
 * Where an AI-referred visit's landing page is kept once its brand holds `maxPageKeys` pages (by
 * platform and path) already: anyone holding a tracking code could otherwise add pages without end
 * (forged beacons), and the traffic report reads every page the brand has. No URL path looks like
 * this (a path starts with "/"); the row's url keeps the page.
 */
export const OTHER_PAGES = "(other)";
/** How a store names a row the database refused for what it holds (a value no check foresaw): that row fails alone, with a 400. */
export const ROW_REFUSED = "refused by the database";
/** Landing pages (platform × path) a brand keeps before new ones are counted under OTHER_PAGES. */
export const DEFAULT_MAX_PAGE_KEYS = 10_000;

export interface PixelStoreOptions {
  maxPageKeys?: number;
}

export interface PixelStore {
  brandByTrackingCode(code: string): Promise<TrackedBrand | null>;
  /** The brand's organization, null when the brand is unknown. */
  brandOrganization(brandId: string): Promise<string | null>;
  /**
   * Inserts the rows in one transaction and resolves once it is durably committed (calls made
   * meanwhile may share that commit), with the rows that failed by index and why; a row whose brand
   * no longer exists fails with a reason containing "FOREIGN KEY". Rejects once the store is closed.
   * An AI-referred row whose (platform, path) its brand does not hold yet, once the brand holds
   * maxPageKeys of them, is stored with path OTHER_PAGES.
   */
  appendBeacons(rows: TrafficRow[]): Promise<Map<number, string>>;
  /** Finishes the writes under way and releases the writer (shutdown). */
  close(): Promise<void>;
}
