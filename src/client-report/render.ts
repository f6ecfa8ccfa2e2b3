// A client report as one HTML document (issue #31): pure, data in, text out. Self-contained — inline
// CSS and SVG, no script, no URL that could be fetched (the logo is a data: URL or left out) — and
// laid out for A4 so any browser prints it to PDF. Every figure carries its raw value in data-*
// attributes (full precision, for machines: the tests compare them with the RPCs').
import { changeText, int, num, pct, points, VERDICT_TEXT } from "../common/format";
import { isLogoDataUrl } from "../common/logo";
import { countedFromNote, noMoveText, togetherText } from "../insights/changes";
import { escapeHtml } from "../mail/service";
import { REPORT_LIMITS, type ReportData } from "./data";

type Attrs = Record<string, string | number | boolean | null | undefined>;

const esc = (value: unknown) => escapeHtml(String(value));

/** ` data-a="…" data-b="…"`: null and undefined as "", numbers as JavaScript writes them (they read back exactly). */
function data(attrs: Attrs): string {
  return Object.entries(attrs)
    .map(([name, value]) => ` data-${name}="${value === null || value === undefined ? "" : esc(value)}"`)
    .join("");
}

/** A mean score from −1 to +1, signed with a true minus as the points are. */
const score = (v: number | null | undefined) => (v === null || v === undefined ? "—" : `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(2)}`);
/** A rate's 95 % interval as "low – high" (a column of its own beside the rate). */
const interval = (r: { ci_low: number | null; ci_high: number | null; n: number }) => (r.n ? `${pct(r.ci_low)} – ${pct(r.ci_high)}` : "—");

const VERDICT_MARK: Record<string, string> = { up: "▲", down: "▼" };
const CLASS_TEXT: Record<string, string> = { own: "own site", competitor: "competitor", third_party: "third party" };
const PALETTE = ["#1f6feb", "#cf222e", "#1a7f37", "#bf8700", "#8250df", "#0e8a9e", "#bf3989", "#57606a", "#e16f24", "#4d2d00"];

/** One colour per platform, the same in every chart: by the platform's place among all the report's platforms, by name. */
function platformColors(d: ReportData): (platform: string) => string {
  const names = [...new Set([...d.overview.by_platform.map((p) => p.platform), ...d.trend.rows.map((r) => r.group)])].sort();
  return (platform) => PALETTE[Math.max(0, names.indexOf(platform)) % PALETTE.length]!;
}

type Rate = ReportData["overview"]["visibility_rate"];

// ---- the document ---------------------------------------------------------------------------------

const CSS = `
@page { size: A4; margin: 14mm 13mm 15mm; }
:root { color-scheme: light; font: 10pt/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1f2328; background: #fff; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 210mm; padding: 12mm 13mm; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
@media print { body { max-width: none; padding: 0; } }
h1 { font-size: 19pt; line-height: 1.2; margin: 0 0 1.5mm; }
h2 { font-size: 13pt; margin: 0 0 2.5mm; break-after: avoid; page-break-after: avoid; }
p { margin: 0 0 2mm; }
section { margin: 0 0 6mm; }
.keep, .kpi, figure, .moves, .method, .empty { break-inside: avoid; page-break-inside: avoid; }
.report-head { display: flex; align-items: flex-start; justify-content: space-between; gap: 6mm; border-bottom: 0.6mm solid #1f2328; padding-bottom: 3mm; margin-bottom: 5mm; }
.org { display: flex; flex-direction: column; align-items: flex-end; gap: 1mm; flex: 0 1 60mm; font-size: 9pt; font-weight: 600; color: #59636e; text-align: right; }
.org img { display: block; max-height: 15mm; max-width: 60mm; object-fit: contain; }
.subtitle { color: #59636e; margin: 0; }
.muted { color: #59636e; }
.kpis { display: grid; grid-template-columns: repeat(3, 1fr); gap: 3mm; margin: 0; padding: 0; list-style: none; }
.kpi { border: 0.3mm solid #d1d9e0; border-radius: 2mm; padding: 2.5mm 3mm; background: #f6f8fa; }
.kpi p { margin: 0; }
.kpi-label { font-weight: 600; font-size: 9pt; color: #59636e; }
.kpi-value { font-size: 17pt; font-weight: 700; line-height: 1.25; font-variant-numeric: tabular-nums; }
.kpi-detail { font-size: 8.5pt; color: #59636e; font-variant-numeric: tabular-nums; }
.verdict { font-weight: 600; font-size: 9pt; }
.verdict.up { color: #1a7f37; }
.verdict.down { color: #b42318; }
.verdict.within_noise, .verdict.insufficient_data { color: #59636e; }
.warning { color: #9a6700; font-weight: 600; }
.moves { margin: 0; padding-left: 5mm; }
.moves li { margin: 0 0 1mm; }
figure { margin: 0 0 3mm; }
figcaption { font-size: 8.5pt; color: #59636e; margin-top: 1mm; }
svg.chart { display: block; width: 100%; height: auto; font-family: inherit; }
.legend { list-style: none; margin: 1.5mm 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 1mm 5mm; font-size: 8.5pt; }
.legend li { display: flex; align-items: center; gap: 1.5mm; }
.legend svg { display: block; }
table { width: 100%; border-collapse: collapse; font-size: 8.5pt; margin: 0 0 2mm; }
thead { display: table-header-group; }
tr { break-inside: avoid; page-break-inside: avoid; }
th, td { text-align: left; vertical-align: top; padding: 1.1mm 1.5mm; border-bottom: 0.25mm solid #d1d9e0; overflow-wrap: anywhere; }
th { font-weight: 600; color: #59636e; border-bottom: 0.5mm solid #8c959f; }
.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; overflow-wrap: normal; }
tr.brand td { background: #ddf4ff; font-weight: 600; }
.tag { display: inline-block; padding: 0 1.5mm; border-radius: 1mm; font-size: 8pt; font-weight: 600; background: #eaeef2; }
.tag.high { background: #ffebe9; color: #82071e; }
.tag.medium { background: #fff8c5; color: #4d2d00; }
.detail { color: #59636e; }
.nowrap { white-space: nowrap; overflow-wrap: normal; }
.empty { border: 0.3mm dashed #d1d9e0; border-radius: 2mm; padding: 3mm; color: #59636e; }
.method { border-top: 0.3mm solid #d1d9e0; padding-top: 3mm; font-size: 8pt; color: #59636e; }
.method h2 { font-size: 10pt; color: #1f2328; }
.method p { margin: 0 0 1.5mm; }
`;

/** The report as one HTML document. */
export function renderReport(d: ReportData): string {
  const { brand, organization } = d.header;
  const o = d.overview;
  const whiteLabel = isLogoDataUrl(organization.logo);
  const body = [
    head(d, whiteLabel),
    `<main>`,
    kpis(o),
    changes(d),
    trendSection(d),
    platformSection(o, platformColors(d)),
    competitorSection(d),
    sourceSection(d),
    promptSection(d),
    suggestionSection(d),
    `</main>`,
    method(d, whiteLabel),
  ].join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(`${clip(brand.name, 24)} · ${d.window.from} – ${d.window.to}`)}</title>
<link rel="icon" href="data:,">
<style>${CSS}</style>
</head>
<body${data({ brand: brand.id, from: d.window.from, to: d.window.to, "previous-from": d.previous.from, "previous-to": d.previous.to, answers: o.answers })}>
${body}
</body>
</html>
`;
}

function head(d: ReportData, whiteLabel: boolean): string {
  const { brand, organization } = d.header;
  const logo = whiteLabel ? `<img src="${esc(organization.logo)}" alt="${esc(organization.name)}">` : "";
  return `<header class="report-head">
<div>
<h1>${esc(brand.name)}: visibility in AI answers</h1>
<p class="subtitle">${esc(d.window.from)} – ${esc(d.window.to)}, compared with ${esc(d.previous.from)} – ${esc(d.previous.to)} · ${int(d.overview.answers)} answers to non-branded prompts</p>
</div>
<div class="org"${data({ organization: organization.name })}>${logo}<span>${esc(organization.name)}</span></div>
</header>`;
}

// ---- KPIs -----------------------------------------------------------------------------------------

function rateCard(key: string, label: string, help: string, unit: string, rate: Rate): string {
  const c = rate.change;
  return `<li class="kpi"${data({ kpi: key, value: rate.value, "ci-low": rate.ci_low, "ci-high": rate.ci_high, n: rate.n, delta: c.delta, "change-ci-low": c.ci_low, "change-ci-high": c.ci_high, verdict: c.verdict, "n-current": c.n_current, "n-previous": c.n_previous })}>
<p class="kpi-label">${esc(label)}</p>
<p class="kpi-value">${pct(rate.value)}</p>
<p class="kpi-detail">95 % CI ${interval(rate)} · n = ${int(rate.n)} ${esc(unit)}</p>
<p class="verdict ${esc(c.verdict)}">${VERDICT_MARK[c.verdict] ?? ""} ${points(c.delta)} · ${esc(VERDICT_TEXT[c.verdict] ?? c.verdict)}</p>
<p class="kpi-detail">${c.delta === null ? "no answers to compare" : `change 95 % CI ${points(c.ci_low)} to ${points(c.ci_high)} (n ${int(c.n_current)} vs ${int(c.n_previous)})`}${c.model_changed ? ` · <span class="warning">models changed</span>` : ""}</p>
<p class="kpi-detail">${esc(help)}</p>
</li>`;
}

function kpis(o: ReportData["overview"]): string {
  const sov = o.share_of_voice;
  const position = o.avg_position;
  const s = o.sentiment;
  return `<section class="keep" aria-labelledby="kpis">
<h2 id="kpis">Headline figures</h2>
<ul class="kpis">
${rateCard("visibility_rate", "Visibility rate", "Answers naming the brand, of all answers.", "answers", o.visibility_rate)}
${rateCard("citation_share", "Citation share", "Citations of the brand's own sites, of all citations.", "citations", o.citation_share)}
${rateCard("brand_cited_rate", "Brand cited", "Answers citing one of the brand's sites, of all answers.", "answers", o.brand_cited_rate)}
<li class="kpi"${data({ kpi: "share_of_voice", value: sov.value, n: sov.n, "brand-mentions": sov.brand_mentions, "total-mentions": sov.total_mentions, delta: sov.change.delta })}>
<p class="kpi-label">Share of voice</p>
<p class="kpi-value">${pct(sov.value)}</p>
<p class="kpi-detail">${int(sov.brand_mentions)} of ${int(sov.total_mentions)} mentions of the brand and its competitors · n = ${int(sov.n)} answers</p>
<p class="verdict">${sov.change.delta === null ? "no change to show" : `${points(sov.change.delta)} · not tested for noise${sov.change.competitors_changed ? ` · <span class="warning">competitors changed</span>` : ""}`}</p>
<p class="kpi-detail">change over the prompts answered in both windows (n ${int(sov.change.n_current)} vs ${int(sov.change.n_previous)})</p>
</li>
<li class="kpi"${data({ kpi: "avg_position", value: position.value, n: position.n, previous: position.previous.value })}>
<p class="kpi-label">Average position</p>
<p class="kpi-value">${num(position.value)}</p>
<p class="kpi-detail">where the brand is named among the names in an answer (1 = first) · n = ${int(position.n)} answers naming it</p>
<p class="kpi-detail">previous window: ${num(position.previous.value)} (n = ${int(position.previous.n)})</p>
</li>
<li class="kpi"${data({ kpi: "sentiment", value: s.value, n: s.n, positive: s.positive, neutral: s.neutral, negative: s.negative, previous: s.previous.value })}>
<p class="kpi-label">Sentiment</p>
<p class="kpi-value">${score(s.value)}</p>
<p class="kpi-detail">mean score from −1 to +1 of the passages about the brand · n = ${int(s.n)}</p>
<p class="kpi-detail">${int(s.positive)} positive, ${int(s.neutral)} neutral, ${int(s.negative)} negative · previous window: ${score(s.previous.value)}</p>
</li>
</ul>
</section>`;
}

function changes(d: ReportData): string {
  const items = [
    ...d.moves.map(
      (m) =>
        `<li${data({ move: m.label, direction: m.direction, delta: m.rate.change.delta })}><span class="verdict ${esc(m.direction)}">${VERDICT_MARK[m.direction]}</span> Visibility ${m.kind === "competitor" ? "of" : "on"} ${esc(m.label)}: ${changeText(m.rate.change)} — n ${int(m.rate.change.n_current)} vs ${int(m.rate.change.n_previous)} ${m.kind === "competitor" ? "answers" : "answers to the prompts asked in both windows"}; now ${pct(m.rate.value)} of all ${int(m.rate.n)} answers</li>`,
    ),
    ...d.modelChanges.map((p) => `<li${data({ "model-changed": p })}><span class="warning">Models changed:</span> ${esc(p)} reported different models in the two windows; part of any move there may be the model.</li>`),
  ];
  const together = togetherText(d.tested, d.moves.length);
  return `<section class="keep" aria-labelledby="changes">
<h2 id="changes">What changed</h2>
${items.length ? `<ul class="moves">\n${items.join("\n")}\n</ul>${together ? `\n<p class="muted">${esc(together)}</p>` : ""}` : `<p class="muted">${esc(noMoveText(d.tested))}</p>`}
</section>`;
}

// ---- charts -----------------------------------------------------------------------------------------

const fixed = (v: number) => (Math.round(v * 10) / 10).toString();

function legend(groups: string[], color: (g: string) => string): string {
  return `<ul class="legend">${groups.map((g) => `<li><svg width="10" height="10" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" rx="2" fill="${color(g)}"/></svg>${esc(g)}</li>`).join("")}</ul>`;
}

/** Where a period's tick is labelled: the period itself, short (MM-DD for days and weeks, YYYY-MM for months). */
const tickLabel = (period: string) => (period.length === 10 ? period.slice(5) : period);

/** Visibility per period and platform: a line per platform over its 95 % band; gaps where a period had no answers. */
export function trendChart(rows: ReportData["trend"]["rows"], color: (platform: string) => string): string {
  const periods = [...new Set(rows.map((r) => String(r.period)))];
  const groups = [...new Set(rows.map((r) => String(r.group)))];
  const cell = new Map(rows.map((r) => [`${r.period}\u0000${r.group}`, r]));
  const W = 680, H = 180, left = 38, right = 20, top = 8, bottom = 24;
  const plotW = W - left - right, plotH = H - top - bottom;
  const x = (i: number) => left + (periods.length === 1 ? plotW / 2 : (i * plotW) / (periods.length - 1));
  const y = (v: number) => top + (1 - v) * plotH;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((v) => `<line x1="${left}" x2="${W - right}" y1="${fixed(y(v))}" y2="${fixed(y(v))}" stroke="#d1d9e0" stroke-width="0.8"/><text x="${left - 4}" y="${fixed(y(v) + 3.5)}" text-anchor="end" font-size="10" fill="#59636e">${v * 100} %</text>`);
  // At most 8 labelled ticks, evenly spread, the last period always among them.
  const step = Math.max(1, Math.ceil(periods.length / 8));
  const ticks = periods.map((p, i) => ((periods.length - 1 - i) % step === 0 ? `<text x="${fixed(x(i))}" y="${H - 8}" text-anchor="middle" font-size="10" fill="#59636e">${esc(tickLabel(p))}</text>` : "")).join("");
  const shapes = groups.map((g) => {
    const points = periods.map((p, i) => {
      const r = cell.get(`${p}\u0000${g}`);
      return r && r.answers > 0 && r.visibility_rate !== null ? { i, v: r.visibility_rate as number, low: (r.ci_low ?? r.visibility_rate) as number, high: (r.ci_high ?? r.visibility_rate) as number } : null;
    });
    // Runs of consecutive periods with answers: a line and a band each.
    const runs: { i: number; v: number; low: number; high: number }[][] = [];
    let run: { i: number; v: number; low: number; high: number }[] = [];
    for (const point of points) {
      if (point) run.push(point);
      else if (run.length) (runs.push(run), (run = []));
    }
    if (run.length) runs.push(run);
    const c = color(g);
    return runs
      .map((r) => {
        const band = r.length > 1 ? `<polygon points="${[...r.map((p) => `${fixed(x(p.i))},${fixed(y(p.high))}`), ...[...r].reverse().map((p) => `${fixed(x(p.i))},${fixed(y(p.low))}`)].join(" ")}" fill="${c}" fill-opacity="0.08"/>` : `<line x1="${fixed(x(r[0]!.i))}" x2="${fixed(x(r[0]!.i))}" y1="${fixed(y(r[0]!.high))}" y2="${fixed(y(r[0]!.low))}" stroke="${c}" stroke-opacity="0.35" stroke-width="3"/>`;
        const line = r.length > 1 ? `<polyline points="${r.map((p) => `${fixed(x(p.i))},${fixed(y(p.v))}`).join(" ")}" fill="none" stroke="${c}" stroke-width="1.8" stroke-linejoin="round"/>` : "";
        const dots = periods.length <= 60 ? r.map((p) => `<circle cx="${fixed(x(p.i))}" cy="${fixed(y(p.v))}" r="2" fill="${c}"/>`).join("") : "";
        return band + line + dots;
      })
      .join("");
  });
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Visibility rate per period and platform, with 95 % intervals">${grid.join("")}${ticks}${shapes.join("")}</svg>
${legend(groups, color)}`;
}

/** Each platform's visibility as a bar with its 95 % interval. */
export function platformChart(rows: ReportData["overview"]["by_platform"], color: (platform: string) => string): string {
  const W = 680, row = 24, left = 120, right = 70, top = 4, axis = 18;
  const H = top + rows.length * row + axis;
  const plotW = W - left - right;
  const x = (v: number) => left + v * plotW;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((v) => `<line x1="${fixed(x(v))}" x2="${fixed(x(v))}" y1="${top}" y2="${top + rows.length * row}" stroke="#d1d9e0" stroke-width="0.8"/><text x="${fixed(x(v))}" y="${H - 4}" text-anchor="middle" font-size="10" fill="#59636e">${v * 100} %</text>`);
  const bars = rows.map((r, i) => {
    const rate = r.visibility_rate;
    const cy = top + i * row + row / 2;
    const c = color(r.platform);
    const bar = rate.value === null ? "" : `<rect x="${left}" y="${fixed(cy - 7)}" width="${fixed(Math.max(0.5, rate.value * plotW))}" height="14" rx="2" fill="${c}" fill-opacity="0.8"/>`;
    const whisker = rate.ci_low === null || rate.ci_high === null ? "" : `<path d="M${fixed(x(rate.ci_low))} ${fixed(cy)}H${fixed(x(rate.ci_high))}M${fixed(x(rate.ci_low))} ${fixed(cy - 4)}v8M${fixed(x(rate.ci_high))} ${fixed(cy - 4)}v8" stroke="#1f2328" stroke-width="1.1" fill="none"/>`;
    return `<text x="${left - 6}" y="${fixed(cy + 3.5)}" text-anchor="end" font-size="10.5" fill="#1f2328">${esc(r.platform.length > 20 ? `${r.platform.slice(0, 19)}…` : r.platform)}</text>${bar}${whisker}<text x="${W - right + 6}" y="${fixed(cy + 3.5)}" font-size="10.5" fill="#1f2328">${pct(rate.value)}</text>`;
  });
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Visibility rate per platform, with 95 % intervals">${grid.join("")}${bars.join("")}</svg>`;
}

function trendSection(d: ReportData): string {
  const any = d.trend.rows.some((r) => r.answers > 0);
  const per = { day: "day", week: "week (from Monday)", month: "month" }[d.trend.interval];
  return `<section class="keep" aria-labelledby="trend">
<h2 id="trend">Visibility over time</h2>
${any ? `<figure>\n${trendChart(d.trend.rows, platformColors(d))}\n<figcaption>Share of answers naming the brand per ${per} and platform; the shaded band is the 95 % interval. A gap is a ${d.trend.interval} without answers.</figcaption>\n</figure>` : `<p class="empty">No answers in this window.</p>`}
</section>`;
}

function platformSection(o: ReportData["overview"], color: (platform: string) => string): string {
  const rows = o.by_platform;
  if (!rows.length) return `<section class="keep" aria-labelledby="platforms">\n<h2 id="platforms">By platform</h2>\n<p class="empty">No answers in this window.</p>\n</section>`;
  const body = rows
    .map((r) => {
      const v = r.visibility_rate;
      const c = v.change;
      return `<tr${data({ platform: r.platform, value: v.value, "ci-low": v.ci_low, "ci-high": v.ci_high, n: v.n, delta: c.delta, verdict: c.verdict })}><td>${esc(r.platform)}${c.model_changed ? ` <span class="warning">models changed</span>` : ""}</td><td class="num">${pct(v.value)}</td><td class="num">${interval(v)}</td><td class="num">${int(v.n)}</td><td class="num">${points(c.delta)}</td><td class="verdict ${esc(c.verdict)}">${esc(VERDICT_TEXT[c.verdict] ?? c.verdict)}</td></tr>`;
    })
    .join("\n");
  return `<section class="keep" aria-labelledby="platforms">
<h2 id="platforms">By platform</h2>
<figure>
${platformChart(rows, color)}
<figcaption>Bars: visibility rate; whiskers: its 95 % interval.</figcaption>
</figure>
<table>
<thead><tr><th scope="col">Platform</th><th scope="col" class="num">Visibility</th><th scope="col" class="num">95 % CI</th><th scope="col" class="num">Answers</th><th scope="col" class="num">Change</th><th scope="col">Verdict</th></tr></thead>
<tbody>
${body}
</tbody>
</table>
</section>`;
}

// ---- tables -----------------------------------------------------------------------------------------

function competitorSection(d: ReportData): string {
  // A competitor added inside the window (with answers from before it) or after it says so.
  const windowN = d.competitors.find((r) => r.is_brand)?.n ?? 0;
  const since = (r: ReportData["competitors"][number]) => {
    const note = countedFromNote(r, windowN, d.window.to);
    return note ? ` <span class="muted">(${esc(note)})</span>` : "";
  };
  const rows = d.competitors
    .map(
      (r) =>
        `<tr${r.is_brand ? ` class="brand"` : ""}${data({ entity: r.entity_id, brand: r.is_brand, visibility: r.visibility_rate, "ci-low": r.ci_low, "ci-high": r.ci_high, n: r.n, mentions: r.mentions, sov: r.share_of_voice, position: r.avg_position })}><td>${esc(r.name)}${r.is_brand ? " (brand)" : ""}${since(r)}</td><td class="num">${pct(r.visibility_rate)}</td><td class="num">${interval(r)}</td><td class="num">${int(r.answers_mentioning)} / ${int(r.n)}</td><td class="num">${int(r.mentions)}</td><td class="num">${pct(r.share_of_voice)}</td><td class="num">${num(r.avg_position)}</td></tr>`,
    )
    .join("\n");
  return `<section aria-labelledby="competitors">
<h2 id="competitors">Competitors</h2>
${
  d.competitors.length > 1 || (d.competitors[0]?.n ?? 0) > 0
    ? `<table>
<thead><tr><th scope="col">Name</th><th scope="col" class="num">Visibility</th><th scope="col" class="num">95 % CI</th><th scope="col" class="num">Answers naming</th><th scope="col" class="num">Mentions</th><th scope="col" class="num">Share of voice</th><th scope="col" class="num">Avg position</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
    : `<p class="empty">No competitors are tracked for this brand.</p>`
}
</section>`;
}

function sourceSection(d: ReportData): string {
  const { rows, total } = d.sources;
  const body = rows
    .map(
      (r) =>
        `<tr${data({ domain: r.domain, class: r.class, citations: r.citations, answers: r.answers, share: r.share, "brand-mentioned": r.brand_mentioned_rate })}><td>${esc(r.domain)}</td><td>${esc(CLASS_TEXT[r.class] ?? r.class)}</td><td>${esc(String(r.category).replaceAll("_", " "))}</td><td class="num">${int(r.citations)}</td><td class="num">${pct(r.share)}</td><td class="num">${int(r.answers)}</td><td class="num">${pct(r.brand_mentioned_rate)}</td></tr>`,
    )
    .join("\n");
  return `<section aria-labelledby="sources">
<h2 id="sources">Top sources</h2>
${
  rows.length
    ? `<p class="muted">The ${rows.length === total ? "" : `${rows.length} most `}cited domains${rows.length === total ? "" : ` of ${int(total)}`}, by citations in the answers.</p>
<table>
<thead><tr><th scope="col">Domain</th><th scope="col">Whose</th><th scope="col">Category</th><th scope="col" class="num">Citations</th><th scope="col" class="num">Share</th><th scope="col" class="num">Answers citing</th><th scope="col" class="num">Naming the brand</th></tr></thead>
<tbody>
${body}
</tbody>
</table>`
    : `<p class="empty">No answer cited a source in this window.</p>`
}
</section>`;
}

function promptSection(d: ReportData): string {
  const { rows, total } = d.prompts;
  const body = rows
    .map((r) => {
      const rivals = r.top_competitors.length ? r.top_competitors.map((t) => `${esc(t.name)} ${pct(t.visibility_rate)}`).join(", ") : "—";
      return `<tr${data({ prompt: r.prompt_id, visibility: r.visibility_rate, "ci-low": r.ci_low, "ci-high": r.ci_high, n: r.answers, mentioned: r.mentioned, position: r.avg_position })}><td>${esc(r.text)}</td><td class="num">${pct(r.visibility_rate)}</td><td class="num">${interval({ ...r, n: r.answers })}</td><td class="num">${int(r.answers)}</td><td class="num">${num(r.avg_position)}</td><td>${rivals}</td></tr>`;
    })
    .join("\n");
  return `<section aria-labelledby="prompts">
<h2 id="prompts">Prompts</h2>
${
  rows.length
    ? `<p class="muted">${rows.length === total ? `The ${int(total)} non-branded prompts` : `The ${rows.length} non-branded prompts with the most answers, of ${int(total)}`}; competitors: the three named most often in the prompt's answers.</p>
<table>
<thead><tr><th scope="col">Prompt</th><th scope="col" class="num">Visibility</th><th scope="col" class="num">95 % CI</th><th scope="col" class="num">Answers</th><th scope="col" class="num">Avg position</th><th scope="col">Top competitors</th></tr></thead>
<tbody>
${body}
</tbody>
</table>`
    : `<p class="empty">No non-branded prompts had answers in this window.</p>`
}
</section>`;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text);

function suggestionSection(d: ReportData): string {
  const body = d.suggestions
    .map(
      (s) =>
        `<tr${data({ suggestion: s.id, priority: s.priority, status: s.status })}><td class="nowrap"><span class="tag ${esc(s.priority)}">${esc(s.priority)}</span></td><td><strong>${esc(s.title)}</strong>${s.detail ? `<br><span class="detail">${esc(clip(s.detail, 400))}</span>` : ""}</td><td class="nowrap">${esc(s.status.replaceAll("_", " "))}</td></tr>`,
    )
    .join("\n");
  return `<section aria-labelledby="suggestions">
<h2 id="suggestions">Suggestions</h2>
${
  d.suggestions.length
    ? `<p class="muted">Open suggestions (new, accepted or in progress), most urgent first${d.suggestions.length === REPORT_LIMITS.suggestions ? `: the first ${REPORT_LIMITS.suggestions}` : ""}.</p>
<table>
<thead><tr><th scope="col">Priority</th><th scope="col">Suggestion</th><th scope="col">Status</th></tr></thead>
<tbody>
${body}
</tbody>
</table>`
    : `<p class="empty">No open suggestions.</p>`
}
</section>`;
}

// ---- how the numbers are made ---------------------------------------------------------------------

function method(d: ReportData, whiteLabel: boolean): string {
  return `<footer class="method">
<h2>How these numbers are computed</h2>
<p>Window ${esc(d.window.from)} to ${esc(d.window.to)} (UTC days, both included), compared with the window of the same length before it, ${esc(d.previous.from)} to ${esc(d.previous.to)}. Every figure reads the answers to non-branded prompts — those that do not name the brand — in the window; n is the number of answers (citations for citation share) a rate is computed over.</p>
<p>A rate x/n is shown with its 95 % Wilson score interval: centre (p + z²/2n) / (1 + z²/n), half-width z / (1 + z²/n) · √(p(1 − p)/n + z²/4n²), p = x/n, z = 1.96.</p>
<p>A change between the windows is computed over the prompts and platforms answered in both, with Newcombe's hybrid score interval for p₁ − p₂ from the Wilson limits (l₁, u₁), (l₂, u₂): δ − √((p₁ − l₁)² + (u₂ − p₂)²) to δ + √((u₁ − p₁)² + (p₂ − l₂)²). The headline's change is called up or down only when that interval excludes 0, else within noise; not enough data when a window has no answers.</p>
<p>The changes by platform, by topic and by competitor are tested together, so that a period in which nothing moved lists a move at most about one time in twenty: the strongest of m changes is called when its interval at the level 0.05/m excludes 0, the next at 0.05/(m − 1), and so on while each is called (Holm’s method). A competitor’s change is over all answers of each window, and only for a competitor added before the two windows’ first answers. Changes in share of voice are shown without a test.</p>
<p>The intervals treat each answer as an independent draw; answers to the same prompt are alike, so with few prompts they are optimistic.</p>
<p>Generated ${esc(d.generatedAt.slice(0, 16).replace("T", " "))} UTC${whiteLabel ? "" : " by answerwatch"}.</p>
</footer>`;
}
