// The demo's replay store on Postgres (store.ts says what each operation does; store.sqlite.ts is
// the SQLite twin): the tracking service, the queue store it is given (the server's, as of the
// demo's clock), the unit runner, the result writer and finalizeJob on the server's pool.
import type { SQL } from "bun";
import type { QueueStore } from "../queue/store";
import { insertResults, markUnitsDone } from "../results/store.pg";
import { finalizeJob } from "../tracking/finalize";
import { createTrackingService } from "../tracking/service";
import { createPgTrackingStore } from "../tracking/store.pg";
import { createUnitRunner, type ResultValues } from "../tracking/unit-runner";
import { createPgUnitStore } from "../tracking/units.pg";
import type { DemoHistoryStore } from "./store";

export function createPgDemoHistoryStore(sql: SQL, queueAt: (now?: () => Date) => QueueStore): DemoHistoryStore {
  // Failing a unit stamps no time: one queue store serves every run's outcomes.
  const queue = queueAt();
  const trackingStore = createPgTrackingStore(sql);
  const unitStore = createPgUnitStore(sql);

  return {
    async startRun(input) {
      const store = queueAt(input.now);
      const tracking = createTrackingService({ store, tracking: trackingStore, engines: input.engines });
      const { jobId } = await tracking.enqueueRun({ brandId: input.brandId, platforms: input.platforms, samples: input.samples, force: true, createdBy: input.createdBy });
      // Claimed at once; on Postgres another instance's dispatcher may claim it first, which this
      // reports as on SQLite (the demo runs on one instance).
      const claimed = await store.claim({ owner: input.owner, leaseMs: input.leaseMs });
      if (claimed?.id !== jobId) throw new Error(`the demo could not take its replayed run ${jobId} (another job was waiting)`);
      return { jobId, units: await store.pendingUnits(jobId) };
    },
    runUnits({ jobId, units, registry, signal }) {
      const runner = createUnitRunner({ store: unitStore, registry });
      return Promise.all(
        units.map((u) =>
          runner
            .run({ jobId, seq: u.seq, brandId: u.brand_id, promptId: u.prompt_id, platform: u.platform, model: u.model, region: u.region, sample: u.sample }, signal)
            .then((outcome) => ({ unit: u, outcome, error: null as string | null }))
            .catch((error: unknown) => ({ unit: u, outcome: null, error: error instanceof Error ? error.message : String(error) })),
        ),
      );
    },
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
