// AI crawlers: which AI bots read the brand's site, verified or not, from its server or CDN logs —
// insights_crawlers, insights_crawler_trend and insights_crawler_paths.
import { LineChart } from "../components/chart";
import { FilterBar } from "../components/filter-bar";
import { Table } from "../components/table";
import { CopyField, Empty, ErrorBox, Loading, unwrap, useAsync } from "../components/ui";
import { int } from "../lib/format";
import type { BrandContext } from "./brand";
import { trendInterval } from "./overview";

const CLASS_TEXT: Record<string, string> = { ai_training: "AI training", ai_search: "AI search", ai_user: "AI user fetch", search_engine: "search engine", other_bot: "other bot", human: "human" };

export function Crawlers({ ctx }: { ctx: BrandContext }) {
  const args = { p_brand_id: ctx.brand.id, p_from: ctx.filters.from, p_to: ctx.filters.to };
  const interval = trendInterval(ctx.filters.from, ctx.filters.to);
  const data = useAsync(async () => {
    const [bots, trend, paths] = await Promise.all([ctx.conn.sb.rpc("insights_crawlers", args), ctx.conn.sb.rpc("insights_crawler_trend", { ...args, p_interval: interval }), ctx.conn.sb.rpc("insights_crawler_paths", args)]);
    return { bots: unwrap(bots) as any[], trend: unwrap(trend) as any[], paths: unwrap(paths) as any[] };
  }, [JSON.stringify(args), interval]);
  return (
    <section>
      <FilterBar filters={ctx.filters} options={{ platforms: [], models: [], regions: [], topics: [] }} branded={false} />
      {data.loading && !data.data ? (
        <Loading what="Loading crawlers" />
      ) : data.error ? (
        <ErrorBox error={data.error} />
      ) : !data.data!.bots.length ? (
        <Empty title="No crawler logs in this window">
          <p>
            Send your web server's or CDN's logs: <code>answerwatch logs import --brand {ctx.brand.slug} access.log</code>, batches to{" "}
            <CopyField label="Crawler logs endpoint (POST)" value={`${ctx.conn.config.publicUrl}/api/brands/${ctx.brand.id}/crawler-logs`} />, or a Cloudflare Logpush job to the same address
            followed by <code>/logpush</code> (see the README).
          </p>
        </Empty>
      ) : (
        <CrawlerBody ctx={ctx} {...data.data!} />
      )}
    </section>
  );
}

function CrawlerBody({ ctx, bots, trend, paths }: { ctx: BrandContext; bots: any[]; trend: any[]; paths: any[] }) {
  const periods = [...new Set(trend.map((r) => r.period as string))];
  const names = [...new Set(trend.map((r) => r.bot as string))];
  const series = names.map((bot) => ({ label: bot, values: periods.map((p) => trend.find((r) => r.period === p && r.bot === bot)?.requests ?? 0) }));
  return (
    <>
      <h2>Bots</h2>
      <Table
        rows={bots}
        rowKey={(r) => `${r.bot}|${r.verdict}|${r.class}`}
        csvName={`${ctx.brand.slug}-crawlers.csv`}
        initialSort={{ key: "requests", desc: true }}
        columns={[
          { key: "bot", header: "Bot", value: (r) => r.bot ?? "", render: (r) => r.bot ?? <span class="muted">({CLASS_TEXT[r.class]})</span> },
          { key: "operator", header: "Operator", value: (r) => r.operator ?? "" },
          { key: "class", header: "Class", value: (r) => CLASS_TEXT[r.class] ?? r.class },
          { key: "verdict", header: "Verified", value: (r) => r.verdict ?? "", render: (r) => (r.verdict ? <span class={`tag verdict-${r.verdict}`}>{r.verdict}</span> : "—") },
          { key: "requests", header: "Requests", numeric: true, value: (r) => r.requests, render: (r) => int(r.requests) },
          { key: "pages", header: "Pages", numeric: true, value: (r) => r.pages, render: (r) => int(r.pages), title: () => "Page hits: not robots.txt, sitemaps or assets" },
          { key: "refused", header: "Refused", numeric: true, value: (r) => r.refused, render: (r) => int(r.refused), title: () => "Answered 4xx or 5xx" },
        ]}
      />
      {series.length > 0 && (
        <>
          <h2>Requests over time</h2>
          <LineChart periods={periods} series={series} yLabel="Requests" percent={false} />
        </>
      )}
      <h2>Top paths</h2>
      <Table
        rows={paths}
        rowKey={(r) => `${r.bot}|${r.path}|${r.hit}`}
        csvName={`${ctx.brand.slug}-crawler-paths.csv`}
        initialSort={{ key: "requests", desc: true }}
        columns={[
          { key: "bot", header: "Bot", value: (r) => r.bot },
          { key: "path", header: "Path", value: (r) => r.path },
          { key: "hit", header: "Kind", value: (r) => r.hit },
          { key: "requests", header: "Requests", numeric: true, value: (r) => r.requests, render: (r) => int(r.requests) },
          { key: "refused", header: "Refused", numeric: true, value: (r) => r.refused, render: (r) => int(r.refused) },
        ]}
      />
    </>
  );
}
