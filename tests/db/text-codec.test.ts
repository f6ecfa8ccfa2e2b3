// aw_text (src/db/text-codec.ts): zstd frames read back as their text, plain text as it is; the
// unpacker's memory of recent frames never answers one frame with another's text.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createTextUnpacker, packText, registerTextFunctions } from "../../src/db/text-codec";

const texts = Array.from({ length: 6 }, (_, i) => JSON.stringify(Array.from({ length: 20 }, (_, j) => ({ position: j + 1, url: `https://site${i}-${j}.example.com/page`, title: `Title ${i} ${j}` }))));

test("the unpacker answers each frame with its own text, remembered or not, and passes plain values through", () => {
  const unpack = createTextUnpacker(2);
  const frames = texts.map((t) => packText(t));
  for (const f of frames) expect(f).toBeInstanceOf(Uint8Array);
  // Repeats, alternations and frames past its memory of two: each read gives that frame's text.
  for (const i of [0, 0, 1, 0, 1, 2, 3, 0, 5, 5, 4, 1]) expect(unpack(new Uint8Array(frames[i] as Uint8Array))).toBe(texts[i]);
  // Frames of the same length with different bytes are not confused.
  const a = packText("a".repeat(300) + "x".repeat(300)) as Uint8Array;
  const b = new Uint8Array(a);
  b[b.length - 5] = b[b.length - 5]! ^ 1;
  expect(unpack(a)).toBe("a".repeat(300) + "x".repeat(300));
  expect(() => unpack(b)).toThrow();
  expect(unpack("plain")).toBe("plain");
  expect(unpack(null)).toBe(null);
});

test("aw_text in SQL reads compressed and plain rows alike, the same frame many times in a statement", () => {
  const db = new Database(":memory:");
  registerTextFunctions(db);
  db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  for (const [i, text] of texts.entries()) db.run("INSERT INTO t (id, v) VALUES (?, ?)", [i, packText(text)]);
  db.run("INSERT INTO t (id, v) VALUES (99, 'short')");
  const rows = db.query("SELECT id, aw_text(v) AS a, aw_text(v) AS b, CASE WHEN json_valid(aw_text(v)) THEN json_array_length(aw_text(v)) END AS n FROM t ORDER BY id").all() as { id: number; a: string; b: string; n: number | null }[];
  expect(rows.map((r) => r.a)).toEqual([...texts, "short"]);
  expect(rows.map((r) => r.b)).toEqual([...texts, "short"]);
  expect(rows.slice(0, 6).map((r) => r.n)).toEqual(texts.map(() => 20));
});
