// Worker-thread entry: one database connection (opened from the init message's path) and one
// engine registry per thread; runs units as the main thread hands them over, many at once (they
// wait on the network, not the CPU).
import { createEngineRegistry, isEngineError, loadEngineConfig } from "../engines";
import { createUnitRunner } from "../tracking/unit-runner";
import type { UnitStore } from "../tracking/store";
import type { TaskError, WorkerCommand, WorkerReply } from "./messages";

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

self.onmessage = async (event: MessageEvent<WorkerCommand>) => {
  const command = event.data;
  if (command.type === "init") {
    runner = createUnitRunner({ store: await unitStoreFor(command), registry: createEngineRegistry(loadEngineConfig(command.env)), judge: command.judge });
    reply({ type: "ready" });
  } else if (command.type === "abort") {
    controllers.get(command.id)?.abort();
  } else if (command.type === "run") {
    const controller = new AbortController();
    controllers.set(command.id, controller);
    try {
      const value = await runner!.run(command.task, controller.signal, () => reply({ type: "answered", id: command.id }));
      reply({ type: "done", id: command.id, ok: true, value });
    } catch (error) {
      reply({ type: "done", id: command.id, ok: false, error: toTaskError(error) });
    } finally {
      controllers.delete(command.id);
    }
  }
};
