// The insights as functions of /rest/v1/rpc/ (issue #18): their parameters, whether they return
// one object or a set of rows, and the service function each one calls. Row-level security is the
// results' own: a caller reads the insights of the brands of their organizations, nothing else.
import type { CategoryList } from "../analysis/source-categories";
import { COMMON_PARAMS, GROUP_BYS, INTERVALS, oneOf, parseInsightArgs, requiredUuid } from "./args";
import * as insights from "./service";
import type { InsightsStore } from "./store";

export interface InsightRpc {
  params: readonly string[];
  /** `object`: one JSON object (like a function returning json); `set`: rows (like a set-returning function). */
  returns: "object" | "set";
  /** `mayRead` says whether the caller may read a brand: one they may not reads as a brand with no rows. */
  run(ctx: insights.InsightsContext, args: Record<string, unknown>, today: Date, mayRead: (brandId: string) => Promise<boolean>): Promise<unknown>;
}

/** A brand id no brand has: what an invisible brand's insights are computed for (row-level security hides rows, not errors). */
const NO_BRAND = "00000000-0000-0000-0000-000000000000";

const common = (run: (ctx: insights.InsightsContext, a: ReturnType<typeof parseInsightArgs>, raw: Record<string, unknown>) => Promise<unknown>, returns: InsightRpc["returns"] = "set", extra: string[] = []): InsightRpc => ({
  params: [...COMMON_PARAMS, ...extra],
  returns,
  run: async (ctx, raw, today, mayRead) => {
    // Arguments are checked first: a bad one is the same error whoever asks.
    const args = parseInsightArgs(raw, today);
    return run(ctx, (await mayRead(args.brandId)) ? args : { ...args, brandId: NO_BRAND }, raw);
  },
});

export const INSIGHT_RPCS: Record<string, InsightRpc> = {
  insights_overview: common((ctx, a) => insights.overview(ctx, a), "object"),
  insights_trend: common((ctx, a, raw) => insights.trend(ctx, a, oneOf("p_interval", raw.p_interval, INTERVALS, "day"), oneOf("p_group_by", raw.p_group_by, GROUP_BYS, "none")), "set", ["p_interval", "p_group_by"]),
  insights_competitors: common((ctx, a) => insights.competitors(ctx, a)),
  insights_head_to_head: common((ctx, a, raw) => insights.headToHead(ctx, a, requiredUuid("p_competitor_id", raw.p_competitor_id)), "set", ["p_competitor_id"]),
  insights_citation_domains: common((ctx, a) => insights.citationDomains(ctx, a)),
  insights_citation_urls: common((ctx, a) => insights.citationUrls(ctx, a)),
  insights_prompts: common((ctx, a) => insights.prompts(ctx, a)),
  insights_search_queries: common((ctx, a) => insights.searchQueries(ctx, a)),
  insights_crawlers: common((ctx, a) => insights.crawlers(ctx, a)),
  insights_crawler_trend: common((ctx, a, raw) => insights.crawlerTrend(ctx, a, oneOf("p_interval", raw.p_interval, INTERVALS, "day")), "set", ["p_interval"]),
  insights_crawler_paths: common((ctx, a) => insights.crawlerPaths(ctx, a)),
};

export interface InsightReader {
  role: string;
  orgIds: Iterable<string>;
}

/** Whether `reader` may read the brand's insights: the service role, or a member of its organization (any role). */
export async function mayReadBrand(store: InsightsStore, reader: InsightReader, brandId: string): Promise<boolean> {
  if (reader.role === "service_role") return true;
  const brand = await store.brand(brandId);
  return !!brand && new Set(reader.orgIds).has(brand.organization_id);
}

export function insightsContext(store: InsightsStore, sourceCategories?: CategoryList, checkDeadline?: () => void): insights.InsightsContext {
  return { store, sourceCategories, checkDeadline };
}
