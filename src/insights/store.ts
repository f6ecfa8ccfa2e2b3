// What the insights read (the rollups, running totals and a few raw rows) and how they ask for it.
// Every read is of one brand and, where it says so, one window and the filters of the request
// (InsightArgs); the statistics over the answers (rates, intervals, changes) stay in service.ts.
// Backend implementations: store.sqlite.ts (and, with #29, store.pg.ts); the contract both must
// keep is tests/contracts/insights.contract.ts.
import type { Entity } from "../analysis/entities";
import type { InsightArgs, InsightFilters } from "./args";
import { rangesFor, type BucketRange, type DateWindow, type Interval } from "./window";

export const RESULT_MEASURES = [
  "results", "mentioned", "mention_sum", "position_sum", "position_n", "cited", "citation_sum", "brand_citation_sum", "competitor_mention_sum",
  "sentiment_sum", "sentiment_n", "positive", "neutral", "negative", "visibility_sum", "visibility_n",
] as const;
/** Sums over answers: results (answers), mentioned (answers naming the brand), and the sums and counts behind the means. */
export type ResultSums = Record<(typeof RESULT_MEASURES)[number], number>;
/** What result sums can be grouped by; `bucket` is the rollup's day (YYYY-MM-DD) or, for whole months, month (YYYY-MM). */
export type ResultGroupColumn = "bucket" | "prompt_id" | "platform" | "model" | "region" | "reported_model";
export type ResultSumsRow = ResultSums & Partial<Record<ResultGroupColumn, string>>;

export const COMPETITOR_MEASURES = ["results", "mentions", "position_sum", "position_n", "both"] as const;
/** One competitor's answers in the window per prompt, platform, model and region: answers naming it (results), its mentions, positions, answers naming it and the brand (both). */
export type CompetitorTotals = { prompt_id: string; platform: string; model: string; region: string; competitor_id: string } & Record<(typeof COMPETITOR_MEASURES)[number], number>;

export type DomainTotals = { domain: string; citations: number; answers: number; brand_mentioned: number; prompts: number };
/** A cited page; first_seen and last_seen are days. */
export type UrlTotals = { url: string; domain: string; title: string | null; citations: number; answers: number; first_seen: string; last_seen: string };
/** One answer of one of the last runs of a (prompt, platform, model, region); `run` is its job (or the answer itself). */
export type RunAnswer = { prompt_id: string; platform: string; run: string; mentioned: number; created_at: string };
export type CrawlerTotals = { bot: string; class: string; verdict: string; requests: number; pages: number; refused: number; not_found: number; server_errors: number };
/** `bucket`: a day, or a month (YYYY-MM) when whole months are read from the monthly table. */
export type CrawlerBucket = { bucket: string; bot: string; requests: number; pages: number };
export type CrawlerPathTotals = { bot: string; path: string; hit: string; requests: number; refused: number; not_found: number; server_errors: number };
export type InsightPrompt = { id: string; text: string; topic_id: string | null; is_active: number; is_branded: number };

export interface InsightsStore {
  /** The brand's name and organization (null when there is no such brand). */
  brand(brandId: string): Promise<{ id: string; name: string; organization_id: string } | null>;
  /** The brand's competitors, oldest first (created_at, then id). */
  /** The brand's competitors, oldest first, with when each was added (its mentions are counted in answers analysed since). */
  competitors(brandId: string): Promise<{ id: string; name: string; created_at: string }[]>;
  /** The brand's prompts passing the prompt filters (topics, prompt ids, branded), oldest first (created_at, then id). */
  prompts(input: { brandId: string } & Pick<InsightFilters, "topicIds" | "promptIds" | "branded">): Promise<InsightPrompt[]>;
  /** Every prompt of the brand with its topic (null: none). */
  promptTopics(brandId: string): Promise<{ id: string; topic_id: string | null }[]>;
  /** Every prompt of the brand with its text. */
  promptTexts(brandId: string): Promise<{ id: string; text: string }[]>;
  /** The brand and its competitors as the answer matcher knows them (null when there is no such brand). */
  entities(brandId: string): Promise<{ brand: Entity; competitors: Entity[] } | null>;
  /**
   * Sums of the result measures of the answers in `window` passing the filters of `query`, one row
   * per value of the `groupBy` columns (one row, or none, without them); groups with no answers are
   * left out. Buckets as read `by` (store.ts rollupRanges): days, weeks (by their Monday, where a
   * weekly table exists, else days), or whole months (YYYY-MM) and the days at the edges (the default).
   */
  resultSums(input: { query: InsightArgs; window: DateWindow; groupBy: ResultGroupColumn[]; by?: Interval | "total" }): Promise<ResultSumsRow[]>;
  /** Competitors' measures over the window and filters, per prompt, platform, model, region and competitor; keys with no answers left out. */
  competitorTotals(query: InsightArgs): Promise<CompetitorTotals[]>;
  /** Per cited domain over the window and filters: citations, answers citing it, those naming the brand, prompts behind them. */
  domainTotals(query: InsightArgs): Promise<DomainTotals[]>;
  /** Per cited page (its normalized URL) over the window and filters, shown by the first of its spellings and its longest title. */
  urlTotals(query: InsightArgs): Promise<UrlTotals[]>;
  /** Per fan-out search query over the window and filters: answers that ran it and the platforms (unordered) that did. */
  searchQueries(query: InsightArgs): Promise<{ query: string; answers: number; platforms: string[] }[]>;
  /** The newest answers (up to 20) before the window's end of every (prompt, platform, model, region) of the brand passing the filters. */
  recentRunAnswers(query: InsightArgs): Promise<RunAnswer[]>;
  /** Crawler requests over the window per bot, class and verdict. */
  crawlerTotals(query: InsightArgs): Promise<CrawlerTotals[]>;
  /**
   * Crawler requests of named bots per bucket and bot, read for a trend by `interval` (window.ts
   * rangesFor): a bucket is a day, a week's Monday or a month (YYYY-MM). A bucket and bot may come
   * in several rows (one per class and verdict), which the caller sums.
   */
  crawlerBuckets(input: { query: InsightArgs; interval: Interval }): Promise<CrawlerBucket[]>;
  /** Crawler requests over the window per bot, hit kind and path; paths with none left out. */
  crawlerPathTotals(query: InsightArgs): Promise<CrawlerPathTotals[]>;
}

/** How a rollup family is read (both backends): by day, week or month ("total": months and edge days), and its tables of a day and a week when they are not `<base>_daily` and none. */
export interface RollupReadOptions {
  by?: Interval | "total";
  dailyTable?: string;
  weeklyTable?: string;
}

/** The ranges to read: by week only where the family keeps weeks, else by day. */
export const rollupRanges = (window: DateWindow, options: RollupReadOptions): BucketRange[] =>
  rangesFor(window, options.by === "week" && !options.weeklyTable ? "day" : (options.by ?? "total"));

export const rollupTable = (base: string, range: BucketRange, options: RollupReadOptions): string =>
  range.table === "daily" ? (options.dailyTable ?? `${base}_daily`) : range.table === "weekly" ? options.weeklyTable! : `${base}_monthly`;

/** The result rollups to read: per prompt (day and month) when the grouping or a filter needs the prompt, else the brand's by day and week. */
export const resultTables = (by: RollupReadOptions["by"], perPrompt: boolean): RollupReadOptions =>
  perPrompt ? { by, dailyTable: "result_rollups_daily" } : { by, dailyTable: "result_brand_daily", weeklyTable: "result_brand_weekly" };
