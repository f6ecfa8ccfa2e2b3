// backends: sqlite, postgres
// The insights RPCs (issue #18) end to end, through the real server on 127.0.0.1 and the real
// supabase-js client: a tracking run asked with `samples` against a fake upstream whose answers the
// test writes, and ten weeks of history written through the product's bulk path. Every number an
// RPC returns is compared with a value this file computes itself from the raw rows (prompt_results,
// citations, citation_urls, prompts) — never from the rollups and never with src/insights code —
// for each filter, explicit windows that straddle month boundaries or cover whole months (the
// product reads whole months from monthly rollups and the edges from daily ones), and each trend
// interval and grouping. Dates are UTC days; the default window is the 30 days ending today.
import { openaiAnswer, perplexityAnswer } from "../fakes/answers";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SupabaseClient } from "@supabase/supabase-js";
import type { ResultKey } from "../../src/results/store.sqlite";
import { unpackedSql } from "../../src/db/text-codec";
import type { ResultValues } from "../../src/tracking/unit-runner";
import { jsonResponse, startFakeUpstream, type FakeUpstream, type RecordedRequest } from "../fakes/upstream";
import { testServer } from "../helpers/app";
import { countOf, serverDb, writeResults, type ServerDb } from "../helpers/server-db";
import { seededRandom } from "../helpers/random";
import { client } from "../helpers/supabase";
import { apiClient } from "../helpers/tracking";
import { expectPgrstError, memberOf, rest, serviceClient, signedUpOrg, type Org, type Server } from "../rest/helpers";

// ---- dates (UTC days as YYYY-MM-DD) ----------------------------------------------------------

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (day: string) => Date.parse(`${day}T00:00:00.000Z`);
const plusDays = (day: string, n: number) => isoDay(dayMs(day) + n * DAY_MS);
const todayUtc = () => isoDay(Date.now());
const nextMonthStart = (day: string) => {
  const d = new Date(dayMs(day));
  return isoDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
};
const monthEnd = (day: string) => plusDays(nextMonthStart(day), -1);
/** The Monday starting the ISO week of `day`. */
const mondayOf = (day: string) => plusDays(day, -((new Date(dayMs(day)).getUTCDay() + 6) % 7));
const daysIn = (w: Window) => Math.round((dayMs(w.to) - dayMs(w.from)) / DAY_MS) + 1;

interface Window {
  from: string;
  to: string;
}

type Interval = "day" | "week" | "month";
type GroupBy = "none" | "platform" | "model" | "region" | "topic";

interface Args {
  p_from?: string;
  p_to?: string;
  p_platforms?: string[];
  p_models?: string[];
  p_regions?: string[];
  p_topic_ids?: string[];
  p_prompt_ids?: string[];
  p_branded?: boolean;
  p_interval?: Interval;
  p_group_by?: GroupBy;
}

/** The window an RPC call covers: p_to (default today), p_from (default 29 days before p_to). */
function windowOf(args: Args, today: string): Window {
  const to = args.p_to ?? today;
  return { from: args.p_from ?? plusDays(to, -29), to };
}

/** The window of the same length ending the day before `w` starts. */
function previousOf(w: Window): Window {
  return { from: plusDays(w.from, -daysIn(w)), to: plusDays(w.from, -1) };
}

function periodOf(day: string, interval: Interval): string {
  return interval === "day" ? day : interval === "week" ? mondayOf(day) : day.slice(0, 7);
}

/** Every period a window touches, in order. */
function periodsOf(w: Window, interval: Interval): string[] {
  const out: string[] = [];
  if (interval === "day") for (let d = w.from; d <= w.to; d = plusDays(d, 1)) out.push(d);
  else if (interval === "week") for (let d = mondayOf(w.from); d <= w.to; d = plusDays(d, 7)) out.push(d);
  else for (let d = `${w.from.slice(0, 7)}-01`; d <= w.to; d = nextMonthStart(d)) out.push(d.slice(0, 7));
  return out;
}

// ---- statistics, written here from the textbook formulas ---------------------------------------

const Z = 1.959964;

interface Rate {
  value: number | null;
  n: number;
  ci_low: number | null;
  ci_high: number | null;
}

/** Wilson score interval (95 %) for x successes in n. */
function wilson(x: number, n: number): Rate {
  if (n <= 0) return { value: null, n: 0, ci_low: null, ci_high: null };
  const p = x / n;
  const z2 = Z * Z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { value: p, n, ci_low: Math.max(0, centre - half), ci_high: Math.min(1, centre + half) };
}

/** Newcombe's hybrid score interval (method 10) for p1 − p2, and the verdict it gives. */
function newcombe(x1: number, n1: number, x2: number, n2: number) {
  if (n1 <= 0 || n2 <= 0) return { delta: null, ci_low: null, ci_high: null, verdict: "insufficient_data" };
  const a = wilson(x1, n1);
  const b = wilson(x2, n2);
  const p1 = a.value!;
  const p2 = b.value!;
  const delta = p1 - p2;
  const low = delta - Math.sqrt((p1 - a.ci_low!) ** 2 + (b.ci_high! - p2) ** 2);
  const high = delta + Math.sqrt((a.ci_high! - p1) ** 2 + (p2 - b.ci_low!) ** 2);
  return { delta, ci_low: low, ci_high: high, verdict: low > 0 ? "up" : high < 0 ? "down" : "within_noise" };
}

const ratio = (x: number, n: number) => (n > 0 ? x / n : null);

// ---- the raw rows ----------------------------------------------------------------------------

interface Answer {
  id: string;
  job_id: string | null;
  prompt_id: string;
  platform: string;
  model: string;
  region: string;
  sample: number;
  reported_model: string;
  mentioned: boolean;
  mention_count: number;
  mention_position: number | null;
  competitors: unknown[];
  citations: unknown[];
  citation_count: number;
  brand_citation_count: number;
  sentiment: string | null;
  sentiment_score: number | null;
  visibility_score: number | null;
  search_queries: unknown;
  created_at: string;
  day: string;
}

interface CitationRow {
  result_id: string;
  created_at: string;
  domain: string;
  url: string;
  normalized_url: string;
  title: string | null;
}

interface PromptRow {
  id: string;
  text: string;
  topic_id: string | null;
  is_active: boolean;
  /** What the test expects is_branded to be (checked against the product separately). */
  branded: boolean;
}

interface World {
  brandId: string;
  brandName: string;
  brandDomains: string[];
  competitors: { id: string; name: string; domain: string | null; created_at: string }[];
  prompts: Map<string, PromptRow>;
  answers: Answer[];
  byId: Map<string, Answer>;
  citationRows: CitationRow[];
}

function parseList(text: unknown): unknown[] {
  try {
    const value = typeof text === "string" ? JSON.parse(text) : text;
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
/** A JSON value read as an integer the way SQL's CAST(… AS INTEGER) reads whole numbers; anything else adds 0. */
const asInt = (v: unknown) => (typeof v === "number" ? Math.trunc(v) : typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : 0);

/** Everything of a brand, straight from the tables the product writes (raw rows, not rollups). */
/** A JSON or stored-text column as the text SQLite gives (its answers and citations are stored compressed there; jsonb on Postgres). */
const textOf = (db: ServerDb, column: string, compressed = false) => (db.backend === "postgres" ? `CAST(${column} AS text)` : compressed ? unpackedSql(column) : column);

/** A timestamp as either backend's harness returns it (a Date, ISO text, or Postgres' "… +00"), as ISO. */
const instant = (v: unknown) => (v instanceof Date ? v : new Date(String(v).replace(" ", "T").replace(/\+00(:00)?$/, "Z"))).toISOString();

async function loadWorld(server: Server, brandId: string, branded: (text: string) => boolean): Promise<World> {
  const db = await serverDb(server);
  const [brand] = await db.inspect<{ name: string }>("SELECT name FROM brands WHERE id = ?", brandId);
  const brandDomains = (await db.inspect<{ domain: string }>("SELECT domain FROM brand_domains WHERE brand_id = ?", brandId)).map((d) => d.domain);
  const competitors = (await db.inspect<{ id: string; name: string; domain: string | null; created_at: unknown }>("SELECT id, name, domain, created_at FROM competitors WHERE brand_id = ?", brandId)).map((c) => ({ ...c, created_at: instant(c.created_at) }));
  const prompts = new Map(
    (await db.inspect<{ id: string; text: string; topic_id: string | null; is_active: number }>("SELECT id, text, topic_id, is_active FROM prompts WHERE brand_id = ?", brandId)).map((p) => [
      p.id,
      { id: p.id, text: p.text, topic_id: p.topic_id, is_active: !!p.is_active, branded: branded(p.text) },
    ]),
  );
  const raw = await db.inspect<Record<string, any>>(
    `SELECT id, job_id, prompt_id, platform, model, region, sample, reported_model, mentioned, mention_count, mention_position, ${textOf(db, "competitor_mentions")} AS competitor_mentions,
            ${textOf(db, "citations", true)} AS citations, citation_count, brand_citation_count, sentiment, sentiment_score, visibility_score, ${textOf(db, "search_queries")} AS search_queries, created_at
       FROM prompt_results WHERE brand_id = ?`,
    brandId,
  );
  const answers: Answer[] = raw.map((r) => ({
    id: r.id,
    job_id: r.job_id,
    prompt_id: r.prompt_id,
    platform: r.platform,
    model: r.model,
    region: r.region,
    sample: r.sample,
    reported_model: r.reported_model,
    mentioned: !!r.mentioned,
    mention_count: r.mention_count ?? 0,
    mention_position: r.mention_position,
    competitors: parseList(r.competitor_mentions),
    citations: parseList(r.citations),
    citation_count: r.citation_count ?? 0,
    brand_citation_count: r.brand_citation_count ?? 0,
    sentiment: r.sentiment,
    sentiment_score: r.sentiment_score,
    visibility_score: r.visibility_score,
    search_queries: (() => {
      try {
        return JSON.parse(r.search_queries);
      } catch {
        return null;
      }
    })(),
    created_at: r.created_at,
    day: String(r.created_at).slice(0, 10),
  }));
  const citationRows = await db.inspect<CitationRow>(
    `SELECT c.result_id, c.created_at, c.domain, coalesce(u.url, c.url) AS url, coalesce(u.normalized_url, c.normalized_url) AS normalized_url,
            nullif(coalesce(u.title, c.title), '') AS title
       FROM citations AS c LEFT JOIN citation_urls AS u ON u.id = c.url_id WHERE c.brand_id = ?`,
    brandId,
  );
  return { brandId, brandName: brand.name, brandDomains, competitors, prompts, answers, byId: new Map(answers.map((a) => [a.id, a])), citationRows };
}

function promptPasses(p: PromptRow | undefined, args: Args): boolean {
  if (args.p_topic_ids && !(p?.topic_id && args.p_topic_ids.includes(p.topic_id))) return false;
  if (args.p_prompt_ids && !(p && args.p_prompt_ids.includes(p.id))) return false;
  if (args.p_branded !== undefined && (!p || p.branded !== args.p_branded)) return false;
  return true;
}

function passes(w: World, a: Answer, args: Args): boolean {
  if (args.p_platforms && !args.p_platforms.includes(a.platform)) return false;
  if (args.p_models && !args.p_models.includes(a.model)) return false;
  if (args.p_regions && !args.p_regions.includes(a.region)) return false;
  return promptPasses(w.prompts.get(a.prompt_id), args);
}

const within = (day: string, w: Window) => day >= w.from && day <= w.to;
const selectAnswers = (w: World, args: Args, win: Window) => w.answers.filter((a) => within(a.day, win) && passes(w, a, args));

interface Sums {
  n: number;
  mentioned: number;
  mentionSum: number;
  positionSum: number;
  positionN: number;
  cited: number;
  citationSum: number;
  brandCitationSum: number;
  rivalMentions: number;
  sentimentSum: number;
  sentimentN: number;
  positive: number;
  neutral: number;
  negative: number;
  visibilitySum: number;
  visibilityN: number;
}

/** The measures of a set of answers, from their columns. */
function measure(rows: Answer[]): Sums {
  const s: Sums = { n: 0, mentioned: 0, mentionSum: 0, positionSum: 0, positionN: 0, cited: 0, citationSum: 0, brandCitationSum: 0, rivalMentions: 0, sentimentSum: 0, sentimentN: 0, positive: 0, neutral: 0, negative: 0, visibilitySum: 0, visibilityN: 0 };
  for (const a of rows) {
    s.n++;
    if (a.mentioned) s.mentioned++;
    s.mentionSum += a.mention_count;
    if (a.mention_position !== null) (s.positionSum += a.mention_position), s.positionN++;
    if (a.brand_citation_count > 0) s.cited++;
    s.citationSum += a.citation_count;
    s.brandCitationSum += a.brand_citation_count;
    for (const e of a.competitors) if (isObject(e)) s.rivalMentions += asInt(e.mention_count);
    if (a.sentiment_score !== null) (s.sentimentSum += a.sentiment_score), s.sentimentN++;
    if (a.sentiment === "positive") s.positive++;
    if (a.sentiment === "neutral") s.neutral++;
    if (a.sentiment === "negative") s.negative++;
    if (a.visibility_score !== null) (s.visibilitySum += a.visibility_score), s.visibilityN++;
  }
  return s;
}

const sov = (s: Sums) => ratio(s.mentionSum, s.mentionSum + s.rivalMentions);

// ---- expected values of each RPC ---------------------------------------------------------------

function expectedOverview(w: World, args: Args, today: string) {
  const win = windowOf(args, today);
  const prev = previousOf(win);
  const now = selectAnswers(w, args, win);
  const before = selectAnswers(w, args, prev);
  const s = measure(now);
  const b = measure(before);
  // The change: only the (prompt, platform) pairs answered in both windows.
  const pair = (a: Answer) => `${a.prompt_id}|${a.platform}`;
  const pairsNow = new Set(now.map(pair));
  const pairsBefore = new Set(before.map(pair));
  const pairedNow = now.filter((a) => pairsBefore.has(pair(a)));
  const pairedBefore = before.filter((a) => pairsNow.has(pair(a)));
  // Each pair weighs the same in both windows: the answers it has in the window where it has fewer
  // (its measures scaled down in the other).
  const cs = measure([]);
  const cb = measure([]);
  for (const key of pairsNow) {
    if (!pairsBefore.has(key)) continue;
    const [sn, sb] = [measure(pairedNow.filter((a) => pair(a) === key)), measure(pairedBefore.filter((a) => pair(a) === key))];
    const weight = Math.min(sn.n, sb.n);
    for (const [into, from] of [[cs, sn], [cb, sb]] as const) for (const k of Object.keys(into) as (keyof Sums)[]) into[k] += from[k] * (weight / from.n);
  }
  const models = (rows: Answer[]) => new Set(rows.map((a) => `${a.platform}|${a.reported_model}`));
  const [mNow, mBefore] = [models(pairedNow), models(pairedBefore)];
  const modelChanged = mNow.size !== mBefore.size || [...mNow].some((m) => !mBefore.has(m));
  const rate = (pick: (s: Sums) => [number, number]) => {
    const [x, n] = pick(s);
    const [px, pn] = pick(b);
    const [cx, cn] = pick(cs);
    const [bx, bn] = pick(cb);
    return { ...wilson(x, n), previous: wilson(px, pn), change: { ...newcombe(cx, cn, bx, bn), n_current: Math.round(cn), n_previous: Math.round(bn), model_changed: modelChanged } };
  };
  const sovOf = (m: Sums) => ({ value: sov(m), brand_mentions: m.mentionSum, total_mentions: m.mentionSum + m.rivalMentions, n: m.n });
  const pairedSov = [sov(cs), sov(cb)];
  const mean = (sum: number, n: number) => ({ value: ratio(sum, n), n });
  const sentiment = (m: Sums) => ({ ...mean(m.sentimentSum, m.sentimentN), positive: m.positive, neutral: m.neutral, negative: m.negative });
  return {
    window: win,
    previous: prev,
    answers: s.n,
    visibility_rate: rate((m) => [m.mentioned, m.n]),
    citation_share: rate((m) => [m.brandCitationSum, m.citationSum]),
    brand_cited_rate: rate((m) => [m.cited, m.n]),
    share_of_voice: {
      ...sovOf(s),
      previous: sovOf(b),
      change: { delta: pairedSov[0] !== null && pairedSov[1] !== null ? pairedSov[0] - pairedSov[1] : null },
    },
    avg_position: { ...mean(s.positionSum, s.positionN), previous: mean(b.positionSum, b.positionN) },
    avg_visibility_score: { ...mean(s.visibilitySum, s.visibilityN), previous: mean(b.visibilitySum, b.visibilityN) },
    sentiment: { ...sentiment(s), previous: sentiment(b) },
  };
}

function expectedTrend(w: World, args: Args, today: string) {
  const interval = args.p_interval ?? "day";
  const groupBy = args.p_group_by ?? "none";
  const win = windowOf(args, today);
  const rows = selectAnswers(w, args, win);
  const groupOf = (a: Answer): string | null =>
    groupBy === "none" ? null : groupBy === "topic" ? (w.prompts.get(a.prompt_id)?.topic_id ?? null) : (a[groupBy] as string);
  const groups = groupBy === "none" ? [null] : [...new Set(rows.map(groupOf))];
  const out: Record<string, unknown>[] = [];
  for (const period of periodsOf(win, interval))
    for (const group of groups) {
      const s = measure(rows.filter((a) => periodOf(a.day, interval) === period && groupOf(a) === group));
      const v = wilson(s.mentioned, s.n);
      out.push({
        period,
        group,
        answers: s.n,
        mentioned: s.mentioned,
        visibility_rate: v.value,
        ci_low: v.ci_low,
        ci_high: v.ci_high,
        share_of_voice: sov(s),
        avg_position: ratio(s.positionSum, s.positionN),
        citation_share: ratio(s.brandCitationSum, s.citationSum),
        avg_sentiment: ratio(s.sentimentSum, s.sentimentN),
      });
    }
  return out;
}

/** The brand's row first, then one per competitor (compared by id). */
function expectedCompetitors(w: World, args: Args, today: string) {
  const rows = selectAnswers(w, args, windowOf(args, today));
  const s = measure(rows);
  const allMentions = s.mentionSum + s.rivalMentions;
  const v = wilson(s.mentioned, s.n);
  const brandRow = {
    entity_id: w.brandId,
    name: w.brandName,
    is_brand: true,
    answers_mentioning: s.mentioned,
    visibility_rate: v.value,
    ci_low: v.ci_low,
    ci_high: v.ci_high,
    n: s.n,
    mentions: s.mentionSum,
    share_of_voice: ratio(s.mentionSum, allMentions),
    avg_position: ratio(s.positionSum, s.positionN),
    both: null,
    only_brand: null,
    only_competitor: null,
    counted_from: null,
  };
  const rivals = w.competitors.map((c) => {
    // Added inside the window: counted from the day it was added (the answers of that day on).
    const addedDay = c.created_at.slice(0, 10);
    const countedFrom = addedDay > windowOf(args, today).from ? addedDay : null;
    const scoped = countedFrom === null ? rows : rows.filter((a) => a.day >= countedFrom);
    const sc = countedFrom === null ? s : measure(scoped);
    let mentioning = 0;
    let mentions = 0;
    let positionSum = 0;
    let positionN = 0;
    let both = 0;
    for (const a of scoped) {
      const entries = a.competitors.filter((e): e is Record<string, unknown> => isObject(e) && e.competitor_id === c.id);
      if (!entries.length) continue;
      mentioning++;
      if (a.mentioned) both++;
      for (const e of entries) {
        mentions += asInt(e.mention_count);
        if (e.position !== undefined && e.position !== null) (positionSum += asInt(e.position)), positionN++;
      }
    }
    const r = wilson(mentioning, sc.n);
    return {
      entity_id: c.id,
      name: c.name,
      is_brand: false,
      answers_mentioning: mentioning,
      visibility_rate: r.value,
      ci_low: r.ci_low,
      ci_high: r.ci_high,
      n: sc.n,
      mentions,
      share_of_voice: ratio(mentions, allMentions),
      avg_position: ratio(positionSum, positionN),
      both,
      only_brand: sc.mentioned - both,
      only_competitor: mentioning - both,
      counted_from: countedFrom,
    };
  });
  return { brandRow, rivals };
}

/** Source categories of the domains this file cites, from the shipped list's documentation. */
const CATEGORY: Record<string, string> = {
  "reddit.com": "forum",
  "wikipedia.org": "reference",
  "g2.com": "review",
  "youtube.com": "social",
  "techcrunch.com": "editorial",
  "cdc.gov": "institutional",
  "crm-notes.net": "other",
  "northwind.com": "other",
  "docs.northwind.com": "other",
  "contoso.com": "other",
  "fabrikam.com": "other",
  "acme.com": "other",
  "globex.com": "other",
};

const belongs = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

function classOf(w: World, domain: string): { class: string; competitor_id: string | null; category: string } {
  const category = CATEGORY[domain];
  if (!category) throw new Error(`the test has no expected category for ${domain}`);
  if (w.brandDomains.some((d) => belongs(domain, d))) return { class: "own", competitor_id: null, category };
  const rival = w.competitors.find((c) => c.domain && belongs(domain, c.domain));
  return rival ? { class: "competitor", competitor_id: rival.id, category } : { class: "third_party", competitor_id: null, category };
}

function expectedDomains(w: World, args: Args, today: string) {
  const rows = selectAnswers(w, args, windowOf(args, today));
  const byDomain = new Map<string, { citations: number; answers: Set<string>; prompts: Set<string>; mentioned: Set<string> }>();
  let all = 0;
  for (const a of rows)
    for (const c of a.citations) {
      if (!isObject(c) || typeof c.domain !== "string") continue;
      const d = byDomain.get(c.domain) ?? { citations: 0, answers: new Set(), prompts: new Set(), mentioned: new Set() };
      d.citations++;
      d.answers.add(a.id);
      d.prompts.add(a.prompt_id);
      if (a.mentioned) d.mentioned.add(a.id);
      byDomain.set(c.domain, d);
      all++;
    }
  return [...byDomain].map(([domain, d]) => ({
    domain,
    ...classOf(w, domain),
    citations: d.citations,
    answers: d.answers.size,
    prompts: d.prompts.size,
    share: d.citations / all,
    brand_mentioned_rate: d.mentioned.size / d.answers.size,
  }));
}

/** Citation URLs from the citations table (created_at in the window), keyed by normalized URL. */
function expectedUrls(w: World, args: Args, today: string) {
  const win = windowOf(args, today);
  const groups = new Map<string, CitationRow[]>();
  for (const c of w.citationRows) {
    const answer = w.byId.get(c.result_id);
    if (!answer || !within(c.created_at.slice(0, 10), win) || !passes(w, answer, args)) continue;
    groups.set(c.normalized_url, [...(groups.get(c.normalized_url) ?? []), c]);
  }
  return [...groups].map(([normalized, list]) => {
    const titles = list.map((c) => c.title).filter((t): t is string => !!t).sort();
    const times = list.map((c) => c.created_at).sort();
    return {
      normalized,
      urls: new Set(list.map((c) => c.url)),
      row: {
        domain: list[0]!.domain,
        title: titles.at(-1) ?? null,
        ...classOf(w, list[0]!.domain),
        citations: list.length,
        answers: new Set(list.map((c) => c.result_id)).size,
        // Days: the first and last day the page was cited inside the window.
        first_seen: times[0]!.slice(0, 10),
        last_seen: times.at(-1)!.slice(0, 10),
      },
    };
  });
}

const runMentions = (mentioned: number, answers: number) => answers > 0 && 2 * mentioned >= answers;

function expectedPrompts(w: World, args: Args, today: string, options: { lastRunAt: boolean }) {
  const win = windowOf(args, today);
  const end = `${plusDays(win.to, 1)}T00:00:00.000Z`;
  const filtered = w.answers.filter((a) => passes(w, a, args));
  const inWindow = filtered.filter((a) => within(a.day, win));
  return [...w.prompts.values()]
    .filter((p) => promptPasses(p, args) && (p.is_active || inWindow.some((a) => a.prompt_id === p.id)))
    .map((p) => {
      const rows = inWindow.filter((a) => a.prompt_id === p.id);
      const s = measure(rows);
      const v = wilson(s.mentioned, s.n);
      const naming = new Map<string, number>();
      for (const a of rows)
        for (const id of new Set(a.competitors.filter(isObject).map((e) => e.competitor_id))) if (typeof id === "string") naming.set(id, (naming.get(id) ?? 0) + 1);
      const top = w.competitors
        .filter((c) => naming.has(c.id))
        .map((c) => ({ name: c.name, answers_mentioning: naming.get(c.id)!, visibility_rate: naming.get(c.id)! / s.n }))
        .sort((a, b) => b.answers_mentioning - a.answers_mentioning || a.name.localeCompare(b.name))
        .slice(0, 3);
      // Runs: the answers of one job (an answer without a job is a run of its own), up to the window's end.
      const history = filtered.filter((a) => a.prompt_id === p.id && a.created_at < end);
      const runs = [...new Set(history.map((a) => a.platform))].sort().map((platform) => {
        const byRun = new Map<string, { at: string; mentioned: number; answers: number }>();
        for (const a of history.filter((x) => x.platform === platform)) {
          const run = byRun.get(a.job_id ?? a.id) ?? { at: a.created_at, mentioned: 0, answers: 0 };
          run.at = run.at > a.created_at ? run.at : a.created_at;
          run.mentioned += a.mentioned ? 1 : 0;
          run.answers++;
          byRun.set(a.job_id ?? a.id, run);
        }
        const [latest, previous] = [...byRun.values()].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
        const latestMentioned = runMentions(latest!.mentioned, latest!.answers);
        const previousMentioned = previous ? runMentions(previous.mentioned, previous.answers) : null;
        const state = previousMentioned === null ? "new" : latestMentioned ? (previousMentioned ? "kept" : "gained") : previousMentioned ? "lost" : "absent";
        return { platform, latest_mentioned: latestMentioned, previous_mentioned: previousMentioned, state };
      });
      const newest = filtered.filter((a) => a.prompt_id === p.id).map((a) => a.created_at).sort().at(-1) ?? null;
      return {
        prompt_id: p.id,
        text: p.text,
        topic_id: p.topic_id,
        is_branded: p.branded,
        answers: s.n,
        mentioned: s.mentioned,
        visibility_rate: v.value,
        ci_low: v.ci_low,
        ci_high: v.ci_high,
        avg_position: ratio(s.positionSum, s.positionN),
        top_competitors: top,
        runs,
        ...(options.lastRunAt ? { last_run_at: newest } : {}),
      };
    });
}

function expectedSearchQueries(w: World, args: Args, today: string) {
  const rows = selectAnswers(w, args, windowOf(args, today));
  const byQuery = new Map<string, { answers: Set<string>; platforms: Set<string> }>();
  for (const a of rows)
    for (const q of Array.isArray(a.search_queries) ? a.search_queries : []) {
      if (typeof q !== "string" || q.trim() === "") continue;
      const entry = byQuery.get(q) ?? { answers: new Set(), platforms: new Set() };
      entry.answers.add(a.id);
      entry.platforms.add(a.platform);
      byQuery.set(q, entry);
    }
  return [...byQuery].map(([query, e]) => ({ query, answers: e.answers.size, platforms: [...e.platforms].sort() }));
}

// ---- comparing -------------------------------------------------------------------------------

/** Differences between an answer and the expected value: numbers to 1e-9 (relative), keys the expectation names. */
function diff(actual: unknown, expected: unknown, path: string, out: string[] = []): string[] {
  if (typeof expected === "number") {
    if (typeof actual !== "number" || !(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)))) out.push(`${path}: got ${JSON.stringify(actual)}, expected ${expected}`);
  } else if (expected === null || typeof expected !== "object") {
    if (actual !== expected) out.push(`${path}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  } else if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) out.push(`${path}: got ${JSON.stringify(actual)?.slice(0, 300)}, expected ${JSON.stringify(expected).slice(0, 300)}`);
    else expected.forEach((e, i) => diff(actual[i], e, `${path}[${i}]`, out));
  } else if (!isObject(actual)) out.push(`${path}: got ${JSON.stringify(actual)?.slice(0, 200)}, expected an object`);
  else for (const [k, v] of Object.entries(expected)) k in actual ? diff(actual[k], v, `${path}.${k}`, out) : out.push(`${path}.${k}: missing`);
  return out;
}

function diffKeyed(label: string, actual: unknown, expected: Record<string, unknown>[], key: (row: any) => string, out: string[] = [], expectedKey = key): string[] {
  if (!Array.isArray(actual)) return [...out, `${label}: not a list: ${JSON.stringify(actual)?.slice(0, 300)}`];
  const got = new Map(actual.map((r) => [key(r), r]));
  const want = new Map(expected.map((r) => [expectedKey(r), r]));
  if (got.size !== actual.length) out.push(`${label}: ${actual.length - got.size} duplicate rows`);
  for (const k of want.keys()) if (!got.has(k)) out.push(`${label} [${k}]: missing row`);
  for (const [k, row] of got) if (!want.has(k)) out.push(`${label} [${k}]: unexpected row ${JSON.stringify(row).slice(0, 200)}`);
  for (const [k, row] of want) if (got.has(k)) diff(got.get(k), row, `${label} [${k}]`, out);
  return out;
}

/** One assertion per check: every difference listed (the first 40), so a failure says what and where. */
function expectNoDiff(diffs: string[]) {
  expect(diffs.slice(0, 40)).toEqual([]);
}

async function rpc(sb: SupabaseClient, name: string, args: Record<string, unknown>): Promise<any> {
  const { data, error, status } = await sb.rpc(name, args);
  if (error) throw new Error(`${name}(${JSON.stringify(args)}) → ${status} ${JSON.stringify(error)}`);
  return data;
}

const RPCS = ["insights_overview", "insights_trend", "insights_competitors", "insights_citation_domains", "insights_citation_urls", "insights_prompts", "insights_search_queries"] as const;
type RpcName = (typeof RPCS)[number];

/** Calls one RPC as `sb` and lists its differences from the values computed from the raw rows. */
async function check(sb: SupabaseClient, w: World, name: RpcName, args: Args, label: string): Promise<string[]> {
  const today = todayUtc();
  // p_interval and p_group_by are insights_trend's own parameters.
  if (name !== "insights_trend") args = Object.fromEntries(Object.entries(args).filter(([k]) => k !== "p_interval" && k !== "p_group_by"));
  const actual = await rpc(sb, name, { p_brand_id: w.brandId, ...args });
  const tag = `${name} ${label}`;
  switch (name) {
    case "insights_overview": {
      const expected: any = expectedOverview(w, args, today);
      // share_of_voice.change has a test of its own (which pairs it compares).
      delete expected.share_of_voice.change;
      return diff(actual, expected, tag);
    }
    case "insights_trend": {
      const expected = expectedTrend(w, args, today);
      const out: string[] = [];
      const periods = Array.isArray(actual) ? [...new Set(actual.map((r: any) => r.period))] : [];
      const wantPeriods = [...new Set(expected.map((r) => r.period as string))];
      if (JSON.stringify(periods) !== JSON.stringify(wantPeriods)) out.push(`${tag}: periods ${JSON.stringify(periods)} ≠ ${JSON.stringify(wantPeriods)}`);
      return diffKeyed(tag, actual, expected, (r) => `${r.period}|${r.group}`, out);
    }
    case "insights_competitors": {
      const { brandRow, rivals } = expectedCompetitors(w, args, today);
      if (!Array.isArray(actual) || !actual.length) return [`${tag}: no rows: ${JSON.stringify(actual)}`];
      const out = diff(actual[0], brandRow, `${tag} [brand row first]`);
      return diffKeyed(tag, actual.slice(1), rivals, (r) => r.entity_id, out);
    }
    case "insights_citation_domains":
      return diffKeyed(tag, actual, expectedDomains(w, args, today), (r) => r.domain);
    case "insights_citation_urls": {
      const expected = expectedUrls(w, args, today);
      const normalizedOf = new Map(w.citationRows.map((c) => [c.url, c.normalized_url]));
      const out: string[] = [];
      for (const e of expected) {
        const row = Array.isArray(actual) ? actual.find((r: any) => normalizedOf.get(r.url) === e.normalized) : undefined;
        if (row && !e.urls.has(row.url)) out.push(`${tag} [${e.normalized}]: url ${row.url} is none of the cited ones`);
      }
      const rows = expected.map((e) => e.row);
      return diffKeyed(tag, actual, rows, (r) => normalizedOf.get(r.url) ?? `?${r.url}`, out, (r) => expected[rows.indexOf(r)]!.normalized);
    }
    case "insights_prompts":
      return diffKeyed(tag, actual, expectedPrompts(w, args, today, { lastRunAt: (args.p_to ?? today) >= today }), (r) => r.prompt_id);
    case "insights_search_queries":
      return diffKeyed(tag, actual, expectedSearchQueries(w, args, today), (r) => r.query);
  }
}

// ---- the server, the fake engines, the organizations -----------------------------------------

let fake: FakeUpstream;
let server: Server;
let owner: Org;
let stranger: Org;

beforeAll(async () => {
  fake = await startFakeUpstream();
  server = await testServer({ ...fake.env(), WORKERS: "2", TRACKING_RETRY_BASE_MS: "50" });
  owner = await signedUpOrg(server, "Insights Co");
  stranger = await signedUpOrg(server, "Someone Else");
  await seedHistory();
});

afterAll(async () => {
  if (server) await (await serverDb(server)).close();
  await server?.stop();
  await fake?.stop();
});

async function created<T = any>(label: string, promise: PromiseLike<{ data: any; error: any }>): Promise<T> {
  const { data, error } = await promise;
  if (error) throw new Error(`${label}: ${JSON.stringify(error)}`);
  return data as T;
}

// ---- 1. a real run with samples against the fake engines -------------------------------------

const LIVE_PROMPTS = ["Which project tool suits a five-person agency?", "What planning software do remote teams like?", "Is Acme a good fit for consultancies?"];

/** Three answers the fake gives, in each provider's wire format: two name Acme, one only its rivals. */
const LIVE_ANSWERS = [
  {
    text: "Acme is the pick most reviewers make for small teams, ahead of Globex. Its planner is simple.",
    cites: [
      { url: "https://acme.com/pricing", title: "Acme pricing" },
      { url: "https://www.reddit.com/r/projectmanagement/comments/xyz/which_tool/", title: "Which tool? : r/projectmanagement" },
    ],
    query: "best project tool small agency",
  },
  {
    text: "Globex and Initech both do the job; Initech is the cheaper of the two for most teams.",
    cites: [
      { url: "https://globex.com/compare", title: "Globex vs the rest" },
      { url: "https://en.wikipedia.org/wiki/Project_management_software", title: "Project management software - Wikipedia" },
    ],
    query: "globex vs initech pricing",
  },
  {
    text: "Teams that outgrow spreadsheets usually move to Acme (acme.com) or to Initech.",
    cites: [{ url: "https://www.g2.com/categories/project-management", title: "Best Project Management Software | G2" }],
    query: "project tool reviews",
  },
];

/**
 * Which answer each ask gets. Phase 1: asks cycle through the three answers (so a unit's three
 * samples get one each), except prompt 1 on perplexity which never names Acme. Phase 2: prompt 0
 * never names Acme, prompt 1 always does, prompt 2 keeps cycling. The runs' states follow.
 */
let livePhase = 1;
const askCounts = new Map<string, number>();
function liveResponder(platform: "chatgpt" | "perplexity") {
  return (req: RecordedRequest): Response => {
    const body = JSON.stringify(req.body);
    const prompt = LIVE_PROMPTS.findIndex((p) => body.includes(p));
    if (req.method !== "POST" || prompt < 0) return jsonResponse({ error: { message: `unexpected ${req.method} ${req.path}` } }, 400);
    const key = `${platform}|${prompt}`;
    const count = askCounts.get(key) ?? 0;
    askCounts.set(key, count + 1);
    const variant = livePhase === 1 ? (prompt === 1 && platform === "perplexity" ? 1 : count % 3) : prompt === 0 ? 1 : prompt === 1 ? 0 : count % 3;
    return jsonResponse(platform === "chatgpt" ? openaiAnswer(LIVE_ANSWERS[variant]!) : perplexityAnswer(LIVE_ANSWERS[variant]!));
  };
}

describe("samples: a tracking run asks each prompt × platform × model × region several times", () => {
  let live: { brandId: string; promptIds: string[] };
  const jobs: string[] = [];
  const liveBranded = (text: string) => /\bacme\b/i.test(text);

  beforeAll(async () => {
    const sb = owner.owner;
    const brand = await created("brand", sb.from("brands").insert({ organization_id: owner.id, name: "Acme", slug: "acme-live", industry: "software", region: "US", language: "en" }).select().single());
    await created("domain", sb.from("brand_domains").insert({ brand_id: brand.id, domain: "acme.com", is_primary: true }));
    await created("competitors", sb.from("competitors").insert([{ brand_id: brand.id, name: "Globex", domain: "globex.com" }, { brand_id: brand.id, name: "Initech", domain: "initech.com" }]));
    const set = await created("set", sb.from("prompt_sets").insert({ brand_id: brand.id, name: "Live" }).select().single());
    const prompts: { id: string; text: string }[] = [];
    // One by one, so created_at orders them as LIVE_PROMPTS does.
    for (const text of LIVE_PROMPTS) prompts.push(await created("prompt", sb.from("prompts").insert({ prompt_set_id: set.id, brand_id: brand.id, text }).select("id, text").single()));
    live = { brandId: brand.id, promptIds: prompts.map((p) => p.id) };
    fake.setBehavior("chatgpt", { respond: liveResponder("chatgpt") });
    fake.setBehavior("perplexity", { respond: liveResponder("perplexity") });
  });

  type UnitRow = { id: string; prompt_id: string; platform: string; model: string; region: string; sample: number; mentioned: number; competitor_mentions: string; response: string; citation_count: number };
  const unitRows = async (jobId: string) => {
    const db = await serverDb(server);
    return db.inspect<UnitRow>(
      `SELECT id, prompt_id, platform, model, region, sample, mentioned, ${textOf(db, "competitor_mentions")} AS competitor_mentions, ${textOf(db, "response", true)} AS response, citation_count FROM prompt_results WHERE job_id = ?`,
      jobId,
    );
  };

  function samplesPerUnit(rows: UnitRow[]) {
    const units = new Map<string, number[]>();
    for (const r of rows) units.set(`${r.prompt_id}|${r.platform}|${r.model}|${r.region}`, [...(units.get(`${r.prompt_id}|${r.platform}|${r.model}|${r.region}`) ?? []), r.sample]);
    return units;
  }

  test("samples: 3 in POST /api/tracking/start writes three rows per prompt × platform × model × region, with sample 0, 1 and 2, each its own row", async () => {
    const api = apiClient(server.url, owner.ownerToken);
    const started = await api.start({ brandId: live.brandId, platforms: ["chatgpt", "perplexity"], samples: 3 });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ success: true, units: 18 });
    jobs.push(started.body.jobId);
    const { job } = await api.waitFor(started.body.jobId);
    expect(job.status).toBe("completed");
    expect(job.result.units).toMatchObject({ total: 18, answered: 18, failed: 0 });
    expect(fake.requestsFor("chatgpt")).toHaveLength(9);
    expect(fake.requestsFor("perplexity")).toHaveLength(9);

    const rows = await unitRows(started.body.jobId);
    expect(rows).toHaveLength(18);
    expect(new Set(rows.map((r) => r.id)).size).toBe(18);
    const units = samplesPerUnit(rows);
    expect(units.size).toBe(6); // 3 prompts × 2 platforms × 1 model × 1 region
    for (const samples of units.values()) expect(samples.sort()).toEqual([0, 1, 2]);
    for (const p of live.promptIds) expect(new Set(rows.filter((r) => r.prompt_id === p).map((r) => r.platform))).toEqual(new Set(["chatgpt", "perplexity"]));
  });

  test("the answers the fake gave are what was analysed: a row mentions Acme exactly when its answer names it, rivals when it names them, and every row has its citations", async () => {
    const rows = await unitRows(jobs[0]!);
    expect(rows.length).toBe(18);
    for (const r of rows) {
      expect({ response: r.response, mentioned: !!r.mentioned }).toEqual({ response: r.response, mentioned: /\bAcme\b/.test(r.response) });
      const rivals = parseList(r.competitor_mentions).filter(isObject).map((e) => e.name).sort();
      expect(rivals).toEqual(["Globex", "Initech"].filter((n) => r.response.includes(n)));
      expect(r.citation_count).toBeGreaterThan(0);
    }
    // Each unit's three samples got the three answers: two of three name Acme (prompt 1 on perplexity: none).
    for (const [i, p] of live.promptIds.entries())
      for (const platform of ["chatgpt", "perplexity"]) {
        const mentioned = rows.filter((r) => r.prompt_id === p && r.platform === platform && r.mentioned).length;
        expect({ prompt: i, platform, mentioned }).toEqual({ prompt: i, platform, mentioned: i === 1 && platform === "perplexity" ? 0 : 2 });
      }
  });

  test("samples outside 1–10 (or not a whole number) in the start body → 400 validation_failed, and nothing is enqueued", async () => {
    const api = apiClient(server.url, owner.ownerToken);
    const jobsBefore = await countOf(await serverDb(server), "SELECT count(*) AS n FROM jobs");
    for (const samples of [0, 11, -1, 2.5, "3"]) {
      const res = await api.start({ brandId: live.brandId, platforms: ["chatgpt"], samples });
      expect({ samples, status: res.status, code: res.body?.error?.code }).toEqual({ samples, status: 400, code: "validation_failed" });
    }
    expect(await countOf(await serverDb(server), "SELECT count(*) AS n FROM jobs")).toBe(jobsBefore);
  });

  test("brand_platforms.samples, set through supabase-js, is how many times each unit is asked when the start request has no samples", async () => {
    const sb = owner.owner;
    const rows = await created<any[]>("brand_platforms", sb.from("brand_platforms").insert([{ brand_id: live.brandId, platform: "chatgpt", samples: 2 }, { brand_id: live.brandId, platform: "perplexity", samples: 4 }]).select("platform, samples"));
    expect(rows.map((r) => [r.platform, r.samples]).sort()).toEqual([["chatgpt", 2], ["perplexity", 4]]);
    livePhase = 2;
    const api = apiClient(server.url, owner.ownerToken);
    const started = await api.start({ brandId: live.brandId, platforms: ["chatgpt", "perplexity"] });
    expect(started.status).toBe(200);
    expect(started.body.units).toBe(3 * 2 + 3 * 4);
    jobs.push(started.body.jobId);
    const { job } = await api.waitFor(started.body.jobId);
    expect(job.status).toBe("completed");
    const units = samplesPerUnit(await unitRows(started.body.jobId));
    expect(units.size).toBe(6);
    for (const [key, samples] of units) expect({ key, samples: samples.sort() }).toEqual({ key, samples: key.includes("|chatgpt|") ? [0, 1] : [0, 1, 2, 3] });
  });

  test("brand_platforms.samples outside 1–10 is refused through supabase-js with a 400 (check violation 23514), and the stored value stays", async () => {
    const sb = owner.owner;
    const tooMany = await sb.from("brand_platforms").update({ samples: 11 }).eq("brand_id", live.brandId).eq("platform", "chatgpt").select();
    expect({ status: tooMany.status, code: tooMany.error?.code }).toEqual({ status: 400, code: "23514" });
    const none = await sb.from("brand_platforms").insert({ brand_id: live.brandId, platform: "claude", samples: 0 }).select();
    expect({ status: none.status, code: none.error?.code }).toEqual({ status: 400, code: "23514" });
    const stored = await created<any[]>("read", sb.from("brand_platforms").select("platform, samples").eq("brand_id", live.brandId).order("platform"));
    expect(stored).toEqual([{ platform: "chatgpt", samples: 2 }, { platform: "perplexity", samples: 4 }]);
  });

  test("every insights RPC over the sampled runs equals the values computed from their raw rows (all filters, default window)", async () => {
    expect(jobs).toHaveLength(2);
    const w = await loadWorld(server, live.brandId, liveBranded);
    expect(w.answers).toHaveLength(36);
    const cases: [string, Args][] = [
      ["no filters", {}],
      ["p_platforms [perplexity]", { p_platforms: ["perplexity"] }],
      ["p_branded true", { p_branded: true }],
      ["p_branded false", { p_branded: false }],
      ["p_prompt_ids [prompt 1]", { p_prompt_ids: [live.promptIds[1]!] }],
      ["by week, by platform", { p_interval: "week", p_group_by: "platform" }],
    ];
    const diffs: string[] = [];
    for (const [label, args] of cases) for (const name of RPCS) diffs.push(...(await check(owner.owner, w, name, args, label)));
    expectNoDiff(diffs);
  });

  test("runs of one job count as one run: per platform, the last two jobs give lost / kept / gained as the fake's answers dictate", async () => {
    const rows = await rpc(owner.owner, "insights_prompts", { p_brand_id: live.brandId });
    const states = Object.fromEntries((rows as any[]).map((r) => [LIVE_PROMPTS.indexOf(r.text), Object.fromEntries(r.runs.map((x: any) => [x.platform, x.state]))]));
    expect(states).toEqual({
      0: { chatgpt: "lost", perplexity: "lost" },
      1: { chatgpt: "kept", perplexity: "gained" },
      2: { chatgpt: "kept", perplexity: "kept" },
    });
    const overview = await rpc(owner.owner, "insights_overview", { p_brand_id: live.brandId });
    expect(overview.answers).toBe(36);
    expect(overview.visibility_rate.n).toBe(36);
  });
});

// ---- 2. ten weeks of history through the bulk path -------------------------------------------

const HISTORY_DAYS = 80;

interface HistoryPrompt {
  text: string;
  topic: "pricing" | "features" | null;
  branded: boolean;
  base: number;
  /** First and last day index (0 = the first day of history) the prompt was asked. */
  from: number;
  until: number;
  inactive?: boolean;
}

const HISTORY_PROMPTS: HistoryPrompt[] = [
  { text: "Is Northwind worth it for a small agency?", topic: "pricing", branded: true, base: 0.55, from: 0, until: HISTORY_DAYS - 1 },
  { text: "Northwind or Contoso: which CRM costs less?", topic: "pricing", branded: true, base: 0.45, from: 0, until: HISTORY_DAYS - 1 },
  { text: "What is the best CRM for a startup?", topic: "features", branded: false, base: 0.25, from: 0, until: HISTORY_DAYS - 1 },
  { text: "Which CRM has the best email integration?", topic: "features", branded: false, base: 0.2, from: 0, until: HISTORY_DAYS - 1 },
  // Added late: answered only in the current 30 days, so no pair of the default window's change.
  { text: "Top rated CRM software this year", topic: null, branded: false, base: 0.3, from: HISTORY_DAYS - 28, until: HISTORY_DAYS - 1 },
  // Retired: inactive, answered only early on.
  { text: "Cheapest CRM for freelancers", topic: "pricing", branded: false, base: 0.35, from: 0, until: 35, inactive: true },
];

const MODELS: Record<string, string[]> = { chatgpt: ["gpt-a", "gpt-b"], perplexity: ["sonar", "sonar-pro"] };
const REGIONS = ["US", "GB"];
const QUERIES = ["best crm 2026", "crm for agencies", "northwind pricing", "crm email integration", "contoso vs northwind", "cheap crm", "crm reviews"];

interface PoolEntry {
  url: string;
  normalized_url: string;
  domain: string;
  host: string;
  title: string | null;
  owner?: "brand" | "Contoso" | "Fabrikam";
}

const URL_POOL: PoolEntry[] = [
  { url: "https://northwind.com/pricing", normalized_url: "https://northwind.com/pricing", domain: "northwind.com", host: "northwind.com", title: "Northwind pricing", owner: "brand" },
  { url: "https://docs.northwind.com/start?ref=ai", normalized_url: "https://docs.northwind.com/start", domain: "docs.northwind.com", host: "docs.northwind.com", title: "Getting started", owner: "brand" },
  { url: "https://www.contoso.com/crm", normalized_url: "https://contoso.com/crm", domain: "contoso.com", host: "www.contoso.com", title: "Contoso CRM", owner: "Contoso" },
  { url: "https://fabrikam.com/blog/crm-guide", normalized_url: "https://fabrikam.com/blog/crm-guide", domain: "fabrikam.com", host: "fabrikam.com", title: "The CRM guide", owner: "Fabrikam" },
  // The same thread under two raw URLs: one normalized URL.
  { url: "https://www.reddit.com/r/CRM/comments/abc/best_crm/?utm_source=chatgpt.com", normalized_url: "https://reddit.com/r/CRM/comments/abc/best_crm", domain: "reddit.com", host: "www.reddit.com", title: "Best CRM? : r/CRM" },
  { url: "https://reddit.com/r/CRM/comments/abc/best_crm/", normalized_url: "https://reddit.com/r/CRM/comments/abc/best_crm", domain: "reddit.com", host: "reddit.com", title: null },
  { url: "https://www.reddit.com/r/sales/comments/def/crm_for_agencies/", normalized_url: "https://reddit.com/r/sales/comments/def/crm_for_agencies", domain: "reddit.com", host: "www.reddit.com", title: "CRM for agencies" },
  { url: "https://en.wikipedia.org/wiki/Customer_relationship_management", normalized_url: "https://en.wikipedia.org/wiki/Customer_relationship_management", domain: "wikipedia.org", host: "en.wikipedia.org", title: "Customer relationship management - Wikipedia" },
  { url: "https://www.g2.com/categories/crm", normalized_url: "https://g2.com/categories/crm", domain: "g2.com", host: "www.g2.com", title: "Best CRM Software" },
  { url: "https://www.youtube.com/watch?v=crm101", normalized_url: "https://youtube.com/watch?v=crm101", domain: "youtube.com", host: "www.youtube.com", title: null },
  { url: "https://techcrunch.com/2026/05/01/crm-funding/", normalized_url: "https://techcrunch.com/2026/05/01/crm-funding", domain: "techcrunch.com", host: "techcrunch.com", title: "CRM startups raise" },
  { url: "https://www.cdc.gov/small-business/tools.html", normalized_url: "https://cdc.gov/small-business/tools.html", domain: "cdc.gov", host: "www.cdc.gov", title: "Tools for small business" },
  { url: "https://crm-notes.net/reviews", normalized_url: "https://crm-notes.net/reviews", domain: "crm-notes.net", host: "crm-notes.net", title: "CRM notes" },
];

const histBranded = (text: string) => /\bnorthwind\b/i.test(text);

let hist: { brandId: string; promptIds: string[]; topics: { pricing: string; features: string }; dataStart: string; today: string };
let histWorld: World;

async function seedHistory() {
  const sb = owner.owner;
  const brand = await created("brand", sb.from("brands").insert({ organization_id: owner.id, name: "Northwind", slug: "northwind", industry: "software", region: "US", language: "en" }).select().single());
  await created("domain", sb.from("brand_domains").insert({ brand_id: brand.id, domain: "northwind.com", is_primary: true }));
  const rivals: { id: string; name: string }[] = [];
  // Tracked from before the history, except Litware, added 20 days ago: its counts start then.
  const longAgo = new Date(Date.now() - 400 * 86_400_000).toISOString();
  const lately = new Date(Date.now() - 20 * 86_400_000).toISOString();
  for (const [name, domain, since] of [["Contoso", "contoso.com", longAgo], ["Fabrikam", "fabrikam.com", longAgo], ["Tailspin", "tailspin.io", longAgo], ["Litware", "litware.com", lately]])
    rivals.push(await created("competitor", sb.from("competitors").insert({ brand_id: brand.id, name, domain, created_at: since }).select("id, name").single()));
  const pricing = await created("topic", sb.from("topics").insert({ brand_id: brand.id, name: "Pricing" }).select("id").single());
  const features = await created("topic", sb.from("topics").insert({ brand_id: brand.id, name: "Features" }).select("id").single());
  const topicId = (t: HistoryPrompt["topic"]) => (t === "pricing" ? pricing.id : t === "features" ? features.id : null);
  const set = await created("set", sb.from("prompt_sets").insert({ brand_id: brand.id, name: "History" }).select().single());
  const promptIds: string[] = [];
  for (const p of HISTORY_PROMPTS) {
    const row = await created("prompt", sb.from("prompts").insert({ prompt_set_id: set.id, brand_id: brand.id, text: p.text }).select("id").single());
    // Topics and retirement are set afterwards, as the web app's prompt editor does.
    const patch: Record<string, unknown> = { topic_id: topicId(p.topic) };
    if (p.inactive) patch.is_active = false;
    await created("prompt update", sb.from("prompts").update(patch).eq("id", row.id));
    promptIds.push(row.id);
  }

  const today = todayUtc();
  const dataStart = plusDays(today, -(HISTORY_DAYS - 1));
  const boundary = nextMonthStart(nextMonthStart(dataStart)); // the second 1st of a month in the data (histWindows)
  hist = { brandId: brand.id, promptIds, topics: { pricing: pricing.id, features: features.id }, dataStart, today };

  const rnd = seededRandom(18);
  const rows: [ResultKey, ResultValues][] = [];
  const rates = [0.45, 0.3, 0.25, 0.15];
  for (let d = 0; d < HISTORY_DAYS; d++) {
    const day = plusDays(dataStart, d);
    // The late prompt's first day is one job: its first run is one run (state "new").
    const debut = d === HISTORY_PROMPTS[4]!.from;
    // Around the month boundary the windows use, answers sit at the very edges of their days.
    const lastMoment = day === plusDays(boundary, -1);
    const firstMoment = day === boundary;
    const ran = rnd.chance(0.8) || debut || lastMoment || firstMoment;
    const startFraction = rnd.random();
    const jobless = rnd.chance(0.12) && !debut;
    if (!ran) continue;
    let runStart = firstMoment ? dayMs(day) : dayMs(day) + Math.floor(startFraction * 20 * 3_600_000);
    if (day === today) {
      // Today's run has already happened: it ends before now.
      const room = Date.now() - dayMs(day) - 15 * 60_000;
      if (room < 0) continue;
      runStart = dayMs(day) + Math.floor(startFraction * room);
    }
    const jobId = jobless ? null : crypto.randomUUID();
    const t = d / (HISTORY_DAYS - 1);
    let seq = 0;
    for (const [pi, p] of HISTORY_PROMPTS.entries()) {
      if (d < p.from || d > p.until) continue;
      for (const platform of ["chatgpt", "perplexity"]) {
        if (!rnd.chance(0.9)) continue;
        for (const model of MODELS[platform]!)
          for (const region of REGIONS) {
            if (!rnd.chance(0.6)) continue;
            const samples = rnd.chance(0.3) ? 2 : 1;
            for (let sample = 0; sample < samples; sample++) {
              // ChatGPT's visibility rises over the weeks, Perplexity's falls.
              const pMention = Math.min(0.95, Math.max(0.03, p.base + (platform === "chatgpt" ? 0.45 * t : 0.3 - 0.45 * t)));
              const mentioned = rnd.chance(pMention);
              const competitorMentions: unknown[] = [];
              for (const [ci, rival] of rivals.entries())
                if (rnd.chance(rates[ci]!)) competitorMentions.push({ competitor_id: rival.id, name: rival.name, mention_count: 1 + rnd.int(3), ...(rnd.chance(0.8) ? { position: 1 + rnd.int(6) } : {}) });
              if (competitorMentions.length && rnd.chance(0.04)) competitorMentions.push({ ...(competitorMentions[0] as object), mention_count: 1, position: 7 }); // named twice in one answer
              if (rnd.chance(0.08)) competitorMentions.push({ name: "Acme Ltd", mention_count: 2, position: 4 }); // not a tracked competitor
              if (rnd.chance(0.05)) competitorMentions.push("Unlisted Co"); // not an object: counts nowhere
              const cited = rnd.sample(URL_POOL, rnd.int(6));
              const citations = cited.map((c, i) => ({
                position: i + 1,
                url: c.url,
                normalized_url: c.normalized_url,
                domain: c.domain,
                host: c.host,
                title: c.title,
                is_brand: c.owner === "brand",
                competitor_id: c.owner && c.owner !== "brand" ? rivals.find((r) => r.name === c.owner)!.id : null,
              }));
              const tone = rnd.pick(["positive", "neutral", "negative"] as const);
              const score = Math.round((tone === "positive" ? 0.2 + 0.8 * rnd.random() : tone === "neutral" ? -0.1 + 0.2 * rnd.random() : -1 + 0.8 * rnd.random()) * 1000) / 1000;
              const hasScore = rnd.chance(0.9);
              let queries: unknown[] = platform === "chatgpt" ? rnd.sample(QUERIES, 1 + rnd.int(3)) : rnd.chance(0.3) ? [rnd.pick(QUERIES)] : [];
              if (queries.length && rnd.chance(0.1)) queries = [...queries, queries[0]]; // the same query twice in one answer
              if (rnd.chance(0.05)) queries = [...queries, "", "   ", 42]; // blanks and a non-string: not queries
              const visibility = rnd.chance(0.9) ? Math.round(rnd.random() * 1000) / 10 : null;
              const position = mentioned && rnd.chance(0.85) ? 1 + rnd.int(4) : null;
              const mentionCount = mentioned ? 1 + rnd.int(3) : 0;
              const reportedModel = model === "gpt-a" ? (d >= HISTORY_DAYS - 21 ? "gpt-a-2026-11" : "gpt-a-2026-08") : model === "gpt-b" ? "gpt-b-2026-06" : model;
              const createdAt = new Date(lastMoment ? dayMs(day) + DAY_MS - 1 - seq++ * 1000 : runStart + seq++ * 1000).toISOString();
              rows.push([
                { id: crypto.randomUUID(), jobId, brandId: brand.id, promptId: promptIds[pi]!, platform, model, region, sample, createdAt },
                {
                  surface: "api",
                  response: `Answer ${d}/${seq} about CRMs.`,
                  mentioned: mentioned ? 1 : 0,
                  mention_count: mentionCount,
                  mention_position: position,
                  competitor_mentions: JSON.stringify(competitorMentions),
                  citations: JSON.stringify(citations),
                  citation_count: citations.length,
                  brand_citation_count: citations.filter((c) => c.is_brand).length,
                  sources: "[]",
                  source_count: 0,
                  sentiment: mentioned ? tone : null,
                  sentiment_score: mentioned && hasScore ? score : null,
                  visibility_score: visibility as number,
                  search_queries: JSON.stringify(queries),
                  details: "{}",
                  reported_model: reportedModel,
                },
              ]);
            }
          }
      }
    }
  }
  await writeResults(server, rows.map(([key, values]) => ({ key, values })));
  histWorld = await loadWorld(server, brand.id, histBranded);
}

/** The windows the history is read through, relative to today (the data is). */
function histWindows(): [string, Args][] {
  const { dataStart, today } = hist;
  const firstMonth = nextMonthStart(dataStart); // the first 1st of a month after the data begins
  const secondMonth = nextMonthStart(firstMonth);
  const lateDebut = histWorld.answers.filter((a) => a.prompt_id === hist.promptIds[4]).map((a) => a.day).sort()[0]!;
  const joblessDays = [...new Set(histWorld.answers.filter((a) => a.job_id === null).map((a) => a.day))].sort();
  return [
    ["default window (the 30 days ending today)", {}],
    [`straddling a month boundary (${plusDays(secondMonth, -10)}…${plusDays(secondMonth, 9)}, day rollups only)`, { p_from: plusDays(secondMonth, -10), p_to: plusDays(secondMonth, 9) }],
    [`spanning more than two months (${plusDays(dataStart, 5)}…${plusDays(today, -3)}, whole months and day edges)`, { p_from: plusDays(dataStart, 5), p_to: plusDays(today, -3) }],
    [`one whole month (${firstMonth}…${monthEnd(firstMonth)}, month rollup only)`, { p_from: firstMonth, p_to: monthEnd(firstMonth) }],
    [`a whole month and part of the next (${firstMonth}…${plusDays(secondMonth, 14)})`, { p_from: firstMonth, p_to: plusDays(secondMonth, 14) }],
    [`only p_to (${plusDays(secondMonth, 9)}): the 30 days ending then`, { p_to: plusDays(secondMonth, 9) }],
    [`only p_from (${plusDays(today, -9)}): up to today`, { p_from: plusDays(today, -9) }],
    [`beginning before the data (${plusDays(dataStart, -20)}…${plusDays(dataStart, 6)}): no previous window`, { p_from: plusDays(dataStart, -20), p_to: plusDays(dataStart, 6) }],
    [`a single day (${secondMonth})`, { p_from: secondMonth, p_to: secondMonth }],
    [`ending the day the late prompt was first asked (${lateDebut}): its runs are new`, { p_from: plusDays(lateDebut, -6), p_to: lateDebut }],
    ...joblessDays.slice(-2).map((day): [string, Args] => [`ending on a day asked without a job (${day}): each answer is a run`, { p_from: plusDays(day, -13), p_to: day }]),
  ];
}

function histFilters(): [string, Args][] {
  const [p0, p1, , , p4] = hist.promptIds;
  return [
    ["no filters", {}],
    ["p_platforms [perplexity]", { p_platforms: ["perplexity"] }],
    ["p_platforms [chatgpt]", { p_platforms: ["chatgpt"] }],
    ["p_models [gpt-b, sonar]", { p_models: ["gpt-b", "sonar"] }],
    ["p_regions [GB]", { p_regions: ["GB"] }],
    ["p_topic_ids [pricing]", { p_topic_ids: [hist.topics.pricing] }],
    ["p_topic_ids [pricing, features]", { p_topic_ids: [hist.topics.pricing, hist.topics.features] }],
    ["p_prompt_ids [p0, p4]", { p_prompt_ids: [p0!, p4!] }],
    ["p_prompt_ids [p1]", { p_prompt_ids: [p1!] }],
    ["p_branded true", { p_branded: true }],
    ["p_branded false", { p_branded: false }],
    ["chatgpt × US × not branded", { p_platforms: ["chatgpt"], p_regions: ["US"], p_branded: false }],
    ["p_platforms [] (nothing)", { p_platforms: [] }],
  ];
}

describe("ten weeks of history: every insights RPC equals the values computed from the raw rows", () => {
  test("the seeded prompts are what the filters assume: branded exactly when they name Northwind, topics and activity as set through supabase-js", async () => {
    const rows = await created<any[]>("prompts", owner.owner.from("prompts").select("id, text, topic_id, is_active, is_branded").eq("brand_id", hist.brandId));
    expect(rows).toHaveLength(HISTORY_PROMPTS.length);
    for (const [i, p] of HISTORY_PROMPTS.entries()) {
      const row = rows.find((r) => r.id === hist.promptIds[i]);
      expect(row).toEqual({ id: hist.promptIds[i], text: p.text, topic_id: p.topic === null ? null : hist.topics[p.topic], is_active: !p.inactive, is_branded: p.branded });
    }
    expect(histWorld.answers.length).toBeGreaterThan(800);
    expect(new Set(histWorld.answers.map((a) => a.day)).size).toBeGreaterThan(50);
  });

  for (const name of RPCS)
    test(`${name}: every filter (platform, model, region, topic, prompt, branded) over every window matches the raw rows`, async () => {
      const diffs: string[] = [];
      for (const [windowLabel, window] of histWindows())
        for (const [filterLabel, filter] of histFilters()) diffs.push(...(await check(owner.owner, histWorld, name, { ...window, ...filter }, `${windowLabel}, ${filterLabel}`)));
      expectNoDiff(diffs);
    });

  test("insights_trend by day, week and month, grouped by nothing, platform, topic, model and region, lists every period and matches the raw rows", async () => {
    const diffs: string[] = [];
    const windows = histWindows().filter(([label]) => !label.startsWith("only"));
    const filters: [string, Args][] = [["no filters", {}], ["p_branded true", { p_branded: true }], ["p_platforms [perplexity]", { p_platforms: ["perplexity"] }]];
    for (const interval of ["day", "week", "month"] as const)
      for (const groupBy of ["none", "platform", "topic", "model", "region"] as const)
        for (const [windowLabel, window] of windows)
          for (const [filterLabel, filter] of filters)
            diffs.push(...(await check(owner.owner, histWorld, "insights_trend", { ...window, ...filter, p_interval: interval, p_group_by: groupBy }, `${interval}/${groupBy}, ${windowLabel}, ${filterLabel}`)));
    expectNoDiff(diffs);
  });

  test("insights_trend periods: days as YYYY-MM-DD, weeks as the Monday starting each ISO week, months as YYYY-MM, and empty periods with answers 0 and null rates", async () => {
    const { dataStart } = hist;
    const window = { p_from: plusDays(dataStart, -12), p_to: plusDays(dataStart, 20) };
    const weeks = (await rpc(owner.owner, "insights_trend", { p_brand_id: hist.brandId, ...window, p_interval: "week" })) as any[];
    for (const r of weeks) expect(new Date(`${r.period}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(weeks[0].period <= window.p_from).toBe(true);
    const months = (await rpc(owner.owner, "insights_trend", { p_brand_id: hist.brandId, ...window, p_interval: "month" })) as any[];
    for (const r of months) expect(r.period).toMatch(/^\d{4}-\d{2}$/);
    const days = (await rpc(owner.owner, "insights_trend", { p_brand_id: hist.brandId, ...window })) as any[];
    expect(days.map((r) => r.period)).toEqual(periodsOf({ from: window.p_from, to: window.p_to }, "day"));
    const empty = days.filter((r) => r.period < dataStart);
    expect(empty).toHaveLength(12);
    for (const r of empty) expect(r).toMatchObject({ answers: 0, mentioned: 0, visibility_rate: null, ci_low: null, ci_high: null, share_of_voice: null, avg_position: null, citation_share: null, avg_sentiment: null });
  });

  test("insights_overview share_of_voice.change.delta compares only the (prompt, platform) pairs seen in both windows, like the rates' changes", async () => {
    // The default window has a prompt the previous one lacks and vice versa: the pairs matter.
    const diffs: string[] = [];
    for (const [windowLabel, window] of histWindows())
      for (const [filterLabel, filter] of histFilters().slice(0, 3)) {
        const args = { ...window, ...filter };
        const actual = await rpc(owner.owner, "insights_overview", { p_brand_id: hist.brandId, ...args });
        diff(actual.share_of_voice.change, expectedOverview(histWorld, args, todayUtc()).share_of_voice.change, `share_of_voice.change ${windowLabel}, ${filterLabel}`, diffs);
      }
    expectNoDiff(diffs);
  });

  test("the history exercises what the checks rely on: up, down, within-noise and insufficient-data verdicts, a model change, and every run state", () => {
    const today = todayUtc();
    const verdicts = new Set<string>();
    const modelChanged = new Set<boolean>();
    const states = new Set<string>();
    const pairsExcluded = new Set<boolean>();
    for (const [, window] of histWindows())
      for (const [, filter] of histFilters()) {
        const o = expectedOverview(histWorld, { ...window, ...filter }, today);
        verdicts.add(o.visibility_rate.change.verdict);
        modelChanged.add(o.visibility_rate.change.model_changed);
        pairsExcluded.add(o.visibility_rate.change.n_current !== o.answers);
        for (const p of expectedPrompts(histWorld, { ...window, ...filter }, today, { lastRunAt: false })) for (const r of p.runs) states.add(r.state);
      }
    expect([...verdicts].sort()).toEqual(["down", "insufficient_data", "up", "within_noise"]);
    expect([...modelChanged].sort()).toEqual([false, true]);
    expect(pairsExcluded.has(true)).toBe(true);
    expect([...states].sort()).toEqual(["absent", "gained", "kept", "lost", "new"]);
  });
});

// ---- 3. PostgREST's query features and CSV on the insights ------------------------------------

describe("select, order, limit, filters, GET arguments and text/csv on the insights RPCs", () => {
  test("Accept: text/csv on GET insights_trend with select=period,answers&order=period.desc&limit=5 gives a header row and the rows of the JSON answer", async () => {
    const query = `/rpc/insights_trend?p_brand_id=${hist.brandId}&select=period,answers&order=period.desc&limit=5`;
    const csv = await rest(server, query, { token: owner.ownerToken, headers: { accept: "text/csv" } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const json = await rest(server, query, { token: owner.ownerToken });
    expect(json.status).toBe(200);
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe("period,answers");
    expect(lines.slice(1)).toEqual((json.body as any[]).map((r) => `${r.period},${r.answers}`));
    // And both are the newest five days with the counts the raw rows give.
    const expected = expectedTrend(histWorld, {}, todayUtc()).reverse().slice(0, 5);
    expect(json.body).toEqual(expected.map((r) => ({ period: r.period, answers: r.answers })));
  });

  test("insights_overview returns one object: Accept: text/csv is refused with 406", async () => {
    const res = await rest(server, `/rpc/insights_overview?p_brand_id=${hist.brandId}`, { token: owner.ownerToken, headers: { accept: "text/csv" } });
    expect(res.status).toBe(406);
  });

  test("supabase-js .rpc().select().order().limit() shapes and sorts a set-returning insight; .eq() filters its rows", async () => {
    const { data, error } = await owner.owner.rpc("insights_citation_domains", { p_brand_id: hist.brandId }).select("domain,citations").order("citations", { ascending: false }).limit(2);
    expect(error).toBeNull();
    const all = expectedDomains(histWorld, {}, todayUtc()).sort((a, b) => b.citations - a.citations);
    expect(data).toHaveLength(2);
    for (const row of data as any[]) expect(Object.keys(row).sort()).toEqual(["citations", "domain"]);
    expect((data as any[]).map((r) => r.citations)).toEqual(all.slice(0, 2).map((r) => r.citations));
    for (const row of data as any[]) expect(all.find((r) => r.domain === row.domain)?.citations).toBe(row.citations);

    const own = await owner.owner.rpc("insights_citation_domains", { p_brand_id: hist.brandId }).eq("class", "own");
    expect(own.error).toBeNull();
    expect(((own.data ?? []) as any[]).map((r) => r.domain).sort()).toEqual(all.filter((r) => r.class === "own").map((r) => r.domain).sort());
  });

  test("a column the rows do not have, in select, order or a filter, is 400 42703", async () => {
    for (const q of ["select=period,nope", "order=nope", "nope=eq.1"]) {
      const res = await rest(server, `/rpc/insights_trend?p_brand_id=${hist.brandId}&${q}`, { token: owner.ownerToken });
      expect([q, res.status, (res.body as { code?: string }).code]).toEqual([q, 400, "42703"]);
    }
  });

  test("GET with query arguments (arrays as {a,b}) answers what POST answers", async () => {
    const args = { p_brand_id: hist.brandId, p_platforms: ["chatgpt", "perplexity"], p_regions: ["GB"], p_branded: true };
    for (const name of ["insights_overview", "insights_competitors", "insights_search_queries"]) {
      const post = await rpc(owner.owner, name, args);
      const get = await owner.owner.rpc(name, args, { get: true });
      expect(get.error).toBeNull();
      expect(get.data).toEqual(post);
    }
    const raw = await rest(server, `/rpc/insights_overview?p_brand_id=${hist.brandId}&p_platforms={chatgpt,perplexity}&p_regions={GB}&p_branded=true`, { token: owner.ownerToken });
    expect(raw.status).toBe(200);
    const expected: any = expectedOverview(histWorld, { p_platforms: ["chatgpt", "perplexity"], p_regions: ["GB"], p_branded: true }, todayUtc());
    delete expected.share_of_voice.change;
    expectNoDiff(diff(raw.body, expected, "GET insights_overview"));
  });
});

// ---- 4. row-level security and bad arguments ---------------------------------------------------

describe("row-level security and argument errors", () => {
  const setRpcs = RPCS.filter((n) => n !== "insights_overview" && n !== "insights_trend");

  async function expectNothingVisible(sb: SupabaseClient, who: string) {
    const overview = await rpc(sb, "insights_overview", { p_brand_id: hist.brandId });
    expect({ who, answers: overview.answers, n: overview.visibility_rate.n, value: overview.visibility_rate.value, previous: overview.visibility_rate.previous.n }).toEqual({ who, answers: 0, n: 0, value: null, previous: 0 });
    for (const name of setRpcs) expect({ who, name, rows: await rpc(sb, name, { p_brand_id: hist.brandId }) }).toEqual({ who, name, rows: [] });
    // The trend lists the window's periods, all empty: exactly what a brand that does not exist gives.
    const trend = (await rpc(sb, "insights_trend", { p_brand_id: hist.brandId })) as any[];
    expect(trend.every((r) => r.answers === 0 && r.mentioned === 0 && r.visibility_rate === null)).toBe(true);
    expect(trend).toEqual(await rpc(sb, "insights_trend", { p_brand_id: crypto.randomUUID() }));
    const grouped = await rpc(sb, "insights_trend", { p_brand_id: hist.brandId, p_group_by: "platform" });
    expect(grouped).toEqual([]);
  }

  test("another organization's owner gets nothing of this brand from any insights RPC", async () => {
    await expectNothingVisible(stranger.owner, "stranger");
  });

  test("the anon key alone gets nothing either", async () => {
    await expectNothingVisible(client(server.url, server.secrets.anonKey), "anon");
    const raw = await rest(server, `/rpc/insights_competitors?p_brand_id=${hist.brandId}`);
    expect({ status: raw.status, body: raw.body }).toEqual({ status: 200, body: [] });
  });

  test("a viewer of the brand's organization and the service role read the same insights as the owner", async () => {
    const viewer = await memberOf(server, owner.id, "viewer");
    const service = serviceClient(server);
    for (const name of ["insights_overview", "insights_competitors", "insights_prompts"] as const) {
      const mine = await rpc(owner.owner, name, { p_brand_id: hist.brandId });
      expect(await rpc(viewer.sb, name, { p_brand_id: hist.brandId })).toEqual(mine);
      expect(await rpc(service, name, { p_brand_id: hist.brandId })).toEqual(mine);
    }
    // An upper-case id is the same uuid.
    expect((await rpc(owner.owner, "insights_overview", { p_brand_id: hist.brandId.toUpperCase() })).answers).toBe((await rpc(owner.owner, "insights_overview", { p_brand_id: hist.brandId })).answers);
  });

  const post = (name: string, body: unknown, token = owner.ownerToken) => rest(server, `/rpc/${name}`, { method: "POST", token, body: JSON.stringify(body) });

  test("bad dates, windows, intervals, groupings, arrays and booleans → 400 with Postgres' codes; unknown or missing arguments → 404 PGRST202; never a 5xx", async () => {
    const id = hist.brandId;
    const cases: [string, string, unknown, number, string][] = [
      ["p_from 2026-02-30", "insights_overview", { p_brand_id: id, p_from: "2026-02-30" }, 400, "22007"],
      ["p_from not a date", "insights_prompts", { p_brand_id: id, p_from: "last week" }, 400, "22007"],
      ["p_from after p_to", "insights_overview", { p_brand_id: id, p_from: "2026-03-10", p_to: "2026-03-01" }, 400, "22023"],
      ["a window of more than ten years", "insights_overview", { p_brand_id: id, p_from: "2000-01-01", p_to: "2026-01-01" }, 400, "22023"],
      ["p_interval year", "insights_trend", { p_brand_id: id, p_interval: "year" }, 400, "22023"],
      ["p_group_by country", "insights_trend", { p_brand_id: id, p_group_by: "country" }, 400, "22023"],
      ["p_platforms not an array", "insights_competitors", { p_brand_id: id, p_platforms: "chatgpt" }, 400, "22P02"],
      ["p_topic_ids with a non-uuid", "insights_prompts", { p_brand_id: id, p_topic_ids: ["pricing"] }, 400, "22P02"],
      ["p_branded maybe", "insights_overview", { p_brand_id: id, p_branded: "maybe" }, 400, "22P02"],
      ["an unknown argument", "insights_overview", { p_brand_id: id, p_foo: 1 }, 404, "PGRST202"],
      ["p_interval on a function without it", "insights_competitors", { p_brand_id: id, p_interval: "day" }, 404, "PGRST202"],
      ["no p_brand_id", "insights_overview", { p_from: "2026-01-01" }, 404, "PGRST202"],
    ];
    const got: unknown[] = [];
    for (const [label, name, body] of cases) {
      const res = await post(name, body);
      got.push({ label, status: res.status, code: res.body?.code, keys: Object.keys(res.body ?? {}).sort().join(",") });
    }
    expect(got).toEqual(cases.map(([label, , , status, code]) => ({ label, status, code, keys: "code,details,hint,message" })));
    // The same through GET's text arguments.
    const get = await rest(server, `/rpc/insights_overview?p_brand_id=${id}&p_platforms=chatgpt`, { token: owner.ownerToken });
    expectPgrstError(get, 400, "22P02");
    const badDate = await rest(server, `/rpc/insights_trend?p_brand_id=${id}&p_from=2026-02-30`, { token: owner.ownerToken });
    expectPgrstError(badDate, 400, "22007");
    // And supabase-js relays the codes.
    const js = await owner.owner.rpc("insights_trend", { p_brand_id: id, p_interval: "year" });
    expect({ status: js.status, code: js.error?.code }).toEqual({ status: 400, code: "22023" });
  });

  test("a date with an impossible month or day (2026-13-01, 2026-00-10, 2026-01-32) is 400 22007 like 2026-02-30, never a 5xx", async () => {
    const got: unknown[] = [];
    for (const value of ["2026-13-01", "2026-00-10", "2026-01-32", "2026-02-30"])
      for (const param of ["p_from", "p_to"]) {
        const res = await post("insights_overview", { p_brand_id: hist.brandId, [param]: value });
        got.push({ param, value, status: res.status, code: res.body?.code });
      }
    expect(got).toEqual(got.map((g: any) => ({ param: g.param, value: g.value, status: 400, code: "22007" })));
  });

  test("a result row whose counts disagree (brand_citation_count 2 of citation_count 1, written with the service key) does not make insights_overview fail", async () => {
    const brand = await created("brand", owner.owner.from("brands").insert({ organization_id: owner.id, name: "Oddball", slug: "oddball" }).select("id").single());
    const set = await created("set", owner.owner.from("prompt_sets").insert({ brand_id: brand.id, name: "S" }).select("id").single());
    const prompt = await created("prompt", owner.owner.from("prompts").insert({ prompt_set_id: set.id, brand_id: brand.id, text: "Any good tools?" }).select("id").single());
    await created(
      "result",
      serviceClient(server).from("prompt_results").insert({ brand_id: brand.id, prompt_id: prompt.id, platform: "chatgpt", model: "m", region: "US", response: "x", mentioned: true, citation_count: 1, brand_citation_count: 2, competitor_mentions: [], citations: [] }),
    );
    const res = await owner.owner.rpc("insights_overview", { p_brand_id: brand.id });
    expect({ status: res.status, error: res.error?.code ?? null, answers: res.data?.answers }).toEqual({ status: 200, error: null, answers: 1 });
  });

  test("p_brand_id that is not a uuid → 400 22P02, for the brand's own users as for anyone else (not an empty answer)", async () => {
    for (const [who, token] of [["owner", owner.ownerToken], ["stranger", stranger.ownerToken], ["anon", server.secrets.anonKey]] as const)
      for (const value of ["not-a-uuid", 42]) {
        const res = await post("insights_overview", { p_brand_id: value }, token);
        expect({ who, value, status: res.status, code: res.body?.code }).toEqual({ who, value, status: 400, code: "22P02" });
      }
  });
});
