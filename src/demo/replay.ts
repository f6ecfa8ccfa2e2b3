// The half of the demo's replay store that is the same on every backend: a run enqueued through the
// tracking service and claimed at once, and its units answered by the real unit runner. The stores
// (store.sqlite.ts, store.pg.ts) add what they write: outcomes and the run's end.
import type { QueueStore } from "../queue/store";
import { createTrackingService } from "../tracking/service";
import type { TrackingStore, UnitStore } from "../tracking/store";
import { createUnitRunner } from "../tracking/unit-runner";
import type { DemoHistoryStore } from "./store";

export function replaySteps(deps: { queueAt: (now: () => Date) => QueueStore; tracking: TrackingStore; units: UnitStore }): Pick<DemoHistoryStore, "startRun" | "runUnits"> {
  return {
    async startRun(input) {
      const store = deps.queueAt(input.now);
      const tracking = createTrackingService({ store, tracking: deps.tracking, engines: input.engines });
      const { jobId } = await tracking.enqueueRun({ brandId: input.brandId, platforms: input.platforms, samples: input.samples, force: true, createdBy: input.createdBy });
      // Claimed at once (nothing but the stores' own promises in between, so a dispatcher rarely
      // sees it waiting; when one does, this says so).
      const claimed = await store.claim({ owner: input.owner, leaseMs: input.leaseMs });
      if (claimed?.id !== jobId) throw new Error(`the demo could not take its replayed run ${jobId} (another job was waiting)`);
      return { jobId, units: await store.pendingUnits(jobId) };
    },
    runUnits({ jobId, units, registry, signal }) {
      const runner = createUnitRunner({ store: deps.units, registry });
      return Promise.all(
        units.map((u) =>
          runner
            .run({ jobId, seq: u.seq, brandId: u.brand_id, promptId: u.prompt_id, platform: u.platform, model: u.model, region: u.region, sample: u.sample }, signal)
            .then((outcome) => ({ unit: u, outcome, error: null as string | null }))
            .catch((error: unknown) => ({ unit: u, outcome: null, error: error instanceof Error ? error.message : String(error) })),
        ),
      );
    },
  };
}
