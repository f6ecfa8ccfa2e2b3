// The demo's replay store on SQLite (store.ts says what each operation does): the tracking
// service, queue store, unit runner, result store and finalizeJob on the server's connection.
import type { Database } from "bun:sqlite";
import { createSqliteQueueStore } from "../queue/store.sqlite";
import { createResultStore } from "../results/store.sqlite";
import { finalizeJob } from "../tracking/finalize";
import { createSqliteTrackingStore } from "../tracking/store.sqlite";
import type { ResultValues } from "../tracking/unit-runner";
import { createSqliteUnitStore } from "../tracking/units.sqlite";
import { replaySteps } from "./replay";
import type { DemoHistoryStore } from "./store";

export function createSqliteDemoHistoryStore(sqlite: Database): DemoHistoryStore {
  const results = createResultStore(sqlite);
  const markDone = sqlite.prepare("UPDATE job_units SET status = 'done', attempts = attempts + 1, error = ?3 WHERE job_id = ?1 AND seq = ?2 AND status = 'pending'");
  // Failing a unit stamps no time: one queue store serves every run's outcomes.
  const queue = createSqliteQueueStore(sqlite);
  const trackingStore = createSqliteTrackingStore(sqlite);
  const unitStore = createSqliteUnitStore(sqlite);

  return {
    ...replaySteps({ queueAt: (now) => createSqliteQueueStore(sqlite, now), tracking: trackingStore, units: unitStore }),
    async recordOutcomes({ jobId, outcomes }) {
      sqlite
        .transaction(() => {
          for (const { unit, outcome, createdAt } of outcomes) {
            if (!outcome) continue;
            if (outcome.kind === "answered") {
              const values = JSON.parse(outcome.result) as ResultValues;
              results.insert(
                { id: Bun.randomUUIDv7("hex", createdAt), jobId, brandId: unit.brand_id, promptId: unit.prompt_id, platform: unit.platform, model: unit.model, region: unit.region, sample: unit.sample, createdAt: createdAt.toISOString() },
                values,
              );
              markDone.run(jobId, unit.seq, null);
            } else if (outcome.kind === "no_surface") markDone.run(jobId, unit.seq, `no_surface: ${outcome.reason}`);
          }
        })
        .immediate();
      for (const { unit, outcome, error } of outcomes) if (!outcome) await queue.failUnit({ jobId, seq: unit.seq, error: error ?? "unknown error" });
    },
    async finishRun({ jobId, owner, brandId, organizationId, now, visibilityAlertPoints }) {
      await finalizeJob({ store: trackingStore, jobId, owner, brandId, organizationId, counts: await queue.counts(jobId), retries: 0, now, visibilityAlertPoints });
    },
  };
}
