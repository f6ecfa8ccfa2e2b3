// Prompts: per prompt visibility (with interval), position, top competitors and run-to-run states;
// a prompt's page leads with each engine's latest answer, brand and competitors highlighted, its
// cited sources (own / competitor / third party, with category) and search queries, then history.
import type { ComponentChildren } from "preact";
import { groupBy } from "../../analysis/group";
import { LineChart } from "../components/chart";
import { FilterBar } from "../components/filter-bar";
import { Markdown } from "../components/markdown";
import { Table, INTERVAL_CSV } from "../components/table";
import { Empty, ErrorBox, ExternalLink, Loading, unwrap, useAsync, RateCell } from "../components/ui";
import { rpcArgs } from "../lib/filters";
import { dateTime, int, intervalText, intervalTitle, num, pct } from "../lib/format";
import type { BrandContext } from "../lib/brand-context";
import { trendInterval, trendSeries } from "./overview";

const STATE_TEXT: Record<string, string> = { new: "new", gained: "gained", lost: "lost", kept: "kept", absent: "absent" };

export function Prompts({ ctx }: { ctx: BrandContext }) {
  const args = rpcArgs(ctx.brand.id, ctx.filters);
  const data = useAsync(async () => unwrap(await ctx.conn.sb.rpc("insights_prompts", args)) as any[], [JSON.stringify(args)]);
  return (
    <section>
      <FilterBar filters={ctx.filters} options={ctx.options} />
      {data.loading && !data.data ? (
        <Loading what="Loading prompts" />
      ) : data.error ? (
        <ErrorBox error={data.error} />
      ) : !data.data!.length ? (
        <Empty title="No prompts match">
          <p>{ctx.canEdit ? "Add prompts in Settings, or clear a filter." : "Clear a filter to see more."}</p>
        </Empty>
      ) : (
        <Table
          rows={data.data!}
          rowKey={(r) => r.prompt_id}
          csvName={`${ctx.brand.slug}-prompts.csv`}
          initialSort={{ key: "visibility_rate", desc: true }}
          columns={[
            { key: "text", header: "Prompt", value: (r) => r.text, render: (r) => (ctx.shared ? r.text : <a href={`/b/${ctx.brand.id}/prompts/${r.prompt_id}${location.search}`}>{r.text}</a>) },
            { key: "is_branded", header: "Branded", value: (r) => (r.is_branded ? "yes" : "no") },
            { key: "visibility_rate", header: "Visibility", numeric: true, value: (r) => r.visibility_rate, render: (r) => <RateCell value={r.visibility_rate} ci_low={r.ci_low} ci_high={r.ci_high} n={r.answers} />, title: (r) => intervalTitle({ ...r, n: r.answers }), csvExtra: INTERVAL_CSV },
            { key: "answers", header: "Answers", numeric: true, value: (r) => r.answers, render: (r) => int(r.answers) },
            { key: "avg_position", header: "Avg. position", numeric: true, value: (r) => r.avg_position, render: (r) => num(r.avg_position) },
            { key: "top_competitors", header: "Top competitors", value: (r) => r.top_competitors.map((c: any) => c.name).join(", ") },
            { key: "runs", header: "Last run vs previous", value: (r) => r.runs.map((x: any) => `${x.platform}: ${x.state}`).join("; "), render: (r) => <States runs={r.runs} /> },
            { key: "last_run_at", header: "Last answer", value: (r) => r.last_run_at, render: (r) => dateTime(r.last_run_at) },
          ]}
        />
      )}
    </section>
  );
}

function States({ runs }: { runs: { platform: string; state: string }[] }) {
  return (
    <span class="states">
      {runs.map((r) => (
        <span key={r.platform} class={`state-tag ${r.state}`} title={`${r.platform}: ${r.state}`}>
          {r.platform} {STATE_TEXT[r.state]}
        </span>
      ))}
    </span>
  );
}

interface Answer {
  id: string;
  job_id: string | null;
  platform: string;
  model: string;
  region: string;
  sample: number;
  response: string;
  mentioned: boolean;
  mention_position: number | null;
  competitor_mentions: { competitor_id: string; name: string }[];
  citations: { position: number; url: string; domain: string | null; title: string | null; is_brand: boolean; competitor_id: string | null }[];
  search_queries: string[];
  sentiment: string | null;
  created_at: string;
}

/** Text with the brand's and competitors' names marked. */
function Highlighted({ text, names }: { text: string; names: { name: string; kind: "brand" | "competitor" }[] }) {
  const usable = names.filter((n) => n.name.trim().length > 1).sort((a, b) => b.name.length - a.name.length);
  if (!usable.length) return <>{text}</>;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${usable.map((n) => n.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?![\\p{L}\\p{N}])`, "giu");
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    parts.push(text.slice(last, m.index));
    const kind = usable.find((n) => n.name.toLowerCase() === m[0].toLowerCase())?.kind ?? "competitor";
    parts.push(<mark class={kind}>{m[0]}</mark>);
    last = m.index! + m[0].length;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
}

export function PromptDetail({ ctx, promptId }: { ctx: BrandContext; promptId: string }) {
  const { conn, brand } = ctx;
  const args = { ...rpcArgs(brand.id, ctx.filters), p_prompt_ids: [promptId] };
  const data = useAsync(async () => {
    const [prompt, answers, insight, domains, competitors, trend] = await Promise.all([
      conn.sb.from("prompts").select("id, text, is_branded, topic_id").eq("id", promptId).single(),
      conn.sb.from("prompt_results").select("id, job_id, platform, model, region, sample, response, mentioned, mention_position, competitor_mentions, citations, search_queries, sentiment, created_at").eq("prompt_id", promptId).order("created_at", { ascending: false }).limit(60),
      conn.sb.rpc("insights_prompts", args),
      conn.sb.rpc("insights_citation_domains", args),
      conn.sb.from("competitors").select("name, aliases").eq("brand_id", brand.id),
      conn.sb.rpc("insights_trend", { ...args, p_interval: trendInterval(ctx.filters.from, ctx.filters.to), p_group_by: "platform" }),
    ]);
    return {
      prompt: unwrap(prompt) as { id: string; text: string; is_branded: boolean },
      answers: unwrap(answers) as Answer[],
      insight: (unwrap(insight) as any[])[0] ?? null,
      domains: new Map((unwrap(domains) as { domain: string; category: string; class: string }[]).map((d) => [d.domain, d])),
      competitors: unwrap(competitors) as { name: string; aliases: (string | { text: string })[] }[],
      trend: unwrap(trend) as any[],
    };
  }, [promptId, JSON.stringify(args)]);
  if (data.loading && !data.data) return <Loading what="Loading the prompt" />;
  if (data.error) return <ErrorBox error={data.error} />;
  const { prompt, answers, insight, domains, competitors, trend } = data.data!;
  const aliasText = (a: string | { text: string }) => (typeof a === "string" ? a : a.text);
  const names = [
    { name: brand.name, kind: "brand" as const },
    ...(brand.aliases ?? []).map((a) => ({ name: aliasText(a as string | { text: string }), kind: "brand" as const })),
    ...competitors.flatMap((c) => [c.name, ...(c.aliases ?? []).map(aliasText)].map((name) => ({ name, kind: "competitor" as const }))),
  ];
  // Each engine's latest run, every sample of it (a run asks each engine `samples` times).
  const latestRun = new Map<string, string>();
  for (const a of answers) if (!latestRun.has(a.platform)) latestRun.set(a.platform, a.job_id ?? a.id);
  const latest = answers.filter((a) => latestRun.get(a.platform) === (a.job_id ?? a.id)).sort((a, b) => a.platform.localeCompare(b.platform) || a.sample - b.sample);
  // Each answer's place among its engine's samples ("sample 2 of 3"), counted once.
  const sampleOf = new Map<string, { at: number; of: number }>();
  for (const [, answers] of groupBy(latest, (a) => a.platform)) answers.forEach((a, i) => sampleOf.set(a.id, { at: i + 1, of: answers.length }));
  const platforms = [...new Set(trend.map((r) => r.group as string))].filter(Boolean).sort();
  const periods = [...new Set(trend.map((r) => r.period as string))];
  const series = trendSeries(trend, platforms, periods, (p) => {
    const rows = trend.filter((r) => r.group === p);
    const n = rows.reduce((sum, r) => sum + r.answers, 0);
    return n ? `${pct(rows.reduce((sum, r) => sum + r.mentioned, 0) / n)}, n = ${int(n)}` : "no answers";
  });
  return (
    <section>
      <p>
        <a href={`/b/${brand.id}/prompts${location.search}`}>← All prompts</a>
      </p>
      <h2 class="prompt-text">“{prompt.text}”</h2>
      <p class="muted">
        {prompt.is_branded ? "Branded prompt (it names the brand)" : "Non-branded prompt"}
        {insight && (
          <>
            {" "}
            · visibility {pct(insight.visibility_rate)} ({intervalText({ ...insight, n: insight.answers })}) over {int(insight.answers)} answers in the window
          </>
        )}
      </p>
      {insight?.runs?.length > 0 && <States runs={insight.runs} />}
      {!latest.length && (
        <Empty title="No answer yet">
          <p>This prompt has not been asked yet: start a run.</p>
        </Empty>
      )}
      <div class="answers">
        {latest.map((a) => (
          <article key={a.id} class="answer card" data-platform={a.platform} data-sample={a.sample}>
            <header>
              <h3>
                {a.platform}
                {sampleOf.get(a.id)!.of > 1 && <span class="muted"> · sample {sampleOf.get(a.id)!.at} of {sampleOf.get(a.id)!.of}</span>}
              </h3>
              <span class="muted">
                {a.model} · {dateTime(a.created_at)} · {a.mentioned ? `brand named${a.mention_position ? `, position ${a.mention_position}` : ""}` : "brand not named"}
                {a.sentiment ? ` · ${a.sentiment}` : ""}
              </span>
            </header>
            {/* Focusable: a long answer scrolls inside its box, and keyboards must reach it too. */}
            <div class="answer-text" tabIndex={0} role="region" aria-label={`Answer from ${a.platform}`}>
              {a.response ? (
                <Markdown source={a.response} text={(t) => citationMarkers(t, a.citations?.length ?? 0, (n) => `source-${a.id}-${n}`, (piece) => <Highlighted text={piece} names={names} />)} />
              ) : (
                <p class="muted">(this answer's text was removed by the retention setting)</p>
              )}
            </div>
            {a.citations?.length > 0 && (
              <>
                <h4>Cited sources</h4>
                <ol class="sources">
                  {a.citations.map((c, i) => {
                    const cls = c.is_brand ? "own" : c.competitor_id ? "competitor" : "third_party";
                    return (
                      <li key={c.position} id={`source-${a.id}-${i + 1}`}>
                        <span class={`tag ${cls}`}>{cls.replace("_", " ")}</span>
                        {domains.get(c.domain ?? "")?.category && <span class="tag">{domains.get(c.domain ?? "")!.category}</span>}{" "}
                        <ExternalLink url={c.url}>{c.title || c.url}</ExternalLink>
                      </li>
                    );
                  })}
                </ol>
              </>
            )}
            {a.search_queries?.length > 0 && (
              <p class="muted">
                Searched: {a.search_queries.map((q) => `“${q}”`).join(", ")}
              </p>
            )}
          </article>
        ))}
      </div>
      {series.length > 0 && (
        <>
          <h2>Visibility by engine</h2>
          <LineChart periods={periods} series={series} yLabel="Visibility rate" height={200} />
        </>
      )}
      <h2>History</h2>
      <Table
        rows={answers}
        rowKey={(r) => r.id}
        csvName={`${brand.slug}-prompt-history.csv`}
        initialSort={{ key: "created_at", desc: true }}
        columns={[
          { key: "created_at", header: "When", value: (r) => r.created_at, render: (r) => dateTime(r.created_at) },
          { key: "platform", header: "Platform", value: (r) => r.platform },
          { key: "model", header: "Model", value: (r) => r.model },
          // Counted from 1, as the answer cards above count them.
          { key: "sample", header: "Sample", numeric: true, value: (r) => r.sample + 1 },
          { key: "mentioned", header: "Brand named", value: (r) => (r.mentioned ? "yes" : "no") },
          { key: "mention_position", header: "Position", numeric: true, value: (r) => r.mention_position },
          { key: "citations", header: "Citations", numeric: true, value: (r) => r.citations?.length ?? 0 },
        ]}
      />
    </section>
  );
}

/**
 * An engine's numbered citation markers ("[2]", as Perplexity writes them) as superscript links to
 * that source in the list below the answer; a number past the list stays text. The rest goes
 * through `render` (the brand and competitors highlighted).
 */
function citationMarkers(text: string, count: number, idOf: (n: number) => string, render: (text: string) => ComponentChildren): ComponentChildren {
  if (!count || !text.includes("[")) return render(text);
  const out: ComponentChildren[] = [];
  let last = 0;
  // Bounded: one match per marker in a capped answer.
  for (const m of text.matchAll(/\[(\d{1,3})\]/g)) {
    const n = Number(m[1]);
    if (n < 1 || n > count) continue;
    if (m.index! > last) out.push(render(text.slice(last, m.index)));
    out.push(
      <sup class="cite">
        <a href={`#${idOf(n)}`} aria-label={`source ${n}`}>
          {n}
        </a>
      </sup>,
    );
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push(render(text.slice(last)));
  return out;
}
