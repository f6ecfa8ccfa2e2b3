// What the crawler-log feature keeps (crawler_hits, crawler_bots, and the crawler.first_seen
// webhook event) and how it asks for it. Backend implementations: store.sqlite.ts (and, with #29,
// store.pg.ts); the contract both must keep is tests/contracts/crawlers.contract.ts.

/** One request of a crawler-log record, classified and verified, without its client address. */
export interface CrawlerHit {
  /** ISO 8601, to the millisecond. */
  at: string;
  host: string;
  method: string;
  path: string;
  status: number;
  bytes: number | null;
  userAgent: string;
  refererHost: string | null;
  bot: string | null;
  operator: string | null;
  class: string;
  hit: string;
  verdict: string | null;
  listVersion: string | null;
  /** A keyed hash of the record: the same record sent again has the same key (brand, at, key are unique). */
  recordKey: Uint8Array;
  /**
   * The hit may announce its bot (an AI bot, not spoofed): when it is new and the brand has not
   * seen the bot before, a crawler.first_seen event is recorded with it.
   */
  mayAnnounce: boolean;
}

export interface CrawlerStore {
  /** Ids of the brands with this slug, in the organization named or slugged `organization` when given. */
  brandsBySlug(input: { slug: string; organization: string | null }): Promise<string[]>;
  /** The brand's organization, null when the brand is unknown. */
  brandOrganization(brandId: string): Promise<string | null>;
  /**
   * Stores the hits in one write transaction; a hit whose record was stored before adds nothing.
   * Each new hit that may announce a bot the brand has not seen yet records the bot's first sighting
   * and a crawler.first_seen webhook event (created at `at`) in the same transaction.
   * `accepted` counts the new hits, `events` the events recorded.
   */
  appendHits(input: { brandId: string; hits: CrawlerHit[]; at: string }): Promise<{ accepted: number; events: number }>;
}
