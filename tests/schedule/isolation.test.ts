// backends: sqlite, postgres
// Issue #14, finding 3: one brand's or one job's failure is logged and skipped; the scheduler,
// the dispatcher and the finalizer go on with the others.
import { afterEach, expect, test } from "bun:test";
import { loadEngineConfig } from "../../src/engines";
import { createLogger } from "../../src/http/log";
import type { WorkerPool } from "../../src/queue/pool";
import type { QueueStore } from "../../src/queue/store";
import { createScheduleService } from "../../src/schedule/service";
import { createDispatcher, type Dispatcher } from "../../src/tracking/dispatcher";
import type { TrackingService } from "../../src/tracking/service";
import { seedBrandIn, unitDb } from "../helpers/tracking-db";

async function database() {
  const { db, stores } = await unitDb();
  const org = await db.fixtures.organization("Org");
  return { db, stores, org };
}

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  return { logger: createLogger("error", (line) => lines.push(JSON.parse(line))), lines };
}

test("a brand whose scheduling throws is skipped with a reason; the brands after it are still enqueued", async () => {
  const { db, stores, org } = await database();
  const brands: string[] = [];
  for (const name of ["first", "broken", "last"]) brands.push((await seedBrandIn(db, org, { name, prompts: 1, platforms: [{ platform: "perplexity", frequency: "daily", lastCheckedAt: null }] })).brandId);
  const broken = brands[1]!;
  const enqueued: string[] = [];
  const tracking = {
    registry: { isConfigured: () => true, missingVariable: () => null },
    enqueueRun({ brandId }: { brandId: string }) {
      // Not an AppError: the kind of bug or bad row that used to end the whole cron run with a 500.
      if (brandId === broken) throw new TypeError("onlyPlatforms.includes is not a function");
      enqueued.push(brandId);
      return { success: true as const, jobId: `job-${brandId}`, units: 1, platforms: ["perplexity"] };
    },
  } as unknown as TrackingService;
  const { logger, lines } = capturingLogger();
  const outcome = await createScheduleService({ store: stores.schedule, tracking, logger }).runDue();
  expect(enqueued.sort()).toEqual([brands[0]!, brands[2]!].sort());
  expect(outcome.skipped).toEqual([{ brandId: broken, reason: "internal error while scheduling this brand (see the server log)" }]);
  expect(lines.some((l) => l.msg === "scheduling a brand failed" && l.brand_id === broken)).toBe(true);
  await db.close();
});

/** A pool that answers every unit at once with "no surface". */
const instantPool: WorkerPool = {
  size: 1,
  run(task, onAnswered) {
    onAnswered?.();
    return { id: 1, task, promise: Promise.resolve({ kind: "no_surface", reason: "none" }) };
  },
  abort() {},
  warm() {},
  async stop() {},
};

let dispatcher: Dispatcher | undefined;
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
});

test("a job that cannot start is failed with its reason, and the job queued behind it still runs", async () => {
  const { db, stores, org } = await database();
  const store = stores.queue();
  const jobs: string[] = [];
  for (const name of ["bad", "good"]) {
    const { brandId, promptIds } = await seedBrandIn(db, org, { name, prompts: 1 });
    jobs.push(await store.enqueue({ type: "tracking", brandId, organizationId: org, data: {}, units: promptIds.map((promptId) => ({ promptId, platform: "perplexity", model: "sonar", region: "" })) }));
  }
  const failing: QueueStore = {
    ...store,
    async counts(jobId: string) {
      if (jobId === jobs[0]) throw new Error("disk I/O error reading the job");
      return store.counts(jobId);
    },
  };
  const { logger, lines } = capturingLogger();
  dispatcher = createDispatcher({ store: failing, tracking: stores.tracking, pool: instantPool, engines: loadEngineConfig({ PERPLEXITY_API_KEY: "k" }), logger, pollMs: 20 });
  const status = async (id: string) => (await db.inspect<{ status: string; failed_reason: string | null }>("SELECT status, failed_reason FROM jobs WHERE id = ?", id))[0]!;
  for (let i = 0; i < 200 && (await status(jobs[1]!)).status !== "completed"; i++) await Bun.sleep(10);
  expect((await status(jobs[1]!)).status).toBe("completed");
  expect(await status(jobs[0]!)).toEqual({ status: "failed", failed_reason: "could not start the run: Error: disk I/O error reading the job" });
  expect(lines.some((l) => l.msg === "tracking job could not start" && l.job_id === jobs[0])).toBe(true);
  await dispatcher.stop();
  dispatcher = undefined;
  await db.close();
});
