// backends: sqlite, postgres
import { afterEach, expect, test } from "bun:test";
import { loadEngineConfig } from "../../src/engines";
import { createLogger } from "../../src/http/log";
import { HANDED_BACK_KIND, type TaskError } from "../../src/queue/messages";
import { TaskFailure, type WorkerPool } from "../../src/queue/pool";
import { createDispatcher, type Dispatcher } from "../../src/tracking/dispatcher";
import type { UnitTask } from "../../src/tracking/unit-runner";
import type { QueueStore } from "../../src/queue/store";
import type { TrackingStore } from "../../src/tracking/store";
import { seedBrandIn, unitDb } from "../helpers/tracking-db";

/**
 * A pool that runs nothing: the test answers each task by hand. Like a thread, it starts a task
 * handed over `after` another only once that one's call is over; `calls` are the calls started.
 */
function handPool() {
  const calls: { task: UnitTask; answered: () => void; finish: (outcome: unknown) => void; fail: (error: TaskError) => void; warmedBefore: boolean; after?: number }[] = [];
  const handed: { seq: number; after?: number }[] = [];
  const waiting = new Map<number, { start: () => void; reject: (error: TaskError) => void }>();
  const over = new Set<number>();
  let nextId = 1;
  let warmed = false;
  const pool: WorkerPool = {
    size: 1,
    run(task, onAnswered, after) {
      const id = nextId++;
      handed.push({ seq: task.seq, after });
      let finish!: (outcome: unknown) => void;
      let reject!: (error: TaskError) => void;
      const promise = new Promise<unknown>((resolve, fail) => ((finish = resolve), (reject = (e) => fail(new TaskFailure(e)))));
      const answered = () => {
        over.add(id);
        onAnswered?.();
        waiting.get(id)?.start();
        waiting.delete(id);
      };
      // A refused call gives what waits behind it back unstarted, as a thread does.
      const fail = (error: TaskError) => {
        over.add(id);
        reject(error);
        const next = waiting.get(id);
        waiting.delete(id);
        if (error.kind === "auth") next?.reject({ message: "not started", kind: HANDED_BACK_KIND, permanent: false });
        else next?.start();
      };
      const start = () => calls.push({ task, answered, finish, fail, warmedBefore: warmed, after });
      if (after !== undefined && !over.has(after)) waiting.set(after, { start, reject });
      else start();
      return { id, task, promise };
    },
    abort() {},
    warm() {
      warmed = true;
    },
    async stop() {},
  };
  return { pool, calls, handed };
}

let dispatcher: Dispatcher | undefined;
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
});

const tick = () => Bun.sleep(5);
/** Waits (bounded) until `n` calls were handed out — a claim on Postgres is a network round trip — then one tick more, so an extra call would show. */
async function handedOut(calls: unknown[], n: number) {
  for (let i = 0; i < 400 && calls.length < n; i++) await tick();
  await tick();
}

/** A job of `prompts` perplexity units and a dispatcher over the hand pool at `concurrency`. */
async function dispatched(prompts: number, concurrency: number, options: { readAhead: boolean; rpm?: number; writeWindowMs?: number; leaseMs?: number; pollMs?: number; retryBaseMs?: number; queue?: (store: QueueStore) => QueueStore; tracking?: (store: TrackingStore) => TrackingStore }) {
  const { db, stores } = await unitDb();
  const org = await db.fixtures.organization("Org");
  const { brandId, promptIds } = await seedBrandIn(db, org, { prompts });
  const plain = stores.queue();
  const store = options.queue ? options.queue(plain) : plain;
  const jobId = await store.enqueue({ type: "tracking", brandId, organizationId: org, data: {}, units: promptIds.map((promptId) => ({ promptId, platform: "perplexity", model: "sonar", region: "" })) });
  const { pool, calls, handed } = handPool();
  const engines = loadEngineConfig({ PERPLEXITY_API_KEY: "k", PERPLEXITY_CONCURRENCY: String(concurrency), PERPLEXITY_RPM: String(options.rpm ?? 0) });
  // The store's statistics refresh, counted (on Postgres it analyzes; its contract test has that).
  let refreshes = 0;
  const counted: TrackingStore = { ...stores.tracking, refreshStatistics: async () => (refreshes++, []), ...(options.writeWindowMs ? { writeBatching: { idleMs: options.writeWindowMs, maxWaitMs: options.writeWindowMs } } : {}) };
  const tracking = options.tracking ? options.tracking(counted) : counted;
  dispatcher = createDispatcher({ store, tracking, units: options.readAhead ? stores.units : undefined, pool, engines, logger: createLogger("silent"), leaseMs: options.leaseMs, pollMs: options.pollMs, retryBaseMs: options.retryBaseMs });
  /** Finishes every call, waits for the job to end and closes everything; the job's unit counts. */
  const finish = async () => {
    for (const c of calls) c.finish({ kind: "no_surface", reason: "none" });
    for (let i = 0; i < 400 && (await store.get(jobId))!.status === "active"; i++) await tick();
    const row = (await store.get(jobId))!;
    const job = { status: row.status, counts: await store.counts(jobId), retries: row.result ? (JSON.parse(row.result) as { retries: number }).retries : null };
    await dispatcher!.stop();
    expect(refreshes).toBe(1);
    dispatcher = undefined;
    await db.close();
    return job;
  };
  return { stores, jobId, brandId, promptIds, calls, handed, finish };
}

test("each unit's status and prompt are read a round ahead and handed to its thread with the task; the threads start with the claim; the first round brings the brand's entities", async () => {
  const { stores, jobId, brandId, promptIds, calls, finish } = await dispatched(5, 2, { readAhead: true });
  await handedOut(calls, 2);
  // The first round's inputs are read as the job starts (a thread's own connections are not open
  // yet); each unit taken starts the read of the one a round later.
  // Units 0 and 1, one per lane: which lane's thread is handed its task first is a race (CI on Postgres saw [1, 0]).
  expect(calls.map((c) => c.task.seq).sort()).toEqual([0, 1]);
  expect(calls.every((c) => c.warmedBefore)).toBe(true);
  for (let answered = 0; answered < 5; answered++) {
    calls[answered]!.answered();
    await handedOut(calls, Math.min(5, answered + 3));
  }
  expect(calls.length).toBe(5);
  for (const c of calls) expect(c.task.input).toEqual(await stores.units.unitInput({ jobId, seq: c.task.seq, promptId: c.task.promptId }));
  expect(calls.map((c) => c.task.input?.promptText)).toEqual(calls.map((c) => `What is the best project tool for a team of ${promptIds.indexOf(c.task.promptId) + 2}?`));
  // A new thread's first calls read nothing themselves: the brand's entities come with them.
  const entities = await stores.units.entities(brandId);
  expect(entities?.brand.name).toBeString();
  expect(calls.map((c) => c.task.entities ?? null)).toEqual(calls.map((_, i) => (i < 2 ? entities : null)));
  expect((await finish()).counts).toMatchObject({ done: 5, pending: 0 });
});

test("a platform's next unit is handed out when the previous call is answered, not when its result is written", async () => {
  const { calls, finish } = await dispatched(3, 1, { readAhead: false });
  await handedOut(calls, 1);
  // Concurrency 1: one call at a time.
  expect(calls.map((c) => c.task.seq)).toEqual([0]);
  calls[0]!.answered();
  await handedOut(calls, 2);
  expect(calls.map((c) => c.task.seq)).toEqual([0, 1]);
  calls[1]!.answered();
  await handedOut(calls, 3);
  expect(calls.map((c) => c.task.seq)).toEqual([0, 1, 2]);
  calls[2]!.answered();
  expect(await finish()).toMatchObject({ status: "completed", counts: { done: 3, pending: 0 } });
});

test("with the slot free of waiters, a lane's next unit is handed to its thread behind the call in flight — one at a time — and starts as that call answers", async () => {
  const { calls, handed, finish } = await dispatched(3, 1, { readAhead: false });
  await handedOut(calls, 1);
  for (let i = 0; i < 400 && handed.length < 2; i++) await tick();
  await tick();
  // Unit 1 waits behind unit 0's call (task 1); unit 2 is not handed over until unit 1 has started.
  expect(handed).toEqual([{ seq: 0, after: undefined }, { seq: 1, after: 1 }]);
  expect(calls.map((c) => c.task.seq)).toEqual([0]);
  calls[0]!.answered();
  // The pool, like a thread, started unit 1 the moment unit 0 answered: no turn of the dispatcher between.
  expect(calls.map((c) => c.task.seq)).toEqual([0, 1]);
  await handedOut(handed, 3);
  expect(handed[2]).toEqual({ seq: 2, after: 2 });
  calls[1]!.answered();
  expect(calls.map((c) => c.task.seq)).toEqual([0, 1, 2]);
  calls[2]!.answered();
  expect(await finish()).toMatchObject({ status: "completed", counts: { done: 3, pending: 0 } });
});

test("a refused key gives the unit waiting behind the refused call back unstarted: it and the rest fail without a call", async () => {
  const { calls, handed, finish } = await dispatched(3, 1, { readAhead: false });
  await handedOut(calls, 1);
  for (let i = 0; i < 400 && handed.length < 2; i++) await tick();
  expect(handed).toEqual([{ seq: 0, after: undefined }, { seq: 1, after: 1 }]);
  calls[0]!.fail({ message: "authentication failed", kind: "auth", permanent: true, variable: "PERPLEXITY_API_KEY" });
  const job = await finish();
  expect(calls.map((c) => c.task.seq)).toEqual([0]); // no call after the refusal
  expect(handed.map((h) => h.seq)).toEqual([0, 1]); // unit 1 was not handed out again, unit 2 never
  // Given back is not a failed attempt: nothing was retried.
  expect(job).toMatchObject({ status: "failed", counts: { failed: 3, done: 0, pending: 0 }, retries: 0 });
});

test("a job's last outcomes are committed at once, not after the writer's window", async () => {
  const { calls, finish } = await dispatched(3, 2, { readAhead: false, writeWindowMs: 60_000 });
  await handedOut(calls, 2);
  calls[0]!.answered();
  calls[0]!.finish({ kind: "no_surface", reason: "none" });
  await handedOut(calls, 3);
  // finish() answers the rest and waits up to 2 s for the job to end: with a 60 s window it would
  // still be active, its last results waiting to fill a batch no other result will join.
  expect(await finish()).toMatchObject({ status: "completed", counts: { done: 3, pending: 0 } });
});

test("a retry the database cannot record hands the job back (no unhandled rejection, no job active for good): it is claimed again and finishes", async () => {
  let refusals = 1;
  const run = await dispatched(1, 1, {
    readAhead: false,
    leaseMs: 300,
    pollMs: 50,
    queue: (store) => ({
      ...store,
      scheduleRetry: async (input) => {
        if (refusals-- > 0) throw new Error("database is locked");
        return store.scheduleRetry(input);
      },
    }),
  });
  await handedOut(run.calls, 1);
  run.calls[0]!.fail({ message: "upstream 503", kind: "server", permanent: false });
  // The lease runs out (300 ms) and the poll claims the job again: its unit is asked once more.
  await handedOut(run.calls, 2);
  expect(run.calls.map((c) => c.task.seq)).toEqual([0, 0]);
  run.calls[1]!.answered();
  const job = await run.finish();
  expect(job.status).toBe("completed");
  expect(job.counts).toMatchObject({ done: 1, failed: 0, pending: 0 });
});

test("an answer whose write failed is kept for the unit's retry: the database's failure costs no second call", async () => {
  let refusals = 1;
  const run = await dispatched(2, 2, {
    readAhead: false,
    retryBaseMs: 20,
    tracking: (store) => ({
      ...store,
      recordResults: async (batch) => {
        if (refusals-- > 0) throw new Error("database is locked");
        return store.recordResults(batch);
      },
    }),
  });
  await handedOut(run.calls, 2);
  // Unit 0's answer meets the locked database; unit 1's comes after and is written.
  run.calls[0]!.answered();
  run.calls[0]!.finish({ kind: "no_surface", reason: "none" });
  // Its retry (~20 ms) waits for a lane: the one still calling for unit 1.
  await Bun.sleep(100);
  run.calls[1]!.answered();
  const job = await run.finish();
  // Two calls for two units: the retry of unit 0 wrote the answer it had, without asking again.
  expect(run.calls.map((c) => c.task.seq)).toEqual([0, 1]);
  expect(job).toMatchObject({ status: "completed", counts: { done: 2, failed: 0, pending: 0 }, retries: 1 });
});

test("a job whose lease lapsed while its heartbeats failed is not started a second time by its own dispatcher: each unit is asked once", async () => {
  let failing = true;
  const run = await dispatched(2, 1, {
    readAhead: false,
    leaseMs: 150,
    pollMs: 20,
    queue: (store) => ({
      ...store,
      heartbeat: async (input) => {
        if (failing) throw new Error("connection reset");
        return store.heartbeat(input);
      },
    }),
  });
  await handedOut(run.calls, 1);
  // Several leases' worth of failed heartbeats and polls.
  await Bun.sleep(600);
  failing = false;
  // The lane's next unit waits in its thread behind the call in flight; neither is handed twice.
  expect(run.handed.map((h) => h.seq)).toEqual([0, 1]);
  run.calls[0]!.answered();
  await handedOut(run.calls, 2);
  run.calls[1]!.answered();
  const job = await run.finish();
  expect(run.handed.map((h) => h.seq)).toEqual([0, 1]);
  expect(job).toMatchObject({ status: "completed", counts: { done: 2, pending: 0 } });
});
