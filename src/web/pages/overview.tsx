// The overview: KPI cards with their change and verdict, the trend by platform, the competitor
// leaderboard, the latest run and the next scheduled one — from insights_overview, insights_trend,
// insights_competitors and /api/tracking/jobs (four requests; the schedule comes with the brand).
import { LineChart, type Series } from "../components/chart";
import { FilterBar } from "../components/filter-bar";
import { Table, INTERVAL_CSV } from "../components/table";
import { Empty, EntityName, windowAnswers, ErrorBox, Loading, unwrap, useAsync, RateCell } from "../components/ui";
import { nonBrandedByDefault, promptScope, rpcArgs } from "../lib/filters";
import { changeText, dateTime, int, intervalText, intervalTitle, num, pct, points, VERDICT_TEXT } from "../lib/format";
import type { BrandContext, PlatformRow } from "../lib/brand-context";
import { familySize, modelChanges, noMoveText, significantMoves, togetherText, topicNamer } from "../../insights/changes";

type Rate = { value: number | null; n: number; ci_low: number | null; ci_high: number | null; previous: { value: number | null; n: number; ci_low: number | null; ci_high: number | null }; change: { delta: number | null; verdict: string; ci_low: number | null; ci_high: number | null; n_current: number; n_previous: number; model_changed: boolean } };

const FREQUENCY_MS: Record<string, number> = { hourly: 3_600_000, daily: 86_400_000, weekly: 7 * 86_400_000, monthly: 30 * 86_400_000 };

/** When the scheduler next asks each enabled platform (its last check plus its frequency). */
export function nextRun(platforms: PlatformRow[]): Date | null {
  const due = platforms
    .filter((p) => p.is_enabled && FREQUENCY_MS[p.check_frequency])
    .map((p) => (p.last_checked_at ? Date.parse(p.last_checked_at) + FREQUENCY_MS[p.check_frequency]! : Date.now()));
  return due.length ? new Date(Math.max(Date.now(), Math.min(...due))) : null;
}

export function trendInterval(from: string, to: string): "day" | "week" | "month" {
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  return days <= 45 ? "day" : days <= 200 ? "week" : "month";
}

/** `unit`: what the n counts (answers unless told). */
function Kpi({ label, rate, help, unit = "answers" }: { label: string; rate: Rate; help: string; unit?: string }) {
  const verdict = rate.change.verdict;
  return (
    <div class="kpi" data-kpi={label}>
      <span class="kpi-label" title={help}>
        {label}
      </span>
      <span class="kpi-value" title={intervalTitle(rate)} tabIndex={0}>
        {pct(rate.value)}
      </span>
      <span class="kpi-ci">{intervalText(rate)}</span>
      <span class="kpi-n">
        n = {int(rate.n)} {unit}
      </span>
      <span class={`verdict ${verdict}`} title={rate.change.delta === null ? "" : `Change over the prompts and platforms answered in both windows: ${points(rate.change.delta)}, 95 % interval ${points(rate.change.ci_low)} to ${points(rate.change.ci_high)} (n ${rate.change.n_current} vs ${rate.change.n_previous})`}>
        {points(rate.change.delta)} · {VERDICT_TEXT[verdict] ?? verdict}
      </span>
      {rate.change.delta !== null && <span class="kpi-ci">change 95 % CI {points(rate.change.ci_low)} to {points(rate.change.ci_high)}</span>}
      {rate.change.model_changed && (
        <span class="warning" title="The models the engines reported differ between the two windows">
          models changed
        </span>
      )}
    </div>
  );
}

export function Overview({ ctx }: { ctx: BrandContext }) {
  const { conn, brand } = ctx;
  // The headline reads non-branded prompts (README: read the non-branded figure); all and branded are one click away.
  const filters = nonBrandedByDefault(ctx.filters);
  const args = rpcArgs(brand.id, filters);
  const key = JSON.stringify(args);
  const interval = trendInterval(filters.from, filters.to);
  const data = useAsync(async () => {
    const [overview, trend, competitors, jobs] = await Promise.all([
      conn.sb.rpc("insights_overview", args),
      conn.sb.rpc("insights_trend", { ...args, p_interval: interval, p_group_by: "platform" }),
      conn.sb.rpc("insights_competitors", args),
      // A share link reads insights only: no runs.
      ctx.shared ? { jobs: [] } : conn.api<{ jobs: { jobId: string; status: string; progress: { completed: number; total: number }; createdAt: string; finishedAt: string | null }[] }>("GET", `/api/tracking/jobs?brandId=${brand.id}&limit=1`),
    ]);
    return { overview: unwrap(overview) as any, trend: unwrap(trend) as any[], competitors: unwrap(competitors) as any[], job: jobs.jobs[0] ?? null };
  }, [key, interval]);

  return (
    <section>
      <FilterBar filters={ctx.filters} options={ctx.options} brandedDefault={false} />
      {data.loading && !data.data ? (
        <Loading what="Loading the overview" />
      ) : data.error ? (
        <ErrorBox error={data.error} />
      ) : (
        <OverviewBody ctx={ctx} branded={filters.branded} {...data.data!} />
      )}
    </section>
  );
}

/** insights_trend rows (one per period and group) as chart series: the rate, its interval and n per point. */
export function trendSeries(trend: any[], groups: string[], periods: string[], summary: (group: string) => string): Series[] {
  const cell = new Map(trend.map((r) => [`${r.period}\u0000${r.group}`, r]));
  return groups.map((g) => {
    const rows = periods.map((p) => cell.get(`${p}\u0000${g}`));
    const has = (r: any) => r && r.answers > 0;
    return {
      label: g,
      values: rows.map((r) => (has(r) ? r.visibility_rate : null)),
      low: rows.map((r) => (has(r) ? r.ci_low : null)),
      high: rows.map((r) => (has(r) ? r.ci_high : null)),
      n: rows.map((r) => (has(r) ? r.answers : null)),
      summary: summary(g),
    };
  });
}

/** A mean sentiment score in words: a bare "0.15" says little to a reader. */
function sentimentWords(v: number | null): string {
  if (v === null) return "no passages about the brand";
  return v >= 0.5 ? "clearly positive" : v >= 0.05 ? "leaning positive" : v > -0.05 ? "neutral" : v > -0.5 ? "leaning negative" : "clearly negative";
}


/** Each platform's visibility, interval, n and change with its verdict: a move on one engine shows even when the pooled change is noise. */
function PlatformStrip({ rows }: { rows: any[] }) {
  return (
    <div class="platform-strip" role="list" aria-label="Each engine: visibility and change">
      {rows.map((r) => (
        <div class="platform-cell" role="listitem" key={r.platform} data-platform={r.platform}>
          <span class="kpi-label">{r.platform}</span>
          <strong>{pct(r.visibility_rate.value)}</strong>
          <span class="kpi-ci">{intervalText(r.visibility_rate)}</span>
          <span class="kpi-n">n = {int(r.visibility_rate.n)} answers</span>
          <span class={`verdict ${r.visibility_rate.change.verdict}`} title={familyTitle(r.visibility_rate.change)}>
            {points(r.visibility_rate.change.delta)} · {VERDICT_TEXT[r.visibility_rate.change.verdict] ?? r.visibility_rate.change.verdict}
          </span>
        </div>
      ))}
    </div>
  );
}

/** A family member's p-values in words (the platforms', topics' and competitors' changes are tested together: Holm). */
function familyTitle(change: { p_value?: number | null; p_adjusted?: number | null; family_size?: number | null }): string {
  if (change.p_value == null || change.p_adjusted == null) return "";
  return `p = ${pValue(change.p_value)} for this change alone; ${pValue(change.p_adjusted)} once the ${change.family_size} platform, topic and competitor changes read together are accounted for (Holm). A move is called when that is at most 0.05.`;
}

const pValue = (p: number) => (p < 0.001 ? "< 0.001" : p.toFixed(3));

/** The significant moves (verdict up or down) by platform, topic and competitor, and model changes, each with its n. */
function WhatChanged({ overview, topics }: { overview: any; topics: { id: string; name: string }[] }) {
  const moves = significantMoves(overview, topicNamer(topics));
  const models = modelChanges(overview);
  const tested = familySize(overview);
  return (
    <section class="card what-changed" aria-label="What changed">
      <h2>What changed</h2>
      {!moves.length && !models.length ? (
        <p class="muted">{noMoveText(tested)}</p>
      ) : (
        <>
        <ul class="plain">
          {moves.map((m) => (
            <li key={m.label} data-move={m.label} title={familyTitle(m.rate.change)}>
              <span class={`verdict ${m.direction}`}>{m.direction === "up" ? "▲" : "▼"}</span> Visibility on {m.label}: {changeText(m.rate.change)} {m.kind === "competitor" ? "over all answers of each window" : "over the prompts answered in both windows"} (n {int(m.rate.change.n_current)} vs {int(m.rate.change.n_previous)}); now {pct(m.rate.value)} of all its {int(m.rate.n)} answers
            </li>
          ))}
          {models.map((p: string) => (
            <li key={`model-${p}`}>
              <span class="warning">models changed</span> {p} reported different models in the two windows: part of any move there may be the model.
            </li>
          ))}
        </ul>
        {togetherText(tested, moves.length) && (
          <p class="muted" data-family={tested}>
            {togetherText(tested, moves.length)}
          </p>
        )}
        </>
      )}
    </section>
  );
}

function OverviewBody({ ctx, branded, overview, trend, competitors, job }: { ctx: BrandContext; branded: boolean | null; overview: any; trend: any[]; competitors: any[]; job: any }) {
  const next = nextRun(ctx.platforms);
  const schedule = ctx.shared ? null : (
    <p class="muted schedule">
      Latest run: {job ? <a href={`/b/${ctx.brand.id}/runs`}>{`${job.status}, ${job.progress.completed}/${job.progress.total} questions done${job.progress.failed ? ` (${job.progress.failed} failed)` : ""}, ${dateTime(job.createdAt)}`}</a> : "none yet"} · Next scheduled run: {next ? dateTime(next.toISOString()) : "none (no platform on a schedule)"}
    </p>
  );
  if (!overview.answers)
    return (
      <>
        <Empty title="No answers in this window">
          <p>{job ? "Widen the window or clear a filter." : "Start a run to ask the engines your prompts."}</p>
          {ctx.canEdit && (
            <a class="button primary" href={`/b/${ctx.brand.id}/runs`}>
              Go to runs
            </a>
          )}
        </Empty>
        {schedule}
      </>
    );
  const platforms = [...new Set(trend.map((r) => r.group as string))].filter(Boolean).sort();
  const periods = [...new Set(trend.map((r) => r.period as string))];
  const series = trendSeries(trend, platforms, periods, (p) => {
    const row = overview.by_platform.find((r: any) => r.platform === p);
    return row ? `${pct(row.visibility_rate.value)} (${intervalText(row.visibility_rate)}), n = ${int(row.visibility_rate.n)}` : "no answers";
  });
  const sov = overview.share_of_voice;
  const answeredPeriods = [...new Set(trend.filter((r) => Number(r.answers) > 0).map((r) => String(r.period)))];
  return (
    <>
      <p class="muted">
        {overview.window.from} – {overview.window.to}, compared with {overview.previous.from} – {overview.previous.to} · {int(overview.answers)} answers to <strong>{promptScope(branded)}</strong>
      </p>

      <div class="kpis">
        <Kpi label="Visibility rate" rate={overview.visibility_rate} help="Answers naming the brand / answers" />
        <div class="kpi" data-kpi="Share of voice">
          <span class="kpi-label" title="Brand mentions / mentions of the brand and all competitors">
            Share of voice
          </span>
          <span class="kpi-value" tabIndex={0} title={`${int(sov.brand_mentions)} of ${int(sov.total_mentions)} mentions`}>
            {pct(sov.value)}
          </span>
          <span class="kpi-ci">
            {int(sov.brand_mentions)} of {int(sov.total_mentions)} mentions
          </span>
          <span class="kpi-n">n = {int(sov.n)} answers</span>
          <span class="verdict" title={sov.change.delta === null ? "No prompt was answered in both windows" : "The change in share of voice is shown without a test for noise"}>
            {sov.change.delta === null ? "— · nothing to compare" : `${points(sov.change.delta)} · not tested`}
          </span>
          {sov.change.delta !== null && sov.change.competitors_changed && (
            <span class="warning" title="A competitor was added while the two windows had answers already: its mentions count in the answers since, not in those before">
              competitors changed
            </span>
          )}
        </div>
        <div class="kpi" data-kpi="Average position">
          <span class="kpi-label" title="Mean rank of the brand among the entities an answer names, when named">
            Average position
          </span>
          <span class="kpi-value">{num(overview.avg_position.value)}</span>
          <span class="kpi-ci">1 = named first</span>
          <span class="kpi-n">n = {int(overview.avg_position.n)} answers naming the brand</span>
          <span class="verdict">previous {num(overview.avg_position.previous.value)}</span>
        </div>
        <Kpi label="Citation share" rate={overview.citation_share} help="Citations of the brand's pages / all citations" unit="citations" />
        <div class="kpi" data-kpi="Sentiment">
          <span class="kpi-label" title="Mean sentiment of the passages about the brand, −1 to 1">
            Sentiment
          </span>
          <span class="kpi-value">{num(overview.sentiment.value, 2)}</span>
          <span class="kpi-ci">{sentimentWords(overview.sentiment.value)} (scale −1 to +1)</span>
          <span class="kpi-n">n = {int(overview.sentiment.n)} answers with a sentiment</span>
          <span class="verdict">
            {int(overview.sentiment.positive)} positive · {int(overview.sentiment.neutral)} neutral · {int(overview.sentiment.negative)} negative
          </span>
        </div>
      </div>
      <WhatChanged overview={overview} topics={ctx.options.topics} />
      <PlatformStrip rows={overview.by_platform} />
      <h2>Visibility by platform</h2>
      {answeredPeriods.length < 2 ? (
        // One period with answers draws no line: said in words, the figures are in the strip above.
        <p class="muted" data-one-period={answeredPeriods[0] ?? ""}>
          Every answer of this window is from {answeredPeriods[0] ?? "—"}: the chart draws a line once a second {trendInterval(overview.window.from, overview.window.to)} has answers. Each platform's rate is in the strip above.
        </p>
      ) : (
        <>
          <p class="muted">Shaded: each point's 95 % interval. Hover or tap a point for its n; "Chart data" lists every value.</p>
          <LineChart periods={periods} series={series} yLabel="Visibility rate" />
        </>
      )}
      <h2>Competitors</h2>
      <Table
        rows={competitors}
        rowKey={(r) => r.entity_id}
        csvName={`${ctx.brand.slug}-competitors.csv`}
        initialSort={{ key: "visibility_rate", desc: true }}
        columns={[
          { key: "name", header: "Name", value: (r) => r.name, render: (r) => <EntityName row={r} windowN={windowAnswers(competitors)} windowTo={overview.window.to} /> },
          { key: "visibility_rate", header: "Visibility", numeric: true, value: (r) => r.visibility_rate, render: (r) => <RateCell value={r.visibility_rate} ci_low={r.ci_low} ci_high={r.ci_high} n={r.n} />, title: (r) => intervalTitle(r), csvExtra: INTERVAL_CSV },
          { key: "answers_mentioning", header: "Answers naming", numeric: true, value: (r) => r.answers_mentioning, render: (r) => `${int(r.answers_mentioning)} / ${int(r.n)}` },
          { key: "share_of_voice", header: "Share of voice", numeric: true, value: (r) => r.share_of_voice, render: (r) => pct(r.share_of_voice) },
          { key: "avg_position", header: "Avg. position", numeric: true, value: (r) => r.avg_position, render: (r) => num(r.avg_position) },
        ]}
      />
      {schedule}
    </>
  );
}
