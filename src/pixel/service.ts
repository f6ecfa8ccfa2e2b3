// The pixel's service: accept or refuse a beacon, turn it into a traffic row, and read the traffic
// report. Everything it depends on (store, report runner, clock, options) comes in through createPixelService.
import { AppError } from "../http/errors";
import { addressKey, createRateLimiter } from "../http/rate-limit";
import type { ApiUser } from "../platform/auth/caller";
import { parseBeacon } from "./beacon";
import { createBrandDirectory, type PixelBrand } from "./brands";
import { createSourceClassifier, createUserAgentReader } from "./classify";
import { createClientAddress } from "../http/client-address";
import { hostAllowed, originHost } from "./origin";
import { ROW_REFUSED, type PixelStore, type TrafficRow } from "./store";
import type { ReportRunner } from "../reports/registry";
import { parseTrafficQuery, type TrafficReport } from "./traffic";
import { createVisitorHasher } from "./visitor";
import { RowNotWrittenError, WriterBusyError, WriterClosedError, createBatchWriter } from "./writer";

export interface PixelOptions {
  /** Beacons per client address per minute. */
  rateLimitPerMinute: number;
  brandCacheTtlMs: number;
  brandCacheMaxEntries: number;
  /** Most rows in one transaction. */
  batchMaxRows: number;
  /** Most rows waiting for the writer before beacons get 503 (backpressure). */
  maxPendingRows: number;
}

export const DEFAULT_PIXEL_OPTIONS: PixelOptions = {
  // A person sends a few beacons a minute; this leaves room for many people behind one NAT.
  rateLimitPerMinute: 600,
  brandCacheTtlMs: 30_000,
  brandCacheMaxEntries: 10_000,
  batchMaxRows: 1000,
  maxPendingRows: 20_000,
};

export interface PixelServiceDeps {
  store: PixelStore;
  /** Where the traffic report runs (a reader thread, or in-process). */
  reports: ReportRunner;
  now?: () => Date;
  options?: Partial<PixelOptions>;
  /** The client behind a request (TRUSTED_PROXIES); default: loopback and private peers are proxies. */
  clientAddress?: (peer: string, forwardedFor: string | null) => string;
}

export interface BeaconRequest {
  body: string;
  origin: string | null;
  userAgent: string | null;
  /** The socket peer's address. */
  peer: string;
  forwardedFor: string | null;
  /** `DNT: 1` or `Sec-GPC: 1` on the request itself. */
  optOutHeader: boolean;
}

export type BeaconOutcome = { stored: true } | { stored: false; reason: "bot" | "opt_out" };

/** Keeps the URL's origin and path and only its utm_* parameters: other query values may be personal. */
function storedUrl(url: URL): string {
  if (!/utm_/i.test(url.search)) return `${url.origin}${url.pathname}`;
  const utm = [...url.searchParams].filter(([key]) => key.toLowerCase().startsWith("utm_"));
  const query = utm.length ? `?${new URLSearchParams(utm)}` : "";
  return `${url.origin}${url.pathname}${query}`;
}

export function createPixelService(deps: PixelServiceDeps) {
  const options = { ...DEFAULT_PIXEL_OPTIONS, ...deps.options };
  const now = deps.now ?? (() => new Date());
  const { store } = deps;
  const brands = createBrandDirectory(store, () => now().getTime(), { ttlMs: options.brandCacheTtlMs, maxEntries: options.brandCacheMaxEntries });
  const limiter = createRateLimiter({ limit: options.rateLimitPerMinute, windowMs: 60_000, now: () => now().getTime() });
  const classifier = createSourceClassifier();
  const readUserAgent = createUserAgentReader();
  const visitorHash = createVisitorHasher({ now });
  const clientAddress = deps.clientAddress ?? createClientAddress();
  const writer = createBatchWriter<TrafficRow>((rows) => store.appendBeacons(rows), { maxRows: options.batchMaxRows, maxPending: options.maxPendingRows, maxInFlight: 4 });

  let lookingUp = 0;
  let lookedUp: (() => void) | undefined;

  async function collect(request: BeaconRequest): Promise<BeaconOutcome> {
    // Cheapest refusals first: the rate limit counts invalid beacons too.
    const client = clientAddress(request.peer, request.forwardedFor);
    // By /64 for IPv6 (addressKey), as sign-ups are: one client holds a whole /64.
    if (!limiter.hit(addressKey(client)))
      throw new AppError(429, "rate_limited", "Too many beacons from this address", { headers: { "retry-after": "60" } });
    const beacon = parseBeacon(request.body);
    const found = brands.lookup(beacon.trackingCode);
    let brand: PixelBrand | null;
    if (found instanceof Promise) {
      // Until its brand is read, a beacon has not reached the writer: close() waits for it. From
      // here to writer.add nothing yields, so close() cannot slip in between.
      lookingUp++;
      try {
        brand = await found;
      } finally {
        if (--lookingUp === 0) lookedUp?.();
      }
    } else brand = found;
    if (!brand) throw new AppError(404, "unknown_tracking_code", "No brand has this tracking code");
    const host = originHost(request.origin);
    if (!host || !hostAllowed(host, brand.domains)) throw new AppError(403, "origin_not_allowed", "The Origin is not a domain of this brand");
    if (!hostAllowed(beacon.url.hostname.replace(/\.$/, ""), brand.domains))
      throw new AppError(403, "url_not_allowed", "The page URL is not on a domain of this brand");

    const userAgent = readUserAgent(request.userAgent);
    if (userAgent.bot) return { stored: false, reason: "bot" };
    if (brand.respectDnt && (beacon.optOut || request.optOutHeader)) return { stored: false, reason: "opt_out" };

    const source = classifier.classify({ pageUrl: beacon.url, referrer: beacon.referrer });
    const createdAt = now().toISOString();
    try {
      await writer.add({
        id: Bun.randomUUIDv7(),
        brandId: brand.id,
        url: storedUrl(beacon.url),
        path: beacon.url.pathname,
        referrerHost: source.referrerHost,
        sourcePlatform: source.platform,
        utmSource: source.utmSource,
        visitorHash: visitorHash(brand.id, client, request.userAgent ?? "", createdAt.slice(0, 10)),
        country: null,
        language: beacon.language,
        screen: beacon.screen,
        userAgentFamily: userAgent.family,
        createdAt,
      });
    } catch (error) {
      if (error instanceof WriterClosedError) throw new AppError(503, "shutting_down", "The server is shutting down", { headers: { "retry-after": "5" } });
      if (error instanceof WriterBusyError) throw new AppError(503, "busy", "Too many beacons are waiting to be written", { headers: { "retry-after": "5" } });
      // The brand was deleted between lookup and write: its rows would be gone anyway.
      if (error instanceof RowNotWrittenError && error.message.includes("FOREIGN KEY"))
        throw new AppError(404, "unknown_tracking_code", "No brand has this tracking code");
      if (error instanceof RowNotWrittenError && error.message.startsWith(ROW_REFUSED))
        throw new AppError(400, "invalid_beacon", "The visit holds a value the database cannot store");
      // The database could not take the row (locked too long, disk full, writer thread died):
      // nothing was stored, and the browser may send it again later.
      throw new AppError(503, "storage_unavailable", "The visit could not be stored now; try again later", { headers: { "retry-after": "5" } });
    }
    return { stored: true };
  }

  async function traffic(caller: ApiUser, brandId: string, query: Record<string, string | undefined>): Promise<TrafficReport> {
    const organization = await store.brandOrganization(brandId);
    // Someone else's brand reads as missing, so ids of other organizations' brands leak nothing.
    if (!organization || !caller.orgRoles.has(organization)) throw new AppError(404, "brand_not_found", "No such brand");
    const q = parseTrafficQuery(query, now());
    return deps.reports("traffic", { brandId, from: q.from.toISOString(), to: q.to.toISOString(), interval: q.interval });
  }

  return {
    collect,
    traffic,
    /** Writes the beacons still waiting, then closes the writer's connection (shutdown). */
    async close(): Promise<void> {
      if (lookingUp) await new Promise<void>((resolve) => (lookedUp = resolve));
      await writer.close();
      await store.close();
    },
  };
}

export type PixelService = ReturnType<typeof createPixelService>;
