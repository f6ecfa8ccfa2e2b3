// Issue #32: answers repacked with their brand's zstd dictionaries (src/db/text-codec.ts). A brand
// with `minAnswers` answers gets, per packed column, a dictionary of its newest answers' text; a
// column gets a newer one once the brand's answers have grown `growth`-fold since its last
// (answers drift as prompts and months change); each answer still packed on its own (or plain) is
// repacked with its brand's newest. A frame made with an older dictionary stays as it is: that
// dictionary stays too, until its brand goes. Compressing with a dictionary costs ~0.1–0.4 ms a
// value, so this runs in storage upkeep, a few rows a transaction, never in the result writer's path.
import type { Database, Statement } from "bun:sqlite";
import { PACKED_COLUMNS, dictionaryMayPackSql, isDictionaryFrameSql, LoadedDictionaries, packText, unpackedSql, unpackFrame, type PackedColumn, type TextDictionary } from "../db/text-codec";
import { ensureTriggers, type SchemaPart } from "../db/schema-part";
import type { PackStep } from "./store";

export interface DictionaryOptions {
  /** A brand's answers before it gets its first dictionaries. */
  minAnswers: number;
  /** A column gets a newer dictionary once the brand's answers have grown this many times since its last. */
  growth: number;
  /** The newest answers a dictionary is made from. */
  sampleAnswers: number;
  /** Each column's dictionary size in bytes: compressing costs about in proportion. */
  bytes: Record<PackedColumn, number>;
  /** How long a brand's answer count (and that it has no dictionary) is trusted before it is checked again. */
  recountMs: number;
}

export const DICTIONARY_DEFAULTS: DictionaryOptions = {
  minAnswers: 200,
  growth: 10,
  sampleAnswers: 400,
  bytes: { response: 65_536, citations: 32_768, sources: 32_768, details: 16_384 },
  recountMs: 10 * 60_000,
};

/** Below this a column's sample says too little to be worth a dictionary. */
const MIN_SAMPLE_BYTES = 1024;
/** Brands the packer remembers counts of before it forgets the stale ones. */
const REMEMBERED_BRANDS = 10_000;

type Stored = string | Uint8Array | null;
type Candidate = { id: number; brand_id: string } & Record<PackedColumn, Stored>;
type Newest = { id: number; column_name: PackedColumn; answers: number };
interface Brand {
  answers: number;
  countedAt: number;
  /** It had no dictionary for the columns asked when last checked: its answers are passed over until its recount. */
  none: boolean;
}

/**
 * Sets some packed columns of one answer: only those given. Setting `citations` to what it was
 * would still run the rollup triggers' WHEN, which reads it — and one that cannot be read (a
 * damaged frame) would then fail every step of the upkeep.
 */
export function packedColumnsWriter(sqlite: Database): (rowid: number, columns: readonly PackedColumn[], values: readonly (string | Uint8Array)[]) => void {
  const statements = new Map<string, Statement>();
  return (rowid, columns, values) => {
    const key = columns.join(",");
    let statement = statements.get(key);
    if (!statement) statements.set(key, (statement = sqlite.prepare(`UPDATE prompt_results SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE rowid = ?`)));
    statement.run(...values, rowid);
  };
}

export function createDictionaryPacker(sqlite: Database, options: DictionaryOptions = DICTIONARY_DEFAULTS) {
  // Per set of columns (all, or all but response while retention is on): only those make a row a candidate.
  const byColumns = new Map<string, { candidates: Statement; rows: Statement }>();
  const statementsFor = (columns: readonly PackedColumn[]) => {
    const key = columns.join(",");
    let statements = byColumns.get(key);
    if (!statements) {
      const wanted = columns.map(dictionaryMayPackSql).join(" OR ");
      statements = {
        candidates: sqlite.prepare(
          `SELECT rowid AS id, brand_id FROM prompt_results WHERE rowid > ? AND rowid <= ? AND (${wanted})
             AND brand_id NOT IN (SELECT value FROM json_each(?)) ORDER BY rowid LIMIT ?`,
        ),
        // The same rows again under the write lock: one may have changed since (retention, a REST write).
        rows: sqlite.prepare(`SELECT rowid AS id, brand_id, ${PACKED_COLUMNS.join(", ")} FROM prompt_results WHERE rowid IN (SELECT value FROM json_each(?)) AND (${wanted}) ORDER BY rowid`),
      };
      byColumns.set(key, statements);
    }
    return statements;
  };
  const q = {
    // What the database holds now, never what this process remembers: a brand deleted (its
    // dictionaries with it) and made again under its id starts over.
    newest: sqlite.prepare(`SELECT max(id) AS id, column_name, answers FROM text_dictionaries WHERE brand_id = ? GROUP BY column_name`),
    bytes: sqlite.prepare("SELECT dictionary FROM text_dictionaries WHERE id = ?"),
    count: sqlite.prepare("SELECT count(*) AS n FROM prompt_results WHERE brand_id = ?"),
    sample: sqlite.prepare(`SELECT ${PACKED_COLUMNS.join(", ")} FROM prompt_results WHERE brand_id = ? ORDER BY created_at DESC LIMIT ?`),
    insert: sqlite.prepare("INSERT INTO text_dictionaries (brand_id, column_name, answers, dictionary, created_at) VALUES (?, ?, ?, ?, ?)"),
  };
  const write = packedColumnsWriter(sqlite);
  const brands = new Map<string, Brand>();
  // Committed dictionaries never change and their ids are never reused: one loaded stays right.
  const loaded = new LoadedDictionaries((id) => (q.bytes.get(id) as { dictionary: Uint8Array } | null)?.dictionary);
  const dictionaryFor = (id: number): Buffer | undefined => loaded.get(id);
  const newestOf = (brandId: string) => q.newest.all(brandId) as Newest[];

  /** A stored value's text; null when it cannot be read (a damaged frame, a dictionary gone). */
  const textOf = (value: Stored): string | null => {
    if (typeof value === "string" || value === null) return value;
    try {
      return unpackFrame(value, dictionaryFor);
    } catch {
      return null;
    }
  };

  const brandOf = (brandId: string): Brand => {
    let brand = brands.get(brandId);
    if (!brand || Date.now() - brand.countedAt >= options.recountMs) {
      brand = { answers: (q.count.get(brandId) as { n: number }).n, countedAt: Date.now(), none: brand?.none ?? false };
      brands.set(brandId, brand);
      if (brands.size > REMEMBERED_BRANDS) for (const [id, b] of brands) if (Date.now() - b.countedAt >= options.recountMs) brands.delete(id);
    }
    return brand;
  };

  /** The columns due a dictionary: one without at `minAnswers` answers, one with at `growth` times its last's. */
  const dueColumns = (newest: Newest[], answers: number, columns: readonly PackedColumn[]) =>
    columns.filter((c) => {
      const last = newest.find((d) => d.column_name === c);
      return last ? answers >= last.answers * options.growth : answers >= options.minAnswers;
    });

  /**
   * Makes the brand's due dictionaries in a transaction of their own, committed before any answer
   * is packed with them, so a failed repack never leaves an answer naming a dictionary that was
   * rolled back. What is due is read again under the write lock: two packers (the server and
   * `answerwatch vacuum`) make one set. Whether the brand got its first dictionary, a newer one, or none.
   */
  const make = sqlite.transaction((brandId: string, answers: number, columns: readonly PackedColumn[]): "first" | "newer" | null => {
    const newest = newestOf(brandId);
    const due = dueColumns(newest, answers, columns);
    if (!due.length) return null;
    // Newest answers last: zstd reaches the end of a dictionary most cheaply. A value that cannot be read is left out.
    const rows = (q.sample.all(brandId, options.sampleAnswers) as Record<PackedColumn, Stored>[]).reverse();
    const at = new Date().toISOString();
    let made = 0;
    for (const column of due) {
      const text = Buffer.from(rows.map((r) => textOf(r[column]) ?? "").filter(Boolean).join("\n"));
      if (text.byteLength < MIN_SAMPLE_BYTES) continue;
      q.insert.run(brandId, column, answers, text.subarray(Math.max(0, text.byteLength - options.bytes[column])), at);
      made++;
    }
    return made === 0 ? null : newest.length === 0 ? "first" : "newer";
  });

  const repack = sqlite.transaction((ids: number[], columns: readonly PackedColumn[], rowsStatement: Statement) => {
    const rows = rowsStatement.all(JSON.stringify(ids)) as Candidate[];
    const dictionariesOf = new Map<string, Partial<Record<PackedColumn, TextDictionary>>>();
    let packed = 0;
    let unreadable = 0;
    for (const row of rows) {
      let dictionaries = dictionariesOf.get(row.brand_id);
      if (!dictionaries) {
        dictionaries = {};
        for (const d of newestOf(row.brand_id)) {
          const bytes = columns.includes(d.column_name) ? dictionaryFor(d.id) : undefined;
          if (bytes) dictionaries[d.column_name] = { id: d.id, bytes };
        }
        dictionariesOf.set(row.brand_id, dictionaries);
      }
      const changed: PackedColumn[] = [];
      const values: Uint8Array[] = [];
      let damaged = false;
      for (const column of PACKED_COLUMNS) {
        const dictionary = dictionaries[column];
        const stored = row[column];
        if (!dictionary) continue;
        const text = textOf(stored);
        if (text === null) {
          // A frame that does not decompress stays as it is (its readers see the same error they did).
          damaged ||= stored !== null;
          continue;
        }
        const repacked = packText(text, dictionary);
        const storedBytes = typeof stored === "string" ? Buffer.byteLength(stored) : stored!.byteLength;
        if (typeof repacked === "string" || repacked.byteLength >= storedBytes) continue;
        changed.push(column);
        values.push(repacked);
      }
      if (damaged) unreadable++;
      if (!changed.length) continue;
      write(row.id, changed, values);
      packed++;
    }
    return { packed, unreadable };
  });

  return {
    /**
     * Repacks up to `maxRows` answers of positions (after, through] that are still packed on their
     * own, `columns` only (the others left as they are). The range is scanned, and what each brand
     * has and is due read, before any write lock is taken: a step with nothing to pack (a walk
     * after a restart) holds up no writer.
     */
    pack(after: number, through: number, maxRows: number, columns: readonly PackedColumn[]): PackStep {
      const none = { packed: 0, made: 0, unreadable: 0 };
      if (!columns.length) return { ...none, through };
      const statements = statementsFor(columns);
      const passedOver = [...brands].filter(([, b]) => b.none && Date.now() - b.countedAt < options.recountMs).map(([id]) => id);
      const candidates = statements.candidates.all(after, through, JSON.stringify(passedOver), maxRows) as { id: number; brand_id: string }[];
      const reached = candidates.length === maxRows ? candidates[candidates.length - 1]!.id : through;
      let made = 0;
      let ready = 0;
      for (const brandId of new Set(candidates.map((c) => c.brand_id))) {
        const brand = brandOf(brandId);
        let newest = newestOf(brandId);
        if (dueColumns(newest, brand.answers, columns).length) {
          const result = make.immediate(brandId, brand.answers, columns);
          if (result === "first") made++;
          if (result) newest = newestOf(brandId);
        }
        brand.none = !newest.some((d) => columns.includes(d.column_name));
        if (!brand.none) ready++;
      }
      if (!ready) return { ...none, made, through: reached };
      const { packed, unreadable } = repack.immediate(
        candidates.map((c) => c.id),
        columns,
        statements.rows,
      );
      return { packed, made, unreadable, through: reached };
    },
  };
}

/**
 * An answer moved to another brand would outlive its old brand's dictionaries: its values packed
 * with one are unpacked as it moves (the upkeep packs them again with the new brand's). A trigger
 * of the schema, made again at start when missing or changed (a table rebuild drops its triggers).
 */
const unpackOnMove = (c: string) => `${c} = CASE WHEN ${isDictionaryFrameSql(c)} THEN ${unpackedSql(c)} ELSE ${c} END`;
export const DICTIONARY_TRIGGERS: Record<string, string> = {
  prompt_results_unpack_on_brand_move: `AFTER UPDATE OF brand_id ON prompt_results WHEN NEW.brand_id IS NOT OLD.brand_id BEGIN
  UPDATE prompt_results SET ${PACKED_COLUMNS.map(unpackOnMove).join(", ")}
   WHERE rowid = NEW.rowid AND (${PACKED_COLUMNS.map(isDictionaryFrameSql).join(" OR ")});
END`,
};

/** The trigger that keeps a moved answer readable. */
export const dictionariesSchema: SchemaPart = { name: "dictionaries", ensure: (sqlite: Database) => ensureTriggers(sqlite, DICTIONARY_TRIGGERS) };
