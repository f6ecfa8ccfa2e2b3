// A seeded PRNG (mulberry32) and the draws property tests make from it: the same seed, the same run.
export function seededRandom(seed: number) {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(random() * n);
  return {
    random,
    int,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)]!,
    chance: (p: number) => random() < p,
    /** Up to n distinct elements in random order. */
    sample: <T>(xs: readonly T[], n: number): T[] => {
      const copy = [...xs];
      const out: T[] = [];
      while (out.length < n && copy.length) out.push(copy.splice(int(copy.length), 1)[0]!);
      return out;
    },
  };
}
