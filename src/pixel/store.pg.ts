// The pixel's store on Postgres (store.ts says what each operation does). Group commit without a
// thread: calls arriving within a few milliseconds, or while earlier statements are being
// written, leave together as ONE multi-row INSERT (one array per column, unnested — thirteen
// parameters whatever the batch size), so a burst of beacons costs one transaction (its brands'
// write locks, then the insert) and one commit.
import type { SQL } from "bun";
import { isUuid, pgCode, withoutNul } from "../db/pg/values";
import { DEFAULT_MAX_PAGE_KEYS, OTHER_PAGES, ROW_REFUSED, type PixelStore, type PixelStoreOptions, type TrafficRow } from "./store";

export interface PgPixelStoreOptions extends PixelStoreOptions {
  /** How long the first call of a batch waits for others (ms). */
  windowMs?: number;
  /** Most INSERT statements being written at once (each holds a pooled connection). */
  maxInFlight?: number;
}

// The words the service (and SQLite's message) use for a row whose brand is gone.
const NO_BRAND = "FOREIGN KEY constraint failed: the brand does not exist";
const DUPLICATE = "UNIQUE constraint failed: ai_traffic_logs.id";
// Prefix of a failure that is the database's, not the row's (as on SQLite).
const UNAVAILABLE = "database unavailable";
/** First key of the per-brand pixel write lock (pg_advisory_xact_lock(int, int)); a constant unused elsewhere. */
const PIXEL_LOCK = 424_202;

interface Call {
  rows: TrafficRow[];
  settle(failed: Map<number, string>): void;
}

export function createPgPixelStore(sql: SQL, options: PgPixelStoreOptions = {}): PixelStore {
  const windowMs = options.windowMs ?? 2;
  const maxInFlight = options.maxInFlight ?? 2;
  const maxPageKeys = options.maxPageKeys ?? DEFAULT_MAX_PAGE_KEYS;
  let queued: Call[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const writing = new Set<Promise<void>>();
  let closed = false;

  /**
   * Writes the rows (already checked to have uuid ids) in one statement. Rows whose brand does not
   * exist (any longer) and ids already stored (or repeated earlier in the batch) are left out
   * rather than failing their neighbours; the answer says which ids went in and which brands were
   * missing, so each left-out row gets its own reason. The key is (id, created_at): the table is
   * partitioned by month (drizzle-pg/0004), and ids are UUIDv7 made at write.
   */
  async function insert(rows: TrafficRow[]): Promise<{ written: Set<string>; missingBrands: Set<string> }> {
    const col = <K extends keyof TrafficRow>(k: K) => rows.map((r) => withoutNul(r[k]));
    return sql.begin(async (tx) => {
      // The rollup triggers upsert each row's buckets (day × platform, day × path, …) in the batch's
      // row order, so two batches of one brand — this instance's other statement, or another
      // instance's — can reach the same buckets in crossing orders and deadlock. A transaction lock
      // per brand, taken in one order before the insert, makes them queue instead (they would wait
      // on the same bucket rows anyway); other brands do not wait.
      await tx`SELECT pg_advisory_xact_lock(${PIXEL_LOCK}, h) FROM (SELECT DISTINCT hashtext(lower(b)) AS h FROM unnest(${sql.array(col("brandId"), "text")}::text[]) AS b ORDER BY 1) AS locks`;
      const [result] = await tx`
        WITH u AS (
          SELECT * FROM unnest(
            ${sql.array(col("id"), "uuid")}::uuid[], ${sql.array(col("brandId"), "uuid")}::uuid[], ${sql.array(col("url"), "text")}::text[],
            ${sql.array(col("path"), "text")}::text[], ${sql.array(col("referrerHost"), "text")}::text[], ${sql.array(col("sourcePlatform"), "text")}::text[],
            ${sql.array(col("utmSource"), "text")}::text[], ${sql.array(col("visitorHash"), "text")}::text[], ${sql.array(col("country"), "text")}::text[],
            ${sql.array(col("language"), "text")}::text[], ${sql.array(col("screen"), "text")}::text[], ${sql.array(col("userAgentFamily"), "text")}::text[],
            ${sql.array(col("createdAt"), "text")}::timestamptz[]
          ) WITH ORDINALITY AS u(id, brand_id, url, path, referrer_host, source_platform, utm_source, visitor_hash, country, language, screen, user_agent_family, created_at, i)
        ), known AS (
          SELECT u.* FROM u WHERE EXISTS (SELECT 1 FROM brands b WHERE b.id = u.brand_id)
        ), fresh AS MATERIALIZED (
          -- Landing pages new to their brand, numbered per brand in the order they first come (as
          -- SQLite's writer takes them); past the room the brand has left (counted once, up to the
          -- cap, under the brand's lock above) their rows go to OTHER_PAGES. MATERIALIZED: inlined
          -- into the per-row lookup below, the count would run once per row.
          SELECT brand_id, source_platform, path, row_number() OVER (PARTITION BY brand_id ORDER BY first) AS nth
            FROM (SELECT brand_id, source_platform, path, min(i) AS first FROM known k WHERE source_platform IS NOT NULL
                     AND NOT EXISTS (SELECT 1 FROM traffic_page_totals_keys t WHERE t.brand_id = k.brand_id AND t.platform = k.source_platform AND t.path = k.path)
                   GROUP BY brand_id, source_platform, path) AS n
        ), room AS MATERIALIZED (
          SELECT b.brand_id, ${maxPageKeys}::bigint - (SELECT count(*) FROM (SELECT 1 FROM traffic_page_totals_keys t WHERE t.brand_id = b.brand_id LIMIT ${maxPageKeys}) AS c) AS n
            FROM (SELECT DISTINCT brand_id FROM fresh) AS b
        ), over AS MATERIALIZED (
          SELECT f.brand_id, f.source_platform, f.path FROM fresh f JOIN room r ON r.brand_id = f.brand_id WHERE f.nth > r.n
        ), ins AS (
          INSERT INTO ai_traffic_logs (id, brand_id, url, path, referrer_host, source_platform, utm_source, visitor_hash, country, language, screen, user_agent_family, created_at)
          SELECT k.id, k.brand_id, k.url, CASE WHEN o.path IS NULL THEN k.path ELSE ${OTHER_PAGES} END,
                 k.referrer_host, k.source_platform, k.utm_source, k.visitor_hash, k.country, k.language, k.screen, k.user_agent_family, k.created_at
            FROM known k LEFT JOIN over o ON o.brand_id = k.brand_id AND o.source_platform = k.source_platform AND o.path = k.path ORDER BY k.i
          ON CONFLICT (id, created_at) DO NOTHING
          RETURNING id
        )
        SELECT ARRAY(SELECT id::text FROM ins) AS written,
               ARRAY(SELECT DISTINCT brand_id::text FROM u WHERE NOT EXISTS (SELECT 1 FROM known k WHERE k.brand_id = u.brand_id)) AS missing`;
      return { written: new Set(result.written as string[]), missingBrands: new Set(result.missing as string[]) };
    });
  }

  /** One batch: each call's failed rows by index. */
  async function write(calls: Call[]): Promise<Map<number, string>[]> {
    const failures = calls.map(() => new Map<number, string>());
    const rows: TrafficRow[] = [];
    const at: [number, number][] = [];
    calls.forEach((call, c) =>
      call.rows.forEach((row, i) => {
        // A text that is no uuid would fail the whole statement (22P02): it fails alone, as its
        // foreign key would on SQLite.
        if (!isUuid(row.brandId)) failures[c]!.set(i, NO_BRAND);
        else if (!isUuid(row.id)) failures[c]!.set(i, `invalid row id: ${row.id}`);
        else (rows.push(row), at.push([c, i]));
      }),
    );
    if (!rows.length) return failures;
    const written = new Set<string>();
    const missingBrands = new Set<string>();
    const refused = new Map<number, string>();
    await insertIsolating(rows, 0, { written, missingBrands, refused });
    rows.forEach((row, k) => {
      const [c, i] = at[k]!;
      const reason = refused.get(k);
      if (reason !== undefined) return void failures[c]!.set(i, reason);
      // The first row with an id took it; a repeat of it in the batch fails like a stored one.
      if (written.delete(row.id.toLowerCase())) return;
      failures[c]!.set(i, missingBrands.has(row.brandId.toLowerCase()) ? NO_BRAND : DUPLICATE);
    });
    return failures;
  }

  /**
   * Inserts `rows` (the batch's from `offset`), noting what was written and the rows refused. Rows
   * the database refuses for what they hold (SQLSTATE classes 22, 23 and 54: a value, a key, an
   * index entry too large) fail alone: the batch is split in halves until the refused row is by
   * itself, so one visitor's beacon cannot fail those of other sites written beside it. Any other
   * error (the database unreachable) fails the rows as they are, without more statements.
   */
  async function insertIsolating(rows: TrafficRow[], offset: number, out: { written: Set<string>; missingBrands: Set<string>; refused: Map<number, string> }): Promise<void> {
    let lastError: unknown;
    // A brand deleted between the statement's check and its insert fails the statement with a
    // foreign key violation; once more and the check sees it.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const outcome = await insert(rows);
        for (const id of outcome.written) out.written.add(id);
        for (const id of outcome.missingBrands) out.missingBrands.add(id);
        return;
      } catch (error) {
        lastError = error;
        if (pgCode(error) !== "23503") break;
      }
    }
    const code = pgCode(lastError) ?? "";
    // A brand's row refused after the retries above (23503) stays a failure of the batch's (503), not the row's.
    const refusedRow = code !== "23503" && /^(22|23|54)/.test(code);
    if (rows.length > 1 && refusedRow) {
      const half = Math.ceil(rows.length / 2);
      await insertIsolating(rows.slice(0, half), offset, out);
      await insertIsolating(rows.slice(half), offset + half, out);
      return;
    }
    const reason = refusedRow ? `${ROW_REFUSED} (${code}): ${String(lastError)}` : `${UNAVAILABLE}: ${String(lastError)}`;
    for (let k = 0; k < rows.length; k++) out.refused.set(offset + k, reason);
  }

  function flush(): void {
    timer = null;
    if (!queued.length || writing.size >= maxInFlight) return;
    const calls = queued;
    queued = [];
    const done: Promise<void> = write(calls)
      .then(
        (failures) => calls.forEach((call, c) => call.settle(failures[c]!)),
        (error) => calls.forEach((call) => call.settle(new Map(call.rows.map((_, i) => [i, `${UNAVAILABLE}: ${String(error)}`])))),
      )
      .finally(() => {
        writing.delete(done);
        // What arrived meanwhile leaves at once: it has waited already.
        if (queued.length && !timer) flush();
      });
    writing.add(done);
  }

  return {
    async brandByTrackingCode(code) {
      const rows = await sql`
        SELECT b.id, b.respect_dnt, d.domain
          FROM brands b LEFT JOIN brand_domains d ON d.brand_id = b.id
         WHERE b.tracking_code = ${code}`;
      if (!rows.length) return null;
      return { id: rows[0].id, domains: rows.flatMap((r: { domain: string | null }) => (r.domain ? [r.domain] : [])), respectDnt: Boolean(rows[0].respect_dnt) };
    },
    async brandOrganization(brandId) {
      if (!isUuid(brandId)) return null;
      const [row] = await sql`SELECT organization_id FROM brands WHERE id = ${brandId}`;
      return row?.organization_id ?? null;
    },
    appendBeacons(rows) {
      if (closed) return Promise.reject(new Error("The traffic store is closed"));
      if (!rows.length) return Promise.resolve(new Map());
      const { promise, resolve } = Promise.withResolvers<Map<number, string>>();
      queued.push({ rows, settle: resolve });
      if (!timer && writing.size < maxInFlight) timer = setTimeout(flush, windowMs);
      return promise;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      while (queued.length || writing.size) {
        flush();
        await Promise.race(writing);
      }
    },
  };
}
