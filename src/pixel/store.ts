// ai_traffic_logs rows as the beacon writes them, through a connection of their own.
import { Database } from "bun:sqlite";
import type { DbHandle } from "../db/open";

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

/**
 * The writer's own connection with synchronous=FULL: a 2xx promises the row survives a crash of
 * the machine, not just of the process (the shared connection runs NORMAL). With group commit
 * that costs one fsync per batch. An in-memory database has no second connection: share it.
 */
export function openTrafficStore(dbh: DbHandle) {
  const file = dbh.sqlite.filename;
  const own = file && file !== ":memory:" ? new Database(file, { strict: true }) : null;
  const sqlite = own ?? dbh.sqlite;
  if (own) {
    own.run("PRAGMA busy_timeout = 5000");
    own.run("PRAGMA foreign_keys = ON");
    own.run("PRAGMA synchronous = FULL");
  }
  const insert = sqlite.prepare(
    `INSERT INTO ai_traffic_logs (id, brand_id, url, path, referrer_host, source_platform, utm_source, visitor_hash,
       country, language, screen, user_agent_family, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // IMMEDIATE takes the write lock up front, so a busy database waits (busy_timeout) instead of
  // failing half-way.
  const insertAll = sqlite.transaction((rows: TrafficRow[]) => {
    for (const r of rows)
      insert.run(r.id, r.brandId, r.url, r.path, r.referrerHost, r.sourcePlatform, r.utmSource, r.visitorHash, r.country, r.language, r.screen, r.userAgentFamily, r.createdAt);
  });
  return {
    writeBatch: (rows: TrafficRow[]) => insertAll.immediate(rows),
    close(): void {
      insert.finalize();
      own?.close();
    },
  };
}
