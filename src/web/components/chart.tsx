// Time series with uPlot: small (≈ 50 KB), fast on thousands of points, canvas-based. Colours are
// the Okabe–Ito palette, distinguishable with the common colour-vision deficiencies.
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

export interface Series {
  label: string;
  /** One value per x (null: no data that period). */
  values: (number | null)[];
}

export function LineChart({ periods, series, yLabel, percent = true, height = 260 }: { periods: string[]; series: Series[]; yLabel: string; percent?: boolean; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = periods.map((p) => Date.parse(p.length === 7 ? `${p}-01T00:00:00Z` : `${p}T00:00:00Z`) / 1000);
    const dark = matchMedia("(prefers-color-scheme: dark)").matches;
    const axis = { stroke: dark ? "#c9d1d9" : "#333", grid: { stroke: dark ? "#30363d" : "#e5e7eb" }, ticks: { stroke: dark ? "#30363d" : "#e5e7eb" } };
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height,
        scales: { x: { time: true }, y: { range: percent ? [0, 1] : undefined } },
        axes: [axis, { ...axis, label: yLabel, values: (_u, ticks) => ticks.map((t) => (percent ? `${Math.round(t * 100)} %` : String(t))) }],
        series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: PALETTE[i % PALETTE.length], width: 2, spanGaps: true, points: { show: true, size: 5 }, value: (_u: uPlot, v: number | null) => (v === null ? "—" : percent ? `${(v * 100).toFixed(1)} %` : v.toFixed(2)) }))],
        legend: { live: true },
      },
      [xs, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [periods, series, percent, height, yLabel]);
  return <div ref={box} class="chart" role="img" aria-label={`${yLabel} over time: ${series.map((s) => s.label).join(", ")}`} />;
}
