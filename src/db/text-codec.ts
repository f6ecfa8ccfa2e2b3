// Answers and their JSON companions are stored zstd-compressed (Bun ships zstd): a BLOB in a text
// column is a frame, anything else is plain text, so rows written before compression, or written
// plain through /rest/v1, read the same. Every connection gets aw_text(), which readers (the REST
// planner, the finalizer) wrap around these columns — through unpackedSql(), which also hands it the
// dictionary a frame was packed with.
//
// Two kinds of frame: a plain zstd frame (how the result store writes), and a frame packed with one
// of its brand's dictionaries (issue #32: storage upkeep repacks answers with them, src/storage):
// [0xD1][the dictionary's id in text_dictionaries, 4 bytes little-endian][a zstd frame made with it].
// An answer shares most of its words and its JSON's shape with the brand's other answers, which a
// frame compressed on its own cannot use; its brand's dictionary (its newest answers' text) can.
import { Database, type SQLFunctionResult } from "bun:sqlite";
import zlib from "node:zlib";

export const TEXT_FUNCTION = "aw_text";
/** aw_text_wants(value): the id of the dictionary `value`'s frame needs and this connection has not loaded yet, else NULL. */
export const WANTS_FUNCTION = "aw_text_wants";

/**
 * The prompt_results columns stored compressed, each of which a brand's dictionary may pack. The
 * rollup triggers read `citations` with aw_text() alone, which loads a dictionary itself when it
 * must; a repack changes no watched value, so it fires none of them (src/rollups/triggers.sqlite.ts).
 */
export const PACKED_COLUMNS = ["response", "citations", "sources", "details"] as const;
export type PackedColumn = (typeof PACKED_COLUMNS)[number];

/**
 * SQL reading a packed column (an expression) as its text: aw_text(value, dictionary), the
 * dictionary read from text_dictionaries only when the frame needs one the connection has not
 * loaded (for any other value the sub-select matches nothing and reads no row).
 */
export function unpackedSql(value: string): string {
  return `${TEXT_FUNCTION}(${value}, (SELECT dictionary FROM text_dictionaries WHERE id = ${WANTS_FUNCTION}(${value})))`;
}

// Below this a zstd frame (with its header) saves little and costs a decompression on every read.
const MIN_BYTES = 200;
// With a dictionary, short JSON packs well too.
const MIN_DICTIONARY_BYTES = 32;
const DICTIONARY_MARK = 0xd1;
const DICTIONARY_HEADER = 5;
const ZSTD_MAGIC_FIRST_BYTE = 0x28;
/** How long a connection's dictionary reader stays open after its last load. */
const SIDE_IDLE_MS = 1000;
/** Dictionaries a connection keeps loaded (each ≤ 64 KB). */
const LOADED_DICTIONARIES = 64;

export interface TextDictionary {
  id: number;
  bytes: Uint8Array;
}

/** The value to store: a zstd frame (packed with `dictionary` when given) when that is smaller by a tenth, else the text itself. */
export function packText(text: string, dictionary?: TextDictionary): string | Uint8Array {
  if (text.length < (dictionary ? MIN_DICTIONARY_BYTES : MIN_BYTES)) return text;
  const bytes = Buffer.from(text);
  if (!dictionary) {
    const packed = Bun.zstdCompressSync(bytes, { level: 3 });
    return packed.byteLength < bytes.byteLength * 0.9 ? packed : text;
  }
  const frame = zlib.zstdCompressSync(bytes, { dictionary: dictionary.bytes, params: { [zlib.constants.ZSTD_c_compressionLevel]: 3 } });
  if (frame.byteLength + DICTIONARY_HEADER >= bytes.byteLength * 0.9) return text;
  const out = Buffer.allocUnsafe(DICTIONARY_HEADER + frame.byteLength);
  out[0] = DICTIONARY_MARK;
  out.writeUInt32LE(dictionary.id, 1);
  out.set(frame, DICTIONARY_HEADER);
  return out;
}

/** The dictionary id a stored value was packed with; null for text and plain frames. */
export function dictionaryOf(value: unknown): number | null {
  return value instanceof Uint8Array && value.byteLength > DICTIONARY_HEADER && value[0] === DICTIONARY_MARK
    ? value[1]! | (value[2]! << 8) | (value[3]! << 16) | (value[4]! * 2 ** 24)
    : null;
}

/** Whether a stored value is a plain zstd frame (packed without a dictionary). */
export function isPlainFrame(value: unknown): boolean {
  return value instanceof Uint8Array && value[0] === ZSTD_MAGIC_FIRST_BYTE;
}

/**
 * A frame's text: a plain zstd frame's, or one packed with the dictionary `dictionaryFor` gives for
 * its id (an error when it has none to give).
 */
export function unpackFrame(frame: Uint8Array, dictionaryFor: (id: number) => Uint8Array | undefined): string {
  const id = dictionaryOf(frame);
  if (id === null) return Bun.zstdDecompressSync(frame).toString("utf8");
  const dictionary = dictionaryFor(id);
  if (!dictionary) throw new Error(`text packed with dictionary ${id}, which text_dictionaries does not hold`);
  return zlib.zstdDecompressSync(frame.subarray(DICTIONARY_HEADER), { dictionary }).toString("utf8");
}

/** SQL: a stored value is a plain zstd frame (packed without a dictionary). */
export const isPlainFrameSql = (value: string) => `(typeof(${value}) = 'blob' AND substr(${value}, 1, 1) = x'28')`;
/** SQL: a stored value is a frame packed with a dictionary. */
export const isDictionaryFrameSql = (value: string) => `(typeof(${value}) = 'blob' AND substr(${value}, 1, 1) = x'D1')`;
/** SQL: a value a dictionary may pack smaller — plain text long enough, or a plain frame. */
export const dictionaryMayPackSql = (value: string) => `((typeof(${value}) = 'text' AND length(${value}) >= ${MIN_DICTIONARY_BYTES}) OR ${isPlainFrameSql(value)})`;

/**
 * Dictionaries loaded by one connection, by id: ids are never reused and a dictionary never changes,
 * so a loaded one stays right. The least recently used goes first (a rebuild's scan meets many brands' in turn).
 */
export class LoadedDictionaries {
  private readonly byId = new Map<number, Buffer>();
  /** `load`: where a dictionary not loaded yet is read from (none: it must be added). */
  constructor(private readonly load?: (id: number) => Uint8Array | undefined) {}
  get(id: number): Buffer | undefined {
    const known = this.byId.get(id);
    if (known) {
      this.byId.delete(id);
      this.byId.set(id, known);
      return known;
    }
    if (!this.load) return undefined;
    const bytes = this.load(id);
    return bytes ? this.add(id, bytes) : undefined;
  }
  has(id: number): boolean {
    return this.byId.has(id);
  }
  add(id: number, bytes: Uint8Array): Buffer {
    // A copy: SQLite's buffer is not ours to keep.
    const copy = Buffer.from(bytes);
    this.byId.set(id, copy);
    if (this.byId.size > LOADED_DICTIONARIES) this.byId.delete(this.byId.keys().next().value!);
    return copy;
  }
}

/**
 * aw_text's body: a frame's text, any other value as it is. A frame packed with a dictionary needs
 * it loaded, handed in as `dictionary`, or read by the connection's loader. It remembers its last few frames: the rollup triggers of
 * one new result each read its citations (the same frame again and again), and decompressing them
 * each time was a third of a result's write (bench/tracking.ts). Comparing a frame's bytes costs
 * far less.
 */
export function createTextUnpacker(remembered = 2, dictionaries = new LoadedDictionaries()): (value: SQLFunctionResult, dictionary?: SQLFunctionResult) => SQLFunctionResult {
  const recent: { frame: Buffer; text: string }[] = [];
  return (value, dictionary) => {
    if (!(value instanceof Uint8Array)) return value;
    const frame = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    const hit = recent.find((r) => r.frame.equals(frame));
    if (hit) return hit.text;
    const text = unpackFrame(frame, (id) => (dictionary instanceof Uint8Array && !dictionaries.has(id) ? dictionaries.add(id, dictionary) : dictionaries.get(id)));
    // A copy: SQLite's buffer is not ours to keep.
    recent.unshift({ frame: Buffer.from(frame), text });
    recent.length = Math.min(recent.length, remembered);
    return text;
  };
}

/**
 * A committed dictionary read through a connection of its own: SQLite refuses a query on the
 * connection a SQL function runs on, and a trigger (a rollup's, reading a deleted answer's
 * citations) cannot hand the dictionary in. Dictionaries are committed before any value is packed
 * with one (src/storage/dictionaries.sqlite.ts), so a reader of the file sees every one a frame names
 * (it reads what is committed now: a dictionary whose brand was deleted since the caller's read
 * began is gone, and that read fails rather than returning wrong text). Kept open while loads
 * follow each other (a scan meeting many brands' dictionaries), closed after a second without one.
 * A database in memory has no file for a second connection: its frames must be read with their
 * dictionary handed in (unpackedSql).
 */
function sideLoader(file: string): ((id: number) => Uint8Array | undefined) | undefined {
  if (!file || file === ":memory:") return undefined;
  let side: Database | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const close = () => {
    side?.close();
    side = undefined;
  };
  return (id) => {
    clearTimeout(idle);
    try {
      if (!side) {
        side = new Database(file, { readonly: true });
        side.run("PRAGMA busy_timeout = 5000");
      }
      return (side.query("SELECT dictionary FROM text_dictionaries WHERE id = ?").get(id) as { dictionary: Uint8Array } | null)?.dictionary;
    } catch (error) {
      close();
      throw error;
    } finally {
      idle = setTimeout(close, SIDE_IDLE_MS);
      idle.unref?.();
    }
  };
}

export function registerTextFunctions(sqlite: Database): void {
  const load = sideLoader(sqlite.filename);
  const dictionaries = new LoadedDictionaries(load);
  const unpack = createTextUnpacker(2, dictionaries);
  sqlite.function(TEXT_FUNCTION, { deterministic: true }, (value: SQLFunctionResult) => unpack(value));
  sqlite.function(TEXT_FUNCTION, { deterministic: true }, (value: SQLFunctionResult, dictionary: SQLFunctionResult) => unpack(value, dictionary));
  // Not deterministic: its answer changes once the connection has loaded the dictionary.
  sqlite.function(WANTS_FUNCTION, (value: SQLFunctionResult) => {
    const id = dictionaryOf(value);
    return id === null || dictionaries.has(id) ? null : id;
  });
}
