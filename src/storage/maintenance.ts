// Keeping a year of data small: answers past RETENTION_DAYS_RAW_ANSWERS lose their text (their
// analysed columns, citations and rollups stay), answers written before compression get
// compressed, answers get repacked with their brand's dictionaries (issue #32), and freed pages go
// back to the file system (incremental vacuum). The operations are the storage store's
// (store.ts); the walks in steps and the pauses between them are here.
import { PACKED_COLUMNS, type PackedColumn } from "../db/text-codec";
import type { StorageStore } from "./store";

export interface MaintenanceReport {
  answersDropped: number;
  rowsCompressed: number;
  /** Answers repacked with their brand's dictionaries (SQLite). */
  rowsPacked: number;
  /** Answers the repack left as they were because their text could not be read. */
  rowsUnreadable?: number;
  /** Why the repack stopped, when it failed (the rest of the round still ran). */
  packFailure?: string;
  /** A pause said stop: the round ended after the walk it interrupted. */
  stopped?: boolean;
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
 * share of a long walk bounded. `false` ends the walk where it is (a server stopping).
 */
export type Pause = (spentMs?: number) => Promise<boolean | void>;
const noPause: Pause = async () => {};

/** A step of a walk: what it changed and the position it reached (a chunk's end, or short of it). */
interface WalkStep {
  changed: number;
  through: number;
}

/**
 * Walks the answers by position from `fromPosition`, a chunk of CHUNK positions or less a step,
 * pausing after each as long as it took: a step costs a few milliseconds whatever the table's size
 * (a filter scanning for rows that no longer exist would read the whole table in one statement, on
 * the serving thread). Ends at the table's end, at a step that gets nowhere, or when a pause says stop.
 */
async function walk(store: StorageStore, fromPosition: number, pause: Pause, step: (after: number, through: number) => Promise<WalkStep>): Promise<{ changed: number; lastPosition: number; stopped: boolean }> {
  const last = await store.lastAnswerPosition();
  let changed = 0;
  let at = fromPosition;
  // Each step moves at least one position on, so the count bounds the walk.
  for (let steps = 0; at < last && steps <= last - fromPosition; steps++) {
    const started = performance.now();
    const done = await step(at, Math.min(at + CHUNK, last));
    changed += done.changed;
    if (done.through <= at) break;
    at = done.through;
    if ((await pause(performance.now() - started)) === false) return { changed, lastPosition: at, stopped: true };
  }
  return { changed, lastPosition: Math.max(fromPosition, at), stopped: false };
}

/** A step over a whole chunk. */
const wholeChunk = (operation: (after: number, through: number) => Promise<number>) => async (after: number, through: number): Promise<WalkStep> => ({ changed: await operation(after, through), through });

const CHUNK = 5000;
/** How often the raw answers' retention walks the table. */
const RETENTION_EVERY_MS = 24 * 3_600_000;
/** Default-partition log rows past retention deleted per round (hourly), a log table each: ~2.4 million a table a day at most. */
const MAX_DEFAULT_ROWS_A_ROUND = 100_000;

/** Text of answers older than `days` days is emptied, one chunk of rows per transaction so writers are never held up for long. */
export async function dropOldAnswers(store: StorageStore, days: number, now: Date, pause: Pause = noPause): Promise<{ dropped: number; stopped: boolean }> {
  if (days <= 0) return { dropped: 0, stopped: false };
  const before = new Date(now.getTime() - days * 86_400_000).toISOString();
  const { changed, stopped } = await walk(store, 0, pause, wholeChunk((after, through) => store.dropAnswerText({ after, through, before })));
  return { dropped: changed, stopped };
}

/**
 * Rows whose text columns are still plain text (written before compression, or plain through
 * /rest/v1) are compressed, from `fromPosition` on; the server passes the last position it
 * checked, so each hourly pass reads only the rows added since.
 */
export async function compressPlainRows(store: StorageStore, pause: Pause = noPause, fromPosition = 0): Promise<{ compressed: number; lastPosition: number; stopped: boolean }> {
  const { changed, lastPosition, stopped } = await walk(store, fromPosition, pause, wholeChunk((after, through) => store.compressPlainAnswers({ after, through })));
  return { compressed: changed, lastPosition, stopped };
}

/** Answers repacked per transaction: ~0.3–0.9 ms each, so a step holds the writer for tens of milliseconds. */
const PACK_ROWS = 25;

/**
 * The columns a brand's dictionaries pack. Not the answers' own text while retention is on: a
 * dictionary holds verbatim text of the answers it was made from, which retention must not outlive
 * (sources and details are kept whatever retention says).
 */
function dictionaryColumns(retentionDays: number): PackedColumn[] {
  return PACKED_COLUMNS.filter((c) => c !== "response" || retentionDays <= 0);
}

/**
 * Answers still compressed on their own are repacked with their brand's dictionaries from
 * `fromPosition` on, PACK_ROWS a transaction; the pause after each step is told how long it took.
 * `made` counts the brands given dictionaries on the way: the answers of theirs walked before
 * (while they had none) wait for a walk from the start.
 */
export async function packRowsWithDictionaries(
  store: StorageStore,
  pause: Pause = noPause,
  fromPosition = 0,
  columns: readonly PackedColumn[] = PACKED_COLUMNS,
): Promise<PackWalk> {
  let made = 0;
  let unreadable = 0;
  let failure: string | undefined;
  const { changed, lastPosition, stopped } = await walk(store, fromPosition, pause, async (after, through) => {
    try {
      const step = await store.packWithDictionaries({ after, through, maxRows: PACK_ROWS, columns });
      made += step.made;
      unreadable += step.unreadable;
      return { changed: step.packed, through: step.through };
    } catch (error) {
      // A full disk, say: the walk ends where it is and says why; what it did so far counts.
      failure = String(error);
      return { changed: 0, through: after };
    }
  });
  return { packed: changed, made, unreadable, lastPosition, stopped, ...(failure ? { failure } : {}) };
}

export interface PackWalk {
  packed: number;
  /** Brands given their first dictionaries on the way. */
  made: number;
  unreadable: number;
  lastPosition: number;
  /** A pause said stop. */
  stopped: boolean;
  /** Why a step failed, ending the walk. */
  failure?: string;
}

/**
 * One round of upkeep. `cursor` (kept by the server between rounds) remembers the last position
 * checked for plain text, so a round compresses only the rows added since the previous one.
 */
export async function runMaintenance(
  store: StorageStore,
  options: { retentionDays: number; logRetentionMonths?: number; now: Date; pause?: Pause; cursor?: { compressedThrough: number; packedThrough?: number; retainedAt?: number } },
): Promise<MaintenanceReport> {
  const report: MaintenanceReport = { answersDropped: 0, rowsCompressed: 0, rowsPacked: 0, pagesFreed: 0, partitionsMade: 0, partitionsDropped: 0, defaultRowsDeleted: 0, tablesRetired: 0 };
  // A pause that says stop (the server stopping) ends the round after the walk it interrupted.
  const stopped = () => ({ ...report, stopped: true });
  // Retention counts in days, and its pass walks every answer: once a day is enough (the server
  // keeps when it last ran in the cursor; without one, every round runs it).
  const retentionDue = !options.cursor?.retainedAt || options.now.getTime() - options.cursor.retainedAt >= RETENTION_EVERY_MS;
  if (retentionDue) {
    const retention = await dropOldAnswers(store, options.retentionDays, options.now, options.pause);
    report.answersDropped = retention.dropped;
    if (retention.stopped) return stopped();
    if (options.cursor) options.cursor.retainedAt = options.now.getTime();
  }
  const compression = await compressPlainRows(store, options.pause, options.cursor?.compressedThrough ?? 0);
  report.rowsCompressed = compression.compressed;
  if (options.cursor) options.cursor.compressedThrough = compression.lastPosition;
  if (compression.stopped) return stopped();

  const columns = dictionaryColumns(options.retentionDays);
  let packing = await packRowsWithDictionaries(store, options.pause, options.cursor?.packedThrough ?? 0, columns);
  // Without a cursor (`answerwatch vacuum`) the walk behind the brands given dictionaries is made now, once.
  if (!options.cursor && packing.made && !packing.stopped && !packing.failure) {
    const behind = await packRowsWithDictionaries(store, options.pause, 0, columns);
    // The second walk passes every answer the first did: its unreadable ones are all of them.
    packing = { ...behind, packed: packing.packed + behind.packed, made: packing.made + behind.made };
  }
  report.rowsPacked = packing.packed;
  if (packing.unreadable) report.rowsUnreadable = packing.unreadable;
  // A failed repack is reported and leaves the rest of the round to run.
  if (packing.failure) report.packFailure = packing.failure;
  // A brand given its first dictionaries mid-walk has answers behind the cursor: the next round walks from the start (a scan: ~6 s per million answers with nothing to do).
  if (options.cursor) options.cursor.packedThrough = packing.made ? 0 : packing.lastPosition;
  if (packing.stopped) return stopped();

  // Each round makes next months' partitions of the raw logs: a server up for a year never writes into the default one.
  report.partitionsMade = (await store.prepareAhead({ now: options.now })).length;
  const keptFrom = options.logRetentionMonths ? logRetentionStart(options.now, options.logRetentionMonths) : null;
  report.partitionsDropped = keptFrom ? (await store.dropLogMonthsBefore({ before: keptFrom })).length : 0;
  // What the default partition holds of those months goes too, a bounded share each round.
  report.defaultRowsDeleted = keptFrom ? await store.deleteDefaultLogRowsBefore({ before: keptFrom, maxRows: MAX_DEFAULT_ROWS_A_ROUND }) : 0;
  report.pagesFreed = await store.releaseFreePages();
  report.tablesRetired = (await store.dropRetiredTables()).length;
  return report;
}
