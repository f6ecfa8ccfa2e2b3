// A digest (issue #31): the overview's "what changed" for one brand over the last complete week or
// month — headline non-branded visibility with its interval and change, the significant moves by
// platform, topic and competitor, prompts gained and lost, the top open suggestions. Made from the
// insights functions themselves, so its numbers are the RPCs' for the same window.
import { familySize, modelChanges, significantMoves, topicNamer } from "../insights/changes";
import type { InsightArgs } from "../insights/args";
import { overview, prompts, type InsightsContext } from "../insights/service";
import { addDays, isoDay, previousWindow, type DateWindow } from "../insights/window";

export const DIGEST_KINDS = ["weekly", "monthly"] as const;
export type DigestKind = (typeof DIGEST_KINDS)[number];
export const FREQUENCIES = ["none", ...DIGEST_KINDS] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** At most this many prompts gained or lost, and suggestions, are listed (the counts are whole). */
export const DIGEST_LIST_LIMIT = 10;

export interface DigestPeriod {
  kind: DigestKind;
  /** `2026-W47` (ISO week) or `2026-11`. */
  period: string;
  window: DateWindow;
}

/** The ISO week label (year of its Thursday) of the week starting on Monday `monday`. */
function isoWeekLabel(monday: string): string {
  const thursday = new Date(`${addDays(monday, 3)}T00:00:00Z`);
  const year = thursday.getUTCFullYear();
  const firstThursday = new Date(Date.UTC(year, 0, 4));
  firstThursday.setUTCDate(4 - ((firstThursday.getUTCDay() + 6) % 7) + 3);
  const week = 1 + Math.round((thursday.getTime() - firstThursday.getTime()) / (7 * 86_400_000));
  return `${year}-W${String(week).padStart(2, "0")}`;
}

/** The last complete period of a kind at `now` (UTC): the ISO week before this one, or the month before this one. */
export function completedPeriod(kind: DigestKind, now: Date): DigestPeriod {
  const today = isoDay(now);
  if (kind === "weekly") {
    const mondayThisWeek = addDays(today, -((now.getUTCDay() + 6) % 7));
    const from = addDays(mondayThisWeek, -7);
    return { kind, period: isoWeekLabel(from), window: { from, to: addDays(mondayThisWeek, -1) } };
  }
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0));
  return { kind, period: isoDay(first).slice(0, 7), window: { from: isoDay(first), to: isoDay(last) } };
}

export interface DigestSuggestion {
  id: string;
  title: string;
  priority: string;
  type: string;
}

export interface DigestInput {
  brand: { id: string; name: string };
  organization: { id: string; name: string };
  period: DigestPeriod;
  /** The brand's open suggestions, most urgent first (the store's order). */
  suggestions: DigestSuggestion[];
  topics: readonly { id: string; name: string }[];
  /** The app's address, for links. */
  site: string;
}

const insightArgs = (brandId: string, window: DateWindow, branded: boolean | null): InsightArgs => ({ brandId, window, platforms: null, models: null, regions: null, topicIds: null, promptIds: null, branded });

/** The digest's data: what the mail, the chat message and the webhook event show. */
export async function buildDigest(ctx: InsightsContext, input: DigestInput) {
  const { window } = input.period;
  // The headline and its moves read non-branded prompts, as the overview does by default.
  const o = await overview(ctx, insightArgs(input.brand.id, window, false));
  const moves = significantMoves(o, topicNamer(input.topics)).map((m) => ({
    kind: m.kind,
    key: m.key,
    label: m.label,
    direction: m.direction,
    value: m.rate.value,
    /** The answers `value` is over: all of the period's, not only the compared pairs'. */
    n: m.rate.n,
    delta: m.rate.change.delta,
    ci_low: m.rate.change.ci_low,
    ci_high: m.rate.change.ci_high,
    n_current: m.rate.change.n_current,
    n_previous: m.rate.change.n_previous,
  }));
  // Prompts gained and lost: every prompt (branded ones too: losing one of those is news), by the
  // state of its last run on each platform up to the window's end — only when that run was in the
  // period: a prompt lost weeks ago and not run since is not news of this one.
  const rows = await prompts(ctx, insightArgs(input.brand.id, window, null));
  const from = `${window.from}T00:00:00.000Z`;
  const byState = (state: "gained" | "lost") =>
    rows
      .map((p) => ({ prompt_id: p.prompt_id, text: p.text, platforms: p.runs.filter((r) => r.state === state && r.latest_at >= from).map((r) => r.platform) }))
      .filter((p) => p.platforms.length > 0);
  const gained = byState("gained");
  const lost = byState("lost");
  const site = input.site.replace(/\/+$/, "");
  return {
    kind: input.period.kind,
    period: input.period.period,
    brand: input.brand,
    organization: input.organization,
    window,
    previous: previousWindow(window),
    answers: o.answers,
    visibility_rate: { value: o.visibility_rate.value, ci_low: o.visibility_rate.ci_low, ci_high: o.visibility_rate.ci_high, n: o.visibility_rate.n, change: o.visibility_rate.change },
    share_of_voice: { value: o.share_of_voice.value, n: o.share_of_voice.n, delta: o.share_of_voice.change.delta, competitors_changed: o.share_of_voice.change.competitors_changed },
    moves,
    /** How many platform, topic and competitor changes were tested together (0: none had answers in both periods). */
    tested: familySize(o),
    model_changes: modelChanges(o),
    prompts: { gained: gained.slice(0, DIGEST_LIST_LIMIT), lost: lost.slice(0, DIGEST_LIST_LIMIT), gained_count: gained.length, lost_count: lost.length },
    suggestions: input.suggestions.slice(0, DIGEST_LIST_LIMIT),
    links: {
      overview: `${site}/b/${input.brand.id}?from=${window.from}&to=${window.to}`,
      report: `${site}/api/brands/${input.brand.id}/report?from=${window.from}&to=${window.to}`,
    },
  };
}

export type Digest = Awaited<ReturnType<typeof buildDigest>>;
