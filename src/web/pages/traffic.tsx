// AI traffic: visits sent by assistants over time and the top landing pages (GET
// /api/brands/:id/traffic), the snippet to install, and when the last beacon arrived.
import { capSeries, StackedBars } from "../components/chart";
import { FilterBar } from "../components/filter-bar";
import { Table } from "../components/table";
import { Empty, ErrorBox, Loading, unwrap, useAsync } from "../components/ui";
import { dateTime, int, pct } from "../lib/format";
import type { BrandContext } from "../lib/brand-context";
import { trendInterval } from "./overview";

export function Traffic({ ctx }: { ctx: BrandContext }) {
  const { from, to } = ctx.filters;
  // The traffic report has day and week buckets.
  const interval = trendInterval(from, to) === "day" ? "day" : "week";
  const data = useAsync(async () => {
    const [report, last] = await Promise.all([
      ctx.conn.api<any>("GET", `/api/brands/${ctx.brand.id}/traffic?from=${from}&to=${to}&interval=${interval}`),
      ctx.conn.sb.from("ai_traffic_logs").select("created_at, source_platform, path").eq("brand_id", ctx.brand.id).order("created_at", { ascending: false }).limit(1),
    ]);
    return { report, last: (unwrap(last) as { created_at: string; source_platform: string | null; path: string }[])[0] ?? null };
  }, [from, to, interval, ctx.brand.id]);
  // Escaped as attribute values: the snippet goes into every page of the site it is pasted in.
  const attribute = (value: string) => value.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  const snippet = `<script async src="${attribute(`${ctx.conn.config.publicUrl}/t.js`)}" data-brand="${attribute(ctx.brand.tracking_code)}"></script>`;
  return (
    <section>
      <FilterBar filters={ctx.filters} options={{ ...ctx.options, models: [], regions: [], topics: [] }} branded={false} />
      <div class="card">
        <h2>Install the pixel</h2>
        <p>Put this tag on every page of your site. It sets no cookie and keeps no address: each page view is stored with its page, its referrer's host, the AI assistant that sent it (if one did), country, language, screen size, browser family and a visitor hash that changes every day. The reports count the visits AI assistants sent against all page views.</p>
        {ctx.conn.config.publicUrlIsLoopback && (
          <p class="warning" role="alert">
            This server's public address is {ctx.conn.config.publicUrl}, which only this machine reaches: a site cannot load the pixel from it. Set <code>PUBLIC_URL</code> to the address browsers reach and restart the server.
          </p>
        )}
        <pre class="snippet">{snippet}</pre>
        <button type="button" onClick={() => navigator.clipboard?.writeText(snippet)}>
          Copy
        </button>
        <p class="muted" role="status">
          Last beacon received: {data.data?.last ? `${dateTime(data.data.last.created_at)} (${data.data.last.source_platform ?? "not from an assistant"}, ${data.data.last.path})` : "none yet"}
        </p>
      </div>
      {data.loading && !data.data ? (
        <Loading what="Loading traffic" />
      ) : data.error ? (
        <ErrorBox error={data.error} />
      ) : !data.data!.report.totals.visits ? (
        <Empty title="No AI-referred visits in this window">
          <p>Once the pixel is installed, visits from ChatGPT, Perplexity, Gemini and other assistants appear here.</p>
        </Empty>
      ) : (
        <TrafficBody report={data.data!.report} slug={ctx.brand.slug} />
      )}
    </section>
  );
}

function TrafficBody({ report, slug }: { report: any; slug: string }) {
  const periods: string[] = report.periods.map((p: any) => String(p.period).slice(0, 10));
  const totals = report.platforms as { platform: string; visits: number; visitors: number }[];
  const capped = capSeries(
    totals.filter((t) => t.platform !== "").map((t) => ({ label: t.platform, values: report.periods.map((p: any) => p.byPlatform[t.platform] ?? 0) as number[], visits: t.visits, visitors: t.visitors })),
    (s) => s.visits,
  );
  const series = capped.map((s) => ({ label: s.label, values: s.values, summary: s.kept ? `${int(s.kept.visits)} visits, ${int(s.kept.visitors)} visitors` : `${int(s.values.reduce((a: number, v) => a + (v ?? 0), 0))} visits` }));
  const assistants = capped.filter((s) => s.kept).map((s) => s.label);
  return (
    <>
      <p>
        {int(report.totals.visits)} visits from AI assistants ({int(report.totals.visitors)} visitors), {int(report.totals.pageViews)} page views in all
      </p>
      <h2>Visits by assistant</h2>
      <ul class="platform-strip plain" aria-label="Visits per assistant">
        {totals.map((t) => (
          <li class="platform-cell" key={t.platform} data-platform={t.platform || "none"}>
            <span class="kpi-label">{t.platform || "not an assistant"}</span>
            <strong>{int(t.visits)} visits</strong>
            <span class="kpi-n">
              {int(t.visitors)} visitors · {report.totals.visits ? pct(t.visits / report.totals.visits) : "—"} of visits
            </span>
          </li>
        ))}
      </ul>
      {series.length > 0 && <StackedBars periods={periods} series={series} yLabel="Visits" />}
      <h2>Top landing pages</h2>
      <Table
        rows={report.topLandingPages}
        rowKey={(r: any) => r.path}
        csvName={`${slug}-landing-pages.csv`}
        initialSort={{ key: "visits", desc: true }}
        columns={[
          { key: "path", header: "Page", value: (r: any) => r.path },
          { key: "visits", header: "Visits", numeric: true, value: (r: any) => r.visits, render: (r: any) => int(r.visits) },
          ...assistants.map((a) => ({ key: `by_${a}`, header: a, numeric: true, value: (r: any) => r.byPlatform[a] ?? 0, render: (r: any) => int(r.byPlatform[a] ?? 0) })),
        ]}
      />
    </>
  );
}
