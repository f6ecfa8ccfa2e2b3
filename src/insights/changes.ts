// "What changed" (issue #26, #31): the significant moves of an overview — by platform, topic and
// competitor, those called by Holm's test over all of them (insights/service.ts) — and the platforms whose reported models
// changed. One function for every door: the overview page, the portfolio, digests and client reports.

export interface RateChange {
  value: number | null;
  n: number;
  ci_low: number | null;
  ci_high: number | null;
  change: { delta: number | null; ci_low: number | null; ci_high: number | null; verdict: string; n_current: number; n_previous: number; model_changed: boolean; p_value?: number | null; p_adjusted?: number | null; family_size?: number | null };
}

/** The parts of insights_overview this reads. */
export interface OverviewMoves {
  by_platform: { platform: string; visibility_rate: RateChange }[];
  by_topic: { topic_id: string | null; visibility_rate: RateChange }[];
  by_competitor?: { competitor_id: string; name: string; visibility_rate: RateChange }[];
}

export type MoveKind = "platform" | "topic" | "competitor";

export interface Move {
  kind: MoveKind;
  /** The platform, topic id (null: prompts without a topic) or competitor id. */
  key: string | null;
  /** What moved, in words: `chatgpt`, `topic “Pricing”`, `competitor Acme`. */
  label: string;
  direction: "up" | "down";
  rate: RateChange;
}

const significant = (rate: RateChange) => rate.change.verdict === "up" || rate.change.verdict === "down";

/** The moves beyond noise, platforms first, then topics, then competitors; within each, the largest move first. */
export function significantMoves(overview: OverviewMoves, topicName: (id: string | null) => string): Move[] {
  const all: Move[] = [
    ...overview.by_platform.map((r) => ({ kind: "platform" as const, key: r.platform, label: r.platform, rate: r.visibility_rate })),
    // One topic group (every prompt in one topic, or none in any) is the whole: no move of its own.
    ...overview.by_topic.filter(() => overview.by_topic.length > 1).map((r) => ({ kind: "topic" as const, key: r.topic_id, label: `topic “${topicName(r.topic_id)}”`, rate: r.visibility_rate })),
    ...(overview.by_competitor ?? []).map((r) => ({ kind: "competitor" as const, key: r.competitor_id, label: `competitor ${r.name}`, rate: r.visibility_rate })),
  ]
    .filter((m) => significant(m.rate))
    .map((m) => ({ ...m, direction: m.rate.change.verdict as "up" | "down" }));
  const order: Record<MoveKind, number> = { platform: 0, topic: 1, competitor: 2 };
  return all.sort((a, b) => order[a.kind] - order[b.kind] || Math.abs(b.rate.change.delta ?? 0) - Math.abs(a.rate.change.delta ?? 0) || a.label.localeCompare(b.label));
}

/** Platforms whose engines reported different models in the two windows (part of any move there may be the model). */
export const modelChanges = (overview: OverviewMoves): string[] => overview.by_platform.filter((r) => r.visibility_rate.change.model_changed).map((r) => r.platform);

/** A topic's name from a topic list, for significantMoves. */
export const topicNamer =
  (topics: readonly { id: string; name: string }[]) =>
  (id: string | null): string =>
    id === null ? "prompts without a topic" : (topics.find((t) => t.id === id)?.name ?? "a topic since removed");

/** How many changes were tested together (the family's size, carried by each tested member; 0: none). */
export function familySize(overview: OverviewMoves): number {
  for (const group of [overview.by_platform, overview.by_topic, overview.by_competitor ?? []]) for (const r of group) if (r.visibility_rate.change.family_size) return r.visibility_rate.change.family_size;
  return 0;
}

/** What the family's test promises, in words, under a list of `moves` from `size` changes tested together; null when there is no list or no family. */
export const togetherText = (size: number, moves: number): string | null =>
  size > 1 && moves > 0 ? `${size} changes tested together (Holm’s method): in a period where nothing moved, at most about one in twenty would list a move.` : null;

/** "What changed" with no move: nothing comparable, or nothing beyond noise (and how it was tested). */
export function noMoveText(size: number): string {
  if (size === 0) return "Nothing to compare yet: no platform, topic or competitor has answers in both windows. A window is compared with as many days before it, so the first comparison comes that many days after the first answers (7 after them for the 7-day window).";
  if (size === 1) return "No platform, topic or competitor moved beyond noise between the two windows (the change’s 95 % interval includes 0).";
  return `No platform, topic or competitor moved beyond noise between the two windows (${size} changes tested together at 95 %, by Holm’s method).`;
}

/**
 * What a competitor table says beside a competitor added inside the window, when the window has
 * answers from before (`windowN`: the brand's n), or after it (`windowTo`); null: nothing.
 */
export function countedFromNote(row: { is_brand: boolean; n: number; counted_from?: string | null }, windowN: number, windowTo: string): string | null {
  if (row.is_brand || !row.counted_from) return null;
  if (row.counted_from > windowTo) return `added after this window, on ${row.counted_from}`;
  return row.n < windowN ? `counted from ${row.counted_from}` : null;
}
