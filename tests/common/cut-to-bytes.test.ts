import { expect, test } from "bun:test";
import { cutToBytes } from "../../src/common/limits";

test("cutToBytes keeps at most the bytes asked for, never half a character, whatever the script", () => {
  const samples = ["plain ascii text", "é".repeat(50), "的".repeat(50), "😀".repeat(50), "a的é😀".repeat(30)];
  for (const text of samples)
    for (let max = 0; max <= 80; max++) {
      const cut = cutToBytes(text, max);
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(max);
      expect(text.startsWith(cut)).toBe(true);
      expect(cut).not.toContain("\uFFFD");
      // As long as it can be: one more character would not fit.
      const next = [...text.slice(cut.length)][0];
      if (next) expect(Buffer.byteLength(cut + next)).toBeGreaterThan(max);
    }
  expect(cutToBytes("short", 1024)).toBe("short");
});
