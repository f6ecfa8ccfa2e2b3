// How numbers read (the web app, digests and client reports alike): rates as percentages with their n, intervals in the tooltip, changes in points.
export const pct = (v: number | null | undefined, digits = 1) => (v === null || v === undefined ? "—" : `${(v * 100).toFixed(digits)} %`);
export const num = (v: number | null | undefined, digits = 1) => (v === null || v === undefined ? "—" : v.toFixed(digits));
export const int = (v: number | null | undefined) => (v === null || v === undefined ? "—" : v.toLocaleString("en"));
export const points = (delta: number | null | undefined) => (delta === null || delta === undefined ? "—" : `${delta >= 0 ? "+" : "−"}${Math.abs(delta * 100).toFixed(1)} pts`);

/** The hover text of a rate: its 95 % interval and n. */
export function intervalTitle(r: { value?: number | null; ci_low: number | null; ci_high: number | null; n: number }): string {
  if (!r.n) return "No answers in this window";
  return `95 % interval ${pct(r.ci_low)} – ${pct(r.ci_high)} (Wilson), n = ${r.n.toLocaleString("en")}`;
}

/** A rate's 95 % interval as text, shown beside the value (touch screens have no hover). */
export function intervalText(r: { ci_low: number | null; ci_high: number | null; n: number }): string {
  return r.n ? `95 % CI ${pct(r.ci_low)} – ${pct(r.ci_high)}` : "no answers";
}

/** A change in points with its 95 % interval, as text. */
export function changeText(c: { delta: number | null; ci_low: number | null; ci_high: number | null }): string {
  return c.delta === null ? "—" : `${points(c.delta)} (95 % CI ${points(c.ci_low)} to ${points(c.ci_high)})`;
}

export const VERDICT_TEXT: Record<string, string> = { up: "up", down: "down", within_noise: "within noise", insufficient_data: "not enough data" };
