// Answers and their JSON companions are stored zstd-compressed (Bun ships zstd): a BLOB in a text
// column is a zstd frame, anything else is plain text, so rows written before compression, or
// written plain through /rest/v1, read the same. Every connection gets aw_text(), which readers
// (the REST planner, the finalizer) wrap around these columns.
import type { Database, SQLFunctionResult } from "bun:sqlite";

export const TEXT_FUNCTION = "aw_text";

/** The prompt_results columns stored compressed. */
export const PACKED_COLUMNS = ["response", "citations", "sources", "details"] as const;

// Below this a zstd frame (with its header) saves little and costs a decompression on every read.
const MIN_BYTES = 200;

/** The value to store: a zstd frame when that is smaller by a tenth, else the text itself. */
export function packText(text: string): string | Uint8Array {
  if (text.length < MIN_BYTES) return text;
  const bytes = Buffer.from(text);
  const packed = Bun.zstdCompressSync(bytes, { level: 3 });
  return packed.byteLength < bytes.byteLength * 0.9 ? packed : text;
}

/**
 * aw_text's body: a zstd frame's text, any other value as it is. It remembers its last few frames:
 * the rollup triggers of one new result each read its citations (the same frame again and again),
 * and decompressing them each time was a third of a result's write (bench/tracking.ts). Comparing
 * a frame's bytes costs far less.
 */
export function createTextUnpacker(remembered = 2): (value: SQLFunctionResult) => SQLFunctionResult {
  const recent: { frame: Buffer; text: string }[] = [];
  return (value) => {
    if (!(value instanceof Uint8Array)) return value;
    const frame = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    const hit = recent.find((r) => r.frame.equals(frame));
    if (hit) return hit.text;
    const text = Bun.zstdDecompressSync(value).toString("utf8");
    // A copy: SQLite's buffer is not ours to keep.
    recent.unshift({ frame: Buffer.from(frame), text });
    recent.length = Math.min(recent.length, remembered);
    return text;
  };
}

export function registerTextFunctions(sqlite: Database): void {
  sqlite.function(TEXT_FUNCTION, { deterministic: true }, createTextUnpacker());
}
