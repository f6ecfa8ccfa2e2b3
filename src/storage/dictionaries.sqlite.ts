// Issue #32: answers repacked with their brand's zstd dictionaries (src/db/text-codec.ts). A brand
// with `minAnswers` answers gets, per packed column, a dictionary of its newest answers' text; a
// new one once its answers have grown `growth`-fold since (answers drift as prompts and months
// change); each answer still packed on its own (or plain) is repacked with its brand's newest. A
// frame made with an older dictionary stays as it is: that dictionary stays too, until its brand
// goes. Compressing with a dictionary costs ~0.1–0.4 ms a value, so this runs in storage upkeep,
// a few rows a transaction, never in the result writer's path.
import type { Database, Statement } from "bun:sqlite";
import { DICTIONARY_COLUMNS, dictionaryOf, isPlainFrame, packText, unpackWith, unpackedSql, type DictionaryColumn, type TextDictionary } from "../db/text-codec";
import type { SchemaPart } from "../db/schema-part";
import type { PackStep } from "./store";

export interface DictionaryOptions {
  /** A brand's answers before it gets its first dictionaries. */
  minAnswers: number;
  /** A brand gets new dictionaries once its answers have grown this many times since its last. */
  growth: number;
  /** The newest answers a dictionary is made from. */
  sampleAnswers: number;
  /** Each column's dictionary size in bytes: compressing costs about in proportion. */
  bytes: Record<DictionaryColumn, number>;
  /** How long a brand's answer count is trusted before it is counted again. */
  recountMs: number;
}

export const DICTIONARY_DEFAULTS: DictionaryOptions = {
  minAnswers: 200,
  growth: 10,
  sampleAnswers: 400,
  bytes: { response: 65_536, sources: 32_768, details: 16_384 },
  recountMs: 10 * 60_000,
};

/** Below this a column's sample says too little to be worth a dictionary. */
const MIN_SAMPLE_BYTES = 1024;
/** Dictionaries the packer keeps in memory (each ≤ 64 KB); others are read again when needed. */
const CACHED_DICTIONARIES = 64;

type Stored = string | Uint8Array | null;
type Candidate = { id: number; brand_id: string } & Record<DictionaryColumn, Stored>;
type Newest = { id: number; column_name: DictionaryColumn; answers: number };

/** A column's value still packed on its own or plain, long enough to gain: what a repack may improve. */
const repackable = (c: string) => `(typeof(${c}) = 'text' AND length(${c}) >= 32) OR (typeof(${c}) = 'blob' AND substr(${c}, 1, 1) = x'28')`;

export function createDictionaryPacker(sqlite: Database, options: DictionaryOptions = DICTIONARY_DEFAULTS, now: () => number = Date.now) {
  // Per set of columns (all, or all but response while retention is on): only those make a row a candidate.
  const byColumns = new Map<string, { candidates: Statement; rows: Statement }>();
  const statementsFor = (columns: readonly DictionaryColumn[]) => {
    const key = columns.join(",");
    let statements = byColumns.get(key);
    if (!statements) {
      const wanted = columns.map(repackable).join(" OR ");
      statements = {
        // Brands waiting for their dictionaries (too few answers, counted lately) are passed over: their rows would fill every step.
        candidates: sqlite.prepare(
          `SELECT rowid AS id, brand_id FROM prompt_results WHERE rowid > ? AND rowid <= ? AND (${wanted})
             AND brand_id NOT IN (SELECT value FROM json_each(?)) ORDER BY rowid LIMIT ?`,
        ),
        // The same rows again under the write lock: one may have changed since (retention, a REST write).
        rows: sqlite.prepare(`SELECT rowid AS id, brand_id, ${DICTIONARY_COLUMNS.join(", ")} FROM prompt_results WHERE rowid IN (SELECT value FROM json_each(?)) AND (${wanted}) ORDER BY rowid`),
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
    sample: sqlite.prepare(`SELECT ${DICTIONARY_COLUMNS.join(", ")} FROM prompt_results WHERE brand_id = ? ORDER BY created_at DESC LIMIT ?`),
    insert: sqlite.prepare("INSERT INTO text_dictionaries (brand_id, column_name, answers, dictionary, created_at) VALUES (?, ?, ?, ?, ?)"),
    update: sqlite.prepare(`UPDATE prompt_results SET ${DICTIONARY_COLUMNS.map((c) => `${c} = ?`).join(", ")} WHERE rowid = ?`),
  };
  /** A brand's answers when last counted: a hint for when its next dictionaries are due, never trusted for what exists. */
  const counted = new Map<string, { answers: number; at: number }>();
  /** Brands that got no dictionary when last due or checked, until when they are passed over. */
  const waiting = new Map<string, number>();
  /** Dictionary bytes by id: committed dictionaries never change and their ids are never reused. */
  const cache = new Map<number, Buffer>();

  const bytesOf = (id: number): Buffer | null => {
    let bytes = cache.get(id);
    if (!bytes) {
      const row = q.bytes.get(id) as { dictionary: Uint8Array } | null;
      if (!row) return null;
      bytes = Buffer.from(row.dictionary);
      cache.set(id, bytes);
      if (cache.size > CACHED_DICTIONARIES) cache.delete(cache.keys().next().value!);
    }
    return bytes;
  };

  /** A stored value's text, whatever it was packed with; null when it cannot be read (a damaged frame, a dictionary gone). */
  const textOf = (value: Stored): string | null => {
    if (typeof value === "string" || value === null) return value;
    try {
      if (isPlainFrame(value)) return Bun.zstdDecompressSync(value).toString("utf8");
      const id = dictionaryOf(value);
      const dictionary = id === null ? null : bytesOf(id);
      return dictionary ? unpackWith(value, dictionary) : null;
    } catch {
      return null;
    }
  };

  const answersOf = (brandId: string): number => {
    const known = counted.get(brandId);
    if (known && now() - known.at < options.recountMs) return known.answers;
    const answers = (q.count.get(brandId) as { n: number }).n;
    counted.set(brandId, { answers, at: now() });
    return answers;
  };

  /**
   * Makes the brand's dictionaries for the columns due some — a column without one at
   * `minAnswers` answers, one with one at `growth` times the answers it was made at — in a
   * transaction of their own, committed before any answer is packed with them, so a failed
   * repack never leaves an answer naming a dictionary that was rolled back. The check is made
   * again under the write lock: two packers (the server and `answerwatch vacuum`) make one set.
   * Whether the brand got its first dictionary, a newer one, or none.
   */
  const make = sqlite.transaction((brandId: string, answers: number, columns: readonly DictionaryColumn[]): "first" | "newer" | null => {
    const newest = new Map((q.newest.all(brandId) as Newest[]).map((d) => [d.column_name, d]));
    const due = columns.filter((c) => (newest.has(c) ? answers >= newest.get(c)!.answers * options.growth : answers >= options.minAnswers));
    if (!due.length) return null;
    // Newest answers last: zstd reaches the end of a dictionary most cheaply. A value that cannot be read is left out.
    const rows = (q.sample.all(brandId, options.sampleAnswers) as Record<DictionaryColumn, Stored>[]).reverse();
    const at = new Date(now()).toISOString();
    let made = 0;
    for (const column of due) {
      const text = Buffer.from(rows.map((r) => textOf(r[column]) ?? "").filter(Boolean).join("\n"));
      if (text.byteLength < MIN_SAMPLE_BYTES) continue;
      q.insert.run(brandId, column, answers, text.subarray(Math.max(0, text.byteLength - options.bytes[column])), at);
      made++;
    }
    return made === 0 ? null : newest.size === 0 ? "first" : "newer";
  });

  const repack = sqlite.transaction((ids: number[], columns: readonly DictionaryColumn[], statements: { rows: Statement }) => {
    const rows = statements.rows.all(JSON.stringify(ids)) as Candidate[];
    const newestOf = new Map<string, Partial<Record<DictionaryColumn, TextDictionary>>>();
    let packed = 0;
    let unreadable = 0;
    for (const row of rows) {
      let dictionaries = newestOf.get(row.brand_id);
      if (!dictionaries) {
        dictionaries = {};
        for (const d of q.newest.all(row.brand_id) as Newest[]) {
          const bytes = columns.includes(d.column_name) ? bytesOf(d.id) : null;
          if (bytes) dictionaries[d.column_name] = { id: d.id, bytes };
        }
        newestOf.set(row.brand_id, dictionaries);
      }
      let changed = false;
      let damaged = false;
      const values = DICTIONARY_COLUMNS.map((column) => {
        const dictionary = dictionaries[column];
        const stored = row[column];
        if (!dictionary) return stored;
        const text = textOf(stored);
        // A frame that does not decompress stays as it is (its readers see the same error they did).
        if (text === null) {
          damaged = stored !== null;
          return stored;
        }
        const repacked = packText(text, dictionary);
        const storedBytes = typeof stored === "string" ? Buffer.byteLength(stored) : stored!.byteLength;
        if (typeof repacked === "string" || repacked.byteLength >= storedBytes) return stored;
        changed = true;
        return repacked;
      });
      if (damaged) unreadable++;
      if (!changed) continue;
      q.update.run(...values, row.id);
      packed++;
    }
    return { packed, unreadable };
  });

  return {
    /**
     * Repacks up to `maxRows` answers of positions (after, through] that are still packed on their
     * own, `columns` only (the others left as they are). The range is scanned before the write
     * lock is taken: a range with nothing to pack (a walk after a restart) holds up no writer.
     */
    pack(after: number, through: number, maxRows: number, columns: readonly DictionaryColumn[] = DICTIONARY_COLUMNS): PackStep {
      const none = { packed: 0, made: 0, unreadable: 0 };
      if (!columns.length) return { ...none, through };
      const statements = statementsFor(columns);
      const passedOver = [...waiting].filter(([, until]) => until > now()).map(([brand]) => brand);
      const candidates = statements.candidates.all(after, through, JSON.stringify(passedOver), maxRows) as { id: number; brand_id: string }[];
      const reached = candidates.length === maxRows ? candidates[candidates.length - 1]!.id : through;
      let made = 0;
      let withDictionaries = 0;
      for (const brandId of new Set(candidates.map((c) => c.brand_id))) {
        if (make.immediate(brandId, answersOf(brandId), columns) === "first") made++;
        const has = (q.newest.all(brandId) as Newest[]).some((d) => columns.includes(d.column_name));
        if (has) {
          withDictionaries++;
          waiting.delete(brandId);
        } else waiting.set(brandId, now() + options.recountMs);
      }
      if (!withDictionaries) return { ...none, made, through: reached };
      const { packed, unreadable } = repack.immediate(
        candidates.map((c) => c.id),
        columns,
        statements,
      );
      return { packed, made, unreadable, through: reached };
    },
  };
}

/**
 * An answer moved to another brand would outlive its old brand's dictionaries: its values packed
 * with one are unpacked as it moves (the upkeep packs them again with the new brand's). A trigger
 * of the schema, made again at every start if missing (a table rebuilt drops its triggers).
 */
const unpackOnMove = (c: string) => `${c} = CASE WHEN typeof(${c}) = 'blob' AND substr(${c}, 1, 1) = x'D1' THEN ${unpackedSql(c)} ELSE ${c} END`;
export const DICTIONARY_TRIGGERS: Record<string, string> = {
  prompt_results_unpack_on_brand_move: `AFTER UPDATE OF brand_id ON prompt_results WHEN NEW.brand_id IS NOT OLD.brand_id BEGIN
  UPDATE prompt_results SET ${DICTIONARY_COLUMNS.map(unpackOnMove).join(", ")}
   WHERE rowid = NEW.rowid AND (${DICTIONARY_COLUMNS.map((c) => `(typeof(${c}) = 'blob' AND substr(${c}, 1, 1) = x'D1')`).join(" OR ")});
END`,
};

export function ensureDictionaryTriggers(sqlite: Database): boolean {
  const present = new Map((sqlite.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all() as { name: string; sql: string }[]).map((r) => [r.name, r.sql]));
  const stale = Object.keys(DICTIONARY_TRIGGERS).filter((name) => present.get(name) !== `CREATE TRIGGER ${name} ${DICTIONARY_TRIGGERS[name]}`);
  if (!stale.length) return false;
  sqlite.transaction(() => {
    for (const name of stale) {
      sqlite.run(`DROP TRIGGER IF EXISTS ${name}`);
      sqlite.run(`CREATE TRIGGER ${name} ${DICTIONARY_TRIGGERS[name]}`);
    }
  }).immediate();
  return true;
}

/** The trigger that keeps a moved answer readable. */
export const dictionariesSchema: SchemaPart = { name: "dictionaries", ensure: ensureDictionaryTriggers };
