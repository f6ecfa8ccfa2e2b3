// Eight weeks of past runs for the demo brand, replayed through the product's own pieces as a
// tracking worker and the dispatcher use them: the tracking service turns the brand's prompts and
// platforms into a job and its units, the unit runner asks the real engine adapter (pointed at the
// demo's upstream, told which day it is) and analyses the answer, the result store writes each row
// (rollups and the latest-results table follow by trigger), and finalizeJob summarises the run and
// refreshes suggestions. Only the clock is moved: each run is stamped with its day in the past.
import type { Env } from "../config";
import { createEngineRegistry, loadEngineConfig } from "../engines";
import type { DemoHistoryStore } from "./store";
import { DAYS_AGO_HEADER } from "./upstream";

const DAY_MS = 86_400_000;

export interface HistoryInput {
  store: DemoHistoryStore;
  /** Engine variables (the demo upstream's). */
  env: Env;
  brandId: string;
  organizationId: string;
  userId: string;
  platforms: string[];
  samples: number;
  /** Days before today of each past run. */
  daysAgo: number[];
  now: Date;
  visibilityAlertPoints: number;
  onRun?: (done: number, total: number) => void;
}

export interface HistorySummary {
  runs: number;
  answers: number;
  failed: number;
  oldest: string | null;
}

/** When a past run happened: its day at 09:00 UTC plus a few minutes, so runs do not all start on the hour. */
function runStart(now: Date, daysAgo: number, index: number): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return midnight - daysAgo * DAY_MS + 9 * 3_600_000 + ((index * 7) % 50) * 60_000;
}

export async function replayHistory(input: HistoryInput): Promise<HistorySummary> {
  const { store } = input;
  const days = [...new Set(input.daysAgo)].filter((d) => d > 0).sort((a, b) => b - a);
  const engineConfig = loadEngineConfig(input.env);
  const owner = `answerwatch-demo-history:${crypto.randomUUID()}`;
  const summary: HistorySummary = { runs: 0, answers: 0, failed: 0, oldest: null };

  for (const [index, daysAgo] of days.entries()) {
    const startedAt = runStart(input.now, daysAgo, index);
    let elapsedMs = 0;
    const clock = () => new Date(startedAt + elapsedMs);
    // The upstream is told which day the answer is for; everything else is the real engine.
    const registry = createEngineRegistry(engineConfig, {
      fetch: (request, init) => {
        const headers = new Headers(init?.headers);
        headers.set(DAYS_AGO_HEADER, String(daysAgo));
        return fetch(request, { ...init, headers });
      },
    });
    // Claimed at once, with a lease that outlasts the replay in real time.
    const { jobId, units } = await store.startRun({ brandId: input.brandId, platforms: input.platforms, samples: input.samples, createdBy: input.userId, owner, leaseMs: Date.now() - startedAt + 3_600_000, engines: engineConfig, now: clock });
    const signal = new AbortController().signal;
    const ran = await store.runUnits({ jobId, units, registry, signal });

    // The answers arrive over the run's first minute or so.
    const outcomes = ran.map(({ unit, outcome, error }) => {
      elapsedMs = 1_000 + unit.seq * 400 + ((unit.seq * 37) % 300);
      const createdAt = clock();
      if (!outcome) summary.failed++;
      else if (outcome.kind === "answered") {
        summary.answers++;
        if (!summary.oldest || createdAt.toISOString() < summary.oldest) summary.oldest = createdAt.toISOString();
      }
      return { unit, outcome, error, createdAt };
    });
    await store.recordOutcomes({ jobId, outcomes });

    elapsedMs += 2_000;
    await store.finishRun({ jobId, owner, brandId: input.brandId, organizationId: input.organizationId, now: clock, visibilityAlertPoints: input.visibilityAlertPoints });
    summary.runs++;
    input.onRun?.(summary.runs, days.length);
  }
  return summary;
}
