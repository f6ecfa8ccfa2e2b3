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

export interface PixelStore {
  brandByTrackingCode(code: string): Promise<TrackedBrand | null>;
  /** The brand's organization, null when the brand is unknown. */
  brandOrganization(brandId: string): Promise<string | null>;
  /**
   * Inserts the rows in one transaction and resolves once it is durably committed (calls made
   * meanwhile may share that commit), with the rows that failed by index and why; a row whose brand
   * no longer exists fails with a reason containing "FOREIGN KEY". Rejects once the store is closed.
   */
  appendBeacons(rows: TrafficRow[]): Promise<Map<number, string>>;
  /** Finishes the writes under way and releases the writer (shutdown). */
  close(): Promise<void>;
}
