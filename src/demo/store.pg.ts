// The demo's replay store on Postgres (store.ts says what each operation does; store.sqlite.ts is
// the SQLite twin): the tracking service, the queue store it is given (the server's, as of the
// demo's clock), the unit runner, the result writer and finalizeJob on the server's pool.
import type { SQL } from "bun";
import type { QueueStore } from "../queue/store";
import { insertResults, markUnitsDone } from "../results/store.pg";
import { finalizeJob } from "../tracking/finalize";
import { createPgTrackingStore } from "../tracking/store.pg";
import type { ResultValues } from "../tracking/unit-runner";
import { createPgUnitStore } from "../tracking/units.pg";
import { replaySteps } from "./replay";
import type { DemoHistoryStore } from "./store";

export function createPgDemoHistoryStore(sql: SQL, queueAt: (now?: () => Date) => QueueStore): DemoHistoryStore {
  // Failing a unit stamps no time: one queue store serves every run's outcomes.
  const queue = queueAt();
  const trackingStore = createPgTrackingStore(sql);
  const unitStore = createPgUnitStore(sql);

  return {
    ...replaySteps({ queueAt: queueAt, tracking: trackingStore, units: unitStore }),
    async recordOutcomes({ jobId, outcomes }) {
      await sql.begin(async (tx) => {
        const answers: Parameters<typeof insertResults>[1] = [];
        const done: { job_id: string; seq: number; error: string | null }[] = [];
        for (const { unit, outcome, createdAt } of outcomes) {
          if (!outcome) continue;
          if (outcome.kind === "answered") {
            answers.push({
              key: { id: Bun.randomUUIDv7("hex", createdAt), jobId, brandId: unit.brand_id, promptId: unit.prompt_id, platform: unit.platform, model: unit.model, region: unit.region, sample: unit.sample, createdAt: createdAt.toISOString() },
              values: JSON.parse(outcome.result) as ResultValues,
            });
            done.push({ job_id: jobId, seq: unit.seq, error: null });
          } else if (outcome.kind === "no_surface") done.push({ job_id: jobId, seq: unit.seq, error: `no_surface: ${outcome.reason}` });
        }
        await insertResults(tx, answers);
        await markUnitsDone(tx, done);
      });
      for (const { unit, outcome, error } of outcomes) if (!outcome) await queue.failUnit({ jobId, seq: unit.seq, error: error ?? "unknown error" });
    },
    async finishRun({ jobId, owner, brandId, organizationId, now, visibilityAlertPoints }) {
      await finalizeJob({ store: trackingStore, jobId, owner, brandId, organizationId, counts: await queue.counts(jobId), retries: 0, now, visibilityAlertPoints });
    },
  };
}
