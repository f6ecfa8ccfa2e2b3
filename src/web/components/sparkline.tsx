// A rate over time in a table cell: a small inline SVG (no chart library for a few dozen points)
// and a title that says in words what the line shows.
import { pct } from "../lib/format";

export interface SparkPoint {
  period: string;
  value: number | null;
  n: number;
}

const UNIT: Record<string, string> = { day: "day", week: "week", month: "month" };

/** The line in words: first and last values with answers, the range, and how many answers over how many periods. */
export function sparklineSummary(points: SparkPoint[], interval: string, what = "visibility"): string {
  const unit = UNIT[interval] ?? "period";
  const withData = points.filter((p) => p.value !== null && p.n > 0);
  if (!points.length) return `No ${what} data`;
  const span = `${points[0]!.period} to ${points[points.length - 1]!.period}`;
  if (!withData.length) return `${what[0]!.toUpperCase()}${what.slice(1)} per ${unit}, ${span}: no answers`;
  const first = withData[0]!;
  const last = withData[withData.length - 1]!;
  const values = withData.map((p) => p.value!);
  const answers = points.reduce((s, p) => s + p.n, 0);
  return `${what[0]!.toUpperCase()}${what.slice(1)} per ${unit}, ${span}: ${pct(first.value)} on ${first.period}, ${pct(last.value)} on ${last.period}; lowest ${pct(Math.min(...values))}, highest ${pct(Math.max(...values))}; ${withData.length} of ${points.length} ${unit}s with answers, n = ${answers.toLocaleString("en")}`;
}

/**
 * Rates in [0, 1] over periods: the y axis is fixed at 0–100 %, so two brands' lines compare.
 * `previous`: the previous window's rate, a dashed reference line — the line covers the current
 * window only, and a change "down" means below that line, whichever way the line itself runs.
 */
export function Sparkline({ points, interval, previous = null, width = 120, height = 32 }: { points: SparkPoint[]; interval: string; previous?: number | null; width?: number; height?: number }) {
  const pad = 3;
  const x = (i: number) => pad + (points.length > 1 ? (i / (points.length - 1)) * (width - 2 * pad) : (width - 2 * pad) / 2);
  const y = (v: number) => pad + (1 - v) * (height - 2 * pad);
  // Periods without answers are skipped, not drawn as 0: the line joins the periods that have data
  // (as the overview's charts span gaps); the last of them is marked.
  const data = points.flatMap((p, i) => (p.value === null || p.n === 0 ? [] : [{ i, v: p.value }]));
  const last = data[data.length - 1];
  const summary = `${sparklineSummary(points, interval)}${previous === null ? "" : `; the previous window ${pct(previous)} (dashed)`}`;
  return (
    <svg class="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary}>
      <title>{summary}</title>
      <line class="sparkline-base" x1={pad} x2={width - pad} y1={y(0)} y2={y(0)} />
      {previous !== null && <line class="sparkline-previous" x1={pad} x2={width - pad} y1={y(previous)} y2={y(previous)} />}
      {data.length > 1 && <polyline points={data.map((p) => `${x(p.i).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ")} />}
      {last && <circle cx={x(last.i)} cy={y(last.v)} r={2} />}
    </svg>
  );
}
