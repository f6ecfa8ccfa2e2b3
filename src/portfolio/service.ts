// The agency portfolio (issue #31): every brand of every organization the caller belongs to (an
// API key: its one organization), each with its non-branded visibility and interval, the change
// and its verdict, share of voice, its last run, a sparkline and what changed. The numbers are the
// insights' own (overview and trend over non-branded prompts; "what changed" is changes.ts), computed
// brand after brand: the brand cap and the request's time bound the work, never a fan-out.
import type { ApiUser } from "../common/identity";
import { pgCode } from "../db/pg/values";
import { dayInRange, FIRST_DAY, LAST_DAY } from "../http/date-range";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import { MAX_WINDOW_DAYS, DEFAULT_WINDOW_DAYS, type InsightArgs } from "../insights/args";
import { modelChanges, significantMoves, topicNamer } from "../insights/changes";
import { overview, trend, type InsightsContext } from "../insights/service";
import type { InsightsStore } from "../insights/store";
import { addDays, daysBetween, isoDay, previousWindow, type DateWindow, type Interval } from "../insights/window";
import type { PortfolioBrand, PortfolioRun, PortfolioStore } from "./store";

/** Most brands one portfolio lists; past it the answer says `truncated`. */
export const MAX_BRANDS = 200;
/** Windows up to this many days get a daily sparkline, longer ones weekly (monthly past two years). */
export const DAILY_SPARKLINE_DAYS = 45;
const WEEKLY_SPARKLINE_DAYS = 731;

export interface PortfolioDeps {
  store: PortfolioStore;
  insights: InsightsStore;
  /** How long one portfolio may compute (STATEMENT_TIMEOUT_MS); brands not reached by then come without numbers. */
  timeoutMs: number;
  /** Milliseconds on a monotonic clock (tests move it). */
  clock?: () => number;
}

export interface PortfolioQuery {
  /** The caller's organizations (the switcher lists them all). */
  organizationIds: string[];
  /** One of them, to list only its brands (null: all of them). */
  organizationId: string | null;
  window: DateWindow;
  limit: number;
}

export interface PortfolioMove {
  kind: "platform" | "topic" | "competitor";
  label: string;
  direction: "up" | "down";
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n_current: number;
  n_previous: number;
}

export interface PortfolioRow {
  brand: { id: string; name: string; is_active: boolean };
  organization: { id: string; name: string };
  last_run: { job_id: string; status: string; progress: { phase: string; completed: number; total: number }; created_at: string; started_at: string | null; finished_at: string | null } | null;
  /** False when the request's time ran out before this brand: its numbers below are null. */
  computed: boolean;
  visibility: { value: number | null; ci_low: number | null; ci_high: number | null; n: number } | null;
  change: { delta: number | null; ci_low: number | null; ci_high: number | null; verdict: string; n_current: number; n_previous: number; model_changed: boolean } | null;
  share_of_voice: { value: number | null; n: number; delta: number | null } | null;
  /** `previous`: the rate over the whole previous window, drawn as a reference line (the change compares against it). */
  sparkline: { interval: Interval; points: { period: string; value: number | null; n: number }[]; previous: number | null } | null;
  what_changed: PortfolioMove[] | null;
  /** Platforms whose engines reported other models than in the previous window. */
  models_changed: string[] | null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const bad = (message: string) => new AppError(400, "validation_failed", message);

/** A `YYYY-MM-DD` parameter (absent: null); a calendar day inside the dates any request may name. */
function day(value: unknown, name: string): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string" || !DATE.test(value)) throw bad(`${name} must be a date (YYYY-MM-DD)`);
  // 2026-02-30 would roll over to March: a real day survives the round trip.
  const parsed = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || isoDay(parsed) !== value) throw bad(`${name} is not a calendar date: ${value}`);
  if (!dayInRange(value)) throw bad(`${name} must fall between ${FIRST_DAY} and ${LAST_DAY}`);
  return value;
}

/** The query string's window (default: the 30 days up to today, UTC), organization and brand cap. */
export function parsePortfolioQuery(query: Record<string, unknown>, today: Date): Omit<PortfolioQuery, "organizationIds"> {
  const to = day(query.to, "to") ?? (isoDay(today) > LAST_DAY ? LAST_DAY : isoDay(today));
  const from = day(query.from, "from") ?? addDays(to, -(DEFAULT_WINDOW_DAYS - 1));
  if (from > to) throw bad(`from (${from}) is after to (${to})`);
  if (daysBetween(from, to) > MAX_WINDOW_DAYS) throw bad(`The window may cover at most ${MAX_WINDOW_DAYS} days`);
  let limit = MAX_BRANDS;
  if (query.limit !== undefined && query.limit !== "") {
    limit = Number(query.limit);
    if (typeof query.limit !== "string" || !/^\d+$/.test(query.limit) || limit < 1 || limit > MAX_BRANDS) throw bad(`limit must be a whole number from 1 to ${MAX_BRANDS}`);
  }
  const organizationId = query.organization_id === undefined || query.organization_id === "" ? null : requireUuid(query.organization_id, "organization_id");
  return { window: { from, to }, organizationId, limit };
}

export const sparklineInterval = (w: DateWindow): Interval => {
  const days = daysBetween(w.from, w.to);
  return days <= DAILY_SPARKLINE_DAYS ? "day" : days <= WEEKLY_SPARKLINE_DAYS ? "week" : "month";
};

/** Thrown by the insights' own deadline checks once the portfolio's time is up. */
class OutOfTime extends Error {}

function runOf(run: PortfolioRun | undefined): PortfolioRow["last_run"] {
  if (!run) return null;
  return { job_id: run.job_id, status: run.status, progress: { phase: run.phase ?? run.status, completed: Number(run.completed), total: Number(run.total) }, created_at: run.created_at, started_at: run.started_at, finished_at: run.finished_at };
}

/** One brand's numbers: the insights overview and trend over its non-branded prompts. */
async function brandNumbers(ctx: InsightsContext, brandId: string, window: DateWindow, topics: { id: string; name: string }[]) {
  const args: InsightArgs = { brandId, window, platforms: null, models: null, regions: null, topicIds: null, promptIds: null, branded: false };
  const o = await overview(ctx, args);
  const interval = sparklineInterval(window);
  const points = (await trend(ctx, args, interval, "none")).map((p) => ({ period: String(p.period), value: p.visibility_rate as number | null, n: Number(p.answers) }));
  const v = o.visibility_rate;
  return {
    visibility: { value: v.value, ci_low: v.ci_low, ci_high: v.ci_high, n: v.n },
    change: { delta: v.change.delta, ci_low: v.change.ci_low, ci_high: v.change.ci_high, verdict: v.change.verdict, n_current: v.change.n_current, n_previous: v.change.n_previous, model_changed: v.change.model_changed },
    share_of_voice: { value: o.share_of_voice.value, n: o.share_of_voice.n, delta: o.share_of_voice.change.delta },
    sparkline: { interval, points, previous: v.previous.value },
    what_changed: significantMoves(o, topicNamer(topics)).map((m) => ({ kind: m.kind, label: m.label, direction: m.direction, delta: m.rate.change.delta, ci_low: m.rate.change.ci_low, ci_high: m.rate.change.ci_high, n_current: m.rate.change.n_current, n_previous: m.rate.change.n_previous })),
    models_changed: modelChanges(o),
  };
}

/** The portfolio of the organizations over the window. */
export async function portfolio(deps: PortfolioDeps, query: PortfolioQuery) {
  const clock = deps.clock ?? (() => performance.now());
  const deadline = clock() + deps.timeoutMs;
  const organizationIds = [...new Set(query.organizationIds)];
  const organizations = await deps.store.organizations(organizationIds);
  // One more than the cap: whether the cap cut the list.
  const listed = await deps.store.brands({ organizationIds: query.organizationId ? [query.organizationId] : organizationIds, limit: query.limit + 1 });
  const brands: PortfolioBrand[] = listed.slice(0, query.limit);
  const ids = brands.map((b) => b.id);
  const runs = new Map((await deps.store.latestRuns(ids)).map((r) => [r.brand_id, r]));
  const topics = new Map<string, { id: string; name: string }[]>();
  for (const t of await deps.store.topics(ids)) topics.set(t.brand_id, [...(topics.get(t.brand_id) ?? []), { id: t.id, name: t.name }]);
  const ctx: InsightsContext = {
    store: deps.insights,
    checkDeadline: () => {
      if (clock() > deadline) throw new OutOfTime();
    },
  };

  let outOfTime = false;
  const rows: PortfolioRow[] = [];
  for (const b of brands) {
    const row: PortfolioRow = {
      brand: { id: b.id, name: b.name, is_active: b.is_active },
      organization: { id: b.organization_id, name: b.organization_name },
      last_run: runOf(runs.get(b.id)),
      computed: false,
      visibility: null,
      change: null,
      share_of_voice: null,
      sparkline: null,
      what_changed: null,
      models_changed: null,
    };
    rows.push(row);
    if (outOfTime || clock() > deadline) {
      outOfTime = true;
      continue;
    }
    try {
      Object.assign(row, await brandNumbers(ctx, b.id, query.window, topics.get(b.id) ?? []), { computed: true });
    } catch (error) {
      // A statement its store stopped at the deadline (Postgres' statement_timeout, 57014) is out of time too; any other failure is one.
      const stoppedAtDeadline = clock() > deadline && pgCode(error) === "57014";
      if (!(error instanceof OutOfTime) && !stoppedAtDeadline) throw error;
      outOfTime = true;
    }
  }
  return {
    success: true as const,
    organization_id: query.organizationId,
    window: query.window,
    previous: previousWindow(query.window),
    organizations,
    brands: rows,
    /** The cap cut the list: more brands than `limit` exist in these organizations. */
    truncated: listed.length > query.limit,
    limit: query.limit,
    /** False when the request's time ran out: the brands with `computed: false` have no numbers. */
    complete: !outOfTime,
  };
}

/** Computes a portfolio for a request: on a reader thread where there are some (reports/registry.ts' `portfolio`). */
type PortfolioMaker = (query: PortfolioQuery) => Promise<Awaited<ReturnType<typeof portfolio>>>;

export function createPortfolioService(deps: { make: PortfolioMaker; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    /** GET /api/portfolio: the caller's organizations (an API key's one) or ?organization_id's, over ?from&to (and ?limit). */
    async get(user: ApiUser, query: Record<string, unknown>) {
      const parsed = parsePortfolioQuery(query, now());
      // Someone else's organization reads as one that does not exist.
      if (parsed.organizationId && !user.orgRoles.has(parsed.organizationId)) throw new AppError(404, "not_found", "Organization not found");
      return deps.make({ ...parsed, organizationIds: [...user.orgRoles.keys()] });
    },
  };
}

export type PortfolioService = ReturnType<typeof createPortfolioService>;
