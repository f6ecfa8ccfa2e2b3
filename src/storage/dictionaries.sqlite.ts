// Issue #32: answers repacked with their brand's zstd dictionaries (src/db/text-codec.ts). A brand
// with `minAnswers` answers gets, per packed column, a dictionary of its newest answers' text; a
// new one once its answers have grown `growth`-fold since (answers drift as prompts and months
// change); each answer still packed on its own (or plain) is repacked with its brand's newest. A
// frame made with an older dictionary stays as it is: that dictionary stays too, until its brand
// goes. Compressing with a dictionary costs ~0.1–0.4 ms a value, so this runs in storage upkeep,
// a few rows a transaction, never in the result writer's path.
import type { Database } from "bun:sqlite";
import { DICTIONARY_COLUMNS, isPlainFrame, packText, unpackedSql, type DictionaryColumn, type TextDictionary } from "../db/text-codec";

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

type Stored = string | Uint8Array | null;
type Candidate = { id: number; brand_id: string } & Record<DictionaryColumn, Stored>;
interface BrandDictionaries {
  byColumn: Partial<Record<DictionaryColumn, TextDictionary>>;
  /** The brand's answers when its newest dictionaries were made (0: none yet). */
  madeAt: number;
  countedAt: number;
}

/** A column's value still packed on its own or plain, long enough to gain: what a repack may improve. */
const repackable = (c: string) => `(typeof(${c}) = 'text' AND length(${c}) >= 32) OR (typeof(${c}) = 'blob' AND substr(${c}, 1, 1) = x'28')`;

export function createDictionaryPacker(sqlite: Database, options: DictionaryOptions = DICTIONARY_DEFAULTS, now: () => number = Date.now) {
  const q = {
    candidates: sqlite.prepare(`SELECT rowid AS id FROM prompt_results WHERE rowid > ? AND rowid <= ? AND (${DICTIONARY_COLUMNS.map(repackable).join(" OR ")}) ORDER BY rowid LIMIT ?`),
    // The same rows again under the write lock: one may have changed since (retention, a REST write).
    rows: sqlite.prepare(
      `SELECT rowid AS id, brand_id, ${DICTIONARY_COLUMNS.join(", ")} FROM prompt_results
        WHERE rowid IN (SELECT value FROM json_each(?)) AND (${DICTIONARY_COLUMNS.map(repackable).join(" OR ")}) ORDER BY rowid`,
    ),
    newest: sqlite.prepare(
      `SELECT id, column_name, answers, dictionary FROM text_dictionaries
        WHERE id IN (SELECT max(id) FROM text_dictionaries WHERE brand_id = ? GROUP BY column_name)`,
    ),
    count: sqlite.prepare("SELECT count(*) AS n FROM prompt_results WHERE brand_id = ?"),
    sample: sqlite.prepare(`SELECT ${DICTIONARY_COLUMNS.map((c) => `${unpackedSql(c)} AS ${c}`).join(", ")} FROM prompt_results WHERE brand_id = ? ORDER BY created_at DESC LIMIT ?`),
    insert: sqlite.prepare("INSERT INTO text_dictionaries (brand_id, column_name, answers, dictionary, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id"),
    update: sqlite.prepare(`UPDATE prompt_results SET ${DICTIONARY_COLUMNS.map((c) => `${c} = ?`).join(", ")} WHERE rowid = ?`),
  };
  const brands = new Map<string, BrandDictionaries>();

  /** Each column's dictionary: the newest answers last (zstd reaches the end of a dictionary most cheaply), cut to its size. */
  function make(brandId: string, answers: number): BrandDictionaries["byColumn"] {
    const rows = (q.sample.all(brandId, options.sampleAnswers) as Record<DictionaryColumn, string | null>[]).reverse();
    const made: BrandDictionaries["byColumn"] = {};
    const at = new Date(now()).toISOString();
    for (const column of DICTIONARY_COLUMNS) {
      const text = Buffer.from(rows.map((r) => r[column] ?? "").filter(Boolean).join("\n"));
      if (text.byteLength < MIN_SAMPLE_BYTES) continue;
      const bytes = text.subarray(Math.max(0, text.byteLength - options.bytes[column]));
      const { id } = q.insert.get(brandId, column, answers, bytes, at) as { id: number };
      made[column] = { id, bytes: Buffer.from(bytes) };
    }
    return made;
  }

  function dictionariesOf(brandId: string): BrandDictionaries["byColumn"] {
    const known = brands.get(brandId);
    if (known && now() - known.countedAt < options.recountMs) return known.byColumn;
    const state: BrandDictionaries = known ?? { byColumn: {}, madeAt: 0, countedAt: 0 };
    if (!known) {
      for (const row of q.newest.all(brandId) as { id: number; column_name: DictionaryColumn; answers: number; dictionary: Uint8Array }[]) {
        state.byColumn[row.column_name] = { id: row.id, bytes: Buffer.from(row.dictionary) };
        state.madeAt = Math.max(state.madeAt, row.answers);
      }
    }
    const answers = (q.count.get(brandId) as { n: number }).n;
    const due = state.madeAt === 0 ? answers >= options.minAnswers : answers >= state.madeAt * options.growth;
    if (due) {
      const made = make(brandId, answers);
      if (Object.keys(made).length) {
        state.byColumn = { ...state.byColumn, ...made };
        state.madeAt = answers;
      }
    }
    state.countedAt = now();
    brands.set(brandId, state);
    return state.byColumn;
  }

  const textOf = (value: Stored): string | null => (typeof value === "string" ? value : isPlainFrame(value) ? Bun.zstdDecompressSync(value!).toString("utf8") : null);

  const repack = sqlite.transaction((ids: number[]) => {
    const rows = q.rows.all(JSON.stringify(ids)) as Candidate[];
    let packed = 0;
    for (const row of rows) {
      const dictionaries = dictionariesOf(row.brand_id);
      let changed = false;
      const values = DICTIONARY_COLUMNS.map((column) => {
        const dictionary = dictionaries[column];
        const stored = row[column];
        const text = dictionary ? textOf(stored) : null;
        if (!dictionary || text === null) return stored;
        const repacked = packText(text, dictionary);
        const storedBytes = typeof stored === "string" ? Buffer.byteLength(stored) : stored!.byteLength;
        if (typeof repacked === "string" || repacked.byteLength >= storedBytes) return stored;
        changed = true;
        return repacked;
      });
      if (!changed) continue;
      q.update.run(...values, row.id);
      packed++;
    }
    return packed;
  });

  return {
    /**
     * Repacks up to `maxRows` answers of positions (after, through] that are still packed on their
     * own; the rows changed, and the position reached (`through` once the range is done). The
     * range is scanned before the write lock is taken: a range with nothing to pack (a walk after
     * a restart) holds up no writer.
     */
    pack(after: number, through: number, maxRows: number): { packed: number; through: number } {
      const ids = (q.candidates.all(after, through, maxRows) as { id: number }[]).map((r) => r.id);
      const reached = ids.length === maxRows ? ids[ids.length - 1]! : through;
      return { packed: ids.length ? repack.immediate(ids) : 0, through: reached };
    },
  };
}
