// Keeping a year of data small: answers past RETENTION_DAYS_RAW_ANSWERS lose their text (their
// analysed columns, citations and rollups stay), answers written before compression get
// compressed, and freed pages go back to the file system (incremental vacuum).
import type { Database } from "bun:sqlite";
import { packText } from "../db/text-codec";

const BATCH = 500;

export interface MaintenanceReport {
  answersDropped: number;
  rowsCompressed: number;
  pagesFreed: number;
}

/** Between batches the thread answers other work (the server runs this on its serving thread). */
export type Pause = () => Promise<void>;
const noPause: Pause = async () => {};

/** Text of answers older than `days` days is emptied, a batch per transaction so writers are never held up for long. */
export async function dropOldAnswers(sqlite: Database, days: number, now: Date, pause: Pause = noPause): Promise<number> {
  if (days <= 0) return 0;
  const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
  const batch = sqlite.prepare(
    `UPDATE prompt_results SET response = '' WHERE rowid IN (SELECT rowid FROM prompt_results WHERE created_at < ? AND response != '' LIMIT ${BATCH})`,
  );
  let dropped = 0;
  for (;;) {
    const changed = batch.run(cutoff).changes;
    dropped += changed;
    if (changed < BATCH) return dropped;
    await pause();
  }
}

const PACKED_COLUMNS = ["response", "citations", "sources", "details"] as const;

/** Rows whose text columns are still plain text (written before compression, or plain through /rest/v1) are compressed. */
export async function compressPlainRows(sqlite: Database, pause: Pause = noPause): Promise<number> {
  const select = sqlite.prepare(
    `SELECT rowid AS id, ${PACKED_COLUMNS.join(", ")} FROM prompt_results
      WHERE rowid > ? AND (${PACKED_COLUMNS.map((c) => `(typeof(${c}) = 'text' AND length(${c}) >= 200)`).join(" OR ")}) ORDER BY rowid LIMIT ${BATCH}`,
  );
  const update = sqlite.prepare(`UPDATE prompt_results SET ${PACKED_COLUMNS.map((c) => `${c} = ?`).join(", ")} WHERE rowid = ?`);
  let done = 0;
  let after = 0;
  for (;;) {
    const rows = select.all(after) as ({ id: number } & Record<(typeof PACKED_COLUMNS)[number], string | Uint8Array>)[];
    if (!rows.length) return done;
    sqlite.transaction(() => {
      for (const row of rows) update.run(...PACKED_COLUMNS.map((c) => (typeof row[c] === "string" ? packText(row[c] as string) : row[c])), row.id);
    })();
    done += rows.length;
    after = rows[rows.length - 1]!.id;
    await pause();
  }
}

/** Returns freed pages to the file system when the database is in incremental auto-vacuum mode. */
export function incrementalVacuum(sqlite: Database): number {
  const before = (sqlite.query("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
  if ((sqlite.query("PRAGMA auto_vacuum").get() as { auto_vacuum: number }).auto_vacuum !== 2) return 0;
  sqlite.run("PRAGMA incremental_vacuum");
  const after = (sqlite.query("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
  return before - after;
}

export async function runMaintenance(sqlite: Database, options: { retentionDays: number; now: Date; pause?: Pause }): Promise<MaintenanceReport> {
  const answersDropped = await dropOldAnswers(sqlite, options.retentionDays, options.now, options.pause);
  const rowsCompressed = await compressPlainRows(sqlite, options.pause);
  return { answersDropped, rowsCompressed, pagesFreed: incrementalVacuum(sqlite) };
}
