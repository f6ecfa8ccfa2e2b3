// Honest statistics for rates (DESIGN §14): every proportion with a Wilson score interval, every
// change between two windows with Newcombe's hybrid score interval (method 10 of Newcombe, 1998,
// "Interval estimation for the difference between independent proportions", Stat Med 17:873–890)
// and a verdict. Pure functions; z = 1.959964 for 95 %.

export const Z95 = 1.959964;

export interface Interval {
  value: number | null;
  n: number;
  ci_low: number | null;
  ci_high: number | null;
}

/** Wilson score interval for x successes in n trials; all null when n = 0. */
export function wilson(x: number, n: number, z = Z95): Interval {
  if (!(n > 0)) return { value: null, n: 0, ci_low: null, ci_high: null };
  if (x < 0 || x > n) throw new RangeError(`wilson: ${x} successes in ${n} trials`);
  const p = x / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // Clamped: rounding can leave the bounds a hair outside [0, 1] at x = 0 or x = n.
  return { value: p, n, ci_low: Math.max(0, centre - half), ci_high: Math.min(1, centre + half) };
}

export type Verdict = "up" | "down" | "within_noise" | "insufficient_data";

export interface Change {
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  verdict: Verdict;
}

/** The change p1 − p2 (current minus previous) with Newcombe's hybrid score interval. */
export function newcombe(x1: number, n1: number, x2: number, n2: number, z = Z95): Change {
  if (!(n1 > 0) || !(n2 > 0)) return { delta: null, ci_low: null, ci_high: null, verdict: "insufficient_data" };
  const a = wilson(x1, n1, z);
  const b = wilson(x2, n2, z);
  const p1 = a.value!;
  const p2 = b.value!;
  const delta = p1 - p2;
  const low = delta - Math.sqrt((p1 - a.ci_low!) ** 2 + (b.ci_high! - p2) ** 2);
  const high = delta + Math.sqrt((a.ci_high! - p1) ** 2 + (p2 - b.ci_low!) ** 2);
  return { delta, ci_low: low, ci_high: high, verdict: low > 0 ? "up" : high < 0 ? "down" : "within_noise" };
}
