// Charts. Lines with uPlot: small (≈ 50 KB), fast on thousands of points, canvas-based; each rate's
// 95 % interval is drawn as a band. Stacked bars as plain SVG (a few dozen rectangles). Colours are
// the Okabe–Ito palette, distinguishable with the common colour-vision deficiencies; past 8 series
// the smallest are summed into "other". The legend is ours, not uPlot's: at rest it shows each
// series' window summary, on hover the values of the nearest period that has data, with n.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { int, pct } from "../lib/format";

export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];
const OTHER_COLOUR = "#999999";
export const MAX_SERIES = 8;

export interface Series {
  label: string;
  /** One value per period (null: no data that period). */
  values: (number | null)[];
  /** The 95 % interval per period, drawn as a band. */
  low?: (number | null)[];
  high?: (number | null)[];
  /** The count behind each value (answers, visits). */
  n?: (number | null)[];
  /** What the legend shows at rest: the window's total or rate. */
  summary: string;
}

/** Keeps the `max` largest series (by `size`) and sums the rest into one "other" series (counts only). */
export function capSeries<T extends { label: string; values: (number | null)[] }>(series: T[], size: (s: T) => number, max = MAX_SERIES): { label: string; values: (number | null)[]; other: boolean; kept: T | null }[] {
  const ranked = [...series].sort((a, b) => size(b) - size(a) || a.label.localeCompare(b.label));
  if (ranked.length <= max) return ranked.map((s) => ({ label: s.label, values: s.values, other: false, kept: s }));
  const head = ranked.slice(0, max);
  const rest = ranked.slice(max);
  const values = rest[0]!.values.map((_, i) => rest.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  return [...head.map((s) => ({ label: s.label, values: s.values, other: false, kept: s })), { label: `other (${rest.length})`, values, other: true, kept: null }];
}

const isDark = () => typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
// Okabe–Ito's black would vanish on the dark background: its place goes to the foreground's near-white.
const colourOf = (i: number, label: string) => (label.startsWith("other (") ? OTHER_COLOUR : i % PALETTE.length === 7 && isDark() ? "#e6edf3" : PALETTE[i % PALETTE.length]!);
const epochOf = (p: string) => Date.parse(p.length === 7 ? `${p}-01T00:00:00Z` : `${p}T00:00:00Z`) / 1000;

/** The period nearest `idx` where any series has a value (hover snaps to data, never to an empty day). */
export function nearestWithData(series: { values: (number | null)[] }[], idx: number): number | null {
  const length = series[0]?.values.length ?? 0;
  for (let d = 0; d < length; d++) {
    for (const i of [idx - d, idx + d]) if (i >= 0 && i < length && series.some((s) => s.values[i] !== null && s.values[i] !== undefined)) return i;
  }
  return null;
}

function Legend({ series, periods, at, format, hidden, onToggle }: { series: Series[]; periods: string[]; at: number | null; format: (v: number | null) => string; hidden?: Set<number>; onToggle?: (i: number) => void }) {
  return (
    <div class="chart-legend">
      <span class="chart-legend-when">{at === null ? "Whole window" : periods[at]}</span>
      <ul>
        {series.map((s, i) => {
          const value = at === null ? s.summary : s.values[at] === null ? "no data" : `${format(s.values[at]!)}${s.low && s.high && s.low[at] !== null ? ` (${format(s.low[at]!)} – ${format(s.high[at]!)})` : ""}${s.n && s.n[at] !== null ? ` · n = ${int(s.n[at])}` : ""}`;
          const content = (
            <>
              <span class="swatch" style={{ background: colourOf(i, s.label) }} aria-hidden="true" />
              <span class="chart-legend-label">{s.label}</span> <span class="chart-legend-value">{value}</span>
            </>
          );
          return (
            <li key={s.label} data-series={s.label}>
              {onToggle ? (
                <button type="button" class="link-plain" aria-pressed={!hidden?.has(i)} onClick={() => onToggle(i)}>
                  {content}
                </button>
              ) : (
                content
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** The chart's numbers as a table, for screen readers and for anyone who wants the exact values. */
function DataTable({ periods, series, format }: { periods: string[]; series: Series[]; format: (v: number | null) => string }) {
  return (
    <details class="chart-data">
      <summary>Chart data</summary>
      <div class="scroll-x">
        <table>
          <thead>
            <tr>
              <th>Period</th>
              {series.map((s) => (
                <th key={s.label} class="num">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {periods.map((p, i) => (
              <tr key={p}>
                <td>{p}</td>
                {series.map((s) => (
                  <td key={s.label} class="num">
                    {s.values[i] === null ? "—" : format(s.values[i]!)}
                    {s.low && s.high && s.low[i] !== null && s.values[i] !== null ? ` (${format(s.low[i]!)} – ${format(s.high[i]!)})` : ""}
                    {s.n && s.n[i] !== null && s.values[i] !== null ? ` · n = ${int(s.n[i])}` : ""}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

export function LineChart({ periods, series, yLabel, percent = true, height = 260 }: { periods: string[]; series: Series[]; yLabel: string; percent?: boolean; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const [at, setAt] = useState<number | null>(null);
  const [hidden, setHidden] = useState<Set<number>>(new Set());
  const format = (v: number | null) => (v === null ? "—" : percent ? pct(v) : v.toLocaleString("en", { maximumFractionDigits: 2 }));
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = periods.map(epochOf);
    const dark = isDark();
    const axis = { stroke: dark ? "#c9d1d9" : "#333", grid: { stroke: dark ? "#30363d" : "#e5e7eb" }, ticks: { stroke: dark ? "#30363d" : "#e5e7eb" } };
    // Each series, then its interval's two edges (hidden lines the band fills between).
    const lines: uPlot.Series[] = series.map((s, i) => ({ label: s.label, stroke: colourOf(i, s.label), width: 2, spanGaps: true, points: { show: true, size: 5 } }));
    const data: (number | null)[][] = [xs, ...series.map((s) => s.values)] as (number | null)[][];
    const bands: uPlot.Band[] = [];
    series.forEach((s, i) => {
      if (!s.low || !s.high) return;
      const hi = data.length;
      data.push(s.high, s.low);
      lines.push({ stroke: "transparent", width: 0, points: { show: false }, spanGaps: true }, { stroke: "transparent", width: 0, points: { show: false }, spanGaps: true });
      bands.push({ series: [hi, hi + 1], fill: `${colourOf(i, s.label)}26` });
    });
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height,
        scales: { x: { time: true }, y: { range: percent ? [0, 1] : (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [axis, { ...axis, label: yLabel, values: (_u, ticks) => ticks.map((t) => (percent ? `${Math.round(t * 100)} %` : String(t))) }],
        series: [{}, ...lines],
        bands,
        legend: { show: false },
        cursor: { points: { show: false } },
        hooks: { setCursor: [(u) => setAt(u.cursor.idx === null || u.cursor.idx === undefined ? null : nearestWithData(series, u.cursor.idx))] },
      },
      data as uPlot.AlignedData,
      el,
    );
    plotRef.current = plot;
    setHidden(new Set());
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height }));
    resize.observe(el);
    const leave = () => setAt(null);
    el.addEventListener("mouseleave", leave);
    return () => {
      el.removeEventListener("mouseleave", leave);
      resize.disconnect();
      plot.destroy();
      plotRef.current = null;
    };
  }, [periods, series, percent, height, yLabel]);
  const toggle = (i: number) => {
    const next = new Set(hidden);
    next.has(i) ? next.delete(i) : next.add(i);
    setHidden(next);
    const plot = plotRef.current;
    if (!plot) return;
    // The series' line, and its band's edges (laid out after all the lines, in series order).
    plot.setSeries(i + 1, { show: !next.has(i) });
    const edge = series.slice(0, i).filter((s) => s.low && s.high).length;
    if (series[i]!.low && series[i]!.high) for (const e of [0, 1]) plot.setSeries(series.length + 1 + edge * 2 + e, { show: !next.has(i) });
  };
  return (
    <figure class="chart-figure">
      <div ref={box} class="chart" role="img" aria-label={`${yLabel} over time: ${series.map((s) => `${s.label} ${s.summary}`).join("; ")}`} />
      <Legend series={series} periods={periods} at={at} format={format} hidden={hidden} onToggle={toggle} />
      <DataTable periods={periods} series={series} format={format} />
    </figure>
  );
}

/** Counts per period stacked by series, so equal series never hide each other; each bar's total above it. */
export function StackedBars({ periods, series, yLabel, height = 240 }: { periods: string[]; series: Series[]; yLabel: string; height?: number }) {
  const [at, setAt] = useState<number | null>(null);
  const totals = useMemo(() => periods.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)), [periods, series]);
  const max = Math.max(1, ...totals);
  // Drawn at the box's own width (one unit a pixel), so text keeps its size on a phone.
  const figure = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(960);
  useEffect(() => {
    const el = figure.current;
    if (!el) return;
    const resize = new ResizeObserver(() => setWidth(Math.max(280, Math.round(el.clientWidth))));
    resize.observe(el);
    return () => resize.disconnect();
  }, []);
  const pad = { left: 44, bottom: 22, top: 8 };
  const plotH = height - pad.bottom - pad.top;
  const slot = (width - pad.left) / Math.max(1, periods.length);
  const barW = Math.max(2, Math.min(36, slot * 0.7));
  const ticks = [0, 0.5, 1].map((f) => Math.round(max * f));
  const labelEvery = Math.max(1, Math.ceil(periods.length / Math.max(2, Math.floor(width / 70))));
  const format = (v: number | null) => int(v);
  return (
    <figure class="chart-figure" ref={figure}>
      <svg class="bars" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${yLabel} per period, stacked: ${series.map((s) => `${s.label} ${s.summary}`).join("; ")}`} onMouseLeave={() => setAt(null)}>
        {ticks.map((t) => {
          const y = pad.top + plotH - (t / max) * plotH;
          return (
            <g key={t}>
              <line x1={pad.left} x2={width} y1={y} y2={y} class="grid" />
              <text x={pad.left - 4} y={y + 4} text-anchor="end" class="axis">
                {int(t)}
              </text>
            </g>
          );
        })}
        {periods.map((p, i) => {
          let y = pad.top + plotH;
          const x = pad.left + i * slot + (slot - barW) / 2;
          return (
            <g key={p} onMouseEnter={() => setAt(totals[i] ? i : nearestWithData(series, i))}>
              <rect x={pad.left + i * slot} y={pad.top} width={slot} height={plotH} fill="transparent" />
              {series.map((s, k) => {
                const h = ((s.values[i] ?? 0) / max) * plotH;
                y -= h;
                return h > 0 ? (
                  <rect key={s.label} x={x} y={y} width={barW} height={h} fill={colourOf(k, s.label)}>
                    <title>{`${p} · ${s.label}: ${int(s.values[i])}`}</title>
                  </rect>
                ) : null;
              })}
              {i % labelEvery === 0 && (
                <text x={x + barW / 2} y={height - 6} text-anchor="middle" class="axis">
                  {p.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <Legend series={series} periods={periods} at={at} format={format} />
      <DataTable periods={periods} series={series} format={format} />
    </figure>
  );
}
