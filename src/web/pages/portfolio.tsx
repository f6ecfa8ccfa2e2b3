// The agency portfolio (issue #31): every brand of every organization the user belongs to, in one
// sortable table — non-branded visibility with its interval and n, the change with its verdict,
// share of voice, the last run, a sparkline and what changed — from GET /api/portfolio. The
// organization and the window live in the URL (?org=, ?days=).
import { Sparkline, type SparkPoint } from "../components/sparkline";
import { Table, type Column } from "../components/table";
import { Empty, ErrorBox, Loading, type Async } from "../components/ui";
import { readFilters, WINDOW_PRESETS } from "../lib/filters";
import { dateTime, int, intervalText, intervalTitle, pct, points, VERDICT_TEXT } from "../lib/format";
import { setQuery } from "../lib/router";

interface Move {
  kind: string;
  label: string;
  direction: "up" | "down";
  delta: number | null;
}

export interface PortfolioRow {
  brand: { id: string; name: string; is_active: boolean };
  organization: { id: string; name: string };
  last_run: { status: string; progress: { phase: string; completed: number; total: number }; created_at: string; finished_at: string | null } | null;
  computed: boolean;
  visibility: { value: number | null; ci_low: number | null; ci_high: number | null; n: number } | null;
  change: { delta: number | null; ci_low: number | null; ci_high: number | null; verdict: string; n_current: number; n_previous: number } | null;
  share_of_voice: { value: number | null; n: number; delta: number | null } | null;
  sparkline: { interval: string; points: SparkPoint[]; previous: number | null } | null;
  what_changed: Move[] | null;
  models_changed: string[] | null;
}

export interface PortfolioAnswer {
  window: { from: string; to: string };
  previous: { from: string; to: string };
  organizations: { id: string; name: string }[];
  brands: PortfolioRow[];
  truncated: boolean;
  limit: number;
  complete: boolean;
}

/** The query string of the portfolio request for this page's URL. */
export function portfolioQuery(query: URLSearchParams): string {
  const f = readFilters(query);
  const q = new URLSearchParams({ from: f.from, to: f.to });
  const org = query.get("org");
  if (org) q.set("organization_id", org);
  return q.toString();
}

/** "▼ chatgpt −12.0 pts; ▲ competitor Acme +8.0 pts", or why there is nothing to say. */
export function movesText(row: PortfolioRow): string {
  if (!row.computed || !row.what_changed) return "not computed in time";
  if (!row.visibility?.n) return "no answers";
  const moves = row.what_changed.map((m) => `${m.direction === "up" ? "▲" : "▼"} ${m.label} ${points(m.delta)}`);
  if (moves.length) return moves.join("; ");
  // The pooled change can be beyond noise while no one part of it is on its own.
  return row.change?.verdict === "up" || row.change?.verdict === "down" ? "no single platform, topic or competitor beyond noise" : "nothing beyond noise";
}

const COLUMNS: Column<PortfolioRow>[] = [
  {
    key: "brand",
    header: "Brand",
    value: (r) => r.brand.name,
    render: (r) => (
      <span class="portfolio-brand">
        <a href={`/b/${r.brand.id}/overview`}>{r.brand.name}</a>
        {!r.brand.is_active && <span class="tag">inactive</span>}
      </span>
    ),
  },
  { key: "organization", header: "Organization", value: (r) => r.organization.name },
  {
    key: "visibility",
    header: "Visibility",
    numeric: true,
    value: (r) => r.visibility?.value,
    title: (r) => (r.visibility ? intervalTitle(r.visibility) : undefined),
    render: (r) =>
      !r.visibility ? (
        <span class="muted">not computed in time</span>
      ) : (
        <span class="rate-cell">
          {pct(r.visibility.value)}
          <span class="cell-ci">{intervalText(r.visibility)}</span>
          <span class="cell-ci">n = {int(r.visibility.n)}</span>
        </span>
      ),
    csvExtra: [
      { key: "visibility_ci_low", value: (r) => r.visibility?.ci_low },
      { key: "visibility_ci_high", value: (r) => r.visibility?.ci_high },
      { key: "visibility_n", value: (r) => r.visibility?.n },
    ],
  },
  {
    key: "change",
    header: "Change",
    numeric: true,
    value: (r) => r.change?.delta,
    render: (r) =>
      !r.change ? (
        "—"
      ) : (
        <span class="rate-cell">
          <span>
            {points(r.change.delta)} <span class={`verdict ${r.change.verdict}`}>{r.change.verdict === "up" ? "▲ " : r.change.verdict === "down" ? "▼ " : ""}{VERDICT_TEXT[r.change.verdict] ?? r.change.verdict}</span>
          </span>
          {r.change.delta !== null && <span class="cell-ci">{`95 % CI ${points(r.change.ci_low)} to ${points(r.change.ci_high)}`}</span>}
          <span class="cell-ci">
            n {int(r.change.n_current)} vs {int(r.change.n_previous)}
          </span>
        </span>
      ),
    csvExtra: [
      { key: "change_verdict", value: (r) => r.change?.verdict },
      { key: "change_ci_low", value: (r) => r.change?.ci_low },
      { key: "change_ci_high", value: (r) => r.change?.ci_high },
    ],
  },
  {
    key: "share_of_voice",
    header: "Share of voice",
    numeric: true,
    value: (r) => r.share_of_voice?.value,
    render: (r) =>
      !r.share_of_voice ? (
        "—"
      ) : (
        <span class="rate-cell">
          {pct(r.share_of_voice.value)}
          {r.share_of_voice.delta !== null && <span class="cell-ci" title="Change in share of voice, not tested for noise">{points(r.share_of_voice.delta)}</span>}
        </span>
      ),
    csvExtra: [{ key: "share_of_voice_change", value: (r) => r.share_of_voice?.delta }],
  },
  {
    key: "last_run",
    header: "Last run",
    value: (r) => r.last_run?.created_at,
    render: (r) =>
      !r.last_run ? (
        <span class="muted">never</span>
      ) : (
        <span class="run-cell">
          <a href={`/b/${r.brand.id}/runs`}>{dateTime(r.last_run.finished_at ?? r.last_run.created_at)}</a>
          <span class={`tag status-${r.last_run.status}`}>
            {r.last_run.status}
            {r.last_run.status === "active" || r.last_run.status === "waiting" ? ` ${r.last_run.progress.completed}/${r.last_run.progress.total}` : ""}
          </span>
        </span>
      ),
  },
  {
    key: "trend",
    header: "Trend",
    sortable: false,
    value: (r) => r.sparkline?.points.map((p) => (p.value === null ? "" : p.value.toFixed(4))).join(" "),
    render: (r) => (r.sparkline ? <Sparkline points={r.sparkline.points} interval={r.sparkline.interval} previous={r.sparkline.previous} /> : "—"),
  },
  {
    key: "what_changed",
    header: "What changed",
    value: (r) => movesText(r),
    render: (r) => {
      const text = movesText(r);
      if (!r.what_changed?.length) return <span class="muted">{text}</span>;
      return (
        <ul class="moves">
          {r.what_changed.map((m) => (
            <li key={m.label}>
              <span class={`verdict ${m.direction}`}>{m.direction === "up" ? "▲" : "▼"}</span> {m.label} {points(m.delta)}
            </li>
          ))}
          {!!r.models_changed?.length && <li class="muted">models changed on {r.models_changed.join(", ")}</li>}
        </ul>
      );
    },
  },
];

/** The switcher and window above the table, and the table; `data` is the page's request. */
export function Portfolio({ data, query }: { data: Async<PortfolioAnswer>; query: URLSearchParams }) {
  const org = query.get("org") ?? "";
  const f = readFilters(query);
  const answer = data.data;
  if (data.loading && !answer) return <Loading what="Loading your brands" />;
  if (data.error && !answer) {
    return (
      <>
        <ErrorBox error={data.error} />
        {org && (
          <p>
            <a href="/">Show every organization</a>
          </p>
        )}
      </>
    );
  }
  if (!answer) return null;
  const days = f.days ?? 30;
  return (
    <>
      <div class="filters portfolio-filters">
        <label class="filter">
          Organization
          <select value={org} onChange={(e) => setQuery({ org: (e.target as HTMLSelectElement).value || null })}>
            <option value="">All organizations</option>
            {answer.organizations.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
        <div class="filter">
          <span id="portfolio-window">Window</span>
          <div class="segmented" role="group" aria-labelledby="portfolio-window">
            {WINDOW_PRESETS.map((d) => (
              <button key={d} type="button" aria-pressed={days === d} onClick={() => setQuery({ days: d === 30 ? null : String(d), from: null, to: null })}>
                {d} days
              </button>
            ))}
          </div>
        </div>
      </div>
      {!answer.brands.length ? (
        <Empty title="No brand in this organization yet">
          <a class="button primary" href="/onboarding">
            Add a brand
          </a>
        </Empty>
      ) : (
        <>
          {!answer.complete && (
            <p class="warning" role="status">
              The server ran out of time before every brand: those marked “not computed in time” have no numbers. Choose one organization or a shorter window.
            </p>
          )}
          {answer.truncated && (
            <p class="warning" role="status">
              Showing the first {answer.limit} brands only. Choose one organization to see the others.
            </p>
          )}
          <Table
            rows={answer.brands}
            columns={COLUMNS}
            rowKey={(r) => r.brand.id}
            csvName={`portfolio-${answer.window.from}-${answer.window.to}.csv`}
            caption={`Non-branded prompts, ${answer.window.from} to ${answer.window.to}, compared with ${answer.previous.from} to ${answer.previous.to}`}
            pageSize={100}
          />
        </>
      )}
    </>
  );
}
