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

/**
 * A call's place in a line of calls for one brand that must record first sightings in the caller's
 * order — the importer's batches, written two at a time: a later batch that reached the database
 * first would announce a bot with its later hit, the earlier batch only moving crawler_bots back
 * (the event already sent). The call waits for `after` (the previous call's `taken`) before it
 * starts, and calls `taken` once no later call can record a first sighting before it: on Postgres
 * when it holds the brand's lock, or at once when every bot it could announce is known already; on
 * SQLite (one connection, one call at a time) when it is done.
 * `taken` is called whatever happens (the call failed, had nothing to store), so a line never stalls.
 */
export interface WriteTurn {
  after: Promise<void>;
  taken: () => void;
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
   * `accepted` counts the new hits, `events` the events recorded. With a `turn`, calls record first
   * sightings in the turns' order; without, in whatever order they reach the database.
   */
  appendHits(input: { brandId: string; hits: CrawlerHit[]; at: string; turn?: WriteTurn }): Promise<{ accepted: number; events: number }>;
  /** How many paths (bot × hit kind × path) the brand's crawler path totals list, counted up to `limit`. */
  pathKeyCount(input: { brandId: string; limit: number }): Promise<number>;
  /** Which of `keys` the brand's crawler path totals list already (as PATH_KEY strings). */
  knownPathKeys(input: { brandId: string; keys: { bot: string; hit: string; path: string }[] }): Promise<Set<string>>;
}

/** A crawler path's key as one string (knownPathKeys' answer, the ingest's sets). */
export const pathKey = (k: { bot: string; hit: string; path: string }) => `${k.bot}\u0000${k.hit}\u0000${k.path}`;

/** Where requests for paths past a brand's CRAWLER_MAX_PATHS count (as the pixel's pages past theirs). */
export const OTHER_PATHS = "(other)";
