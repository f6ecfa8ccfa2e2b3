// The storage store on Postgres (store.ts says what each operation does). Postgres has no rowid:
// a position is the heap's place of a row, block × 1000 + line (a block holds at most 291 rows), so
// a step of the walk is a TID range scan of a few blocks — as cheap as SQLite's rowid range, however
// large the table. Answers are compressed by TOAST (lz4, drizzle-pg/0003) when written and space is
// reused by autovacuum: compressing and releasing pages have nothing to do here.
import type { SQL } from "bun";
import { MIGRATION_LOCK } from "../db/pg/open";
import { dropLogPartitionsBefore, ensureLogPartitions, LOG_PARTITIONED } from "../db/pg/partitions";
import { moveFormerPgRows, retirePgRollups } from "../rollups/triggers.pg";
import type { StorageStore } from "./store";

/** Default-partition log rows deleted per statement by retention. */
const DEFAULT_ROWS_BATCH = 10_000;

/** Positions per heap block: more than the rows a block can hold (MaxHeapTuplesPerPage is 291 at 8 kB). */
const PER_BLOCK = 1000;

/** The tid of position `p`: (block, line) with line 0 before every row of the block. */
const tidOf = (p: number) => `(${Math.floor(Math.max(0, p) / PER_BLOCK)},${Math.max(0, p) % PER_BLOCK})`;

export function createPgStorageStore(sql: SQL): StorageStore {
  return {
    async lastAnswerPosition() {
      // Past every row: the end of the heap's last block (0 for a table with no rows).
      const [row] = await sql`SELECT CASE WHEN EXISTS (SELECT 1 FROM prompt_results) THEN pg_relation_size('prompt_results') / current_setting('block_size')::int ELSE 0 END AS blocks`;
      return Number(row.blocks) * PER_BLOCK;
    },
    async dropAnswerText({ after, through, before }) {
      if (through <= after) return 0;
      // A row updated here moves to a new place (past `through` or into a later step); its text is then '' and it is not counted again.
      const result = await sql`UPDATE prompt_results SET response = '' WHERE ctid > ${tidOf(after)}::tid AND ctid <= ${tidOf(through)}::tid AND created_at < ${before} AND response != ''`;
      return result.count;
    },
    async compressPlainAnswers() {
      return 0;
    },
    async packWithDictionaries({ through }) {
      return { packed: 0, made: 0, unreadable: 0, through };
    },
    async releaseFreePages() {
      return 0;
    },
    prepareAhead: ({ now }) => ensureLogPartitions(sql, { now }),
    async dropLogMonthsBefore({ before }) {
      const dropped: string[] = [];
      for (const { table } of LOG_PARTITIONED) dropped.push(...(await dropLogPartitionsBefore(sql, table, before)));
      return dropped;
    },
    async deleteDefaultLogRowsBefore({ before, maxRows }) {
      let deleted = 0;
      for (const { table, column } of LOG_PARTITIONED) {
        // Deleted from the partition itself: the rollups' statement triggers belong to the parent
        // table and fire for statements on it only, so the counts stay, as a dropped month's do.
        // A batch at a time (each its own transaction), each table with its own maxRows; found
        // through the partition's BRIN index on its time column (drizzle-pg/0028).
        let left = maxRows;
        while (left > 0) {
          const limit = Math.min(DEFAULT_ROWS_BATCH, left);
          const result = await sql.unsafe(`DELETE FROM "${table}_default" WHERE ctid IN (SELECT ctid FROM "${table}_default" WHERE "${column}" < $1::timestamptz LIMIT ${limit})`, [before.toISOString()]);
          deleted += result.count;
          left -= limit;
          if (result.count < limit) break;
        }
      }
      return deleted;
    },
    moveFormerRows: ({ maxKeys }) => moveFormerPgRows(sql, maxKeys),
    // Under the migration lock: not while an instance starting migrates or rebuilds.
    dropRetiredTables: () =>
      sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
        return retirePgRollups(tx);
      }),
  };
}
