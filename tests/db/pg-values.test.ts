// withoutNul (src/db/pg/values.ts): PostgreSQL's text and jsonb cannot hold U+0000, so every NUL
// of a value's strings — nested in arrays and plain objects, keys too — becomes U+FFFD; a value
// without one is passed on as it is, not copied.
import { expect, test } from "bun:test";
import { withoutNul } from "../../src/db/pg/values";

test("NUL characters in strings, nested values and keys become U+FFFD; the rest is kept", () => {
  const bytes = new Uint8Array([0, 1]);
  const input = { text: "a\u0000b", list: [1, "c\u0000", { deep: ["\u0000"] }], ["k\u0000"]: null, ok: "plain", bytes, n: 3, flag: true };
  expect(withoutNul(input) as unknown).toEqual({ text: "a\uFFFDb", list: [1, "c\uFFFD", { deep: ["\uFFFD"] }], ["k\uFFFD"]: null, ok: "plain", bytes, n: 3, flag: true });
  // The input is left as it was.
  expect(input.text).toBe("a\u0000b");
  expect(withoutNul("x\u0000y\u0000")).toBe("x\uFFFDy\uFFFD");
  expect(withoutNul(["\u0000", "ok"])).toEqual(["\uFFFD", "ok"]);
});

test("a value with no NUL anywhere is returned as it is", () => {
  const row = { id: "r1", citations: [{ url: "https://a.example/", title: "A" }], details: { rank: 2, passages: ["p"] } };
  expect(withoutNul(row)).toBe(row);
  const list = ["a", { b: ["c"] }];
  expect(withoutNul(list)).toBe(list);
  expect(withoutNul(null)).toBe(null);
  expect(withoutNul(42)).toBe(42);
});
