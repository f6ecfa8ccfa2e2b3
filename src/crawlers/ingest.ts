// One normalized record per request, from every source (issue #21): checked, classified, verified,
// stored without its client address, and recognised when sent again (a keyed hash of the record).
import { cutToBytes, MAX_KEY_TEXT_BYTES } from "../common/limits";
import { dayInRange, FIRST_DAY, LAST_DAY } from "../http/date-range";
import { hitKind, identify } from "./classify";
import { OTHER_PATHS, pathKey, type CrawlerHit, type CrawlerStore, type WriteTurn } from "./store";
import type { DnsBudget, Verifier } from "./verify";

export interface CrawlerRecord {
  timestamp: string;
  method: string;
  host?: string;
  path: string;
  status: number;
  ip: string;
  user_agent: string;
  referer?: string | null;
  bytes?: number | null;
}

export interface IngestResult {
  accepted: number;
  duplicates: number;
  errors: { index: number; message: string }[];
}

export const MAX_BATCH = 1000;

/** A user agent is kept to this many UTF-8 bytes (it is a unique key of crawler_agents). */
export const MAX_USER_AGENT_BYTES = 1024;

/**
 * The largest response one request may report (4 GiB): the day, week and month totals sum bytes in a
 * bigint, which 2^31 such records in one bucket would still not fill.
 */
export const MAX_RECORD_BYTES = 2 ** 32;

/** How far past the server's clock a record may be dated (clocks and time zones disagree a little; logs are never from the future). */
export const MAX_FUTURE_MS = 24 * 3_600_000;

// A date-time with no offset: read as UTC, whatever the time zone of the machine importing it.
const NO_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;

function timestampOf(value: unknown): Date | null {
  if (typeof value === "number") return new Date(value < 1e12 ? value * 1000 : value);
  if (typeof value !== "string" || value.length > 64) return null;
  return new Date(NO_OFFSET.test(value) ? `${value.replace(" ", "T")}Z` : value);
}

/** A record as sent, checked field by field; a string naming the first problem otherwise. */
export function normalizeRecord(raw: unknown, now = Date.now(), keptFrom?: Date): CrawlerRecord | string {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return "must be an object";
  const r = raw as Record<string, unknown>;
  const at = timestampOf(r.timestamp);
  if (!at || Number.isNaN(at.getTime())) return "timestamp must be an ISO 8601 date-time or epoch seconds";
  // Past year 9999 an ISO date turns into `+010000-…`, which no day or week bucket can hold: the
  // whole batch used to fail with it (500). Refused alone, as any other bad record is.
  if (!dayInRange(at.toISOString())) return `timestamp must fall between ${FIRST_DAY} and ${LAST_DAY}`;
  // A record dated months ahead would also sit in Postgres' default log partition and keep that
  // month's own partition from being made, for every organization (src/db/pg/partitions.ts).
  if (at.getTime() > now + MAX_FUTURE_MS) return "timestamp is in the future (more than a day past this server's clock)";
  // A month retention dropped keeps its counts in the rollups but not its records: stored again, a
  // record would be counted twice, and land where no retention drops it.
  if (keptFrom && at < keptFrom) return `timestamp is before ${keptFrom.toISOString().slice(0, 10)}, the oldest month this server keeps logs of (LOG_RETENTION_MONTHS)`;
  if (typeof r.method !== "string" || !/^[A-Z]{3,10}$/.test(r.method)) return "method must be an HTTP method (GET, HEAD, …)";
  if (typeof r.path !== "string" || !r.path.startsWith("/") || Buffer.byteLength(r.path) > MAX_KEY_TEXT_BYTES) return `path must start with / (at most ${MAX_KEY_TEXT_BYTES} bytes)`;
  if (typeof r.status !== "number" || !Number.isInteger(r.status) || r.status < 100 || r.status > 599) return "status must be an HTTP status (100–599)";
  if (typeof r.ip !== "string" || !r.ip.trim()) return "ip is required (it is used to verify bots, then dropped)";
  if (typeof r.user_agent !== "string") return "user_agent must be text";
  // Bounded: the day, week and month totals sum bytes in a bigint, which one absurd record (1e20,
  // Infinity) would overflow for every later batch of its bucket.
  if (r.bytes !== undefined && r.bytes !== null && (typeof r.bytes !== "number" || !Number.isFinite(r.bytes) || r.bytes < 0 || r.bytes > MAX_RECORD_BYTES)) return `bytes must be a number from 0 to ${MAX_RECORD_BYTES}`;
  return {
    timestamp: at.toISOString(),
    method: r.method,
    host: typeof r.host === "string" ? r.host.toLowerCase().slice(0, 253) : "",
    path: r.path.split("#")[0]!,
    status: r.status,
    ip: r.ip.trim(),
    user_agent: cutToBytes(r.user_agent, MAX_USER_AGENT_BYTES),
    referer: typeof r.referer === "string" ? r.referer : null,
    bytes: typeof r.bytes === "number" ? Math.round(r.bytes) : null,
  };
}

function refererHost(referer: string | null | undefined): string | null {
  if (!referer) return null;
  try {
    return new URL(referer).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}

/** `keptFrom`: the first instant of the oldest month logs are kept of (LOG_RETENTION_MONTHS); older records are refused. */
export function createCrawlerIngest(deps: {
  store: CrawlerStore;
  verifier: Verifier;
  recordSecret: string;
  now?: () => Date;
  onEvents?: () => void;
  keptFrom?: (now: Date) => Date;
  /** CRAWLER_MAX_PATHS: paths a brand's crawler path totals keep; requests for more count under OTHER_PATHS. Unset: no cap. */
  maxPaths?: number;
}) {
  // 16 bytes of the HMAC: unique among one brand's records of the same second by a wide margin.
  const recordKey = (r: CrawlerRecord) => new Bun.CryptoHasher("sha256", deps.recordSecret).update([r.timestamp, r.method, r.host, r.path, r.status, r.ip, r.user_agent].join("\u0000")).digest().subarray(0, 16);
  // Logs repeat the same few user agents and each bot's few addresses: remember recent answers.
  const identities = boundedCache<ReturnType<typeof identify>>(10_000);
  const verdicts = boundedCache<Awaited<ReturnType<Verifier["verify"]>>>(100_000);

  /** A verdict, remembered unless DNS could not be asked for it (then a later request checks again). */
  async function judged(who: ReturnType<typeof identify>, ip: string | null | undefined, seen: string, budget: DnsBudget) {
    const missed = budget.missed;
    const verdict = await deps.verifier.verify(who, ip, budget);
    return budget.missed === missed ? verdicts.set(seen, verdict) : verdict;
  }

  // Per brand, the paths it may still add: counted once, then lowered by each batch's paths (as if
  // all were new), and counted exactly — with the batch's paths looked up — only when a batch may
  // not fit. `full`: counted at the cap (paths are never taken off a brand's list). Approximate
  // across processes writing one brand at once, by at most a batch's paths each.
  const rooms = boundedCache<{ left: number; full: boolean }>(10_000);
  async function capPaths(brandId: string, hits: CrawlerHit[]) {
    const max = deps.maxPaths;
    if (!max) return;
    const candidates = new Map<string, { bot: string; hit: string; path: string }>();
    for (const h of hits) if (h.bot !== null && h.path !== OTHER_PATHS) candidates.set(pathKey({ bot: h.bot, hit: h.hit, path: h.path }), { bot: h.bot, hit: h.hit, path: h.path });
    if (!candidates.size) return;
    const count = async () => max - (await deps.store.pathKeyCount({ brandId, limit: max }));
    const cached = rooms.get(brandId);
    const room = cached ?? { left: await count(), full: false };
    if (!room.full && candidates.size <= room.left) return void rooms.set(brandId, { left: room.left - candidates.size, full: false });
    // An estimate is counted again; a count just made (no cached room) is exact already.
    let left = room.full ? 0 : cached ? await count() : room.left;
    const known = await deps.store.knownPathKeys({ brandId, keys: [...candidates.values()] });
    const over = new Set<string>();
    for (const key of candidates.keys()) {
      if (known.has(key)) continue;
      if (left > 0) left--;
      else over.add(key);
    }
    rooms.set(brandId, { left, full: left === 0 });
    if (over.size) for (const h of hits) if (h.bot !== null && over.has(pathKey({ bot: h.bot, hit: h.hit, path: h.path }))) h.path = OTHER_PATHS;
  }

  return {
    /** A reverse-DNS budget from now, for a request that sends several batches. */
    newDnsBudget: (): DnsBudget => deps.verifier.newBudget(),
    /**
     * Stores the good records of a batch in one transaction; bad ones are reported by index. `turn`:
     * see WriteTurn. `dns`: the request's reverse-DNS budget when it sends several batches (a
     * Logpush body); each batch gets its own otherwise.
     */
    async ingest(brandId: string, raw: unknown[], turn?: WriteTurn, dns: DnsBudget = deps.verifier.newBudget()): Promise<IngestResult> {
      const errors: IngestResult["errors"] = [];
      const hits: CrawlerHit[] = [];
      const clock = deps.now?.() ?? new Date();
      const now = clock.getTime();
      const keptFrom = deps.keptFrom?.(clock);
      for (const [index, item] of raw.entries()) {
        const r = normalizeRecord(item, now, keptFrom);
        if (typeof r === "string") {
          errors.push({ index, message: r });
          continue;
        }
        const who = identities.get(r.user_agent) ?? identities.set(r.user_agent, identify(r.user_agent));
        const seen = who.bot ? `${who.bot}\u0000${r.ip}` : "";
        const verdict = seen ? (verdicts.get(seen) ?? (await judged(who, r.ip, seen, dns))) : null;
        hits.push({
          at: r.timestamp,
          host: r.host ?? "",
          method: r.method,
          path: r.path,
          status: r.status,
          bytes: r.bytes ?? null,
          userAgent: r.user_agent,
          refererHost: refererHost(r.referer),
          bot: who.bot,
          operator: who.operator,
          class: who.class,
          hit: hitKind(r.path),
          verdict,
          listVersion: verdict ? deps.verifier.listVersion : null,
          recordKey: recordKey(r),
          // A new AI bot (not a spoofed one) reading the site: crawler.first_seen, once per brand and bot.
          mayAnnounce: Boolean(who.class?.startsWith("ai_")) && verdict !== "spoofed",
        });
      }
      await capPaths(brandId, hits);
      const { accepted, events } = await deps.store.appendHits({ brandId, hits, at: clock.toISOString(), turn });
      if (events) deps.onEvents?.();
      return { accepted, duplicates: hits.length - accepted, errors };
    },
  };
}

export type CrawlerIngest = ReturnType<typeof createCrawlerIngest>;

/** A map that forgets everything once it holds `limit` entries: memory stays bounded on any log. */
function boundedCache<V>(limit: number) {
  const map = new Map<string, V>();
  return {
    get: (key: string) => map.get(key),
    set(key: string, value: V): V {
      if (map.size >= limit) map.clear();
      map.set(key, value);
      return value;
    },
  };
}
