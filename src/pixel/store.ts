// ai_traffic_logs rows as the beacon writes them, through a connection of their own in a worker
// thread (insert-worker.js), started on the first write so an app that never sees a beacon (most
// tests) never starts a thread.
import type { DbHandle } from "../db/open";
import workerSource from "./insert-worker.js" with { type: "text" };

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

const INSERT_SQL = `INSERT INTO ai_traffic_logs (id, brand_id, url, path, referrer_host, source_platform, utm_source,
  visitor_hash, country, language, screen, user_agent_family, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

// synchronous=FULL: a 2xx promises the row survives a crash of the machine, not only of the process
// (the shared connection runs NORMAL). Group commit makes that one fsync per batch, on the worker.
const PRAGMAS = ["busy_timeout = 5000", "foreign_keys = ON", "synchronous = FULL"];

const params = (r: TrafficRow) => [
  r.id, r.brandId, r.url, r.path, r.referrerHost, r.sourcePlatform, r.utmSource, r.visitorHash, r.country, r.language, r.screen, r.userAgentFamily, r.createdAt,
];

type WorkerReply = { type: "written"; id: number; failed: [number, string][] } | { type: "closed" };

export function openTrafficStore(dbh: DbHandle) {
  const file = dbh.sqlite.filename;
  // A second connection needs a file; every database of this project has one (DATA_DIR).
  if (!file || file === ":memory:") throw new Error("The pixel's writer needs a database file, not an in-memory database");

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
    w.postMessage({ type: "open", file, sql: INSERT_SQL, pragmas: PRAGMAS });
    return w;
  }

  return {
    /** Inserts the rows in one transaction; resolves with the failed rows by index. */
    write(rows: TrafficRow[]): Promise<Map<number, string>> {
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
    async close(): Promise<void> {
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
