// Deterministic randomness for bench/scale: a seeded generator (sfc32), seeds derived from strings,
// and Zipf-weighted choices.

export interface Rng {
  /** [0, 1) */
  (): number;
  int(n: number): number;
  range(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  hex(chars: number): string;
  shuffle<T>(items: T[]): T[];
}

/** 128 bits of a string (cyrb128), for seeding. */
export function seedOf(text: string): [number, number, number, number] {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

const HEX = "0123456789abcdef";

export function rng(seed: string): Rng {
  let [a, b, c, d] = seedOf(seed);
  const next = (() => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  }) as Rng;
  for (let i = 0; i < 12; i++) next();
  next.int = (n) => Math.floor(next() * n);
  next.range = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  next.pick = (items) => items[Math.floor(next() * items.length)]!;
  next.chance = (p) => next() < p;
  next.hex = (chars) => {
    let out = "";
    for (let i = 0; i < chars; i++) out += HEX[Math.floor(next() * 16)];
    return out;
  };
  next.shuffle = (items) => {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  };
  return next;
}

/** Picks index k of n with weight 1 / (k + 1)^s. */
export function zipf(n: number, s = 1): (r: Rng) => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) cumulative[k] = total += 1 / Math.pow(k + 1, s);
  return (r) => {
    const x = r() * total;
    let lo = 0, hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Picks from weighted entries. */
export function weighted<T>(entries: readonly (readonly [T, number])[]): (r: Rng) => T {
  const total = entries.reduce((s, [, w]) => s + w, 0);
  return (r) => {
    let x = r() * total;
    for (const [value, w] of entries) if ((x -= w) < 0) return value;
    return entries[entries.length - 1]![0];
  };
}
