// The filters of every insight view, read from and written to the URL (?days=30&platform=…), and
// turned into the insights RPCs' arguments.
import { isoDay } from "./format";

export interface Filters {
  from: string;
  to: string;
  days: number | null;
  platform: string | null;
  model: string | null;
  region: string | null;
  topic: string | null;
  /** true / false: branded or non-branded prompts only; null: all (`branded=all`); undefined: the page's default. */
  branded: boolean | null | undefined;
}

export const WINDOW_PRESETS = [7, 30, 90, 365];

export function readFilters(query: URLSearchParams, today = new Date()): Filters {
  const to = query.get("to") ?? isoDay(today);
  const days = query.get("from") ? null : Number(query.get("days") ?? 30) || 30;
  const from = query.get("from") ?? isoDay(new Date(Date.parse(`${to}T00:00:00Z`) - ((days ?? 30) - 1) * 86_400_000));
  const branded = query.get("branded");
  return {
    from,
    to,
    days,
    platform: query.get("platform"),
    model: query.get("model"),
    region: query.get("region"),
    topic: query.get("topic"),
    branded: branded === "true" ? true : branded === "false" ? false : branded === "all" ? null : undefined,
  };
}

/** The filters with non-branded prompts unless the URL says otherwise: the overview's and competitors' default (README: read the non-branded figure). */
export const nonBrandedByDefault = (f: Filters): Filters & { branded: boolean | null } => ({ ...f, branded: f.branded === undefined ? false : f.branded });

/** Which prompts a view reads, in words. */
export const promptScope = (branded: boolean | null | undefined) => (branded === null || branded === undefined ? "all prompts" : branded ? "branded prompts" : "non-branded prompts");

/** The insights RPCs' common arguments for these filters. */
export function rpcArgs(brandId: string, f: Filters): Record<string, unknown> {
  return {
    p_brand_id: brandId,
    p_from: f.from,
    p_to: f.to,
    p_platforms: f.platform ? [f.platform] : null,
    p_models: f.model ? [f.model] : null,
    p_regions: f.region !== null ? [f.region] : null,
    p_topic_ids: f.topic ? [f.topic] : null,
    p_branded: f.branded ?? null,
  };
}

/** The values a brand's filters offer: its platforms, models, regions and topics. */
export interface FilterOptions {
  platforms: string[];
  models: string[];
  regions: string[];
  topics: { id: string; name: string }[];
}
