import { expect, test } from "bun:test";
import { createWorkerPool, TaskFailure } from "../../src/queue/pool";

/** Counts thread starts without touching the pool: wraps the global constructor while `body` runs. */
async function countingStarts(body: (starts: () => number) => Promise<void>) {
  let starts = 0;
  const RealWorker = globalThis.Worker;
  globalThis.Worker = class extends RealWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      starts++;
    }
  } as typeof Worker;
  try {
    await body(() => starts);
  } finally {
    globalThis.Worker = RealWorker;
  }
}

test("an idle pool starts no thread; warm() starts them all once, before any task", () =>
  countingStarts(async (starts) => {
    const pool = createWorkerPool({ size: 2, workerUrl: new URL("../fakes/ready-worker.ts", import.meta.url), init: { dbPath: ":memory:", env: {} } });
    await Bun.sleep(50);
    expect(starts()).toBe(0);
    pool.warm();
    pool.warm();
    expect(starts()).toBe(2);
    await pool.stop();
  }));

test("a worker that dies as it starts is replaced with growing back-off, and its tasks fail as transient instead of hanging", async () => {
  await countingStarts(async (starts) => {
    const pool = createWorkerPool({ size: 1, workerUrl: new URL("../fakes/crashing-worker.ts", import.meta.url), init: { dbPath: ":memory:", env: {} } });
    const task = { jobId: "j", seq: 0, brandId: "b", promptId: "p", platform: "chatgpt", model: "m", region: "", sample: 0 };
    const outcome = await pool.run(task).promise.then(
      () => "resolved",
      (e) => e,
    );
    expect(outcome).toBeInstanceOf(TaskFailure);
    expect((outcome as TaskFailure).error.permanent).toBe(false);
    await Bun.sleep(1500);
    // Without back-off this is hundreds of threads a second; with it: 0 + 100 + 200 + 400 + 800 ms.
    expect(starts()).toBeGreaterThanOrEqual(3);
    expect(starts()).toBeLessThanOrEqual(7);
    await pool.stop();
  });
});
