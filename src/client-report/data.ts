// What a client report shows (issue #31), gathered from the insights service — the same functions
// the insights RPCs run, so every figure equals what /rest/v1/rpc/insights_* answers for the same
// brand, window and filters — plus the brand's organization (name, logo) and open suggestions.
import type { CategoryList } from "../analysis/source-categories";
import { familySize, modelChanges, significantMoves, topicNamer, type Move } from "../insights/changes";
import type { InsightArgs } from "../insights/args";
import * as insights from "../insights/service";
import type { InsightsStore } from "../insights/store";
import { daysBetween, type DateWindow, type Interval } from "../insights/window";
import type { ClientReportStore, ReportHeader, ReportSuggestion } from "./store";

export interface ReportDataDeps {
  store: ClientReportStore;
  insights: InsightsStore;
  /** The user's additions to the shipped source categories (SOURCE_CATEGORIES_FILE), as the RPCs use them. */
  sourceCategories?: CategoryList;
  /** Throws once the request's time is up (the insights check it between their steps). */
  checkDeadline?: () => void;
}

/** How many rows each table of the report shows at most (a report is read, not scrolled). */
export const REPORT_LIMITS = { sources: 10, suggestions: 10, prompts: 100, competitors: 30 } as const;

/**
 * The report's prompts: the non-branded ones (those not naming the brand), as the overview's
 * headline reads them — a brand is always "visible" in an answer to a prompt that names it.
 */
export const REPORT_BRANDED = false;

/** One period of one platform of insights_trend (grouped by platform): its answers and visibility with the 95 % interval. */
export interface TrendPoint {
  period: string;
  group: string;
  answers: number;
  visibility_rate: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

export interface ReportData {
  header: ReportHeader;
  window: DateWindow;
  previous: DateWindow;
  generatedAt: string;
  overview: Awaited<ReturnType<typeof insights.overview>>;
  moves: Move[];
  /** How many changes were tested together (0: none had answers in both windows). */
  tested: number;
  modelChanges: string[];
  trend: { interval: Interval; rows: TrendPoint[] };
  /** The brand and its competitors, most visible first. */
  competitors: Awaited<ReturnType<typeof insights.competitors>>;
  /** The most cited domains (at most REPORT_LIMITS.sources), and how many domains were cited in all. */
  sources: { rows: Awaited<ReturnType<typeof insights.citationDomains>>; total: number };
  /** The prompts with the most answers first (at most REPORT_LIMITS.prompts), and how many there are. */
  prompts: { rows: Awaited<ReturnType<typeof insights.prompts>>; total: number };
  suggestions: ReportSuggestion[];
}

/**
 * The trend's period for a window: days up to two weeks, weeks up to about half a year, else months.
 * Coarser than the overview page's: a printed line cannot be hovered for its n, and a day holds few answers.
 */
export function trendInterval(window: DateWindow): Interval {
  const days = daysBetween(window.from, window.to);
  return days <= 14 ? "day" : days <= 190 ? "week" : "month";
}

/** The insights arguments of a report: the brand, the window, non-branded prompts, no other filter. */
export const reportArgs = (brandId: string, window: DateWindow): InsightArgs => ({ brandId, window, platforms: null, models: null, regions: null, topicIds: null, promptIds: null, branded: REPORT_BRANDED });

/** Everything the report shows, or null when there is no such brand. */
export async function reportData(deps: ReportDataDeps, input: { brandId: string; window: DateWindow; now?: Date }): Promise<ReportData | null> {
  const header = await deps.store.header(input.brandId);
  if (!header) return null;
  const ctx: insights.InsightsContext = { store: deps.insights, sourceCategories: deps.sourceCategories, checkDeadline: deps.checkDeadline };
  const args = reportArgs(input.brandId, input.window);
  const interval = trendInterval(input.window);
  const overview = await insights.overview(ctx, args);
  const topics = await deps.store.topics(input.brandId);
  const trend = await insights.trend(ctx, args, interval, "platform");
  const competitors = await insights.competitors(ctx, args);
  const domains = await insights.citationDomains(ctx, args);
  const prompts = await insights.prompts(ctx, args);
  const suggestions = await deps.store.openSuggestions(input.brandId, REPORT_LIMITS.suggestions);
  const byVisibility = (a: { visibility_rate: number | null; name: string }, b: { visibility_rate: number | null; name: string }) => (b.visibility_rate ?? -1) - (a.visibility_rate ?? -1) || a.name.localeCompare(b.name);
  return {
    header,
    window: overview.window,
    previous: overview.previous,
    generatedAt: (input.now ?? new Date()).toISOString(),
    overview,
    moves: significantMoves(overview, topicNamer(topics)),
    tested: familySize(overview),
    modelChanges: modelChanges(overview),
    trend: {
      interval,
      rows: trend.map((r) => ({ period: String(r.period), group: String(r.group), answers: Number(r.answers), visibility_rate: r.visibility_rate as number | null, ci_low: r.ci_low as number | null, ci_high: r.ci_high as number | null })),
    },
    // The brand stays whatever its rank.
    competitors: [...competitors].sort(byVisibility).filter((r, i) => r.is_brand || i < REPORT_LIMITS.competitors),
    sources: { rows: domains.slice(0, REPORT_LIMITS.sources), total: domains.length },
    prompts: { rows: [...prompts].sort((a, b) => b.answers - a.answers || a.text.localeCompare(b.text)).slice(0, REPORT_LIMITS.prompts), total: prompts.length },
    suggestions,
  };
}
