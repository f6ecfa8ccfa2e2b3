// The storage store on SQLite (store.ts says what each operation does): positions are rowids of
// prompt_results; compression packs the text columns (src/db/text-codec.ts), with the brand's
// dictionaries once it has some (dictionaries.sqlite.ts).
import type { Database } from "bun:sqlite";
import { PACKED_COLUMNS, packText, type PackedColumn } from "../db/text-codec";
import { moveFormerRows } from "../rollups/triggers.sqlite";
import { createDictionaryPacker, DICTIONARY_DEFAULTS, packedColumnsWriter, type DictionaryOptions } from "./dictionaries.sqlite";
import type { StorageStore } from "./store";

export function createSqliteStorageStore(sqlite: Database, dictionaryOptions: DictionaryOptions = DICTIONARY_DEFAULTS): StorageStore {
  const dictionaries = createDictionaryPacker(sqlite, dictionaryOptions);
  const q = {
    last: sqlite.prepare("SELECT coalesce(max(rowid), 0) AS last FROM prompt_results"),
    drop: sqlite.prepare("UPDATE prompt_results SET response = '' WHERE rowid > ? AND rowid <= ? AND created_at < ? AND response != ''"),
    plain: sqlite.prepare(
      `SELECT rowid AS id, ${PACKED_COLUMNS.join(", ")} FROM prompt_results
        WHERE rowid > ? AND rowid <= ? AND (${PACKED_COLUMNS.map((c) => `(typeof(${c}) = 'text' AND length(${c}) >= 200)`).join(" OR ")})`,
    ),
  };
  const write = packedColumnsWriter(sqlite);
  const compress = sqlite.transaction((after: number, through: number) => {
    const rows = q.plain.all(after, through) as ({ id: number } & Record<PackedColumn, string | Uint8Array | null>)[];
    for (const row of rows) {
      const columns: PackedColumn[] = [];
      const values: Uint8Array[] = [];
      for (const column of PACKED_COLUMNS) {
        const value = row[column];
        const packed = typeof value === "string" ? packText(value) : value;
        if (packed instanceof Uint8Array && packed !== value) (columns.push(column), values.push(packed));
      }
      if (columns.length) write(row.id, columns, values);
    }
    return rows.length;
  });
  const pragma = (name: string) => (sqlite.query(`PRAGMA ${name}`).get() as Record<string, number>)[name]!;
  return {
    async lastAnswerPosition() {
      return (q.last.get() as { last: number }).last;
    },
    async dropAnswerText({ after, through, before }) {
      return q.drop.run(after, through, before).changes;
    },
    async compressPlainAnswers({ after, through }) {
      return compress.immediate(after, through);
    },
    async packWithDictionaries({ after, through, maxRows, columns }) {
      return dictionaries.pack(after, through, maxRows, columns);
    },
    async releaseFreePages() {
      const before = pragma("freelist_count");
      if (pragma("auto_vacuum") !== 2) return 0;
      sqlite.run("PRAGMA incremental_vacuum");
      return before - pragma("freelist_count");
    },
    async prepareAhead() {
      // One file, nothing partitioned.
      return [];
    },
    async dropLogMonthsBefore() {
      return [];
    },
    async deleteDefaultLogRowsBefore() {
      return 0;
    },
    async dropRetiredTables() {
      // One process per file: retired at start, or by `vacuum --full` when large.
      return [];
    },
    async moveFormerRows({ maxKeys }) {
      return moveFormerRows(sqlite, maxKeys);
    },
  };
}
