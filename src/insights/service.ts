// The insights (issue #18, DESIGN §14): computed once here, over the rollups, and served as RPCs
// (/rest/v1/rpc/insights_*), MCP tools and web-app views. Every rate carries its n and a Wilson
// interval; a change carries Newcombe's interval over the (prompt, platform) pairs seen in both
// windows. Functions of a read connection and plain arguments, so they run on reader threads.
import type { Database } from "bun:sqlite";
import { ownerOfHost } from "../analysis/citations";
import { compileEntities, type CompiledEntities } from "../analysis/entities";
import { groupBy } from "../analysis/group";
import { createSourceClassifier, type CategoryList, type SourceCategory } from "../analysis/source-categories";
import { newcombe, wilson, type Interval as RateInterval } from "../analysis/stats";
import { identify } from "../crawlers/classify";
import { loadEntities } from "../tracking/entities.sqlite";
import type { GroupBy, InsightArgs, InsightFilters } from "./args";
import { bucketRanges, periodOf, periodsOf, previousWindow, type DateWindow, type Interval } from "./window";

type Params = (string | number | null)[];
type Row = Record<string, unknown>;

export interface InsightsContext {
  sqlite: Database;
  /** The user's additions to the shipped source-category list (SOURCE_CATEGORIES_FILE). */
  sourceCategories?: CategoryList;
  /** Throws once the request's time (STATEMENT_TIMEOUT_MS) is up; loops over periods call it. */
  checkDeadline?: () => void;
}

// ---- reading the rollups ---------------------------------------------------------------------

const RESULT_MEASURES = [
  "results", "mentioned", "mention_sum", "position_sum", "position_n", "cited", "citation_sum", "brand_citation_sum", "competitor_mention_sum",
  "sentiment_sum", "sentiment_n", "positive", "neutral", "negative", "visibility_sum", "visibility_n",
] as const;
type ResultSums = Record<(typeof RESULT_MEASURES)[number], number>;
const COMPETITOR_MEASURES = ["results", "mentions", "position_sum", "position_n", "both"] as const;
const DOMAIN_MEASURES = ["citations", "answers", "brand_mentioned"] as const;

const placeholders = (list: readonly unknown[]) => list.map(() => "?").join(", ");

/** Whether a filter needs the prompt (topic, branded, prompt ids): then only per-prompt rollups can answer. */
const needsPrompt = (f: InsightFilters) => f.topicIds !== null || f.promptIds !== null || f.branded !== null;

/** WHERE terms over a rollup or result row `a` for the filters (an empty list selects nothing). */
function filterSql(f: InsightFilters, a: string, brandId: string): { sql: string; params: Params } {
  const terms: string[] = [];
  const params: Params = [];
  for (const [column, list] of [["platform", f.platforms], ["model", f.models], ["region", f.regions]] as const) {
    if (list === null) continue;
    terms.push(list.length ? `${a}.${column} IN (${placeholders(list)})` : "0");
    params.push(...list);
  }
  if (needsPrompt(f)) {
    const inner = ["p.brand_id = ?"];
    params.push(brandId);
    if (f.topicIds !== null) (inner.push(f.topicIds.length ? `p.topic_id IN (${placeholders(f.topicIds)})` : "0"), params.push(...f.topicIds));
    if (f.promptIds !== null) (inner.push(f.promptIds.length ? `p.id IN (${placeholders(f.promptIds)})` : "0"), params.push(...f.promptIds));
    if (f.branded !== null) (inner.push("p.is_branded = ?"), params.push(f.branded ? 1 : 0));
    terms.push(`${a}.prompt_id IN (SELECT p.id FROM prompts AS p WHERE ${inner.join(" AND ")})`);
  }
  return { sql: terms.length ? ` AND ${terms.join(" AND ")}` : "", params };
}

/**
 * The rows of a rollup family (`<base>_daily` / `<base>_monthly`) inside a window, filtered, as one
 * UNION ALL with the bucket named `bucket`. `daysOnly` reads day buckets throughout (a trend by day
 * or week needs them); otherwise whole months come from the monthly table.
 */
function rollupRows(base: string, columns: string[], args: InsightArgs, window: DateWindow, options: { daysOnly?: boolean; dailyTable?: string } = {}) {
  const ranges = options.daysOnly ? [{ table: "daily" as const, from: window.from, to: window.to }] : bucketRanges(window);
  const parts: string[] = [];
  const params: Params = [];
  for (const range of ranges) {
    const table = range.table === "daily" ? (options.dailyTable ?? `${base}_daily`) : `${base}_monthly`;
    const bucket = range.table === "daily" ? "day" : "month";
    const filter = filterSql(args, "r", args.brandId);
    parts.push(`SELECT r.${bucket} AS bucket, ${columns.map((c) => `r.${c}`).join(", ")} FROM ${table} AS r WHERE r.brand_id = ? AND r.${bucket} BETWEEN ? AND ?${filter.sql}`);
    params.push(args.brandId, range.from, range.to, ...filter.params);
  }
  return { sql: parts.join(" UNION ALL "), params };
}

/** Sums of the result measures per `groupBy` columns over a window. */
function resultSums(sqlite: Database, args: InsightArgs, window: DateWindow, groupBy: string[], options: { daysOnly?: boolean } = {}): (Row & ResultSums)[] {
  // Without a prompt in the grouping or the filters, the brand-level day table is enough (and smaller).
  const perPrompt = groupBy.includes("prompt_id") || needsPrompt(args);
  const dims = ["platform", "model", "region", "reported_model", ...(perPrompt ? ["prompt_id"] : [])];
  const source = rollupRows("result_rollups", [...dims, ...RESULT_MEASURES], args, window, { ...options, dailyTable: perPrompt ? "result_rollups_daily" : "result_brand_daily" });
  const keys = groupBy.length ? groupBy.join(", ") : "";
  const sql = `SELECT ${keys ? `${keys}, ` : ""}${RESULT_MEASURES.map((m) => `sum(${m}) AS ${m}`).join(", ")} FROM (${source.sql})${keys ? ` GROUP BY ${keys}` : ""}`;
  return (sqlite.query(sql).all(...source.params) as (Row & ResultSums)[]).filter((r) => (r.results ?? 0) > 0);
}

function emptySums(): ResultSums {
  return Object.fromEntries(RESULT_MEASURES.map((m) => [m, 0])) as ResultSums;
}

function addSums(into: ResultSums, row: ResultSums): ResultSums {
  for (const m of RESULT_MEASURES) into[m] += row[m] ?? 0;
  return into;
}

const ratio = (x: number, n: number) => (n > 0 ? x / n : null);

// ---- overview ---------------------------------------------------------------------------------

interface PairSums {
  sums: ResultSums;
  models: Set<string>;
}

/** Per (prompt, platform): the sums and the models the engine reported. */
function byPair(rows: (Row & ResultSums)[]): Map<string, PairSums> {
  const pairs = new Map<string, PairSums>();
  for (const row of rows) {
    const key = `${row.prompt_id}\u0000${row.platform}`;
    const pair = pairs.get(key) ?? { sums: emptySums(), models: new Set<string>() };
    addSums(pair.sums, row);
    pair.models.add(`${row.platform}\u0000${row.reported_model}`);
    pairs.set(key, pair);
  }
  return pairs;
}

type Proportion = (s: ResultSums) => [x: number, n: number];
const PROPORTIONS: Record<"visibility_rate" | "citation_share" | "brand_cited_rate", Proportion> = {
  visibility_rate: (s) => [s.mentioned, s.results],
  // A row written with more brand citations than citations (a client's, through the service key) cannot make the share exceed 1.
  citation_share: (s) => [Math.min(s.brand_citation_sum, s.citation_sum), s.citation_sum],
  brand_cited_rate: (s) => [s.cited, s.results],
};

const interval = (x: number, n: number): RateInterval => wilson(x, n);

export interface ComparedPairs {
  current: ResultSums;
  previous: ResultSums;
  pairs: number;
  modelChanged: boolean;
}

/** Only the (prompt, platform) pairs answered in both windows: adding or removing prompts does not move a change. */
function comparePairs(current: Map<string, PairSums>, previous: Map<string, PairSums>): ComparedPairs {
  const out = { current: emptySums(), previous: emptySums(), pairs: 0, modelChanged: false };
  const modelsNow = new Set<string>();
  const modelsBefore = new Set<string>();
  for (const [key, now] of current) {
    const before = previous.get(key);
    if (!before) continue;
    out.pairs++;
    addSums(out.current, now.sums);
    addSums(out.previous, before.sums);
    for (const m of now.models) modelsNow.add(m);
    for (const m of before.models) modelsBefore.add(m);
  }
  out.modelChanged = modelsNow.size !== modelsBefore.size || [...modelsNow].some((m) => !modelsBefore.has(m));
  return out;
}

function rateWithChange(total: ResultSums, previousTotal: ResultSums, compared: ComparedPairs, proportion: Proportion) {
  const [x, n] = proportion(total);
  const [px, pn] = proportion(previousTotal);
  const [cx, cn] = proportion(compared.current);
  const [bx, bn] = proportion(compared.previous);
  return {
    ...interval(x, n),
    previous: interval(px, pn),
    change: { ...newcombe(cx, cn, bx, bn), n_current: cn, n_previous: bn, model_changed: compared.modelChanged },
  };
}

const shareOfVoice = (s: ResultSums) => ({
  value: ratio(s.mention_sum, s.mention_sum + s.competitor_mention_sum),
  brand_mentions: s.mention_sum,
  total_mentions: s.mention_sum + s.competitor_mention_sum,
  n: s.results,
});
/** Like the rates' changes, over the (prompt, platform) pairs answered in both windows. */
function shareOfVoiceChange(compared: ComparedPairs) {
  const now = shareOfVoice(compared.current).value;
  const before = shareOfVoice(compared.previous).value;
  return { delta: now !== null && before !== null ? now - before : null, n_current: compared.current.results, n_previous: compared.previous.results };
}
const mean = (sum: number, n: number) => ({ value: ratio(sum, n), n });
const sentimentOf = (s: ResultSums) => ({ ...mean(s.sentiment_sum, s.sentiment_n), positive: s.positive, neutral: s.neutral, negative: s.negative });

export function overview(ctx: InsightsContext, args: InsightArgs) {
  const previous = previousWindow(args.window);
  const rowsNow = resultSums(ctx.sqlite, args, args.window, ["prompt_id", "platform", "reported_model"]);
  const rowsBefore = resultSums(ctx.sqlite, args, previous, ["prompt_id", "platform", "reported_model"]);
  const total = rowsNow.reduce(addSums, emptySums());
  const previousTotal = rowsBefore.reduce(addSums, emptySums());
  const compared = comparePairs(byPair(rowsNow), byPair(rowsBefore));
  const sovNow = shareOfVoice(total);
  const sovBefore = shareOfVoice(previousTotal);
  return {
    window: args.window,
    previous,
    answers: total.results,
    visibility_rate: rateWithChange(total, previousTotal, compared, PROPORTIONS.visibility_rate),
    citation_share: rateWithChange(total, previousTotal, compared, PROPORTIONS.citation_share),
    brand_cited_rate: rateWithChange(total, previousTotal, compared, PROPORTIONS.brand_cited_rate),
    share_of_voice: { ...sovNow, previous: sovBefore, change: shareOfVoiceChange(compared) },
    avg_position: { ...mean(total.position_sum, total.position_n), previous: mean(previousTotal.position_sum, previousTotal.position_n) },
    avg_visibility_score: { ...mean(total.visibility_sum, total.visibility_n), previous: mean(previousTotal.visibility_sum, previousTotal.visibility_n) },
    sentiment: { ...sentimentOf(total), previous: sentimentOf(previousTotal) },
    // What moved where: each platform's and each topic's visibility with its own change, so a
    // significant move on one engine shows even when the pooled change is noise.
    by_platform: visibilityBy(rowsNow, rowsBefore, (r) => String(r.platform)).map(({ key, ...v }) => ({ platform: key, ...v })),
    by_topic: visibilityBy(rowsNow, rowsBefore, topicKey(ctx.sqlite, args.brandId)).map(({ key, ...v }) => ({ topic_id: key === NO_TOPIC ? null : key, ...v })),
    by_competitor: competitorChanges(ctx, args, previous),
  };
}

/**
 * Each competitor's visibility (answers naming it / answers) in both windows and its change. Unlike
 * the brand's, over all answers of each window: a competitor's mentions are not kept per prompt and
 * platform pair.
 */
function competitorChanges(ctx: InsightsContext, args: InsightArgs, previous: DateWindow) {
  const before = new Map(competitors(ctx, { ...args, window: previous }).map((r) => [r.entity_id, r]));
  return competitors(ctx, args)
    .filter((r) => !r.is_brand)
    .map((r) => {
      const p = before.get(r.entity_id);
      const prior = interval(p?.answers_mentioning ?? 0, p?.n ?? 0);
      return {
        competitor_id: r.entity_id,
        name: r.name,
        visibility_rate: { value: r.visibility_rate, ci_low: r.ci_low, ci_high: r.ci_high, n: r.n, previous: { ...prior, n: p?.n ?? 0 }, change: { ...newcombe(r.answers_mentioning, r.n, p?.answers_mentioning ?? 0, p?.n ?? 0), n_current: r.n, n_previous: p?.n ?? 0, model_changed: false } },
      };
    });
}

const NO_TOPIC = "\u0000none";

/** The topic of a row's prompt (NO_TOPIC when it has none), for grouping overview rows. */
function topicKey(sqlite: Database, brandId: string): (row: Row) => string {
  const topics = promptTopics(sqlite, brandId);
  return (row) => topics.get(String(row.prompt_id)) ?? NO_TOPIC;
}

/** Visibility of each group (by `keyOf`) in both windows, with its change over the pairs answered in both; most answers first. */
function visibilityBy(rowsNow: (Row & ResultSums)[], rowsBefore: (Row & ResultSums)[], keyOf: (row: Row) => string) {
  const now = groupBy(rowsNow, keyOf);
  const before = groupBy(rowsBefore, keyOf);
  return [...now]
    .map(([key, rows]) => {
      const prior = before.get(key) ?? [];
      const total = rows.reduce(addSums, emptySums());
      return { key, answers: total.results, visibility_rate: rateWithChange(total, prior.reduce(addSums, emptySums()), comparePairs(byPair(rows), byPair(prior)), PROPORTIONS.visibility_rate) };
    })
    .sort((a, b) => b.answers - a.answers || a.key.localeCompare(b.key));
}

/** A platform's visibility change between two windows (the alert's test), over the pairs seen in both. */
export function visibilityChange(ctx: InsightsContext, args: InsightArgs, previous: DateWindow) {
  const rowsNow = resultSums(ctx.sqlite, args, args.window, ["prompt_id", "platform", "reported_model"]);
  const rowsBefore = resultSums(ctx.sqlite, args, previous, ["prompt_id", "platform", "reported_model"]);
  const compared = comparePairs(byPair(rowsNow), byPair(rowsBefore));
  const [x, n] = PROPORTIONS.visibility_rate(compared.current);
  const [px, pn] = PROPORTIONS.visibility_rate(compared.previous);
  return { current: interval(x, n), previous: interval(px, pn), change: { ...newcombe(x, n, px, pn), model_changed: compared.modelChanged } };
}

// ---- trend ------------------------------------------------------------------------------------

export function trend(ctx: InsightsContext, args: InsightArgs, period: Interval, groupBy: GroupBy) {
  const groupColumn = groupBy === "none" ? null : groupBy === "topic" ? "prompt_id" : groupBy;
  const rows = resultSums(ctx.sqlite, args, args.window, ["bucket", ...(groupColumn ? [groupColumn] : [])], { daysOnly: period !== "month" });
  const topicOf = groupBy === "topic" ? promptTopics(ctx.sqlite, args.brandId) : null;
  const cells = new Map<string, ResultSums>();
  const groups = new Set<string | null>(groupBy === "none" ? [null] : []);
  for (const row of rows) {
    const group = groupColumn === null ? null : topicOf ? (topicOf.get(String(row.prompt_id)) ?? null) : String(row[groupColumn]);
    groups.add(group);
    const key = `${periodOf(String(row.bucket).length === 7 ? `${row.bucket}-01` : String(row.bucket), period)}\u0000${group}`;
    cells.set(key, addSums(cells.get(key) ?? emptySums(), row));
  }
  const sortedGroups = [...groups].sort((a, b) => (a === null ? -1 : b === null ? 1 : a.localeCompare(b)));
  const out: Row[] = [];
  for (const p of periodsOf(args.window, period)) {
    ctx.checkDeadline?.();
    for (const group of sortedGroups) {
      const s = cells.get(`${p}\u0000${group}`) ?? emptySums();
      const visibility = interval(s.mentioned, s.results);
      out.push({
        period: p,
        group,
        answers: s.results,
        mentioned: s.mentioned,
        visibility_rate: visibility.value,
        ci_low: visibility.ci_low,
        ci_high: visibility.ci_high,
        share_of_voice: shareOfVoice(s).value,
        avg_position: ratio(s.position_sum, s.position_n),
        citation_share: ratio(s.brand_citation_sum, s.citation_sum),
        avg_sentiment: ratio(s.sentiment_sum, s.sentiment_n),
      });
    }
  }
  return out;
}

function promptTopics(sqlite: Database, brandId: string): Map<string, string | null> {
  return new Map((sqlite.query("SELECT id, topic_id FROM prompts WHERE brand_id = ?").all(brandId) as { id: string; topic_id: string | null }[]).map((p) => [p.id, p.topic_id]));
}

// ---- competitors ------------------------------------------------------------------------------

/**
 * Each key's measures inside the window, from a running-totals rollup (src/rollups/spec.ts): the
 * key's last row on or before the window's end minus its last row before the window's start — two
 * seeks per key, whatever the window's length. Keys with nothing in the window are left out.
 * `keyFilter` selects keys (columns of `<table>_keys`, alias k); `lastDay`/`firstDay` are the days of
 * the key's last and first rows inside the window.
 */
function windowTotals<M extends string>(
  sqlite: Database,
  table: string,
  keyColumns: string[],
  measures: readonly M[],
  brandId: string,
  window: DateWindow,
  keyFilter: { sql: string; params: Params } = { sql: "", params: [] },
  withFirstDay = false,
): (Row & Record<M, number> & { last_day: string; first_day?: string })[] {
  const same = (a: string) => ["brand_id", ...keyColumns].map((c) => `${a}.${c} = k.${c}`).join(" AND ");
  const first = withFirstDay ? `, (SELECT min(f.day) FROM ${table} AS f WHERE ${same("f")} AND f.day BETWEEN ?1 AND ?2) AS first_day` : "";
  const rows = sqlite
    .query(
      `SELECT ${keyColumns.map((c) => `k.${c}`).join(", ")}, ${measures.map((m) => `hi.${m} - coalesce(lo.${m}, 0) AS ${m}`).join(", ")}, hi.day AS last_day${first}
         FROM ${table}_keys AS k
         JOIN ${table} AS hi ON hi.rowid = (SELECT q.rowid FROM ${table} AS q WHERE ${same("q")} AND q.day <= ?2 ORDER BY q.day DESC LIMIT 1)
         LEFT JOIN ${table} AS lo ON lo.rowid = (SELECT q.rowid FROM ${table} AS q WHERE ${same("q")} AND q.day < ?1 ORDER BY q.day DESC LIMIT 1)
        WHERE k.brand_id = ?3${keyFilter.sql}`,
    )
    .all(window.from, window.to, brandId, ...keyFilter.params) as (Row & Record<M, number> & { last_day: string; first_day?: string })[];
  return rows.filter((r) => r[measures[0]!] > 0);
}

function competitorSums(sqlite: Database, args: InsightArgs, groupBy: string[]) {
  const rows = windowTotals(sqlite, "competitor_running", ["prompt_id", "platform", "model", "region", "competitor_id"], COMPETITOR_MEASURES, args.brandId, args.window, filterSql(args, "k", args.brandId));
  const groups = new Map<string, Row & Record<(typeof COMPETITOR_MEASURES)[number], number>>();
  for (const row of rows) {
    const key = groupBy.map((c) => row[c]).join("\u0000");
    const group = groups.get(key) ?? (Object.fromEntries([...groupBy.map((c) => [c, row[c]]), ...COMPETITOR_MEASURES.map((m) => [m, 0])]) as Row & Record<(typeof COMPETITOR_MEASURES)[number], number>);
    for (const m of COMPETITOR_MEASURES) group[m] += row[m];
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** No filter at all: the brand-wide running totals can answer. */
const unfiltered = (f: InsightFilters) => [f.platforms, f.models, f.regions, f.topicIds, f.promptIds, f.branded].every((v) => v === null);

export function competitors(ctx: InsightsContext, args: InsightArgs) {
  const brand = ctx.sqlite.query("SELECT id, name FROM brands WHERE id = ?").get(args.brandId) as { id: string; name: string } | null;
  if (!brand) return [];
  const total = resultSums(ctx.sqlite, args, args.window, []).reduce(addSums, emptySums());
  const totalMentions = total.mention_sum + total.competitor_mention_sum;
  const byCompetitor = new Map(competitorSums(ctx.sqlite, args, ["competitor_id"]).map((r) => [String(r.competitor_id), r]));
  const rivals = ctx.sqlite.query("SELECT id, name FROM competitors WHERE brand_id = ? ORDER BY created_at, id").all(args.brandId) as { id: string; name: string }[];
  const entity = (id: string, name: string, isBrand: boolean, mentioning: number, mentions: number, positionSum: number, positionN: number, h2h: { both: number | null; only_brand: number | null; only_competitor: number | null }) => {
    const visibility = interval(mentioning, total.results);
    return {
      entity_id: id,
      name,
      is_brand: isBrand,
      answers_mentioning: mentioning,
      visibility_rate: visibility.value,
      ci_low: visibility.ci_low,
      ci_high: visibility.ci_high,
      n: total.results,
      mentions,
      share_of_voice: ratio(mentions, totalMentions),
      avg_position: ratio(positionSum, positionN),
      ...h2h,
    };
  };
  const rows = [entity(brand.id, brand.name, true, total.mentioned, total.mention_sum, total.position_sum, total.position_n, { both: null, only_brand: null, only_competitor: null })];
  for (const rival of rivals) {
    const s = byCompetitor.get(rival.id);
    const both = s?.both ?? 0;
    rows.push(entity(rival.id, rival.name, false, s?.results ?? 0, s?.mentions ?? 0, s?.position_sum ?? 0, s?.position_n ?? 0, { both, only_brand: total.mentioned - both, only_competitor: (s?.results ?? 0) - both }));
  }
  return rows;
}

/**
 * The prompts behind a head-to-head: per prompt with answers in the window, how many name both the
 * brand and `competitorId`, only the brand, only the competitor.
 */
export function headToHead(ctx: InsightsContext, args: InsightArgs, competitorId: string) {
  const answers = new Map(resultSums(ctx.sqlite, args, args.window, ["prompt_id"]).map((r) => [String(r.prompt_id), r]));
  const rival = new Map(competitorSums(ctx.sqlite, args, ["prompt_id", "competitor_id"]).filter((r) => r.competitor_id === competitorId).map((r) => [String(r.prompt_id), r]));
  const texts = new Map((ctx.sqlite.query("SELECT id, text FROM prompts WHERE brand_id = ?").all(args.brandId) as { id: string; text: string }[]).map((p) => [p.id, p.text]));
  return [...answers.entries()]
    .filter(([id]) => texts.has(id))
    .map(([id, s]) => {
      const r = rival.get(id);
      const both = r?.both ?? 0;
      return { prompt_id: id, text: texts.get(id)!, answers: s.results, both, only_brand: s.mentioned - both, only_competitor: (r?.results ?? 0) - both, neither: s.results - s.mentioned - ((r?.results ?? 0) - both) };
    })
    .sort((a, b) => b.only_competitor - a.only_competitor || a.text.localeCompare(b.text));
}

// ---- sources ----------------------------------------------------------------------------------

type SourceClass = "own" | "competitor" | "third_party";

function sourceClassifier(ctx: InsightsContext, brandId: string) {
  const loaded = loadEntities(ctx.sqlite, brandId);
  const compiled: CompiledEntities | null = loaded ? compileEntities(loaded.brand, loaded.competitors) : null;
  const category = createSourceClassifier(ctx.sourceCategories);
  return (domain: string): { class: SourceClass; competitor_id: string | null; category: SourceCategory } => {
    const owner = compiled ? ownerOfHost(compiled, domain) : -1;
    const entity = owner >= 0 ? compiled!.entities[owner]! : null;
    return { class: !entity ? "third_party" : entity.kind === "brand" ? "own" : "competitor", competitor_id: entity?.kind === "competitor" ? entity.id : null, category: category(domain) };
  };
}

type DomainSums = { domain: string; citations: number; answers: number; brand_mentioned: number; prompts: number };

/** Per cited domain: brand-wide running totals without filters, else the per-prompt day and month rollups. */
function domainSums(sqlite: Database, args: InsightArgs): DomainSums[] {
  if (unfiltered(args)) {
    const prompts = new Map<string, number>();
    for (const r of windowTotals(sqlite, "domain_prompt_running", ["domain", "prompt_id"], ["answers"], args.brandId, args.window)) prompts.set(String(r.domain), (prompts.get(String(r.domain)) ?? 0) + 1);
    return windowTotals(sqlite, "domain_running", ["domain"], DOMAIN_MEASURES, args.brandId, args.window).map((r) => ({
      domain: String(r.domain),
      citations: r.citations,
      answers: r.answers,
      brand_mentioned: r.brand_mentioned,
      prompts: prompts.get(String(r.domain)) ?? 0,
    }));
  }
  const source = rollupRows("domain_rollups", ["prompt_id", "platform", "model", "region", "domain", ...DOMAIN_MEASURES], args, args.window);
  return sqlite
    .query(`SELECT domain, sum(citations) AS citations, sum(answers) AS answers, sum(brand_mentioned) AS brand_mentioned, count(DISTINCT prompt_id) AS prompts FROM (${source.sql}) GROUP BY domain`)
    .all(...source.params) as DomainSums[];
}

export function citationDomains(ctx: InsightsContext, args: InsightArgs) {
  const rows = domainSums(ctx.sqlite, args);
  const all = rows.reduce((s, r) => s + r.citations, 0);
  const classify = sourceClassifier(ctx, args.brandId);
  return rows
    .map((r) => ({
      domain: r.domain,
      ...classify(r.domain),
      citations: r.citations,
      answers: r.answers,
      prompts: r.prompts,
      share: ratio(r.citations, all),
      brand_mentioned_rate: ratio(r.brand_mentioned, r.answers),
    }))
    .sort((a, b) => b.citations - a.citations || a.domain.localeCompare(b.domain));
}

/** The window as created_at bounds: [from 00:00, the day after `to`). */
const timeBounds = (w: DateWindow): [string, string] => [`${w.from}T00:00:00.000Z`, `${nextDay(w.to)}T00:00:00.000Z`];
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The answers of the window passing the filters, as a SQL subquery of result ids (null: every answer of the brand). */
function resultFilter(args: InsightArgs, column: string): { sql: string; params: Params } {
  const f = filterSql(args, "fr", args.brandId);
  if (!f.sql) return { sql: "", params: [] };
  return { sql: ` AND ${column} IN (SELECT fr.id FROM prompt_results AS fr WHERE fr.brand_id = ?${f.sql})`, params: [args.brandId, ...f.params] };
}

type UrlSums = { url: string; domain: string; title: string | null; citations: number; answers: number; first_seen: string; last_seen: string };

/**
 * Per cited page (its normalized URL): without filters from the brand-wide running totals, shown
 * by the first of its spellings and its longest title in the URL table; with filters from the
 * window's citations. first_seen and last_seen are days.
 */
function urlSums(sqlite: Database, args: InsightArgs): UrlSums[] {
  if (unfiltered(args)) {
    const shown = sqlite.prepare("SELECT min(url) AS url, nullif(max(title), '') AS title FROM citation_urls WHERE normalized_url = ?");
    return windowTotals(sqlite, "url_running", ["normalized_url", "domain"], ["citations", "answers"] as const, args.brandId, args.window, undefined, true).map((r) => {
      const page = shown.get(String(r.normalized_url)) as { url: string | null; title: string | null };
      return { url: page.url ?? String(r.normalized_url), domain: String(r.domain), title: page.title, citations: r.citations, answers: r.answers, first_seen: r.first_day!, last_seen: r.last_day };
    });
  }
  const [from, to] = timeBounds(args.window);
  const filter = resultFilter(args, "c.result_id");
  return sqlite
    .query(
      `SELECT min(coalesce(u.url, c.url)) AS url, c.domain AS domain, nullif(max(coalesce(u.title, c.title, '')), '') AS title, count(*) AS citations,
              count(DISTINCT c.result_id) AS answers, substr(min(c.created_at), 1, 10) AS first_seen, substr(max(c.created_at), 1, 10) AS last_seen
         FROM citations AS c LEFT JOIN citation_urls AS u ON u.id = c.url_id
        WHERE c.brand_id = ? AND c.created_at >= ? AND c.created_at < ?${filter.sql}
        GROUP BY coalesce(u.normalized_url, c.normalized_url)`,
    )
    .all(args.brandId, from, to, ...filter.params) as UrlSums[];
}

export function citationUrls(ctx: InsightsContext, args: InsightArgs) {
  const rows = urlSums(ctx.sqlite, args);
  const classify = sourceClassifier(ctx, args.brandId);
  return rows
    .map((r) => {
      const c = classify(r.domain);
      return { url: r.url, domain: r.domain, title: r.title, class: c.class, competitor_id: c.competitor_id, category: c.category, citations: r.citations, answers: r.answers, first_seen: r.first_seen, last_seen: r.last_seen };
    })
    .sort((a, b) => b.citations - a.citations || a.url.localeCompare(b.url));
}

// ---- prompts ----------------------------------------------------------------------------------

export type RunState = "new" | "gained" | "lost" | "kept" | "absent";

/** A run mentions the brand when at least half of its answers (samples) do. */
export function runMentioned(mentioned: number, answers: number): boolean {
  return answers > 0 && 2 * mentioned >= answers;
}

export function runState(latest: boolean, previous: boolean | null): RunState {
  if (previous === null) return "new";
  return latest ? (previous ? "kept" : "gained") : previous ? "lost" : "absent";
}

/** Per prompt and platform: the last two runs up to the window's end (answers of one job are one run); per prompt, its last answer then. */
function runStates(sqlite: Database, args: InsightArgs) {
  const [, to] = timeBounds(args.window);
  const f = filterSql(args, "l", args.brandId);
  // Each group's newest answers, on the group's time index: two runs of up to ten samples each.
  const rows = sqlite
    .query(
      `SELECT w.prompt_id, w.platform, coalesce(w.job_id, w.id) AS run, w.mentioned, w.created_at
         FROM prompt_results_latest AS l
         JOIN prompt_results AS w ON w.rowid IN (
              SELECT x.rowid FROM prompt_results AS x
               WHERE x.prompt_id = l.prompt_id AND x.platform = l.platform AND x.model = l.model AND x.region = l.region AND x.created_at < ?
               ORDER BY x.created_at DESC LIMIT 20)
        WHERE l.brand_id = ?${f.sql}`,
    )
    .all(to, args.brandId, ...f.params) as { prompt_id: string; platform: string; run: string; mentioned: number; created_at: string }[];
  const runs = new Map<string, Map<string, { at: string; mentioned: number; answers: number }>>();
  for (const r of rows) {
    const key = `${r.prompt_id}\u0000${r.platform}`;
    const byRun = runs.get(key) ?? new Map();
    const run = byRun.get(r.run) ?? { at: r.created_at, mentioned: 0, answers: 0 };
    run.at = run.at > r.created_at ? run.at : r.created_at;
    run.mentioned += r.mentioned ? 1 : 0;
    run.answers++;
    byRun.set(r.run, run);
    runs.set(key, byRun);
  }
  const states = new Map<string, { platform: string; latest_mentioned: boolean; previous_mentioned: boolean | null; state: RunState }[]>();
  const lastRunAt = new Map<string, string>();
  for (const [key, byRun] of runs) {
    const [promptId, platform] = key.split("\u0000") as [string, string];
    const [latest, previous] = [...byRun.values()].sort((a, b) => (a.at < b.at ? 1 : -1));
    if ((lastRunAt.get(promptId) ?? "") < latest!.at) lastRunAt.set(promptId, latest!.at);
    const latestMentioned = runMentioned(latest!.mentioned, latest!.answers);
    const previousMentioned = previous ? runMentioned(previous.mentioned, previous.answers) : null;
    const list = states.get(promptId) ?? [];
    list.push({ platform, latest_mentioned: latestMentioned, previous_mentioned: previousMentioned, state: runState(latestMentioned, previousMentioned) });
    states.set(promptId, list);
  }
  for (const list of states.values()) list.sort((a, b) => a.platform.localeCompare(b.platform));
  return { states, lastRunAt };
}

export function prompts(ctx: InsightsContext, args: InsightArgs) {
  const { sqlite } = ctx;
  const inner = ["brand_id = ?"];
  const params: Params = [args.brandId];
  if (args.topicIds !== null) (inner.push(args.topicIds.length ? `topic_id IN (${placeholders(args.topicIds)})` : "0"), params.push(...args.topicIds));
  if (args.promptIds !== null) (inner.push(args.promptIds.length ? `id IN (${placeholders(args.promptIds)})` : "0"), params.push(...args.promptIds));
  if (args.branded !== null) (inner.push("is_branded = ?"), params.push(args.branded ? 1 : 0));
  const list = sqlite.query(`SELECT id, text, topic_id, is_active, is_branded FROM prompts WHERE ${inner.join(" AND ")} ORDER BY created_at, id`).all(...params) as {
    id: string;
    text: string;
    topic_id: string | null;
    is_active: number;
    is_branded: number;
  }[];
  const sums = new Map(resultSums(sqlite, args, args.window, ["prompt_id"]).map((r) => [String(r.prompt_id), r]));
  const names = new Map((sqlite.query("SELECT id, name FROM competitors WHERE brand_id = ?").all(args.brandId) as { id: string; name: string }[]).map((c) => [c.id, c.name]));
  const rivals = new Map<string, { name: string; results: number }[]>();
  for (const r of competitorSums(sqlite, args, ["prompt_id", "competitor_id"])) {
    const name = names.get(String(r.competitor_id));
    if (!name) continue;
    const entry = rivals.get(String(r.prompt_id)) ?? [];
    entry.push({ name, results: r.results });
    rivals.set(String(r.prompt_id), entry);
  }
  const { states, lastRunAt } = runStates(sqlite, args);
  return list
    .filter((p) => p.is_active || sums.has(p.id))
    .map((p) => {
      const s = sums.get(p.id) ?? emptySums();
      const visibility = interval(s.mentioned, s.results);
      const top = (rivals.get(p.id) ?? []).sort((a, b) => b.results - a.results || a.name.localeCompare(b.name)).slice(0, 3);
      return {
        prompt_id: p.id,
        text: p.text,
        topic_id: p.topic_id,
        is_branded: p.is_branded === 1,
        answers: s.results,
        mentioned: s.mentioned,
        visibility_rate: visibility.value,
        ci_low: visibility.ci_low,
        ci_high: visibility.ci_high,
        avg_position: ratio(s.position_sum, s.position_n),
        top_competitors: top.map((t) => ({ name: t.name, answers_mentioning: t.results, visibility_rate: ratio(t.results, s.results) })),
        last_run_at: lastRunAt.get(p.id) ?? null,
        runs: states.get(p.id) ?? [],
      };
    });
}

// ---- fan-out queries --------------------------------------------------------------------------

export function searchQueries(ctx: InsightsContext, args: InsightArgs) {
  // Filtered by platform at most: the running totals per query and platform answer.
  if (unfiltered({ ...args, platforms: null })) {
    const byQuery = new Map<string, { query: string; answers: number; platforms: string[] }>();
    const platforms = args.platforms === null ? { sql: "", params: [] } : filterSql({ ...args, models: null, regions: null }, "k", args.brandId);
    for (const r of windowTotals(ctx.sqlite, "query_running", ["platform", "query"], ["answers"] as const, args.brandId, args.window, platforms)) {
      const q = byQuery.get(String(r.query)) ?? { query: String(r.query), answers: 0, platforms: [] };
      q.answers += r.answers;
      q.platforms.push(String(r.platform));
      byQuery.set(q.query, q);
    }
    return [...byQuery.values()].map((q) => ({ ...q, platforms: q.platforms.sort() })).sort((a, b) => b.answers - a.answers || a.query.localeCompare(b.query));
  }
  const [from, to] = timeBounds(args.window);
  const f = filterSql(args, "r", args.brandId);
  const rows = ctx.sqlite
    .query(
      `SELECT q.value AS query, count(DISTINCT r.id) AS answers, json_group_array(DISTINCT r.platform) AS platforms
         FROM prompt_results AS r,
              json_each(CASE WHEN json_valid(r.search_queries) AND json_type(r.search_queries) = 'array' THEN r.search_queries ELSE '[]' END) AS q
        WHERE r.brand_id = ? AND r.created_at >= ? AND r.created_at < ? AND q.type = 'text' AND trim(q.value) != ''${f.sql}
        GROUP BY q.value`,
    )
    .all(args.brandId, from, to, ...f.params) as { query: string; answers: number; platforms: string }[];
  return rows
    .map((r) => ({ query: r.query, answers: r.answers, platforms: (JSON.parse(r.platforms) as string[]).sort() }))
    .sort((a, b) => b.answers - a.answers || a.query.localeCompare(b.query));
}

// ---- AI crawlers (issue #21) --------------------------------------------------------------------

/** crawler_daily / crawler_monthly rows inside a window: whole months from the monthly table, the edges (or, for `daysOnly`, everything) by day. */
function crawlerRows(args: InsightArgs, daysOnly: boolean) {
  const ranges = daysOnly ? [{ table: "daily" as const, from: args.window.from, to: args.window.to }] : bucketRanges(args.window);
  const sql = ranges
    .map((r) => (r.table === "daily" ? "SELECT day AS bucket, bot, class, verdict, requests, pages, refused, not_found, server_errors FROM crawler_daily WHERE brand_id = ? AND day BETWEEN ? AND ?" : "SELECT month AS bucket, bot, class, verdict, requests, pages, refused, not_found, server_errors FROM crawler_monthly WHERE brand_id = ? AND month BETWEEN ? AND ?"))
    .join(" UNION ALL ");
  return { sql, params: ranges.flatMap((r) => [args.brandId, r.from, r.to]) };
}

/**
 * Per bot and verdict over the window: requests, page hits (not robots.txt, sitemaps or assets),
 * refusals (401, 403, 429), not-founds (404, 410) and server errors (5xx).
 */
export function crawlers(ctx: InsightsContext, args: InsightArgs) {
  const source = crawlerRows(args, false);
  const rows = ctx.sqlite
    .query(`SELECT bot, class, verdict, sum(requests) AS requests, sum(pages) AS pages, sum(refused) AS refused, sum(not_found) AS not_found, sum(server_errors) AS server_errors FROM (${source.sql}) GROUP BY bot, class, verdict`)
    .all(...source.params) as { bot: string; class: string; verdict: string; requests: number; pages: number; refused: number; not_found: number; server_errors: number }[];
  return rows
    .map((r) => ({ bot: r.bot || null, operator: r.bot ? identify(r.bot).operator : null, class: r.class, verdict: r.verdict || null, requests: r.requests, pages: r.pages, refused: r.refused, not_found: r.not_found, server_errors: r.server_errors }))
    .sort((a, b) => b.requests - a.requests || String(a.bot).localeCompare(String(b.bot)));
}

/** Crawler requests per period (day buckets by day or week; whole months by month), per bot; every period listed. */
export function crawlerTrend(ctx: InsightsContext, args: InsightArgs, period: Interval) {
  const source = crawlerRows(args, period !== "month");
  const rows = ctx.sqlite
    .query(`SELECT bucket, bot, sum(requests) AS requests, sum(pages) AS pages FROM (${source.sql}) WHERE bot != '' GROUP BY bucket, bot`)
    .all(...source.params) as { bucket: string; bot: string; requests: number; pages: number }[];
  const cells = new Map<string, { requests: number; pages: number }>();
  const bots = new Set<string>();
  for (const r of rows) {
    bots.add(r.bot);
    // A monthly bucket (YYYY-MM) is its own period when the trend is by month.
    const key = `${r.bucket.length === 7 ? r.bucket : periodOf(r.bucket, period)}\u0000${r.bot}`;
    const cell = cells.get(key) ?? { requests: 0, pages: 0 };
    cell.requests += r.requests;
    cell.pages += r.pages;
    cells.set(key, cell);
  }
  const sortedBots = [...bots].sort();
  return periodsOf(args.window, period).flatMap((p) => {
    ctx.checkDeadline?.();
    return sortedBots.map((bot) => ({ period: p, bot, ...(cells.get(`${p}\u0000${bot}`) ?? { requests: 0, pages: 0 }) }));
  });
}

/** The paths each bot requested most in the window (its top `perBot`), with refusals, not-founds and server errors: running totals, two seeks per path whatever the window. */
export function crawlerPaths(ctx: InsightsContext, args: InsightArgs, perBot = 20) {
  const rows = windowTotals(ctx.sqlite, "crawler_paths_running", ["bot", "hit", "path"], ["requests", "refused", "not_found", "server_errors"] as const, args.brandId, args.window) as unknown as { bot: string; path: string; hit: string; requests: number; refused: number; not_found: number; server_errors: number }[];
  rows.sort((a, b) => (a.bot < b.bot ? -1 : a.bot > b.bot ? 1 : b.requests - a.requests || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
  const taken = new Map<string, number>();
  return rows
    .filter((r) => {
      const n = (taken.get(r.bot) ?? 0) + 1;
      taken.set(r.bot, n);
      return n <= perBot;
    })
    .map(({ bot, path, hit, requests, refused, not_found, server_errors }) => ({ bot, path, hit, requests, refused, not_found, server_errors }));
}
