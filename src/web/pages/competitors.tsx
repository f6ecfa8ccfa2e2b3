// Competitors: the leaderboard and the head-to-head (answers naming both, only the brand, only the
// competitor), from insights_competitors for the filters in the URL.
import { useState } from "preact/hooks";
import { FilterBar } from "../components/filter-bar";
import { Table, INTERVAL_CSV } from "../components/table";
import { Empty, EntityName, windowAnswers, ErrorBox, Loading, unwrap, useAsync, RateCell } from "../components/ui";
import { nonBrandedByDefault, promptScope, rpcArgs } from "../lib/filters";
import { changeText, int, intervalTitle, num, pct, points, VERDICT_TEXT } from "../lib/format";
import type { BrandContext } from "../lib/brand-context";

export function Competitors({ ctx }: { ctx: BrandContext }) {
  const [open, setOpen] = useState<string | null>(null);
  const filters = nonBrandedByDefault(ctx.filters);
  const args = rpcArgs(ctx.brand.id, filters);
  const data = useAsync(async () => unwrap(await ctx.conn.sb.rpc("insights_competitors", args)) as any[], [JSON.stringify(args)]);
  // Each one's change against the previous window, as "What changed" tests it (the overview's).
  const overview = useAsync(async () => unwrap(await ctx.conn.sb.rpc("insights_overview", args)) as any, [JSON.stringify(args)]);
  const changeOf = (r: { entity_id: string; is_brand: boolean }) =>
    r.is_brand ? overview.data?.visibility_rate?.change : overview.data?.by_competitor?.find((c: any) => c.competitor_id === r.entity_id)?.visibility_rate?.change;
  const rivals = data.data?.filter((r) => !r.is_brand) ?? [];
  return (
    <section>
      <FilterBar filters={ctx.filters} options={ctx.options} brandedDefault={false} />
      {data.loading && !data.data ? (
        <Loading what="Loading competitors" />
      ) : data.error ? (
        <ErrorBox error={data.error} />
      ) : !rivals.length ? (
        <Empty title="No competitors yet">
          <p>{ctx.canEdit ? <>Add the brands you compete with in <a href={`/b/${ctx.brand.id}/settings`}>Settings</a>.</> : "An editor can add them in Settings."}</p>
        </Empty>
      ) : (
        <>
          <h2>Leaderboard</h2>
          <p class="muted">
            Over the answers to {promptScope(filters.branded)}. Visibility counts the answers that name each one (with its 95 % interval); share of voice counts every mention. A name repeated within fewer answers can lead on share of voice and trail on visibility.
          </p>
          <Table
            rows={data.data!}
            rowKey={(r) => r.entity_id}
            csvName={`${ctx.brand.slug}-leaderboard.csv`}
            initialSort={{ key: "visibility_rate", desc: true }}
            columns={[
              { key: "name", header: "Name", value: (r) => r.name, render: (r) => <EntityName row={r} windowN={windowAnswers(data.data!)} windowTo={ctx.filters.to} you /> },
              { key: "visibility_rate", header: "Visibility", numeric: true, value: (r) => r.visibility_rate, render: (r) => <RateCell value={r.visibility_rate} ci_low={r.ci_low} ci_high={r.ci_high} n={r.n} />, title: (r) => intervalTitle(r), csvExtra: INTERVAL_CSV },
              { key: "answers_mentioning", header: "Answers naming", numeric: true, value: (r) => r.answers_mentioning, render: (r) => `${int(r.answers_mentioning)} / ${int(r.n)}` },
              { key: "mentions", header: "Mentions", numeric: true, value: (r) => r.mentions, render: (r) => int(r.mentions) },
              { key: "share_of_voice", header: "Share of voice", numeric: true, value: (r) => r.share_of_voice, render: (r) => pct(r.share_of_voice) },
              { key: "avg_position", header: "Avg. position", numeric: true, value: (r) => r.avg_position, render: (r) => num(r.avg_position) },
              {
                key: "change",
                header: "Visibility change",
                numeric: true,
                value: (r) => changeOf(r)?.delta ?? null,
                render: (r) => {
                  const change = changeOf(r);
                  if (!change) return overview.loading ? "…" : "—";
                  return (
                    <span class={`verdict ${change.verdict}`} title={change.delta === null ? "" : `${changeText(change)}; ${r.is_brand ? "over the prompts answered in both windows" : "over all answers of each window, tested with the other platform, topic and competitor changes (Holm)"}`}>
                      {points(change.delta)} · {VERDICT_TEXT[change.verdict] ?? change.verdict}
                    </span>
                  );
                },
              },
            ]}
          />
          <RemovedShare rows={data.data!} />
          <h2>Head to head</h2>
          <p class="muted">Of the answers in the window (for a competitor added inside it, those since): how many name both, only {ctx.brand.name}, or only the competitor.</p>
          <Table
            rows={rivals}
            rowKey={(r) => r.entity_id}
            csvName={`${ctx.brand.slug}-head-to-head.csv`}
            initialSort={{ key: "only_competitor", desc: true }}
            columns={[
              {
                key: "name",
                header: "Competitor",
                value: (r) => r.name,
                render: (r) => (
                  <EntityName row={r} windowN={windowAnswers(data.data!)} windowTo={ctx.filters.to}>
                    <button type="button" class="link" aria-expanded={open === r.entity_id} onClick={() => setOpen(open === r.entity_id ? null : r.entity_id)}>
                      {r.name}
                    </button>
                  </EntityName>
                ),
              },
              { key: "both", header: "Both", numeric: true, value: (r) => r.both, render: (r) => int(r.both) },
              { key: "only_brand", header: `Only ${ctx.brand.name}`, numeric: true, value: (r) => r.only_brand, render: (r) => int(r.only_brand) },
              { key: "only_competitor", header: "Only them", numeric: true, value: (r) => r.only_competitor, render: (r) => int(r.only_competitor) },
            ]}
          />
          {open && <PromptsBehind ctx={ctx} args={args} competitor={rivals.find((r) => r.entity_id === open)!} />}
        </>
      )}
    </section>
  );
}

/**
 * Share of voice counts every competitor an answer named when it was analysed: mentions of one
 * removed since stay in the total, so the listed shares add up to less than 100 %. Said, with how much.
 */
function RemovedShare({ rows }: { rows: { share_of_voice: number | null }[] }) {
  const listed = rows.reduce((sum, r) => sum + (r.share_of_voice ?? 0), 0);
  const rest = 1 - listed;
  if (!rows.some((r) => r.share_of_voice !== null) || rest < 0.0005) return null;
  return <p class="muted" data-removed-share={rest.toFixed(4)}>The other {pct(rest)} of mentions name competitors removed since the answers were analysed.</p>;
}

/** The prompts behind each head-to-head cell (insights_head_to_head). */
function PromptsBehind({ ctx, args, competitor }: { ctx: BrandContext; args: Record<string, unknown>; competitor: { entity_id: string; name: string } }) {
  const data = useAsync(async () => unwrap(await ctx.conn.sb.rpc("insights_head_to_head", { ...args, p_competitor_id: competitor.entity_id })) as any[], [competitor.entity_id, JSON.stringify(args)]);
  return (
    <div class="card drill">
      <h3>
        {ctx.brand.name} and {competitor.name}, prompt by prompt
      </h3>
      {data.loading ? (
        <Loading />
      ) : data.error ? (
        <ErrorBox error={data.error} />
      ) : (
        <Table
          rows={data.data!}
          rowKey={(r) => r.prompt_id}
          csvName={`${ctx.brand.slug}-head-to-head-${competitor.name}.csv`}
          initialSort={{ key: "only_competitor", desc: true }}
          columns={[
            { key: "text", header: "Prompt", value: (r) => r.text, render: (r) => <a href={`/b/${ctx.brand.id}/prompts/${r.prompt_id}${location.search}`}>{r.text}</a> },
            { key: "answers", header: "Answers", numeric: true, value: (r) => r.answers },
            { key: "both", header: "Both", numeric: true, value: (r) => r.both },
            { key: "only_brand", header: `Only ${ctx.brand.name}`, numeric: true, value: (r) => r.only_brand },
            { key: "only_competitor", header: `Only ${competitor.name}`, numeric: true, value: (r) => r.only_competitor },
            { key: "neither", header: "Neither", numeric: true, value: (r) => r.neither },
          ]}
        />
      )}
    </div>
  );
}
