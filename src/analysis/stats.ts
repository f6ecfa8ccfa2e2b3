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

// ---- a family of changes ("What changed", issue #32 leftovers) -------------------------------------

/** A change's counts: x1 of n1 now, x2 of n2 before. */
export interface ChangeCounts {
  x1: number;
  n1: number;
  x2: number;
  n2: number;
}

/**
 * The largest z at which Newcombe's interval still excludes 0 — the interval's own test statistic
 * (its bounds move away from the change as z grows, so there is one crossing). 0 for no change;
 * capped at 40 (a p-value below 1e-300).
 */
export function excludingZ({ x1, n1, x2, n2 }: ChangeCounts): number {
  const at = (z: number) => newcombe(x1, n1, x2, n2, z);
  const first = at(Z95);
  if (first.delta === null || first.delta === 0) return 0;
  const excludes = (z: number) => {
    const c = at(z);
    return first.delta! > 0 ? c.ci_low! > 0 : c.ci_high! < 0;
  };
  let [low, high] = [0, 40];
  if (excludes(high)) return high;
  // 60 halvings: far below any difference a p-value shows.
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (excludes(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/**
 * erfc(x), Chebyshev fit (fractional error under 1.2e-7 everywhere; Press et al., Numerical
 * Recipes, §6.2): enough for a p-value shown to two digits.
 */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + z / 2);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}

/** Two-sided p-value of a standard normal statistic z. */
export const twoSidedP = (z: number) => Math.min(1, erfc(Math.abs(z) / Math.SQRT2));

/** z with a two-sided tail of `alpha` (Φ⁻¹(1 − α/2)), by bisection on twoSidedP; exactly Z95 at 0.05. */
export function zFor(alpha: number): number {
  if (alpha === 0.05) return Z95;
  let [low, high] = [0, 40];
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (twoSidedP(mid) > alpha) low = mid;
    else high = mid;
  }
  return high;
}

export interface FamilyVerdict {
  verdict: Verdict;
  /** The change's own two-sided p-value (its Newcombe interval inverted). */
  p_value: number | null;
  /** Holm's adjusted p-value over the family: the change is called when it is at most 0.05. */
  p_adjusted: number | null;
}

/**
 * Holm's step-down over a family of changes read together (the platforms, topics and competitors of
 * "What changed"): at most a 5 % chance, when nothing moved, that any of them is called a move —
 * where testing each at 95 % expects one false move in twenty. The k-th strongest change is called
 * when Newcombe's interval at the level α/(m − k + 1) excludes 0 (m: the changes with answers in
 * both windows), and only while every stronger one was; a family of one is the 95 % interval itself.
 */
export function holm(family: readonly ChangeCounts[], alpha = 0.05): FamilyVerdict[] {
  const out: FamilyVerdict[] = family.map(() => ({ verdict: "insufficient_data", p_value: null, p_adjusted: null }));
  const tested = family.flatMap((c, i) => (c.n1 > 0 && c.n2 > 0 ? [{ i, c, z: excludingZ(c) }] : [])).sort((a, b) => b.z - a.z);
  const m = tested.length;
  let calling = true;
  let adjusted = 0;
  for (const [k, { i, c, z }] of tested.entries()) {
    const p = twoSidedP(z);
    // Adjusted p-values never fall down the order (Holm 1979): each is at least the one before.
    adjusted = Math.max(adjusted, Math.min(1, (m - k) * p));
    const change = newcombe(c.x1, c.n1, c.x2, c.n2, zFor(alpha / (m - k)));
    calling &&= change.verdict === "up" || change.verdict === "down";
    out[i] = { verdict: calling ? change.verdict : "within_noise", p_value: p, p_adjusted: adjusted };
  }
  return out;
}
