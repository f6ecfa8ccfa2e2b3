// A brand's pages share its row, the caller's role in its organization and the filter options.
import { ClientReportLink } from "../components/shell";
import { ErrorBox, Loading, unwrap, useAsync } from "../components/ui";
import type { BrandContext, BrandRow, PlatformRow } from "../lib/brand-context";
import { readFilters, type FilterOptions } from "../lib/filters";
import type { Connection, Session } from "../lib/session";
import { Competitors } from "./competitors";
import { Crawlers } from "./crawlers";
import { Overview } from "./overview";
import { PromptDetail, Prompts } from "./prompts";
import { Runs } from "./runs";
import { Settings } from "./settings";
import { Sources } from "./sources";
import { Suggestions } from "./suggestions";
import { Traffic } from "./traffic";

export type { BrandContext, BrandRow, PlatformRow } from "../lib/brand-context";

export function BrandPages({ conn, session, brandId, page, itemId, query }: { conn: Connection; session: Session; brandId: string; page: string; itemId: string | null; query: URLSearchParams }) {
  const loaded = useAsync(async () => {
    const brand = unwrap(await conn.sb.from("brands").select("*").eq("id", brandId).maybeSingle()) as BrandRow | null;
    if (!brand) throw new Error("This brand does not exist or belongs to an organization you are not in.");
    const [members, platforms, topics, prompts] = await Promise.all([
      conn.sb.from("organization_members").select("role").eq("organization_id", brand.organization_id).eq("user_id", session.user.id),
      conn.sb.from("brand_platforms").select("platform, model, is_enabled, check_frequency, last_checked_at, samples").eq("brand_id", brandId),
      conn.sb.from("topics").select("id, name").eq("brand_id", brandId).order("name"),
      conn.sb.from("prompts").select("regions").eq("brand_id", brandId),
    ]);
    const role = ((unwrap(members) as { role: string }[])[0]?.role ?? "viewer") as string;
    const platformRows = unwrap(platforms) as PlatformRow[];
    const regions = new Set<string>([brand.region ?? ""]);
    for (const p of unwrap(prompts) as { regions: string[] }[]) for (const r of p.regions ?? []) regions.add(r);
    const options: FilterOptions = {
      platforms: platformRows.map((p) => p.platform).sort(),
      models: [...new Set(platformRows.map((p) => p.model).filter((m): m is string => !!m))],
      regions: [...regions],
      topics: unwrap(topics) as { id: string; name: string }[],
    };
    return { brand, role, options, platforms: platformRows };
  }, [brandId]);
  if (loaded.loading && !loaded.data) return <Loading what="Loading the brand" />;
  if (loaded.error) return <ErrorBox error={loaded.error} />;
  const { brand, role, options, platforms } = loaded.data!;
  const ctx: BrandContext = { conn, session, brand, role, canEdit: role !== "viewer", canManage: role === "owner" || role === "admin", options, platforms, filters: readFilters(query), query };
  const pages: Record<string, () => preact.JSX.Element> = {
    overview: () => <Overview ctx={ctx} />,
    prompts: () => (itemId ? <PromptDetail ctx={ctx} promptId={itemId} /> : <Prompts ctx={ctx} />),
    competitors: () => <Competitors ctx={ctx} />,
    sources: () => <Sources ctx={ctx} />,
    suggestions: () => <Suggestions ctx={ctx} />,
    traffic: () => <Traffic ctx={ctx} />,
    crawlers: () => <Crawlers ctx={ctx} />,
    runs: () => <Runs ctx={ctx} />,
    settings: () => <Settings ctx={ctx} reload={loaded.reload} />,
  };
  return (
    <>
      <div class="brand-heading">
        <h1>{brand.name}</h1>
        <span class="tag" title="Your role in this brand's organization">
          {role}
        </span>
        <ClientReportLink brandId={brand.id} session={session} from={ctx.filters.from} to={ctx.filters.to} />
      </div>
      {(pages[page] ?? pages.overview!)()}
    </>
  );
}
