// Eight weeks of past runs for the demo brand, replayed through the product's own pieces as a
// tracking worker and the dispatcher use them: the tracking service turns the brand's prompts and
// platforms into a job and its units, the unit runner asks the real engine adapter (pointed at the
// demo's upstream, told which day it is) and analyses the answer, the result store writes each row
// (rollups and the latest-results table follow by trigger), and finalizeJob summarises the run and
// refreshes suggestions. Only the clock is moved: each run is stamped with its day in the past.
import type { Database } from "bun:sqlite";
import type { Env } from "../config";
import { createEngineRegistry, loadEngineConfig } from "../engines";
import { createSqliteQueueStore } from "../queue/store.sqlite";
import { createResultStore } from "../results/store.sqlite";
import { finalizeJob } from "../tracking/finalize";
import { createTrackingService } from "../tracking/service";
import { createSqliteTrackingStore } from "../tracking/store.sqlite";
import { createUnitRunner, type ResultValues } from "../tracking/unit-runner";
import { createSqliteUnitStore } from "../tracking/units.sqlite";
import { DAYS_AGO_HEADER } from "./upstream";

const DAY_MS = 86_400_000;

export interface HistoryInput {
  sqlite: Database;
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
  const { sqlite } = input;
  const days = [...new Set(input.daysAgo)].filter((d) => d > 0).sort((a, b) => b - a);
  const results = createResultStore(sqlite);
  const trackingStore = createSqliteTrackingStore(sqlite);
  const unitStore = createSqliteUnitStore(sqlite);
  const engineConfig = loadEngineConfig(input.env);
  const owner = `answerwatch-demo-history:${crypto.randomUUID()}`;
  const summary: HistorySummary = { runs: 0, answers: 0, failed: 0, oldest: null };
  const markDone = sqlite.prepare("UPDATE job_units SET status = 'done', attempts = attempts + 1, error = ?3 WHERE job_id = ?1 AND seq = ?2 AND status = 'pending'");

  for (const [index, daysAgo] of days.entries()) {
    const startedAt = runStart(input.now, daysAgo, index);
    let elapsedMs = 0;
    const clock = () => new Date(startedAt + elapsedMs);
    const store = createSqliteQueueStore(sqlite, clock);
    // The upstream is told which day the answer is for; everything else is the real engine.
    const registry = createEngineRegistry(engineConfig, {
      fetch: (request, init) => {
        const headers = new Headers(init?.headers);
        headers.set(DAYS_AGO_HEADER, String(daysAgo));
        return fetch(request, { ...init, headers });
      },
    });
    const tracking = createTrackingService({ store, tracking: trackingStore, engines: engineConfig });
    const { jobId } = await tracking.enqueueRun({ brandId: input.brandId, platforms: input.platforms, samples: input.samples, force: true, createdBy: input.userId });
    // Claimed at once (nothing but the store's own promises in between, so the server's dispatcher
    // never sees it waiting), with a lease that outlasts the replay in real time.
    const claimed = await store.claim({ owner, leaseMs: Date.now() - startedAt + 3_600_000 });
    if (claimed?.id !== jobId) throw new Error(`the demo could not take its replayed run ${jobId} (another job was waiting)`);

    const runner = createUnitRunner({ store: unitStore, registry });
    const signal = new AbortController().signal;
    const units = await store.pendingUnits(jobId);
    const outcomes = await Promise.all(
      units.map((u) =>
        runner
          .run({ jobId, seq: u.seq, brandId: u.brand_id, promptId: u.prompt_id, platform: u.platform, model: u.model, region: u.region, sample: u.sample }, signal)
          .then((outcome) => ({ unit: u, outcome, error: null as string | null }))
          .catch((error: unknown) => ({ unit: u, outcome: null, error: error instanceof Error ? error.message : String(error) })),
      ),
    );

    // The answers arrive over the run's first minute or so.
    const failures: { seq: number; error: string }[] = [];
    sqlite
      .transaction(() => {
        for (const { unit, outcome, error } of outcomes) {
          elapsedMs = 1_000 + unit.seq * 400 + ((unit.seq * 37) % 300);
          if (!outcome) {
            failures.push({ seq: unit.seq, error: error ?? "unknown error" });
            summary.failed++;
          } else if (outcome.kind === "answered") {
            const createdAt = clock();
            const values = JSON.parse(outcome.result) as ResultValues;
            results.insert(
              { id: Bun.randomUUIDv7("hex", createdAt), jobId, brandId: unit.brand_id, promptId: unit.prompt_id, platform: unit.platform, model: unit.model, region: unit.region, sample: unit.sample, createdAt: createdAt.toISOString() },
              values,
            );
            markDone.run(jobId, unit.seq, null);
            summary.answers++;
            if (!summary.oldest || createdAt.toISOString() < summary.oldest) summary.oldest = createdAt.toISOString();
          } else if (outcome.kind === "no_surface") {
            markDone.run(jobId, unit.seq, `no_surface: ${outcome.reason}`);
          }
        }
      })
      .immediate();
    for (const f of failures) await store.failUnit({ jobId, ...f });

    elapsedMs += 2_000;
    const counts = await store.counts(jobId);
    await finalizeJob({ store: trackingStore, jobId, owner, brandId: input.brandId, organizationId: input.organizationId, counts, retries: 0, now: clock, visibilityAlertPoints: input.visibilityAlertPoints });
    summary.runs++;
    input.onRun?.(summary.runs, days.length);
  }
  return summary;
}
