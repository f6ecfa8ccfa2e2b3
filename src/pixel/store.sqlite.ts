// The pixel's store on SQLite (store.ts says what each operation does). Beacons are written through
// a connection of their own in a worker thread (insert-worker.sqlite.js), started on the first write
// so an app that never sees a beacon (most tests) never starts a thread; brand lookups use the
// shared connection.
import type { Database } from "bun:sqlite";
import workerSource from "./insert-worker.sqlite.js" with { type: "text" };
import { DEFAULT_MAX_PAGE_KEYS, OTHER_PAGES, type PixelStore, type PixelStoreOptions, type TrafficRow } from "./store";

const INSERT_SQL = `INSERT INTO ai_traffic_logs (id, brand_id, url, path, referrer_host, source_platform, utm_source,
  visitor_hash, country, language, screen, user_agent_family, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

// synchronous=FULL: a 2xx promises the row survives a crash of the machine, not only of the process
// (the shared connection runs NORMAL). Group commit makes that one fsync per batch, on the worker.
const PRAGMAS = ["busy_timeout = 5000", "foreign_keys = ON", "synchronous = FULL"];

const params = (r: TrafficRow) => [
  r.id, r.brandId, r.url, r.path, r.referrerHost, r.sourcePlatform, r.utmSource, r.visitorHash, r.country, r.language, r.screen, r.userAgentFamily, r.createdAt,
];

type WorkerReply = { type: "written"; id: number; failed: [number, string][] } | { type: "closed" };

/** What the writer needs to keep a brand's landing pages to the cap (a row's brand, platform and path by position in `params`). */
const pagesRule = (cap: number) => ({
  cap,
  other: OTHER_PAGES,
  exists: "SELECT 1 FROM traffic_page_totals_keys WHERE brand_id = ? AND platform = ? AND path = ?",
  count: "SELECT count(*) AS n FROM (SELECT 1 FROM traffic_page_totals_keys WHERE brand_id = ? LIMIT ?)",
  at: { brand: 1, path: 3, platform: 5 },
});

export function createSqlitePixelStore(sqlite: Database, options: PixelStoreOptions = {}): PixelStore {
  const file = sqlite.filename;
  // A second connection needs a file; every database of this project has one (DATA_DIR).
  if (!file || file === ":memory:") throw new Error("The pixel's writer needs a database file, not an in-memory database");

  const byCode = sqlite.query<{ id: string; respect_dnt: number; domain: string | null }, [string]>(
    `SELECT b.id, b.respect_dnt, d.domain
       FROM brands b LEFT JOIN brand_domains d ON d.brand_id = b.id
      WHERE b.tracking_code = ?`,
  );
  const brandOrg = sqlite.query<{ organization_id: string }, [string]>("SELECT organization_id FROM brands WHERE id = ?");

  let worker: Worker | null = null;
  let workerUrl = "";
  let nextId = 0;
  const waiting = new Map<number, (failed: Map<number, string>) => void>();
  let onClosed: (() => void) | null = null;
  let closed = false;

  function failAll(reason: string) {
    for (const [id, settle] of waiting) {
      waiting.delete(id);
      settle(new Map([[-1, reason]]));
    }
  }

  function start(): Worker {
    workerUrl = URL.createObjectURL(new Blob([workerSource], { type: "application/javascript" }));
    const w = new Worker(workerUrl);
    // The server's socket keeps the process alive; the writer alone must not (tests, CLI).
    (w as unknown as { unref(): void }).unref();
    w.onmessage = (event: MessageEvent<WorkerReply>) => {
      const reply = event.data;
      if (reply.type === "closed") return onClosed?.();
      const settle = waiting.get(reply.id);
      waiting.delete(reply.id);
      settle?.(new Map(reply.failed));
    };
    w.onerror = (event) => {
      // The batches in flight are lost (not written); the next batch starts a new thread.
      failAll(`pixel writer failed: ${event.message}`);
      w.terminate();
      if (worker === w) worker = null;
    };
    // The worker opens its own connection from this (serialisable) description.
    w.postMessage({ type: "open", file, sql: INSERT_SQL, pragmas: PRAGMAS, pages: pagesRule(options.maxPageKeys ?? DEFAULT_MAX_PAGE_KEYS) });
    return w;
  }

  return {
    async brandByTrackingCode(code) {
      const rows = byCode.all(code);
      if (!rows.length) return null;
      return { id: rows[0]!.id, domains: rows.flatMap((r) => (r.domain ? [r.domain] : [])), respectDnt: Boolean(rows[0]!.respect_dnt) };
    },
    async brandOrganization(brandId) {
      return brandOrg.get(brandId)?.organization_id ?? null;
    },
    appendBeacons(rows) {
      if (closed) return Promise.reject(new Error("The traffic store is closed"));
      worker ??= start();
      const id = nextId++;
      const { promise, resolve } = Promise.withResolvers<Map<number, string>>();
      // A failure of the whole batch (the worker died) is reported for every row.
      waiting.set(id, (failed) => resolve(failed.has(-1) ? new Map(rows.map((_, i) => [i, failed.get(-1)!])) : failed));
      // One JSON string crosses threads far cheaper than a structured clone of many small arrays.
      worker.postMessage({ type: "write", id, sentAt: Date.now(), rows: JSON.stringify(rows.map(params)) });
      return promise;
    },
    async close() {
      closed = true;
      if (!worker) return;
      const acknowledged = new Promise<void>((resolve) => (onClosed = resolve));
      worker.postMessage({ type: "close" });
      await acknowledged;
      worker.terminate();
      URL.revokeObjectURL(workerUrl);
      worker = null;
    },
  };
}
