// Sources: cited domains and pages by class (own / competitor / third party) and category, with the
// answers citing a domain one click away.
import { useState } from "preact/hooks";
import { FilterBar } from "../components/filter-bar";
import { Table } from "../components/table";
import { Empty, ErrorBox, ExternalLink, Loading, unwrap, useAsync } from "../components/ui";
import { rpcArgs } from "../lib/filters";
import { dateTime, int, pct } from "../lib/format";
import { setQuery } from "../lib/router";
import type { BrandContext } from "../lib/brand-context";

const CLASSES = ["own", "competitor", "third_party"];

export function Sources({ ctx }: { ctx: BrandContext }) {
  const args = rpcArgs(ctx.brand.id, ctx.filters);
  const view = ctx.query.get("view") === "urls" ? "urls" : "domains";
  const cls = ctx.query.get("class");
  const data = useAsync(async () => {
    const [domains, urls] = await Promise.all([ctx.conn.sb.rpc("insights_citation_domains", args), ctx.conn.sb.rpc("insights_citation_urls", args)]);
    return { domains: unwrap(domains) as any[], urls: unwrap(urls) as any[] };
  }, [JSON.stringify(args)]);
  const [open, setOpen] = useState<string | null>(null);
  const rows = (view === "urls" ? data.data?.urls : data.data?.domains)?.filter((r) => !cls || r.class === cls) ?? [];
  return (
    <section>
      <FilterBar filters={ctx.filters} options={ctx.options} />
      <div class="segmented" role="group" aria-label="Show">
        <button type="button" aria-pressed={view === "domains"} onClick={() => setQuery({ view: null })}>
          Domains
        </button>
        <button type="button" aria-pressed={view === "urls"} onClick={() => setQuery({ view: "urls" })}>
          Pages
        </button>
      </div>{" "}
      <div class="segmented" role="group" aria-label="Class">
        <button type="button" aria-pressed={!cls} onClick={() => setQuery({ class: null })}>
          All
        </button>
        {CLASSES.map((c) => (
          <button key={c} type="button" aria-pressed={cls === c} onClick={() => setQuery({ class: c })}>
            {c.replace("_", " ")}
          </button>
        ))}
      </div>
      {data.loading && !data.data ? (
        <Loading what="Loading sources" />
      ) : data.error ? (
        <ErrorBox error={data.error} />
      ) : !rows.length ? (
        <Empty title="No cited sources in this window">
          <p>Engines that search the web cite pages; widen the window or clear a filter.</p>
        </Empty>
      ) : view === "domains" ? (
        <Table
          rows={rows}
          rowKey={(r) => r.domain}
          csvName={`${ctx.brand.slug}-domains.csv`}
          initialSort={{ key: "citations", desc: true }}
          columns={[
            { key: "domain", header: "Domain", value: (r) => r.domain, render: (r) => ctx.shared ? r.domain : <button type="button" class="link" onClick={() => setOpen(open === r.domain ? null : r.domain)} aria-expanded={open === r.domain}>{r.domain}</button> },
            { key: "class", header: "Class", value: (r) => r.class, render: (r) => <span class={`tag ${r.class}`}>{r.class.replace("_", " ")}</span> },
            { key: "category", header: "Category", value: (r) => r.category },
            { key: "citations", header: "Citations", numeric: true, value: (r) => r.citations, render: (r) => int(r.citations) },
            { key: "answers", header: "Answers", numeric: true, value: (r) => r.answers, render: (r) => int(r.answers) },
            { key: "prompts", header: "Prompts", numeric: true, value: (r) => r.prompts, render: (r) => int(r.prompts) },
            { key: "share", header: "Share", numeric: true, value: (r) => r.share, render: (r) => pct(r.share) },
            { key: "brand_mentioned_rate", header: "Brand named", numeric: true, value: (r) => r.brand_mentioned_rate, render: (r) => pct(r.brand_mentioned_rate), title: (r) => `Of the ${r.answers} answers citing it, the share naming the brand` },
          ]}
        />
      ) : (
        <Table
          rows={rows}
          rowKey={(r) => r.url}
          csvName={`${ctx.brand.slug}-pages.csv`}
          initialSort={{ key: "citations", desc: true }}
          columns={[
            { key: "url", header: "Page", value: (r) => r.url, render: (r) => <PageCell row={r} open={open === r.url} onOpen={ctx.shared ? null : () => setOpen(open === r.url ? null : r.url)} /> },
            { key: "domain", header: "Domain", value: (r) => r.domain },
            { key: "class", header: "Class", value: (r) => r.class, render: (r) => <span class={`tag ${r.class}`}>{r.class.replace("_", " ")}</span> },
            { key: "citations", header: "Citations", numeric: true, value: (r) => r.citations, render: (r) => int(r.citations) },
            { key: "answers", header: "Answers", numeric: true, value: (r) => r.answers, render: (r) => int(r.answers) },
            { key: "first_seen", header: "First", value: (r) => r.first_seen },
            { key: "last_seen", header: "Last", value: (r) => r.last_seen },
          ]}
        />
      )}
      {open && <CitingAnswers ctx={ctx} source={view === "urls" ? { url: open } : { domain: open }} />}
    </section>
  );
}

/** A cited page: its path (what tells pages of one site apart), its title unless it only repeats the domain, the link, and the answers citing it. */
function PageCell({ row, open, onOpen }: { row: { url: string; domain: string; title: string | null }; open: boolean; onOpen: (() => void) | null }) {
  let path = row.url;
  try {
    const u = new URL(row.url);
    path = `${u.pathname}${u.search}` || "/";
  } catch {
    // Stored URLs are checked web URLs; an odd one shows whole.
  }
  const title = row.title && row.title.trim().toLowerCase() !== row.domain.toLowerCase() ? row.title : null;
  return (
    <span class="page-cell">
      {onOpen ? (
        <button type="button" class="link" onClick={onOpen} aria-expanded={open} title="Show the answers citing this page">
          {path}
        </button>
      ) : (
        path
      )}
      {title && <span class="muted"> {title}</span>}{" "}
      <ExternalLink url={row.url} label={`Open ${row.url} in a new tab`}>
        open ↗
      </ExternalLink>
    </span>
  );
}

/** The answers citing a domain or a page inside the window (citations → prompt_results → prompts, one request). */
function CitingAnswers({ ctx, source }: { ctx: BrandContext; source: { domain: string } | { url: string } }) {
  const [column, value] = "url" in source ? ["url", source.url] : ["domain", source.domain];
  const { from, to } = ctx.filters;
  const data = useAsync(
    async () =>
      unwrap(
        await ctx.conn.sb
          .from("citations")
          .select("id, url, title, created_at, prompt_results(id, platform, prompt_id, mentioned, prompts(text))")
          .eq("brand_id", ctx.brand.id)
          .eq(column, value)
          .gte("created_at", `${from}T00:00:00Z`)
          .lt("created_at", new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString())
          .order("created_at", { ascending: false })
          .limit(50),
      ) as any[],
    [column, value, from, to],
  );
  return (
    <div class="card drill">
      <h3>Answers citing {value}</h3>
      <p class="muted">The newest 50 in the window, from every prompt and platform (the filters above do not narrow this list).</p>
      {data.loading ? (
        <Loading />
      ) : data.error ? (
        <ErrorBox error={data.error} />
      ) : (
        <ul>
          {data.data!.map((c) => (
            <li key={c.id}>
              {dateTime(c.created_at)} · {c.prompt_results?.platform} ·{" "}
              <a href={`/b/${ctx.brand.id}/prompts/${c.prompt_results?.prompt_id}`}>{c.prompt_results?.prompts?.text ?? "prompt"}</a> · {c.prompt_results?.mentioned ? "names the brand" : "does not name the brand"}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
