// Keeping a year of data small: answers past RETENTION_DAYS_RAW_ANSWERS lose their text (their
// analysed columns, citations and rollups stay), answers written before compression get
// compressed, and freed pages go back to the file system (incremental vacuum).
import type { Database } from "bun:sqlite";
import { PACKED_COLUMNS, packText } from "../db/text-codec";

export interface MaintenanceReport {
  answersDropped: number;
  rowsCompressed: number;
  pagesFreed: number;
}

/** Between batches the thread answers other work (the server runs this on its serving thread). */
export type Pause = () => Promise<void>;
const noPause: Pause = async () => {};

/**
 * Walks prompt_results by rowid, CHUNK rows a step, pausing between steps: a step costs a few
 * milliseconds whatever the table's size (a filter scanning for rows that no longer exist would
 * read the whole table in one statement, on the serving thread).
 */
async function eachChunk(sqlite: Database, fromRowid: number, pause: Pause, step: (from: number, to: number) => number): Promise<{ changed: number; lastRowid: number }> {
  const last = (sqlite.query("SELECT coalesce(max(rowid), 0) AS last FROM prompt_results").get() as { last: number }).last;
  let changed = 0;
  for (let from = fromRowid; from < last; from += CHUNK) {
    changed += step(from, Math.min(from + CHUNK, last));
    await pause();
  }
  return { changed, lastRowid: Math.max(fromRowid, last) };
}

const CHUNK = 5000;

/** Text of answers older than `days` days is emptied, one chunk of rows per transaction so writers are never held up for long. */
export async function dropOldAnswers(sqlite: Database, days: number, now: Date, pause: Pause = noPause): Promise<number> {
  if (days <= 0) return 0;
  const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
  const drop = sqlite.prepare("UPDATE prompt_results SET response = '' WHERE rowid > ? AND rowid <= ? AND created_at < ? AND response != ''");
  return (await eachChunk(sqlite, 0, pause, (from, to) => drop.run(from, to, cutoff).changes)).changed;
}

/**
 * Rows whose text columns are still plain text (written before compression, or plain through
 * /rest/v1) are compressed, from `fromRowid` on; the server passes the last rowid it checked, so
 * each hourly pass reads only the rows added since.
 */
export async function compressPlainRows(sqlite: Database, pause: Pause = noPause, fromRowid = 0): Promise<{ compressed: number; lastRowid: number }> {
  const select = sqlite.prepare(
    `SELECT rowid AS id, ${PACKED_COLUMNS.join(", ")} FROM prompt_results
      WHERE rowid > ? AND rowid <= ? AND (${PACKED_COLUMNS.map((c) => `(typeof(${c}) = 'text' AND length(${c}) >= 200)`).join(" OR ")})`,
  );
  const update = sqlite.prepare(`UPDATE prompt_results SET ${PACKED_COLUMNS.map((c) => `${c} = ?`).join(", ")} WHERE rowid = ?`);
  const { changed, lastRowid } = await eachChunk(sqlite, fromRowid, pause, (from, to) =>
    sqlite.transaction(() => {
      const rows = select.all(from, to) as ({ id: number } & Record<(typeof PACKED_COLUMNS)[number], string | Uint8Array>)[];
      for (const row of rows) update.run(...PACKED_COLUMNS.map((c) => (typeof row[c] === "string" ? packText(row[c] as string) : row[c])), row.id);
      return rows.length;
    }).immediate(),
  );
  return { compressed: changed, lastRowid };
}

/** Returns freed pages to the file system when the database is in incremental auto-vacuum mode. */
export function incrementalVacuum(sqlite: Database): number {
  const before = (sqlite.query("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
  if ((sqlite.query("PRAGMA auto_vacuum").get() as { auto_vacuum: number }).auto_vacuum !== 2) return 0;
  sqlite.run("PRAGMA incremental_vacuum");
  const after = (sqlite.query("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
  return before - after;
}

/**
 * One round of upkeep. `cursor` (kept by the server between rounds) remembers the last rowid
 * checked for plain text, so a round compresses only the rows added since the previous one.
 */
export async function runMaintenance(
  sqlite: Database,
  options: { retentionDays: number; now: Date; pause?: Pause; cursor?: { compressedThrough: number } },
): Promise<MaintenanceReport> {
  const answersDropped = await dropOldAnswers(sqlite, options.retentionDays, options.now, options.pause);
  const { compressed, lastRowid } = await compressPlainRows(sqlite, options.pause, options.cursor?.compressedThrough ?? 0);
  if (options.cursor) options.cursor.compressedThrough = lastRowid;
  return { answersDropped, rowsCompressed: compressed, pagesFreed: incrementalVacuum(sqlite) };
}
