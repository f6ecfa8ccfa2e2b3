// Keeping a year of data small: answers past RETENTION_DAYS_RAW_ANSWERS lose their text (their
// analysed columns, citations and rollups stay), answers written before compression get
// compressed, and freed pages go back to the file system (incremental vacuum). The operations are
// the storage store's (store.ts); the walk in steps and the pauses between them are here.
import type { StorageStore } from "./store";

export interface MaintenanceReport {
  answersDropped: number;
  rowsCompressed: number;
  /** Answers repacked with their brand's dictionaries (SQLite). */
  rowsPacked: number;
  pagesFreed: number;
  /** Monthly partitions of the raw logs made ahead (Postgres). */
  partitionsMade: number;
  /** Monthly partitions of the raw logs dropped past LOG_RETENTION_MONTHS (Postgres). */
  partitionsDropped: number;
  /** Raw log rows of months past retention deleted from the default partitions (Postgres). */
  defaultRowsDeleted: number;
  /** Retired rollup tables dropped once no older instance runs (Postgres). */
  tablesRetired: number;
}

/** The first day of the oldest month LOG_RETENTION_MONTHS keeps: `months` whole months before now's. */
export function logRetentionStart(now: Date, months: number): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1));
}

/**
 * Between batches the thread answers other work (the server runs this on its serving thread);
 * `spentMs`, when given, is how long the batch before took, for a pause that keeps the thread's
 * share of a long walk bounded.
 */
export type Pause = (spentMs?: number) => Promise<void>;
const noPause: Pause = async () => {};

/**
 * Walks the answers by position, CHUNK rows a step, pausing between steps: a step costs a few
 * milliseconds whatever the table's size (a filter scanning for rows that no longer exist would
 * read the whole table in one statement, on the serving thread).
 */
async function eachChunk(store: StorageStore, fromPosition: number, pause: Pause, step: (after: number, through: number) => Promise<number>): Promise<{ changed: number; lastPosition: number }> {
  const last = await store.lastAnswerPosition();
  let changed = 0;
  for (let from = fromPosition; from < last; from += CHUNK) {
    changed += await step(from, Math.min(from + CHUNK, last));
    await pause();
  }
  return { changed, lastPosition: Math.max(fromPosition, last) };
}

const CHUNK = 5000;
/** How often the raw answers' retention walks the table. */
const RETENTION_EVERY_MS = 24 * 3_600_000;
/** Default-partition log rows past retention deleted per round (hourly), a log table each: ~2.4 million a table a day at most. */
const MAX_DEFAULT_ROWS_A_ROUND = 100_000;

/** Text of answers older than `days` days is emptied, one chunk of rows per transaction so writers are never held up for long. */
export async function dropOldAnswers(store: StorageStore, days: number, now: Date, pause: Pause = noPause): Promise<number> {
  if (days <= 0) return 0;
  const before = new Date(now.getTime() - days * 86_400_000).toISOString();
  return (await eachChunk(store, 0, pause, (after, through) => store.dropAnswerText({ after, through, before }))).changed;
}

/**
 * Rows whose text columns are still plain text (written before compression, or plain through
 * /rest/v1) are compressed, from `fromPosition` on; the server passes the last position it
 * checked, so each hourly pass reads only the rows added since.
 */
export async function compressPlainRows(store: StorageStore, pause: Pause = noPause, fromPosition = 0): Promise<{ compressed: number; lastPosition: number }> {
  const { changed, lastPosition } = await eachChunk(store, fromPosition, pause, (after, through) => store.compressPlainAnswers({ after, through }));
  return { compressed: changed, lastPosition: lastPosition };
}

/** Answers repacked per transaction: ~0.3–0.9 ms each, so a step holds the writer for tens of milliseconds. */
const PACK_ROWS = 25;

/**
 * Answers still compressed on their own are repacked with their brand's dictionaries from
 * `fromPosition` on, PACK_ROWS a transaction; the pause after each step is told how long it took.
 */
export async function packRowsWithDictionaries(store: StorageStore, pause: Pause = noPause, fromPosition = 0): Promise<{ packed: number; lastPosition: number }> {
  const last = await store.lastAnswerPosition();
  let packed = 0;
  let at = fromPosition;
  // Each step moves past at least one row or to the end of its chunk: the walk ends within `last - fromPosition` steps.
  for (let steps = 0; at < last && steps <= last - fromPosition; steps++) {
    const started = performance.now();
    const step = await store.packWithDictionaries({ after: at, through: Math.min(at + CHUNK, last), maxRows: PACK_ROWS });
    if (step.through <= at) break;
    packed += step.packed;
    at = step.through;
    await pause(performance.now() - started);
  }
  return { packed, lastPosition: Math.max(fromPosition, at) };
}

/**
 * One round of upkeep. `cursor` (kept by the server between rounds) remembers the last position
 * checked for plain text, so a round compresses only the rows added since the previous one.
 */
export async function runMaintenance(
  store: StorageStore,
  options: { retentionDays: number; logRetentionMonths?: number; now: Date; pause?: Pause; cursor?: { compressedThrough: number; packedThrough?: number; retainedAt?: number } },
): Promise<MaintenanceReport> {
  // Retention counts in days, and its pass walks every answer: once a day is enough (the server
  // keeps when it last ran in the cursor; without one, every round runs it).
  const retentionDue = !options.cursor?.retainedAt || options.now.getTime() - options.cursor.retainedAt >= RETENTION_EVERY_MS;
  const answersDropped = retentionDue ? await dropOldAnswers(store, options.retentionDays, options.now, options.pause) : 0;
  if (retentionDue && options.cursor) options.cursor.retainedAt = options.now.getTime();
  const { compressed, lastPosition } = await compressPlainRows(store, options.pause, options.cursor?.compressedThrough ?? 0);
  if (options.cursor) options.cursor.compressedThrough = lastPosition;
  const packing = await packRowsWithDictionaries(store, options.pause, options.cursor?.packedThrough ?? 0);
  if (options.cursor) options.cursor.packedThrough = packing.lastPosition;
  // Each round makes next months' partitions of the raw logs: a server up for a year never writes into the default one.
  const partitionsMade = (await store.prepareAhead({ now: options.now })).length;
  const keptFrom = options.logRetentionMonths ? logRetentionStart(options.now, options.logRetentionMonths) : null;
  const partitionsDropped = keptFrom ? (await store.dropLogMonthsBefore({ before: keptFrom })).length : 0;
  // What the default partition holds of those months goes too, a bounded share each round.
  const defaultRowsDeleted = keptFrom ? await store.deleteDefaultLogRowsBefore({ before: keptFrom, maxRows: MAX_DEFAULT_ROWS_A_ROUND }) : 0;
  return { answersDropped, rowsCompressed: compressed, rowsPacked: packing.packed, pagesFreed: await store.releaseFreePages(), partitionsMade, partitionsDropped, defaultRowsDeleted, tablesRetired: (await store.dropRetiredTables()).length };
}
