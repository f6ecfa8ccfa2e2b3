// AI crawlers: which AI bots read the brand's site, verified or not, from its server or CDN logs —
// insights_crawlers, insights_crawler_trend and insights_crawler_paths.
import { useState } from "preact/hooks";
import { previousWindow } from "../../insights/window";
import { capSeries, StackedBars } from "../components/chart";
import { FilterBar } from "../components/filter-bar";
import { Table } from "../components/table";
import { CopyField, Empty, ErrorBox, Loading, unwrap, useAsync } from "../components/ui";
import { int, pct } from "../lib/format";
import type { BrandContext } from "../lib/brand-context";
import { trendInterval } from "./overview";

const CLASS_TEXT: Record<string, string> = { ai_training: "AI training", ai_search: "AI search", ai_user: "AI user fetch", search_engine: "search engine", other_bot: "other bot", human: "human" };

const ANSWERS_HELP = { refused: "Answered 401, 403 or 429: the site said no", not_found: "Answered 404 or 410", server_errors: "Answered 5xx: the site failed" };

export function Crawlers({ ctx }: { ctx: BrandContext }) {
  const args = { p_brand_id: ctx.brand.id, p_from: ctx.filters.from, p_to: ctx.filters.to };
  const interval = trendInterval(ctx.filters.from, ctx.filters.to);
  const data = useAsync(async () => {
    const before = previousWindow({ from: args.p_from, to: args.p_to });
    const [bots, previous, trend, paths] = await Promise.all([
      ctx.conn.sb.rpc("insights_crawlers", args),
      ctx.conn.sb.rpc("insights_crawlers", { ...args, p_from: before.from, p_to: before.to }),
      ctx.conn.sb.rpc("insights_crawler_trend", { ...args, p_interval: interval }),
      ctx.conn.sb.rpc("insights_crawler_paths", args),
    ]);
    return { bots: unwrap(bots) as any[], previous: unwrap(previous) as any[], trend: unwrap(trend) as any[], paths: unwrap(paths) as any[] };
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

const AI_CLASSES = new Set(["ai_training", "ai_search", "ai_user"]);
const requestsText = (n: number) => `${int(n)} request${n === 1 ? "" : "s"}`;
const sum = (rows: any[], key: string) => rows.reduce((total, r) => total + (r[key] ?? 0), 0);

function Select({ label, value, options, onChange }: { label: string; value: string; options: [string, string][]; onChange: (v: string) => void }) {
  return (
    <label class="filter">
      {label}
      <select value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        <option value="">all</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

function CrawlerBody({ ctx, bots, previous, trend, paths }: { ctx: BrandContext; bots: any[]; previous: any[]; trend: any[]; paths: any[] }) {
  const [bot, setBot] = useState("");
  const [cls, setCls] = useState("");
  const [verdict, setVerdict] = useState("");
  const [hit, setHit] = useState("");
  // Humans in the logs are counted apart: they are not crawlers.
  const crawlers = bots.filter((r) => r.class !== "human");
  const humans = bots.filter((r) => r.class === "human");
  // A scraper posing as an AI crawler (an address outside its operator's published ones) is not one:
  // the AI figures leave spoofed requests out and say how many there were.
  const ai = crawlers.filter((r) => AI_CLASSES.has(r.class) && r.verdict !== "spoofed");
  const aiBefore = previous.filter((r) => AI_CLASSES.has(r.class) && r.verdict !== "spoofed");
  const spoofed = sum(crawlers.filter((r) => AI_CLASSES.has(r.class) && r.verdict === "spoofed"), "requests");
  const hits = sum(ai, "requests");
  const hitsBefore = sum(aiBefore, "requests");
  const verified = sum(ai.filter((r) => r.verdict === "verified"), "requests");
  const shown = crawlers.filter((r) => (!bot || r.bot === bot) && (!cls || r.class === cls) && (!verdict || (r.verdict ?? "none") === verdict));
  const names = [...new Set(crawlers.map((r) => r.bot).filter(Boolean))].sort() as string[];
  const periods = [...new Set(trend.map((r) => r.period as string))];
  const shownBots = new Set(shown.map((b) => b.bot));
  const requests = new Map(trend.filter((r) => shownBots.has(r.bot)).map((r) => [`${r.period}\u0000${r.bot}`, r.requests as number]));
  const byBot = [...new Set(trend.filter((r) => shownBots.has(r.bot)).map((r) => r.bot as string))].map((b) => ({ label: b, values: periods.map((p) => requests.get(`${p}\u0000${b}`) ?? 0) }));
  const series = capSeries(byBot, (s) => s.values.reduce((a, v) => a + (v ?? 0), 0)).map((s) => ({ label: s.label, values: s.values, summary: requestsText(s.values.reduce((a: number, v) => a + (v ?? 0), 0)) }));
  const shownPaths = paths.filter((r) => (!bot || r.bot === bot) && (!hit || r.hit === hit) && shownBots.has(r.bot));
  const change = hitsBefore ? (hits - hitsBefore) / hitsBefore : null;
  return (
    <>
      <div class="kpis">
        <div class="kpi" data-kpi="AI crawler hits">
          <span class="kpi-label">AI crawler hits</span>
          <span class="kpi-value">{int(hits)}</span>
          <span class="kpi-n">
            {change === null ? "none in the previous window" : `${change >= 0 ? "+" : "−"}${Math.abs(change * 100).toFixed(0)} % vs previous window (${int(hitsBefore)})`}
          </span>
        </div>
        <div class="kpi" data-kpi="Pages read">
          <span class="kpi-label">Pages read by AI crawlers</span>
          <span class="kpi-value">{int(sum(ai, "pages"))}</span>
          <span class="kpi-n">not robots.txt, sitemaps or assets</span>
        </div>
        <div class="kpi" data-kpi="Verified">
          <span class="kpi-label">Verified share</span>
          <span class="kpi-value">{hits ? pct(verified / hits) : "—"}</span>
          <span class="kpi-n">
            {int(verified)} of {int(hits)} hits from the operator's published addresses
          </span>
        </div>
        <div class="kpi" data-kpi="Refused">
          <span class="kpi-label">Refused by the site</span>
          <span class="kpi-value">{int(sum(ai, "refused"))}</span>
          <span class="kpi-n">
            answered 401, 403 or 429 · apart: {int(sum(ai, "not_found"))} not found, {int(sum(ai, "server_errors"))} server errors
          </span>
        </div>
      </div>
      <p class="muted">
        Humans in the same logs: {int(sum(humans, "requests"))} requests, counted apart from bots. Search-engine and other bots are listed below but not in the AI figures{spoofed > 0 ? `, nor are the ${requestsText(spoofed)} of bots that claimed an AI crawler's name from outside its operator's addresses (spoofed)` : ""}.
      </p>
      <div class="filters" role="group" aria-label="Crawler filters">
        <Select label="Bot" value={bot} options={names.map((n) => [n, n])} onChange={setBot} />
        <Select label="Class" value={cls} options={Object.entries(CLASS_TEXT).filter(([k]) => k !== "human")} onChange={setCls} />
        <Select label="Verification" value={verdict} options={[["verified", "verified"], ["spoofed", "spoofed"], ["unverifiable", "unverifiable"], ["none", "not checked"]]} onChange={setVerdict} />
        <Select label="Hit kind" value={hit} options={[["page", "page"], ["robots", "robots.txt"], ["sitemap", "sitemap"], ["asset", "asset"]]} onChange={setHit} />
      </div>
      <h2>Bots</h2>
      <Table
        rows={shown}
        rowKey={(r) => `${r.bot}|${r.verdict}|${r.class}`}
        csvName={`${ctx.brand.slug}-crawlers.csv`}
        initialSort={{ key: "requests", desc: true }}
        pageSize={20}
        columns={[
          { key: "bot", header: "Bot", value: (r) => r.bot ?? "", render: (r) => r.bot ?? <span class="muted">unnamed {CLASS_TEXT[r.class]}</span> },
          { key: "operator", header: "Operator", value: (r) => r.operator ?? "" },
          { key: "class", header: "Class", value: (r) => CLASS_TEXT[r.class] ?? r.class },
          { key: "verdict", header: "Verified", value: (r) => r.verdict ?? "", render: (r) => (r.verdict ? <span class={`tag verdict-${r.verdict}`}>{r.verdict}</span> : "—") },
          { key: "requests", header: "Requests", numeric: true, value: (r) => r.requests, render: (r) => int(r.requests) },
          { key: "pages", header: "Pages", numeric: true, value: (r) => r.pages, render: (r) => int(r.pages), title: () => "Page hits: not robots.txt, sitemaps or assets" },
          { key: "refused", header: "Refused", numeric: true, value: (r) => r.refused, render: (r) => int(r.refused), title: () => ANSWERS_HELP.refused },
          { key: "not_found", header: "Not found", numeric: true, value: (r) => r.not_found, render: (r) => int(r.not_found), title: () => ANSWERS_HELP.not_found },
          { key: "server_errors", header: "Errors", numeric: true, value: (r) => r.server_errors, render: (r) => int(r.server_errors), title: () => ANSWERS_HELP.server_errors },
        ]}
      />
      {series.length > 0 && (
        <>
          <h2>Requests over time</h2>
          {spoofed > 0 && <p class="muted">By the name each request gave: the {requestsText(spoofed)} marked spoofed above count here under the crawler they claimed to be.</p>}
          <StackedBars periods={periods} series={series} yLabel="Requests" />
        </>
      )}
      <h2>Top paths</h2>
      {spoofed > 0 && <p class="muted">By the name each request gave, spoofed ones included.</p>}
      <Table
        rows={shownPaths}
        rowKey={(r) => `${r.bot}|${r.path}|${r.hit}`}
        csvName={`${ctx.brand.slug}-crawler-paths.csv`}
        initialSort={{ key: "requests", desc: true }}
        pageSize={20}
        columns={[
          { key: "bot", header: "Bot", value: (r) => r.bot },
          { key: "path", header: "Path", value: (r) => r.path },
          { key: "hit", header: "Kind", value: (r) => r.hit },
          { key: "requests", header: "Requests", numeric: true, value: (r) => r.requests, render: (r) => int(r.requests) },
          { key: "refused", header: "Refused", numeric: true, value: (r) => r.refused, render: (r) => int(r.refused), title: () => ANSWERS_HELP.refused },
          { key: "not_found", header: "Not found", numeric: true, value: (r) => r.not_found, render: (r) => int(r.not_found), title: () => ANSWERS_HELP.not_found },
          { key: "server_errors", header: "Errors", numeric: true, value: (r) => r.server_errors, render: (r) => int(r.server_errors), title: () => ANSWERS_HELP.server_errors },
        ]}
      />
    </>
  );
}
