// A share link's view: one brand's overview, prompts and sources, read-only, without an account.
// supabase-js carries the link's token as its bearer; the server lets it read that brand's
// insights RPCs and nothing else.
import { createClient } from "@supabase/supabase-js";
import { ErrorBox, Loading, useAsync } from "../components/ui";
import { readFilters } from "../lib/filters";
import { ApiError, type Connection } from "../lib/session";
import type { BrandContext, BrandRow } from "../lib/brand-context";
import { Overview } from "./overview";
import { Prompts } from "./prompts";
import { Sources } from "./sources";

const PAGES: [string, string][] = [
  ["overview", "Overview"],
  ["prompts", "Prompts"],
  ["sources", "Sources"],
];

export function Shared({ conn, token, page, query }: { conn: Connection; token: string; page: string; query: URLSearchParams }) {
  const loaded = useAsync(async () => {
    const res = await fetch(`/api/share/${encodeURIComponent(token)}`);
    const body = await res.json();
    if (!res.ok) throw new ApiError(body?.error?.message ?? "This link does not open anything", res.status);
    const sb = createClient(location.origin, conn.config.anonKey, { auth: { persistSession: false, autoRefreshToken: false }, global: { headers: { Authorization: `Bearer ${token}` } } });
    return { sb, ...(body as { brand: { id: string; name: string; slug: string }; platforms: string[]; topics: { id: string; name: string }[] }) };
  }, [token]);
  if (loaded.loading && !loaded.data) return <Loading what="Opening the shared view" />;
  if (loaded.error) return <ErrorBox error={loaded.error} />;
  const { sb, brand, platforms, topics } = loaded.data!;
  const ctx: BrandContext = {
    conn: { ...conn, sb, api: () => Promise.reject(new ApiError("A shared view reads insights only", 403)) },
    session: null as never,
    brand: { ...brand, organization_id: "", region: null, language: null, aliases: [], tracking_code: "", is_active: true, industry: null, description: null } as BrandRow,
    role: "viewer",
    canEdit: false,
    canManage: false,
    options: { platforms, models: [], regions: [], topics },
    platforms: [],
    filters: readFilters(query),
    query,
    shared: { token },
  };
  const search = query.toString() ? `?${query}` : "";
  return (
    <>
      <header class="top">
        <span class="logo">answerwatch</span>
        <nav aria-label="Shared pages" class="tabs">
          {PAGES.map(([id, label]) => (
            <a key={id} href={`/share/${token}/${id}${search}`} aria-current={page === id ? "page" : undefined}>
              {label}
            </a>
          ))}
        </nav>
        {/* The report is a document of its own (no script), printable to PDF. */}
        <a href={`/share/${token}/report?${new URLSearchParams({ from: ctx.filters.from, to: ctx.filters.to })}`} target="_blank" rel="noreferrer">
          Client report
        </a>
        <span class="muted">Shared, read-only</span>
      </header>
      <main id="main">
        <div class="brand-heading">
          <h1>{brand.name}</h1>
        </div>
        {page === "prompts" ? <Prompts ctx={ctx} /> : page === "sources" ? <Sources ctx={ctx} /> : <Overview ctx={ctx} />}
      </main>
    </>
  );
}
