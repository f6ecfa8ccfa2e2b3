import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { DB_FILE } from "../../src/db/open";
import { openDatabase } from "../../src/database";
import { loadEngineConfig } from "../../src/engines";
import { createLogger } from "../../src/http/log";
import type { WorkerPool } from "../../src/queue/pool";
import { createSqliteQueueStore } from "../../src/queue/store.sqlite";
import { createSqliteTrackingStore } from "../../src/tracking/store.sqlite";
import { createDispatcher, type Dispatcher } from "../../src/tracking/dispatcher";
import type { UnitTask } from "../../src/tracking/unit-runner";
import { tempDir } from "../helpers/app";
import { seedBrand } from "../helpers/tracking";

/** A pool that runs nothing: the test answers each task by hand. */
function handPool() {
  const calls: { task: UnitTask; answered: () => void; finish: (outcome: unknown) => void }[] = [];
  let nextId = 1;
  const pool: WorkerPool = {
    size: 1,
    run(task, onAnswered) {
      let finish!: (outcome: unknown) => void;
      const promise = new Promise<unknown>((resolve) => (finish = resolve));
      calls.push({ task, answered: () => onAnswered?.(), finish });
      return { id: nextId++, task, promise };
    },
    abort() {},
    async stop() {},
  };
  return { pool, calls };
}

let dispatcher: Dispatcher | undefined;
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
});

const tick = () => Bun.sleep(5);

test("a platform's next unit is handed out when the previous call is answered, not when its result is written", async () => {
  const { sqlite } = openDatabase(join(tempDir(), DB_FILE));
  const org = (sqlite.query("INSERT INTO organizations (name, slug) VALUES ('Org', 'org') RETURNING id").get() as { id: string }).id;
  const { brandId, promptIds } = seedBrand(sqlite, org, { prompts: 3 });
  const store = createSqliteQueueStore(sqlite);
  const jobId = await store.enqueue({ type: "tracking", brandId, organizationId: org, data: {}, units: promptIds.map((promptId) => ({ promptId, platform: "perplexity", model: "sonar", region: "" })) });
  const { pool, calls } = handPool();
  const engines = loadEngineConfig({ PERPLEXITY_API_KEY: "k", PERPLEXITY_CONCURRENCY: "1", PERPLEXITY_RPM: "0" });
  dispatcher = createDispatcher({ store, tracking: createSqliteTrackingStore(sqlite), pool, engines, logger: createLogger("silent") });

  await tick();
  // Concurrency 1: one call at a time.
  expect(calls.map((c) => c.task.seq)).toEqual([0]);
  calls[0]!.answered();
  await tick();
  expect(calls.map((c) => c.task.seq)).toEqual([0, 1]);
  calls[1]!.answered();
  await tick();
  expect(calls.map((c) => c.task.seq)).toEqual([0, 1, 2]);
  calls[2]!.answered();

  for (const c of calls) c.finish({ kind: "no_surface", reason: "none" });
  for (let i = 0; i < 100 && (await store.get(jobId))!.status === "active"; i++) await tick();
  expect((await store.get(jobId))!.status).toBe("completed");
  expect(await store.counts(jobId)).toMatchObject({ done: 3, pending: 0 });
});
