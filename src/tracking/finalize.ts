// After the last unit: summarise the run, refresh suggestions, stamp brand_platforms and
// record the lifecycle event, all in one transaction with the job's final state.
// Straight from the modules, not the index: the main thread has no use for the sentiment lexicon.
import { summarizeResults, type ResultRow } from "../analysis/aggregate";
import type { AnalyzedSource, Citation } from "../analysis/citations";
import type { SentimentLabel } from "../analysis/sentiment";
import { buildSuggestions } from "../analysis/suggestions";
import type { UnitCounts } from "../queue/store";
import type { TrackingStore } from "./store";

export interface FailedUnit {
  seq: number;
  prompt_id: string;
  platform: string;
  model: string;
  region: string;
  reason: string;
}

interface StoredResult extends ResultRow {
  id: string;
  prompt_id: string;
  platform: string;
  citations: Citation[];
  sources: AnalyzedSource[];
  sentiment: SentimentLabel | null;
  sentiment_score: number | null;
  details: { sentiment_passages?: string[] };
}

function parseJson<T>(text: string | null, fallback: T): T {
  try {
    return text ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
}

/** One line naming each distinct cause, most frequent first: what a user must fix. */
export function describeFailures(failed: FailedUnit[]): string | null {
  if (!failed.length) return null;
  const byReason = new Map<string, number>();
  for (const f of failed) byReason.set(f.reason, (byReason.get(f.reason) ?? 0) + 1);
  return [...byReason]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} (${n} unit${n === 1 ? "" : "s"})`)
    .join("; ");
}

/**
 * What a run of every active prompt tells the scheduler: a platform with at least one unit done (an
 * answer, or "no surface" — the engine showed none, which is an answer too) was checked; one whose
 * every unit failed waits before it is due again (src/schedule/due.ts). Without that, a platform
 * with no surface or a broken key was due again at every tick: paid calls each hour.
 */
function checkedOnSchedule(run: { job: { createdAt: string; everyPrompt: boolean } | null; noSurfacePlatforms: string[] }, results: { platform: string }[], failedUnits: { platform: string }[]) {
  if (!run.job?.everyPrompt) return undefined;
  const platforms = new Set([...results.map((r) => r.platform), ...run.noSurfacePlatforms]);
  const failed = new Set(failedUnits.map((f) => f.platform).filter((p) => !platforms.has(p)));
  return { at: run.job.createdAt, platforms: [...platforms].sort(), failed: [...failed].sort() };
}

export async function finalizeJob(input: {
  store: TrackingStore;
  jobId: string;
  owner: string;
  brandId: string;
  organizationId: string | null;
  counts: UnitCounts;
  retries: number;
  now: () => Date;
  /** visibility.changed fires on a significant move of at least this many points (src/insights/alerts.ts). */
  visibilityAlertPoints: number;
}): Promise<{ status: "completed" | "failed"; failedReason: string | null }> {
  const { store, jobId } = input;
  // The answers come cut down to what the summary and the suggestions read (store.ts).
  const run = await store.runForSummary({ jobId, brandId: input.brandId });
  const results: StoredResult[] = run.results.map((r) => ({
    ...r,
    mentioned: !!r.mentioned,
    competitor_mentions: parseJson(r.competitor_mentions, []),
    citations: parseJson(r.citations, []),
    sources: parseJson(r.sources, []),
    sentiment: r.sentiment as SentimentLabel | null,
    details: parseJson(r.details, {}),
  }));
  const failedUnits = run.failedUnits.map(({ error, ...u }) => ({ ...u, reason: error ?? "unknown error" }));
  const noSurface = run.noSurface;

  const platforms = [...new Set([...results.map((r) => r.platform), ...failedUnits.map((f) => f.platform)])].sort();
  const overall = summarizeResults(results, input.brandId);
  const perPlatform = Object.fromEntries(
    platforms.map((p) => {
      const mine = results.filter((r) => r.platform === p);
      // A run of one platform: its summary is the run's, not computed twice.
      return [p, { answered: mine.length, failed: failedUnits.filter((f) => f.platform === p).length, ...(mine.length === results.length ? overall : summarizeResults(mine, input.brandId)) }];
    }),
  );

  // Suggestions read what the workers stored; nothing is analysed twice.
  // Titles quote the prompt's text, never its id.
  const promptTexts = run.promptTexts;
  const suggestions = run.brandName !== null
    ? buildSuggestions({
        brand: { name: run.brandName },
        answers: results.map((r) => ({
          prompt_id: r.prompt_id,
          prompt_text: promptTexts.get(r.prompt_id),
          platform: r.platform,
          analysis: {
            mentioned: r.mentioned,
            competitor_mentions: r.competitor_mentions as never,
            citations: r.citations,
            sources: r.sources,
            brand_citation_count: r.brand_citation_count,
            sentiment: r.sentiment,
            sentiment_score: r.sentiment_score,
            sentiment_passages: r.details.sentiment_passages ?? [],
          },
        })),
      })
    : [];

  const succeeded = results.length + noSurface;
  const status = succeeded > 0 || input.counts.total === 0 ? "completed" : "failed";
  const failedReason = describeFailures(failedUnits);
  const result = {
    units: { total: input.counts.total, answered: results.length, no_surface: noSurface, failed: failedUnits.length },
    retries: input.retries,
    ...overall,
    per_platform: perPlatform,
    failed_units: failedUnits,
    suggestions: suggestions.length,
  };

  const progress = { phase: status === "completed" ? "done" : "failed", completed: input.counts.done + input.counts.failed, total: input.counts.total };
  await store.finishRun({
    jobId,
    owner: input.owner,
    brandId: input.brandId,
    organizationId: input.organizationId,
    status,
    jobFailedReason: status === "failed" ? (failedReason ?? "no unit succeeded") : failedReason,
    eventFailedReason: failedReason,
    result,
    progress,
    suggestions,
    answeredPlatforms: [...new Set(results.map((r) => r.platform))],
    checked: checkedOnSchedule(run, results, failedUnits),
    now: input.now(),
    visibilityAlertPoints: input.visibilityAlertPoints,
  });
  return { status, failedReason };
}
