// Starts the whole server on one port: database, secrets, then (just after listening) the runtime.
// Returned handle stops everything in order, which both SIGTERM and tests use.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import type { App } from "./app";
import type { Config } from "./config";
import { DB_FILE, openDatabase, type DbHandle } from "./db/open";
import { healthResponse } from "./http/health";
import { createLogger, type Logger } from "./http/log";
import type { Runtime } from "./runtime";
import { ensureSecrets, type Secrets } from "./secrets";
import type { Dispatcher } from "./tracking/dispatcher";
import { VERSION } from "./version";

export interface RunningServer {
  url: string;
  port: number;
  app: App;
  dbh: DbHandle;
  secrets: Secrets;
  logger: Logger;
  dispatcher: Dispatcher;
  stop(): Promise<void>;
}

export async function startServer(config: Config, logger = createLogger(config.logLevel), options: { now?: () => Date; scheduler?: boolean } = {}): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const secrets = await ensureSecrets(config);
  const dbPath = join(config.dataDir, DB_FILE);
  const dbh = openDatabase(dbPath);
  const startedAt = Date.now();
  let selfUrl = config.publicUrl;
  let runtime: Runtime | undefined;
  // Until the feature modules are loaded, /healthz answers from the database alone and every other
  // request waits for them (nothing is refused).
  let ready: Promise<Runtime> | undefined;
  const fetch = async (request: Request, srv: Server<undefined>) => {
    if (!runtime) {
      if (new URL(request.url).pathname === "/healthz") return healthResponse(dbh.sqlite, VERSION, startedAt);
      runtime = await ready!;
    }
    return runtime.app.handle(request, srv.requestIP(request)?.address);
  };
  const error = (error: Error) => {
    logger.error("server error", { error: String(error?.stack ?? error) });
    return Response.json({ success: false, error: { code: "internal_error", message: "Internal server error" } }, { status: 500 });
  };
  const server = Bun.serve({ port: config.port, hostname: config.host, maxRequestBodySize: config.maxBodyBytes, fetch, error });

  const url = `http://${config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host}:${server.port}`;
  selfUrl = url;
  ready = import("./runtime").then(({ startRuntime }) =>
    startRuntime({ config, secrets, dbh, dbPath, logger, startedAt, selfUrl: () => selfUrl, options }),
  );
  try {
    runtime = await ready;
    // The app's direct routes become native routes: Bun matches them before any JavaScript runs.
    const app = runtime.app;
    const routes: Record<string, Record<string, (request: Request, srv: Server<undefined>) => Promise<Response>>> = {};
    for (const [path, methods] of Object.entries(app.direct)) {
      routes[path] = {};
      for (const method of Object.keys(methods)) routes[path][method] = (request, srv) => app.handle(request, srv.requestIP(request)?.address, path);
    }
    server.reload({ routes, fetch, error });
  } catch (error) {
    server.stop(true);
    dbh.close();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish (bounded), then close everything else.
      const drained = server.stop(false);
      const timedOut = await Promise.race([
        drained.then(() => false),
        Bun.sleep(config.shutdownTimeoutMs).then(() => true),
      ]);
      if (timedOut) await server.stop(true);
      await runtime!.stop();
      dbh.close();
    })());

  return { url, port: server.port!, app: runtime.app, dbh, secrets, logger, dispatcher: runtime.dispatcher, stop };
}
