// The insights RPCs' arguments (issue #18), checked like Postgres checks a function's parameters:
// a JSON body gives typed values, a GET gives text (arrays in Postgres' {a,b} form). Bad values are
// 22P02 / 22007 / 22023 errors in PostgREST's shape, never a 5xx.
import { dateOutOfRange, dayInRange, LAST_DAY } from "../http/date-range";
import { AppError } from "../http/errors";
import { addDays, daysBetween, isoDay, type DateWindow, type Interval } from "./window";

export interface InsightFilters {
  platforms: string[] | null;
  models: string[] | null;
  regions: string[] | null;
  topicIds: string[] | null;
  promptIds: string[] | null;
  branded: boolean | null;
}

export interface InsightArgs extends InsightFilters {
  brandId: string;
  window: DateWindow;
}

export const GROUP_BYS = ["none", "platform", "model", "region", "topic"] as const;
export type GroupBy = (typeof GROUP_BYS)[number];
export const INTERVALS: Interval[] = ["day", "week", "month"];

/** Longest window a request may ask for: ten years of days. */
export const MAX_WINDOW_DAYS = 3660;
export const DEFAULT_WINDOW_DAYS = 30;

export const COMMON_PARAMS = ["p_brand_id", "p_from", "p_to", "p_platforms", "p_models", "p_regions", "p_topic_ids", "p_prompt_ids", "p_branded"] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

const invalid = (type: string, value: unknown) => new AppError(400, type === "date" ? "22007" : "22P02", `invalid input syntax for type ${type}: "${typeof value === "string" ? value : JSON.stringify(value)}"`);
const badValue = (message: string) => new AppError(400, "22023", message);

function uuid(value: unknown): string {
  if (typeof value !== "string" || !UUID.test(value)) throw invalid("uuid", value);
  return value.toLowerCase();
}

function date(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const m = typeof value === "string" ? DATE.exec(value.trim()) : null;
  if (!m) throw invalid("date", value);
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  // 2026-13-01 is no date at all; 2026-02-30 would roll over to March.
  const parsed = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || isoDay(parsed) !== day) throw invalid("date", value);
  if (!dayInRange(day)) throw dateOutOfRange(day);
  return day;
}

/**
 * A filter list names at most this many values, each at most MAX_FILTER_VALUE_CHARS long (as
 * /rest/v1's in-lists are capped): every read binds each list once per range it reads.
 */
export const MAX_FILTER_VALUES = 1000;
const MAX_FILTER_VALUE_CHARS = 500;

/** A text[] argument: a JSON array, or Postgres' array literal {a,"b c"} from a query string. */
function textArray(value: unknown, element: (v: unknown) => string = (v) => String(v)): string[] | null {
  if (value === null || value === undefined) return null;
  let list: unknown[];
  if (Array.isArray(value)) list = value;
  else if (typeof value === "string" && /^\{.*\}$/s.test(value.trim())) {
    const inner = value.trim().slice(1, -1);
    list = inner === "" ? [] : inner.split(",").map((s) => s.trim().replace(/^"(.*)"$/s, "$1"));
  } else throw new AppError(400, "22P02", `malformed array literal: "${(typeof value === "string" ? value : JSON.stringify(value)).slice(0, 200)}"`, { details: 'Array value must start with "{" or be a JSON array.' });
  if (list.some((v) => typeof v !== "string")) throw new AppError(400, "22P02", `malformed array literal: ${JSON.stringify(value).slice(0, 200)}`, { details: "Every element must be text." });
  if (list.length > MAX_FILTER_VALUES || list.some((v) => (v as string).length > MAX_FILTER_VALUE_CHARS))
    throw new AppError(400, "54000", `A filter may name at most ${MAX_FILTER_VALUES} values of at most ${MAX_FILTER_VALUE_CHARS} characters`, { surfaceCodes: { api: "request_too_complex" } });
  return [...new Set(list.map(element))];
}

function boolean(value: unknown): boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|t|false|f)$/i.test(value)) return /^t/i.test(value);
  throw invalid("boolean", value);
}

export function requiredUuid(name: string, value: unknown): string {
  if (value === null || value === undefined) throw badValue(`${name} is required`);
  return uuid(value);
}

export function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw badValue(`${name} must be one of ${allowed.join(", ")}`);
}

/** The common arguments: brand, window (default: the 30 days ending today, UTC) and filters. */
export function parseInsightArgs(args: Record<string, unknown>, today: Date): InsightArgs {
  if (args.p_brand_id === undefined || args.p_brand_id === null) throw badValue("p_brand_id is required");
  const brandId = uuid(args.p_brand_id);
  let from = date(args.p_from);
  let to = date(args.p_to);
  if (!to) to = isoDay(today) > LAST_DAY ? LAST_DAY : isoDay(today);
  if (!from) from = addDays(to, -(DEFAULT_WINDOW_DAYS - 1));
  if (from > to) throw badValue(`p_from (${from}) is after p_to (${to})`);
  if (daysBetween(from, to) > MAX_WINDOW_DAYS) throw badValue(`the window may cover at most ${MAX_WINDOW_DAYS} days`);
  return {
    brandId,
    window: { from, to },
    platforms: textArray(args.p_platforms),
    models: textArray(args.p_models),
    regions: textArray(args.p_regions),
    topicIds: textArray(args.p_topic_ids, uuid),
    promptIds: textArray(args.p_prompt_ids, uuid),
    branded: boolean(args.p_branded),
  };
}
