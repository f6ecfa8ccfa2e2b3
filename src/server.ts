// Starts the whole server on one port: database, secrets, app, (later) workers and scheduler.
// Returned handle stops everything in order, which both SIGTERM and tests use.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { cron } from "@elysiajs/cron";
import { Elysia } from "elysia";
import { createApp, type App } from "./app";
import type { Config } from "./config";
import { DB_FILE, openDatabase, type DbHandle } from "./db/open";
import { createLogger, type Logger } from "./http/log";
import { ensureSecrets, type Secrets } from "./secrets";
import { createWorkerPool } from "./queue/pool";
import { createQueueStore } from "./queue/store";
import { createDispatcher, type Dispatcher } from "./tracking/dispatcher";
import { createDeliverer } from "./webhooks/delivery";
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
  const store = createQueueStore(dbh.sqlite, options.now);
  // Inside the compiled binary (bytecode builds keep source paths in import.meta.url) a specifier
  // relative to the embedded root finds the worker entry; from source, this module's URL does.
  const workerUrl = Bun.main.startsWith("/$bunfs/") ? "./queue/worker.ts" : new URL("./queue/worker.ts", import.meta.url);
  const pool = createWorkerPool({ size: config.workers, workerUrl, init: { dbPath, env: config.env, judge: config.sentimentJudge } });
  const deliverer = createDeliverer({ sqlite: dbh.sqlite, logger, now: options.now, ...config.webhooks });
  const dispatcher = createDispatcher({ sqlite: dbh.sqlite, store, pool, engines: config.engines, logger, now: options.now, ...config.tracking, onEvents: deliverer.wake });
  let selfUrl = config.publicUrl;
  const app = await createApp({ config, secrets, dbh, logger, version: VERSION, now: options.now, tracking: { store, notifier: dispatcher }, webhooks: deliverer, selfUrl: () => selfUrl });

  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    maxRequestBodySize: config.maxBodyBytes,
    fetch: (request, srv) => app.handle(request, srv.requestIP(request)?.address),
    error: (error) => {
      logger.error("server error", { error: String(error?.stack ?? error) });
      return Response.json({ success: false, error: { code: "internal_error", message: "Internal server error" } }, { status: 500 });
    },
  });

  // The internal scheduler runs the same function as POST /cron/daily-tracking. It is set up just
  // after the server listens: nothing is due in the first milliseconds, and start-up stays short.
  let scheduler: { store: { cron: Record<string, { stop(): void }> } } | undefined;
  const schedulerTimer = setTimeout(() => {
    scheduler = new Elysia().use(
    cron({
      name: "daily-tracking",
      pattern: config.cronSchedule,
      timezone: config.cronTz,
      paused: options.scheduler === false,
      protect: true,
      run: () => {
        try {
          const outcome = app.schedule.runDue();
          logger.info("scheduled tracking", { enqueued: outcome.enqueued.length, skipped: outcome.skipped.length });
        } catch (error) {
          logger.error("scheduled tracking failed", { error: String(error) });
        }
      },
    }),
    ) as never;
  }, 0);

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
      clearTimeout(schedulerTimer);
      scheduler?.store.cron["daily-tracking"].stop();
      await app.close();
      await dispatcher.stop();
      await deliverer.stop();
      await pool.stop();
      dbh.close();
    })());

  const url = `http://${config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host}:${server.port}`;
  selfUrl = url;
  return { url, port: server.port!, app, dbh, secrets, logger, dispatcher, stop };
}
