// A secret a caller sent compared with the one kept, in constant time: hashing both first makes the
// lengths equal (nothing learned from them either), and every byte is looked at.
import { timingSafeEqual } from "node:crypto";

const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest();

export function secretMatches(given: string | null | undefined, expected: string): boolean {
  if (!given) return false;
  return timingSafeEqual(digest(given), digest(expected));
}
