// What storage upkeep (maintenance.ts) asks of the database: the answers table walked in ranges of
// positions (a rowid on SQLite), each step one short operation, and freed pages given back.
// Backend implementations: store.sqlite.ts (and, with #29, store.pg.ts); the contract both must
// keep is tests/contracts/storage.contract.ts.

import type { PackedColumn } from "../db/text-codec";

/** Positions (after, through] of the answers table: a step of a walk over it. */
export interface AnswerRange {
  after: number;
  through: number;
}

/** One step of the repack with dictionaries (packWithDictionaries). */
export interface PackStep {
  /** Answers repacked. */
  packed: number;
  /** Brands given their first dictionaries in this step (their answers walked before wait for a walk from the start). */
  made: number;
  /** Answers left as they were because their text could not be read (a damaged frame). */
  unreadable: number;
  /** The position reached: the range's end once it is done. */
  through: number;
}

export interface StorageStore {
  /** The position of the newest answer (0 when there is none): where a walk ends. */
  lastAnswerPosition(): Promise<number>;
  /** Empties the text of the range's answers created before `before` (an ISO instant) that still have some; how many it emptied. */
  dropAnswerText(input: AnswerRange & { before: string }): Promise<number>;
  /** Compresses the range's answers whose text columns are still plain (and long enough to gain), in one transaction; how many rows. */
  compressPlainAnswers(input: AnswerRange): Promise<number>;
  /**
   * Repacks up to `maxRows` answers of the range that are still compressed on their own with their
   * brand's dictionaries, `columns` only (SQLite, issue #32: src/storage/dictionaries.sqlite.ts),
   * first making a brand's dictionaries when it is due some; the rows repacked, the brands given
   * dictionaries, the rows whose text could not be read (left as they are), and the position
   * reached (`through` once the range is done). Postgres compresses with TOAST: nothing to do.
   */
  packWithDictionaries(input: AnswerRange & { maxRows: number; columns: readonly PackedColumn[] }): Promise<PackStep>;
  /** Gives freed pages back to the file system where the database keeps them for that (incremental auto-vacuum); how many. */
  releaseFreePages(): Promise<number>;
  /** Makes room for the coming months' raw logs where they are partitioned by month (Postgres); the partitions made. */
  prepareAhead(input: { now: Date }): Promise<string[]>;
  /**
   * Drops the raw log rows (pixel visits, crawler requests) of every month that ends on or before
   * `before`, a whole month at a time, leaving the rollups as they are (Postgres: its partitions);
   * the partitions dropped. SQLite has no partitions and drops nothing (config refuses the setting).
   */
  dropLogMonthsBefore(input: { before: Date }): Promise<string[]>;
  /**
   * Deletes, up to `maxRows` a table, the raw log rows before `before` that wait in a log table's default
   * partition (a month imported while it had no partition of its own, which retention would never
   * drop), leaving the rollups as they are, as a dropped month does; the rows deleted. SQLite: 0.
   */
  deleteDefaultLogRowsBefore(input: { before: Date; maxRows: number }): Promise<number>;
  /**
   * Drops the rollup tables a newer release retired once no instance of an older one may still
   * read them (Postgres: src/rollups/triggers.pg.ts); the tables dropped. SQLite retires them at
   * start or with `vacuum --full`, and drops nothing here.
   */
  dropRetiredTables(): Promise<string[]>;
  /**
   * Moves up to `maxKeys` keys, with their rows, of the running totals a newer release keeps in
   * another layout, from their former tables (issue #32: src/rollups/spec.ts RollupSpec.moveLater),
   * in one short transaction; `done` once nothing is left to move. The server calls it after the
   * start until done.
   */
  moveFormerRows(input: { maxKeys: number }): Promise<{ moved: number; done: boolean }>;
}
