// The insights (issue #18, DESIGN §14): computed once here, over the rollups, and served as RPCs
// (/rest/v1/rpc/insights_*), MCP tools and web-app views. Every rate carries its n and a Wilson
// interval; a change carries Newcombe's interval over the (prompt, platform) pairs seen in both
// windows. Functions of an insights store (store.ts) and plain arguments, so they run on reader threads.
import { ownerOfHost } from "../analysis/citations";
import { compileEntities, type CompiledEntities } from "../analysis/entities";
import { groupBy } from "../analysis/group";
import { createSourceClassifier, type CategoryList, type SourceCategory } from "../analysis/source-categories";
import { holm, newcombe, wilson, type ChangeCounts, type Interval as RateInterval } from "../analysis/stats";
import { identify } from "../crawlers/classify";
import type { GroupBy, InsightArgs } from "./args";
import { COMPETITOR_MEASURES, RESULT_MEASURES, type InsightsStore, type ResultGroupColumn, type ResultSums, type ResultSumsRow } from "./store";
import { addDays, periodOf, periodsOf, previousWindow, type DateWindow, type Interval } from "./window";

type Row = Record<string, unknown>;

export interface InsightsContext {
  store: InsightsStore;
  /** The user's additions to the shipped source-category list (SOURCE_CATEGORIES_FILE). */
  sourceCategories?: CategoryList;
  /** Throws once the request's time (STATEMENT_TIMEOUT_MS) is up; loops over periods call it. */
  checkDeadline?: () => void;
}

// ---- sums ------------------------------------------------------------------------------------

/** Sums of the result measures per `groupBy` columns over a window. */
const resultSums = (ctx: InsightsContext, args: InsightArgs, window: DateWindow, groupBy: ResultGroupColumn[], options: { by?: Interval | "total" } = {}) =>
  ctx.store.resultSums({ query: args, window, groupBy, by: options.by });

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
function byPair(rows: ResultSumsRow[]): Map<string, PairSums> {
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
  /** Some pair had more answers in one window than in the other, and was weighted down to the fewer (comparePairs). */
  reweighted: boolean;
}

/** `sums` scaled by `factor` (every measure, the answers too). */
function addScaled(into: ResultSums, sums: ResultSums, factor: number): ResultSums {
  for (const m of RESULT_MEASURES) into[m] += (sums[m] ?? 0) * factor;
  return into;
}

/**
 * Only the (prompt, platform) pairs answered in both windows, each weighing the same in both: a pair
 * with more answers in one window (a prompt added partway through the previous one, a platform now
 * checked hourly, more samples) counts there as if it had only its answers of the other, its sums
 * scaled down in proportion. Pooled as they were, such pairs re-weighted the rate, and a brand whose
 * every prompt kept its rate could read "down 41 points" right after prompts were added.
 */
function comparePairs(current: Map<string, PairSums>, previous: Map<string, PairSums>): ComparedPairs {
  const out = { current: emptySums(), previous: emptySums(), pairs: 0, modelChanged: false, reweighted: false };
  const modelsNow = new Set<string>();
  const modelsBefore = new Set<string>();
  for (const [key, now] of current) {
    const before = previous.get(key);
    if (!before) continue;
    out.pairs++;
    const [n1, n0] = [now.sums.results, before.sums.results];
    if (n1 === n0) {
      addSums(out.current, now.sums);
      addSums(out.previous, before.sums);
    } else {
      const weight = Math.min(n1, n0);
      addScaled(out.current, now.sums, weight / n1);
      addScaled(out.previous, before.sums, weight / n0);
      out.reweighted = true;
    }
    for (const m of now.models) modelsNow.add(m);
    for (const m of before.models) modelsBefore.add(m);
  }
  out.modelChanged = modelsNow.size !== modelsBefore.size || [...modelsNow].some((m) => !modelsBefore.has(m));
  return out;
}

/** Two windows' (possibly scaled) counts as a change's: a scaled count a hair above its n is its n. */
const countsOf = ([x1, n1]: [number, number], [x2, n2]: [number, number]): ChangeCounts => ({ x1: Math.min(x1, n1), n1, x2: Math.min(x2, n2), n2 });
/** Newcombe's interval over two windows' (possibly scaled) counts. */
const changeOf = (now: [number, number], before: [number, number]) => {
  const c = countsOf(now, before);
  return newcombe(c.x1, c.n1, c.x2, c.n2);
};

function rateWithChange(total: ResultSums, previousTotal: ResultSums, compared: ComparedPairs, proportion: Proportion) {
  const [x, n] = proportion(total);
  const [px, pn] = proportion(previousTotal);
  const [cx, cn] = proportion(compared.current);
  const [bx, bn] = proportion(compared.previous);
  return {
    ...interval(x, n),
    previous: interval(px, pn),
    // The n shown are whole: weighted counts are fractions (citations scaled by answers' weights) or a hair off one.
    change: { ...changeOf([cx, cn], [bx, bn]), n_current: Math.round(cn), n_previous: Math.round(bn), model_changed: compared.modelChanged, reweighted: compared.reweighted },
  };
}

const shareOfVoice = (s: ResultSums) => ({
  value: ratio(s.mention_sum, s.mention_sum + s.competitor_mention_sum),
  brand_mentions: s.mention_sum,
  total_mentions: s.mention_sum + s.competitor_mention_sum,
  n: s.results,
});
/**
 * Whether a competitor was added while the two windows had answers already: its mentions count in
 * the answers since and not in those before, so the share of voice's change moves with no answer
 * changing. One added before the first answer of the two windows (tracking began with it) or after
 * the window ended changes nothing.
 */
const competitorsAddedSince = (rivals: readonly Rival[], late: ReadonlySet<string>, window: DateWindow) => rivals.some((c) => late.has(c.id) && addedDay(c) <= window.to);

type Rival = { id: string; name: string; created_at: string };
/** The UTC day a competitor was added (from when it is looked for in answers). */
const addedDay = (c: { created_at: string }) => String(c.created_at).slice(0, 10);

/**
 * The competitors added while the two windows (from `from`) had answers already — under the
 * filters, answers from `from` until the day before the one each was added. One read of the
 * result sums per distinct day, bounded by the brand's competitors.
 */
async function addedLate(ctx: InsightsContext, args: InsightArgs, rivals: readonly Rival[], from: string): Promise<Set<string>> {
  const answered = new Map<string, boolean>();
  const late = new Set<string>();
  for (const c of rivals) {
    const day = addedDay(c);
    if (day <= from) continue;
    if (!answered.has(day)) answered.set(day, (await resultSums(ctx, args, { from, to: addDays(day, -1) }, [])).reduce(addSums, emptySums()).results > 0);
    if (answered.get(day)) late.add(c.id);
  }
  return late;
}

/** The window a competitor's figures count over: from the day it was added when that is inside the window. */
function countedWindow(rival: { created_at: string }, window: DateWindow): DateWindow {
  const day = addedDay(rival);
  return day > window.from ? { from: day, to: window.to } : window;
}

/** Like the rates' changes, over the (prompt, platform) pairs answered in both windows. */
function shareOfVoiceChange(compared: ComparedPairs) {
  const now = shareOfVoice(compared.current).value;
  const before = shareOfVoice(compared.previous).value;
  return { delta: now !== null && before !== null ? now - before : null, n_current: Math.round(compared.current.results), n_previous: Math.round(compared.previous.results) };
}
const mean = (sum: number, n: number) => ({ value: ratio(sum, n), n });
const sentimentOf = (s: ResultSums) => ({ ...mean(s.sentiment_sum, s.sentiment_n), positive: s.positive, neutral: s.neutral, negative: s.negative });

export async function overview(ctx: InsightsContext, args: InsightArgs) {
  const previous = previousWindow(args.window);
  const rowsNow = await resultSums(ctx, args, args.window, ["prompt_id", "platform", "reported_model"]);
  const rowsBefore = await resultSums(ctx, args, previous, ["prompt_id", "platform", "reported_model"]);
  const total = rowsNow.reduce(addSums, emptySums());
  const previousTotal = rowsBefore.reduce(addSums, emptySums());
  const compared = comparePairs(byPair(rowsNow), byPair(rowsBefore));
  const sovNow = shareOfVoice(total);
  const sovBefore = shareOfVoice(previousTotal);
  // The brand's competitors, read once for the share of voice's flag and the competitors' changes.
  const rivals = await ctx.store.competitors(args.brandId);
  const late = await addedLate(ctx, args, rivals, previous.from);
  return {
    window: args.window,
    previous,
    answers: total.results,
    visibility_rate: rateWithChange(total, previousTotal, compared, PROPORTIONS.visibility_rate),
    citation_share: rateWithChange(total, previousTotal, compared, PROPORTIONS.citation_share),
    brand_cited_rate: rateWithChange(total, previousTotal, compared, PROPORTIONS.brand_cited_rate),
    share_of_voice: { ...sovNow, previous: sovBefore, change: { ...shareOfVoiceChange(compared), competitors_changed: competitorsAddedSince(rivals, late, args.window) } },
    avg_position: { ...mean(total.position_sum, total.position_n), previous: mean(previousTotal.position_sum, previousTotal.position_n) },
    avg_visibility_score: { ...mean(total.visibility_sum, total.visibility_n), previous: mean(previousTotal.visibility_sum, previousTotal.visibility_n) },
    sentiment: { ...sentimentOf(total), previous: sentimentOf(previousTotal) },
    // What moved where: each platform's and each topic's visibility with its own change, so a
    // significant move on one engine shows even when the pooled change is noise.
    ...inOneFamily(
      visibilityBy(rowsNow, rowsBefore, (r) => String(r.platform)).map(({ key, ...v }) => ({ platform: key, ...v })),
      visibilityBy(rowsNow, rowsBefore, await topicKey(ctx, args.brandId)).map(({ key, ...v }) => ({ topic_id: key === NO_TOPIC ? null : key, ...v })),
      await competitorChanges(ctx, args, previous, rivals, late),
    ),
  };
}

type FamilyMember = { visibility_rate: { change: { verdict: string } }; counts: ChangeCounts | null };

/**
 * The platforms', topics' and competitors' changes are read together ("What changed" lists
 * whichever moved), so their verdicts are Holm's over all of them (analysis/stats.ts), each change
 * with its own p-value, the adjusted one and the family's size. One topic group (every prompt in
 * one topic, or none in any) is the whole, not a member; nor is a competitor without a comparable
 * count (added while the two windows had answers already). The counts are left out of the answer.
 */
function inOneFamily<P extends FamilyMember, T extends FamilyMember, C extends FamilyMember>(byPlatform: P[], byTopic: T[], byCompetitor: C[]) {
  // Every change says whether it was tested: null p-values and family size where it was not.
  for (const m of [...byPlatform, ...byTopic, ...byCompetitor]) Object.assign(m.visibility_rate.change, { p_value: null, p_adjusted: null, family_size: null });
  const members: FamilyMember[] = [...byPlatform, ...(byTopic.length > 1 ? byTopic : []), ...byCompetitor].filter((m) => m.counts !== null);
  const verdicts = holm(members.map((m) => m.counts!));
  const size = verdicts.filter((v) => v.p_value !== null).length;
  members.forEach((m, i) => Object.assign(m.visibility_rate.change, verdicts[i], { family_size: verdicts[i]!.p_value === null ? null : size }));
  const strip = <R extends FamilyMember>(rows: R[]) => rows.map(({ counts: _, ...row }) => row);
  return { by_platform: strip(byPlatform), by_topic: strip(byTopic), by_competitor: strip(byCompetitor) };
}

/**
 * Each competitor's visibility (answers naming it / answers) in both windows and its change. Unlike
 * the brand's, over all answers of each window (from the day it was added for one added inside it):
 * a competitor's mentions are not kept per prompt and platform pair.
 */
async function competitorChanges(ctx: InsightsContext, args: InsightArgs, previous: DateWindow, rivals: readonly Rival[], late: ReadonlySet<string>) {
  const before = new Map((await competitors(ctx, { ...args, window: previous }, rivals)).map((r) => [r.entity_id, r]));
  // A competitor is looked for in answers analysed after it was added: one added while the two
  // windows had answers already (`late`) has no comparable count, and its "rise" would only be its
  // being added. One added before their first answer (tracking began with it) compares as any other.
  const added = new Map(rivals.map((c) => [c.id, String(c.created_at)]));
  return (await competitors(ctx, args, rivals))
    .filter((r) => !r.is_brand)
    .map((r) => {
      const p = before.get(r.entity_id);
      const prior = interval(p?.answers_mentioning ?? 0, p?.n ?? 0);
      const isLate = late.has(r.entity_id);
      const counts = isLate ? null : { x1: r.answers_mentioning, n1: r.n, x2: p?.answers_mentioning ?? 0, n2: p?.n ?? 0 };
      const change = counts ? newcombe(counts.x1, counts.n1, counts.x2, counts.n2) : { delta: null, ci_low: null, ci_high: null, verdict: "insufficient_data" as const };
      return {
        counts,
        competitor_id: r.entity_id,
        name: r.name,
        visibility_rate: { value: r.visibility_rate, ci_low: r.ci_low, ci_high: r.ci_high, n: r.n, previous: { ...prior, n: p?.n ?? 0 }, change: { ...change, n_current: r.n, n_previous: p?.n ?? 0, model_changed: false, added_since: isLate ? added.get(r.entity_id)! : null } },
      };
    });
}

const NO_TOPIC = "\u0000none";

/** The topic of a row's prompt (NO_TOPIC when it has none), for grouping overview rows. */
async function topicKey(ctx: InsightsContext, brandId: string): Promise<(row: Row) => string> {
  const topics = await promptTopics(ctx, brandId);
  return (row) => topics.get(String(row.prompt_id)) ?? NO_TOPIC;
}

/** Visibility of each group (by `keyOf`) in both windows, with its change over the pairs answered in both; most answers first. */
function visibilityBy(rowsNow: ResultSumsRow[], rowsBefore: ResultSumsRow[], keyOf: (row: Row) => string) {
  const now = groupBy(rowsNow, keyOf);
  const before = groupBy(rowsBefore, keyOf);
  return [...now]
    .map(([key, rows]) => {
      const prior = before.get(key) ?? [];
      const total = rows.reduce(addSums, emptySums());
      const compared = comparePairs(byPair(rows), byPair(prior));
      const counts = countsOf(PROPORTIONS.visibility_rate(compared.current), PROPORTIONS.visibility_rate(compared.previous));
      return { key, answers: total.results, counts, visibility_rate: rateWithChange(total, prior.reduce(addSums, emptySums()), compared, PROPORTIONS.visibility_rate) };
    })
    .sort((a, b) => b.answers - a.answers || a.key.localeCompare(b.key));
}

/** A platform's visibility change between two windows (the alert's test), over the pairs seen in both. */
export async function visibilityChange(ctx: InsightsContext, args: InsightArgs, previous: DateWindow) {
  const rowsNow = await resultSums(ctx, args, args.window, VISIBILITY_CHANGE_GROUPS);
  const rowsBefore = await resultSums(ctx, args, previous, VISIBILITY_CHANGE_GROUPS);
  return visibilityChangeOf(rowsNow, rowsBefore);
}

/** What visibilityChange reads per window: result sums grouped by these. */
export const VISIBILITY_CHANGE_GROUPS: ResultGroupColumn[] = ["prompt_id", "platform", "reported_model"];

/** visibilityChange over the two windows' result sums (grouped by VISIBILITY_CHANGE_GROUPS). */
export function visibilityChangeOf(rowsNow: ResultSumsRow[], rowsBefore: ResultSumsRow[]) {
  const compared = comparePairs(byPair(rowsNow), byPair(rowsBefore));
  const [x, n] = PROPORTIONS.visibility_rate(compared.current);
  const [px, pn] = PROPORTIONS.visibility_rate(compared.previous);
  const whole = (i: RateInterval) => ({ ...i, n: Math.round(i.n) });
  return { current: whole(interval(Math.min(x, n), n)), previous: whole(interval(Math.min(px, pn), pn)), change: { ...changeOf([x, n], [px, pn]), model_changed: compared.modelChanged } };
}

// ---- trend ------------------------------------------------------------------------------------

export async function trend(ctx: InsightsContext, args: InsightArgs, period: Interval, groupBy: GroupBy) {
  const groupColumn: ResultGroupColumn | null = groupBy === "none" ? null : groupBy === "topic" ? "prompt_id" : groupBy;
  const rows = await resultSums(ctx, args, args.window, ["bucket", ...(groupColumn ? [groupColumn] : [])], { by: period });
  const topicOf = groupBy === "topic" ? await promptTopics(ctx, args.brandId) : null;
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
        citation_share: ratio(...PROPORTIONS.citation_share(s)),
        avg_sentiment: ratio(s.sentiment_sum, s.sentiment_n),
      });
    }
  }
  return out;
}

async function promptTopics(ctx: InsightsContext, brandId: string): Promise<Map<string, string | null>> {
  return new Map((await ctx.store.promptTopics(brandId)).map((p) => [p.id, p.topic_id]));
}

// ---- competitors ------------------------------------------------------------------------------

/** The competitors' totals over the window, summed per `groupBy` columns. */
async function competitorSums(ctx: InsightsContext, args: InsightArgs, groupBy: ("prompt_id" | "competitor_id")[]) {
  const rows = await ctx.store.competitorTotals(args);
  const groups = new Map<string, Row & Record<(typeof COMPETITOR_MEASURES)[number], number>>();
  for (const row of rows) {
    const key = groupBy.map((c) => row[c]).join("\u0000");
    const group = groups.get(key) ?? (Object.fromEntries([...groupBy.map((c) => [c, row[c]]), ...COMPETITOR_MEASURES.map((m) => [m, 0])]) as Row & Record<(typeof COMPETITOR_MEASURES)[number], number>);
    for (const m of COMPETITOR_MEASURES) group[m] += row[m];
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** `rivals`: the brand's competitors when the caller read them already. */
export async function competitors(ctx: InsightsContext, args: InsightArgs, rivalsRead?: readonly Rival[]) {
  const brand = await ctx.store.brand(args.brandId);
  if (!brand) return [];
  const total = (await resultSums(ctx, args, args.window, [])).reduce(addSums, emptySums());
  const totalMentions = total.mention_sum + total.competitor_mention_sum;
  const byCompetitor = new Map((await competitorSums(ctx, args, ["competitor_id"])).map((r) => [String(r.competitor_id), r]));
  const rivals = rivalsRead ?? (await ctx.store.competitors(args.brandId));
  // A competitor added inside the window was looked for only in the answers analysed since: its
  // counts and its n start on the day it was added (that day's earlier answers counted in n).
  const countedFrom = (rival: { created_at: string }) => {
    const counted = countedWindow(rival, args.window);
    return counted === args.window ? null : counted.from;
  };
  const late = new Map<string, { total: ResultSums; byCompetitor: Map<string, Row & Record<(typeof COMPETITOR_MEASURES)[number], number>> }>();
  for (const day of new Set(rivals.map(countedFrom).filter((d): d is string => d !== null))) {
    // Added after the window ended: looked for in none of its answers.
    if (day > args.window.to) {
      late.set(day, { total: emptySums(), byCompetitor: new Map() });
      continue;
    }
    const window = { from: day, to: args.window.to };
    const lateTotal = (await resultSums(ctx, args, window, [])).reduce(addSums, emptySums());
    late.set(day, { total: lateTotal, byCompetitor: new Map((await competitorSums(ctx, { ...args, window }, ["competitor_id"])).map((r) => [String(r.competitor_id), r])) });
  }
  const entity = (id: string, name: string, isBrand: boolean, over: ResultSums, mentioning: number, mentions: number, positionSum: number, positionN: number, h2h: { both: number | null; only_brand: number | null; only_competitor: number | null }, from: string | null) => {
    const visibility = interval(mentioning, over.results);
    return {
      entity_id: id,
      name,
      is_brand: isBrand,
      answers_mentioning: mentioning,
      visibility_rate: visibility.value,
      ci_low: visibility.ci_low,
      ci_high: visibility.ci_high,
      n: over.results,
      mentions,
      share_of_voice: ratio(mentions, totalMentions),
      avg_position: ratio(positionSum, positionN),
      ...h2h,
      counted_from: from,
    };
  };
  const rows = [entity(brand.id, brand.name, true, total, total.mentioned, total.mention_sum, total.position_sum, total.position_n, { both: null, only_brand: null, only_competitor: null }, null)];
  for (const rival of rivals) {
    const from = countedFrom(rival);
    const part = from === null ? { total, byCompetitor } : late.get(from)!;
    const s = part.byCompetitor.get(rival.id);
    const both = s?.both ?? 0;
    rows.push(entity(rival.id, rival.name, false, part.total, s?.results ?? 0, s?.mentions ?? 0, s?.position_sum ?? 0, s?.position_n ?? 0, { both, only_brand: part.total.mentioned - both, only_competitor: (s?.results ?? 0) - both }, from));
  }
  return rows;
}

/**
 * The prompts behind a head-to-head: per prompt with answers in the window, how many name both the
 * brand and `competitorId`, only the brand, only the competitor.
 */
export async function headToHead(ctx: InsightsContext, args: InsightArgs, competitorId: string) {
  // As the leaderboard counts it: a competitor added inside the window over the answers since.
  const added = (await ctx.store.competitors(args.brandId)).find((c) => c.id === competitorId);
  const window = added ? countedWindow(added, args.window) : args.window;
  if (window.from > window.to) return [];
  const scoped = { ...args, window };
  const answers = new Map((await resultSums(ctx, scoped, scoped.window, ["prompt_id"])).map((r) => [String(r.prompt_id), r]));
  const rival = new Map((await competitorSums(ctx, scoped, ["prompt_id", "competitor_id"])).filter((r) => r.competitor_id === competitorId).map((r) => [String(r.prompt_id), r]));
  const texts = new Map((await ctx.store.promptTexts(args.brandId)).map((p) => [p.id, p.text]));
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

async function sourceClassifier(ctx: InsightsContext, brandId: string) {
  const loaded = await ctx.store.entities(brandId);
  const compiled: CompiledEntities | null = loaded ? compileEntities(loaded.brand, loaded.competitors) : null;
  const category = createSourceClassifier(ctx.sourceCategories);
  return (domain: string): { class: SourceClass; competitor_id: string | null; category: SourceCategory } => {
    const owner = compiled ? ownerOfHost(compiled, domain) : -1;
    const entity = owner >= 0 ? compiled!.entities[owner]! : null;
    return { class: !entity ? "third_party" : entity.kind === "brand" ? "own" : "competitor", competitor_id: entity?.kind === "competitor" ? entity.id : null, category: category(domain) };
  };
}

export async function citationDomains(ctx: InsightsContext, args: InsightArgs) {
  const rows = await ctx.store.domainTotals(args);
  const all = rows.reduce((s, r) => s + r.citations, 0);
  const classify = await sourceClassifier(ctx, args.brandId);
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

export async function citationUrls(ctx: InsightsContext, args: InsightArgs) {
  const rows = await ctx.store.urlTotals(args);
  const classify = await sourceClassifier(ctx, args.brandId);
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
async function runStates(ctx: InsightsContext, args: InsightArgs) {
  const rows = await ctx.store.recentRunAnswers(args);
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
  const states = new Map<string, { platform: string; latest_mentioned: boolean; previous_mentioned: boolean | null; state: RunState; latest_at: string }[]>();
  const lastRunAt = new Map<string, string>();
  for (const [key, byRun] of runs) {
    const [promptId, platform] = key.split("\u0000") as [string, string];
    const [latest, previous] = [...byRun.values()].sort((a, b) => (a.at < b.at ? 1 : -1));
    if ((lastRunAt.get(promptId) ?? "") < latest!.at) lastRunAt.set(promptId, latest!.at);
    const latestMentioned = runMentioned(latest!.mentioned, latest!.answers);
    const previousMentioned = previous ? runMentioned(previous.mentioned, previous.answers) : null;
    const list = states.get(promptId) ?? [];
    list.push({ platform, latest_mentioned: latestMentioned, previous_mentioned: previousMentioned, state: runState(latestMentioned, previousMentioned), latest_at: latest!.at });
    states.set(promptId, list);
  }
  for (const list of states.values()) list.sort((a, b) => a.platform.localeCompare(b.platform));
  return { states, lastRunAt };
}

export async function prompts(ctx: InsightsContext, args: InsightArgs) {
  const list = await ctx.store.prompts(args);
  const sums = new Map((await resultSums(ctx, args, args.window, ["prompt_id"])).map((r) => [String(r.prompt_id), r]));
  const names = new Map((await ctx.store.competitors(args.brandId)).map((c) => [c.id, c.name]));
  const rivals = new Map<string, { name: string; results: number }[]>();
  for (const r of await competitorSums(ctx, args, ["prompt_id", "competitor_id"])) {
    const name = names.get(String(r.competitor_id));
    if (!name) continue;
    const entry = rivals.get(String(r.prompt_id)) ?? [];
    entry.push({ name, results: r.results });
    rivals.set(String(r.prompt_id), entry);
  }
  const { states, lastRunAt } = await runStates(ctx, args);
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

export async function searchQueries(ctx: InsightsContext, args: InsightArgs) {
  return (await ctx.store.searchQueries(args))
    .map((q) => ({ query: q.query, answers: q.answers, platforms: [...q.platforms].sort() }))
    .sort((a, b) => b.answers - a.answers || a.query.localeCompare(b.query));
}

// ---- AI crawlers (issue #21) --------------------------------------------------------------------

/**
 * Per bot and verdict over the window: requests, page hits (not robots.txt, sitemaps or assets),
 * refusals (401, 403, 429), not-founds (404, 410) and server errors (5xx).
 */
export async function crawlers(ctx: InsightsContext, args: InsightArgs) {
  const rows = await ctx.store.crawlerTotals(args);
  return rows
    .map((r) => ({ bot: r.bot || null, operator: r.bot ? identify(r.bot).operator : null, class: r.class, verdict: r.verdict || null, requests: r.requests, pages: r.pages, refused: r.refused, not_found: r.not_found, server_errors: r.server_errors }))
    .sort((a, b) => b.requests - a.requests || String(a.bot).localeCompare(String(b.bot)));
}

/** Crawler requests per period (day buckets by day; whole weeks by week, whole months by month, days at the edges), per bot; every period listed. */
export async function crawlerTrend(ctx: InsightsContext, args: InsightArgs, period: Interval) {
  const rows = await ctx.store.crawlerBuckets({ query: args, interval: period });
  // A year by week is ~750 cells: summed into flat arrays by period and bot index (issue #32: per-row
  // string keys and objects cost more than the rows' read).
  const periods = periodsOf(args.window, period);
  const periodIndex = new Map(periods.map((p, i) => [p, i]));
  const bots = [...new Set(rows.map((r) => r.bot))].sort();
  const botIndex = new Map(bots.map((b, i) => [b, i]));
  const requests = new Float64Array(periods.length * bots.length);
  const pages = new Float64Array(periods.length * bots.length);
  // Rows mostly come in bucket order: a bucket's period is worked out when the bucket changes.
  let bucket: string | undefined;
  let base = -1;
  for (const r of rows) {
    if (r.bucket !== bucket) {
      bucket = r.bucket;
      // A bucket that is a period (a day by day, a week's Monday, a month) is found as it is.
      const index = periodIndex.get(bucket) ?? periodIndex.get(periodOf(bucket, period));
      base = index === undefined ? -1 : index * bots.length;
    }
    if (base < 0) continue;
    const cell = base + botIndex.get(r.bot)!;
    requests[cell]! += r.requests;
    pages[cell]! += r.pages;
  }
  const out: { period: string; bot: string; requests: number; pages: number }[] = [];
  for (let p = 0; p < periods.length; p++) {
    ctx.checkDeadline?.();
    for (let b = 0; b < bots.length; b++) out.push({ period: periods[p]!, bot: bots[b]!, requests: requests[p * bots.length + b]!, pages: pages[p * bots.length + b]! });
  }
  return out;
}

/** The paths each bot requested most in the window (its top `perBot`), with refusals, not-founds and server errors: running totals, two seeks per path whatever the window. */
export async function crawlerPaths(ctx: InsightsContext, args: InsightArgs, perBot = 20) {
  const rows = await ctx.store.crawlerPathTotals(args);
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
