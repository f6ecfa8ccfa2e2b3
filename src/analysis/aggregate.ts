/**
 * Aggregates over per-answer results (prompt_results rows): visibility rate, share of voice,
 * average position, citation share, each with the n it was computed from. Formulas: README.md.
 */

export interface ResultRow {
  brand_id?: string;
  platform?: string;
  model?: string | null;
  /** ISO-8601 UTC timestamp; needed only for grouping by period. */
  created_at?: string;
  mentioned: boolean;
  mention_count: number;
  mention_position: number | null;
  competitor_mentions: readonly { competitor_id: string; name?: string; mention_count: number }[];
  citation_count: number;
  brand_citation_count: number;
  visibility_score?: number | null;
  sentiment_score?: number | null;
}

/** A ratio or mean with the size of the population it came from; value is null when n = 0. */
export interface Metric {
  value: number | null;
  n: number;
}

export interface EntityShare {
  entity_id: string;
  name: string | null;
  mentions: number;
  share: number | null;
}

export interface ResultSummary {
  /** Number of answers summarized. */
  n: number;
  /** mentioned answers / answers. */
  visibility_rate: Metric & { mentioned: number };
  /** brand mentions / mentions of all tracked entities; n = answers. */
  share_of_voice: Metric & { brand_mentions: number; total_mentions: number; entities: EntityShare[] };
  /** Mean mention_position over answers naming the brand; n = those answers. */
  average_position: Metric;
  /** brand citations / all citations; n = citations. */
  citation_share: Metric & { brand_citations: number };
  /** Mean visibility_score; n = answers that have one. */
  average_visibility_score: Metric;
  /** Mean sentiment_score; n = answers that have one (the brand was named). */
  average_sentiment: Metric;
}

const ratio = (numerator: number, denominator: number): number | null => (denominator > 0 ? numerator / denominator : null);

function mean(values: readonly (number | null | undefined)[]): Metric {
  const present = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  return { value: ratio(present.reduce((a, b) => a + b, 0), present.length), n: present.length };
}

export function visibilityRate(rows: readonly ResultRow[]): ResultSummary["visibility_rate"] {
  const mentioned = rows.filter((r) => r.mentioned).length;
  return { value: ratio(mentioned, rows.length), n: rows.length, mentioned };
}

export function shareOfVoice(rows: readonly ResultRow[], brandId = "brand"): ResultSummary["share_of_voice"] {
  const byEntity = new Map<string, { name: string | null; mentions: number }>();
  const add = (id: string, name: string | null, mentions: number) => {
    const e = byEntity.get(id) ?? { name, mentions: 0 };
    e.mentions += mentions;
    byEntity.set(id, e);
  };
  add(brandId, null, 0);
  for (const r of rows) {
    add(brandId, null, r.mention_count);
    for (const c of r.competitor_mentions) add(c.competitor_id, c.name ?? null, c.mention_count);
  }
  const total = [...byEntity.values()].reduce((a, e) => a + e.mentions, 0);
  const brandMentions = byEntity.get(brandId)!.mentions;
  const entities = [...byEntity].map(([entity_id, e]) => ({ entity_id, name: e.name, mentions: e.mentions, share: ratio(e.mentions, total) }));
  entities.sort((a, b) => b.mentions - a.mentions || a.entity_id.localeCompare(b.entity_id));
  return { value: ratio(brandMentions, total), n: rows.length, brand_mentions: brandMentions, total_mentions: total, entities };
}

export function averagePosition(rows: readonly ResultRow[]): Metric {
  return mean(rows.filter((r) => r.mentioned).map((r) => r.mention_position));
}

export function citationShare(rows: readonly ResultRow[]): ResultSummary["citation_share"] {
  const total = rows.reduce((a, r) => a + r.citation_count, 0);
  const brand = rows.reduce((a, r) => a + r.brand_citation_count, 0);
  return { value: ratio(brand, total), n: total, brand_citations: brand };
}

export function summarizeResults(rows: readonly ResultRow[], brandId?: string): ResultSummary {
  return {
    n: rows.length,
    visibility_rate: visibilityRate(rows),
    share_of_voice: shareOfVoice(rows, brandId ?? rows[0]?.brand_id ?? "brand"),
    average_position: averagePosition(rows),
    citation_share: citationShare(rows),
    average_visibility_score: mean(rows.map((r) => r.visibility_score)),
    average_sentiment: mean(rows.map((r) => r.sentiment_score)),
  };
}

export type Period = "day" | "week" | "month";
export type GroupDimension = "brand" | "platform" | "model" | "period";

/** UTC period key: day "2025-03-07", ISO week "2025-W10", month "2025-03". */
export function periodKey(timestamp: string, period: Period): string {
  const d = new Date(timestamp);
  if (Number.isNaN(d.getTime())) return "unknown";
  const iso = d.toISOString();
  if (period === "day") return iso.slice(0, 10);
  if (period === "month") return iso.slice(0, 7);
  // ISO 8601 week: a week belongs to the year of its Thursday; week 1 holds the year's first Thursday.
  const thursday = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 3 - ((d.getUTCDay() + 6) % 7)));
  const week = 1 + Math.floor((thursday.getTime() - Date.UTC(thursday.getUTCFullYear(), 0, 1)) / 86_400_000 / 7);
  return `${thursday.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

export interface GroupedSummary {
  key: Partial<Record<GroupDimension, string>>;
  summary: ResultSummary;
}

/** Summaries per brand / platform / model / period (any combination), sorted by key. */
export function summarizeBy(rows: readonly ResultRow[], by: readonly GroupDimension[], period: Period = "day"): GroupedSummary[] {
  const groups = new Map<string, { key: Partial<Record<GroupDimension, string>>; rows: ResultRow[] }>();
  for (const r of rows) {
    const key: Partial<Record<GroupDimension, string>> = {};
    for (const dim of by) {
      if (dim === "brand") key.brand = r.brand_id ?? "unknown";
      else if (dim === "platform") key.platform = r.platform ?? "unknown";
      else if (dim === "model") key.model = r.model ?? "unknown";
      else key.period = r.created_at ? periodKey(r.created_at, period) : "unknown";
    }
    const id = JSON.stringify(by.map((d) => key[d]));
    const group = groups.get(id) ?? { key, rows: [] };
    group.rows.push(r);
    groups.set(id, group);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, g]) => ({ key: g.key, summary: summarizeResults(g.rows, g.rows[0]?.brand_id) }));
}
