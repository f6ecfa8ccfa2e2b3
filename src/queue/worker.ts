// Worker-thread entry: one database connection (opened from the init message's path) and one
// engine registry per thread; runs units as the main thread hands them over, many at once (they
// wait on the network, not the CPU).
import { createEngineRegistry, isEngineError, loadEngineConfig } from "../engines";
import { createUnitRunner } from "../tracking/unit-runner";
import type { UnitStore } from "../tracking/store";
import type { UnitTask } from "../tracking/unit";
import { HANDED_BACK_KIND, type TaskError, type WorkerCommand, type WorkerReply } from "./messages";
import { createSuccessors } from "./successors";

declare const self: Worker;

/**
 * The thread's own connection: the SQLite file, or (Postgres mode) a pool of two to DATABASE_URL.
 * Each backend's modules are loaded only in its mode: a thread starts with the job it runs.
 */
async function unitStoreFor(init: Extract<WorkerCommand, { type: "init" }>): Promise<UnitStore> {
  if (!init.databaseUrl) {
    const [{ openDatabase }, { createSqliteUnitStore }] = await Promise.all([import("../database"), import("../tracking/units.sqlite")]);
    return createSqliteUnitStore(openDatabase(init.dbPath, { migrate: false }).sqlite);
  }
  // A pool that only reads: neither src/database.ts's SQLite parts nor the migrations are needed.
  const [{ openPostgresPool }, { createPgUnitStore }] = await Promise.all([import("../db/pg/open"), import("../tracking/units.pg")]);
  return createPgUnitStore((await openPostgresPool(init.databaseUrl, 2)).sql);
}

let runner: ReturnType<typeof createUnitRunner> | undefined;
const controllers = new Map<number, AbortController>();
const reply = (message: WorkerReply) => self.postMessage(message);

function toTaskError(error: unknown): TaskError {
  if (isEngineError(error)) {
    return { message: error.message, kind: error.kind, permanent: error.permanent, retryAfterMs: error.retryAfterMs, platform: error.platform, variable: error.variable };
  }
  // Anything else (a database busy past its timeout, a bug) is worth another try.
  return { message: error instanceof Error ? error.message : String(error), kind: "internal", permanent: false };
}

const aborted: TaskError = { message: "aborted", kind: "internal", permanent: true };
const HANDED_BACK: TaskError = { message: "not started: the call before it was refused", kind: HANDED_BACK_KIND, permanent: false };

async function run(id: number, task: UnitTask) {
  const controller = controllers.get(id)!;
  let refused = false;
  try {
    if (controller.signal.aborted) return reply({ type: "done", id, ok: false, error: aborted });
    const value = await runner!.run(task, controller.signal, () => {
      successors.callOver(id);
      reply({ type: "answered", id });
    });
    reply({ type: "done", id, ok: true, value });
  } catch (error) {
    const failure = toTaskError(error);
    refused = failure.kind === "auth";
    reply({ type: "done", id, ok: false, error: failure });
  } finally {
    // What waits behind a call that was aborted (its job is being stopped) or refused for its key
    // (the platform's later units fail without a call) goes back unstarted; otherwise it starts.
    if (controller.signal.aborted || refused)
      for (const next of successors.takeBack(id)) {
        controllers.delete(next.id);
        reply({ type: "done", id: next.id, ok: false, error: refused ? HANDED_BACK : aborted });
      }
    successors.callOver(id);
    controllers.delete(id);
  }
}

const successors = createSuccessors<UnitTask>((id, task) => void run(id, task));

self.onmessage = async (event: MessageEvent<WorkerCommand>) => {
  const command = event.data;
  if (command.type === "init") {
    runner = createUnitRunner({ store: await unitStoreFor(command), registry: createEngineRegistry(loadEngineConfig(command.env)), judge: command.judge });
    reply({ type: "ready" });
  } else if (command.type === "abort") {
    controllers.get(command.id)?.abort();
    // One waiting behind another call ends now rather than when that call is over.
    if (successors.drop(command.id)) {
      controllers.delete(command.id);
      reply({ type: "done", id: command.id, ok: false, error: aborted });
    }
  } else if (command.type === "run") {
    controllers.set(command.id, new AbortController());
    successors.submit(command.id, command.task, command.after);
  }
};
