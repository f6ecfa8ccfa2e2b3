// A secret a caller sent compared with the one kept, in constant time: hashing both first makes the
// lengths equal (nothing learned from them either), and every byte is looked at.
import { timingSafeEqual } from "node:crypto";

const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest();

/** A comparer for one kept secret, its digest made once (the REST door compares on every request). */
export function secretMatcher(expected: string): (given: string | null | undefined) => boolean {
  const kept = digest(expected);
  return (given) => !!given && timingSafeEqual(digest(given), kept);
}

export function secretMatches(given: string | null | undefined, expected: string): boolean {
  return secretMatcher(expected)(given);
}
