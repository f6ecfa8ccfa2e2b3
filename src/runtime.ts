// Everything behind the HTTP port: the app with all its feature modules, the worker pool, the
// tracking dispatcher, the webhook deliverer and the scheduler. server.ts loads this module just
// after it starts listening, so the process answers /healthz before these modules are evaluated.
import { createMailer } from "./mail/mailer";
import { createMailService } from "./mail/service";
import { cron } from "@elysiajs/cron";
import { Elysia } from "elysia";
import { createApp, type App } from "./app";
import type { Config } from "./config";
import type { Logger } from "./http/log";
import { createStorageHealth } from "./http/health";
import { runMaintenance } from "./storage/maintenance";
import { createMetrics } from "./http/metrics";
import { createRestThreadPool } from "./platform/rest/thread-pool";
import { createWorkerPool } from "./queue/pool";
import type { Secrets } from "./secrets";
import { storesFor, type Backend } from "./stores";
import { createDispatcher, type Dispatcher } from "./tracking/dispatcher";
import { VERSION } from "./version";
import { createDeliverer } from "./webhooks/delivery";
import { systemResolver, type Resolver } from "./webhooks/destination";

/** Revoked sessions, used or expired one-time links, expired invitations and webhook events are kept this long, then deleted by the hourly upkeep. */
const ENDED_KEEP_DAYS = 30;
const PRUNE_BATCH = 1000;
/** At most this many batches an hour per kind (20,000 rows): a backlog goes over hours, each batch short. */
const PRUNE_BATCHES = 20;

/** Runs `prune` (rows deleted, at most `limit`) until a batch comes back short, at most PRUNE_BATCHES times; the rows in all. */
async function pruneInBatches(prune: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < PRUNE_BATCHES; batch++) {
    const deleted = await prune(PRUNE_BATCH);
    total += deleted;
    if (deleted < PRUNE_BATCH) break;
    // Between batches the serving thread answers other work.
    await Bun.sleep(1);
  }
  return total;
}

export interface Runtime {
  app: App;
  dispatcher: Dispatcher;
  /** Runs the scheduler's job now (`late`: for a run whose time passed before the runtime was up). */
  runSchedule(late?: boolean): Promise<void>;
  stop(): Promise<void>;
}

export async function startRuntime(input: {
  config: Config;
  secrets: Secrets;
  backend: Backend;
  logger: Logger;
  startedAt: number;
  selfUrl: () => string;
  options: { now?: () => Date; scheduler?: boolean; resolveHost?: Resolver };
}): Promise<Runtime> {
  const { config, secrets, backend, logger, options } = input;
  const stores = storesFor(backend, { sourceCategories: config.rest.sourceCategories });
  const dbPath = backend.kind === "sqlite" ? backend.dbPath : "";
  const store = stores.queue(options.now);
  // Inside the compiled binary (bytecode builds keep source paths in import.meta.url) a specifier
  // relative to the embedded root finds the worker entry; from source, this module's URL does.
  const workerUrl = Bun.main.startsWith("/$bunfs/") ? "./queue/worker.ts" : new URL("./queue/worker.ts", import.meta.url);
  const pool = createWorkerPool({ size: config.workers, workerUrl, init: { dbPath, databaseUrl: backend.kind === "postgres" ? backend.url : undefined, env: config.env, judge: config.sentimentJudge } });
  // /rest/v1 threads: readers with a statement timeout, one writer (thread-pool.ts).
  const restUrl = Bun.main.startsWith("/$bunfs/") ? "./platform/rest/thread-worker.ts" : new URL("./platform/rest/thread-worker.ts", import.meta.url);
  const storage = createStorageHealth();
  const metrics = createMetrics();
  metrics.useStatus(stores.status);
  const restPool = (size: number, writable: boolean) =>
    createRestThreadPool({
      size,
      dbPath,
      workerUrl: restUrl,
      writable,
      statementTimeoutMs: config.rest.statementTimeoutMs,
      maxRows: config.rest.maxRows || undefined,
      sourceCategories: config.rest.sourceCategories,
      onInternalError: (error) => logger.error("unhandled error in /rest/v1", { error }),
      onSqliteError: (error) => storage.record(error),
      onWait: metrics.readerWait,
    });
  // Reader and writer threads are how SQLite reads beside a writer; PostgreSQL serves concurrent
  // requests itself, so in Postgres mode /rest/v1 runs on the serving thread over the pool.
  const rest = backend.kind === "sqlite" ? { readers: restPool(config.rest.readers, false), writer: restPool(1, true) } : undefined;
  const resolveHost = options.resolveHost ?? systemResolver;
  const deliverer = createDeliverer({ store: stores.webhooks, logger, now: options.now, resolve: resolveHost, ...config.webhooks });
  // Mail only with SMTP_URL: without it nothing is queued (src/mail/service.ts).
  const mailer = config.mail.smtpUrl
    ? createMailer({ store: stores.mail, transport: (await import("./mail/smtp")).smtpTransport(config.mail.smtpUrl, config.mail.timeoutMs), from: config.mail.from, logger, now: options.now, retryScheduleMs: config.mail.retryScheduleMs, timeoutMs: config.mail.timeoutMs })
    : undefined;
  // A finished run may have recorded visibility.changed events: webhooks go now, alert mails too.
  let mailAlerts: () => void = () => {};
  const onEvents = () => {
    deliverer.wake();
    mailAlerts();
  };
  const dispatcher = createDispatcher({ store, tracking: stores.tracking, units: stores.units, pool, engines: config.engines, logger, now: options.now, ...config.tracking, onEvents, onUpstream: metrics.upstreamCall });
  // Postgres cannot call the brand matcher from SQL: this instance rechecks prompts.is_branded when
  // a trigger says a brand's names or prompts changed (src/insights/branded.pg.ts).
  const branded = backend.kind === "postgres" ? await (await import("./insights/branded.pg")).listenBranded(backend.pg.sql, (error) => logger.error("branded recheck failed", { error: String(error) })) : undefined;
  const stopWorkers = async () => {
    await branded?.stop();
    await dispatcher.stop();
    await deliverer.stop();
    await mailer?.stop();
    await pool.stop();
    await rest?.readers.stop();
    await rest?.writer.stop();
  };
  // The dispatcher and the deliverer start working as soon as they exist: a failing app must not
  // leave them claiming jobs behind a server that cannot answer.
  const app = await createApp({
    config,
    secrets,
    stores,
    logger,
    version: VERSION,
    now: options.now,
    startedAt: input.startedAt,
    tracking: { store, notifier: dispatcher },
    webhooks: deliverer,
    mail: createMailService({ store: stores.mail, enabled: !!mailer, now: options.now, wake: mailer?.wake }),
    selfUrl: input.selfUrl,
    rest,
    storage,
    resolveHost,
    metrics,
  }).catch(async (error) => {
    await stopWorkers();
    throw error;
  });


  // Digests and alert mails: what is due is found in the database, so a missed tick (a restart, a
  // second instance) only delays it; each digest and mail is made once (src/digests/service.ts).
  let digesting = false;
  const sendDigests = async () => {
    if (digesting) return;
    digesting = true;
    try {
      const sent = await app.digests.sendDue();
      const alerts = await app.digests.mailAlerts();
      if (sent.digests || sent.failed || alerts.mails) logger.info("digests", { ...sent, alert_mails: alerts.mails });
    } catch (error) {
      logger.error("digests failed", { error: String(error) });
    } finally {
      digesting = false;
    }
  };
  // Runs finishing together make one pass.
  let alertTimer: ReturnType<typeof setTimeout> | undefined;
  mailAlerts = () => {
    alertTimer ??= setTimeout(() => {
      alertTimer = undefined;
      app.digests.mailAlerts().catch((error) => logger.error("alert mails failed", { error: String(error) }));
    }, 100);
  };
  const digestStart = setTimeout(sendDigests, 60_000);
  const digestTimer = setInterval(sendDigests, 3_600_000);

  /** One scheduled run: the same function as POST /cron/daily-tracking, logged. */
  async function runSchedule(late = false): Promise<void> {
    try {
      const outcome = await app.schedule.runDue();
      logger.info("scheduled tracking", { enqueued: outcome.enqueued.length, skipped: outcome.skipped.length, ...(late ? { late } : {}) });
    } catch (error) {
      logger.error("scheduled tracking failed", { error: String(error) });
    }
  }

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
      run: () => runSchedule(),
    }),
    ) as never;
  }, 0);

  // Storage upkeep (src/storage/maintenance.ts) a minute after start and hourly: retention,
  // compression of rows written plain, repacking with brands' dictionaries, returning freed pages.
  // One batch at a time on this thread, pausing at least as long as a batch took.
  let maintaining: Promise<void> | null = null;
  const maintenanceCursor = { compressedThrough: 0, packedThrough: 0 };
  const storageStore = stores.storage;
  const maintainOnce = async () => {
    try {
      const now = options.now?.() ?? new Date();
      const report = await runMaintenance(storageStore, { retentionDays: config.retentionDaysRawAnswers, logRetentionMonths: config.logRetentionMonths, now, pause: async (spentMs = 0) => (stopped ? false : (await Bun.sleep(Math.max(1, spentMs)), !stopped)), cursor: maintenanceCursor });
      if (report.packFailure || report.rowsUnreadable) logger.error("storage maintenance: repacking answers with dictionaries", { failure: report.packFailure, unreadable: report.rowsUnreadable });
      if (report.answersDropped || report.rowsCompressed || report.rowsPacked || report.pagesFreed || report.partitionsMade || report.partitionsDropped || report.defaultRowsDeleted || report.tablesRetired) logger.info("storage maintenance", { ...report });
      if (report.stopped || stopped) return;
      // Rows past use, kept ENDED_KEEP_DAYS (a late click on an expired link is told so, not "not
      // found"; the webhook delivery log reaches back that far), then deleted in batches.
      const before = new Date(now.getTime() - ENDED_KEEP_DAYS * 86_400_000).toISOString();
      for (const [what, prune] of [
        ["ended sessions and used or expired links", stores.auth.pruneEnded],
        ["expired invitations", stores.members.pruneExpired],
        ["webhook events no delivery waits on (and their deliveries)", stores.webhooks.pruneEvents],
      ] as const) {
        if (stopped) return;
        const rows = await pruneInBatches((limit) => prune({ before, limit }));
        if (rows) logger.info(`${what} deleted`, { rows, keep_days: ENDED_KEEP_DAYS });
      }
    } catch (error) {
      logger.error("storage maintenance failed", { error: String(error) });
    }
  };
  // One round at a time; stop() waits for the one running (its walks end at their next pause).
  const maintain = () => (maintaining ??= maintainOnce().finally(() => (maintaining = null)));
  const maintenanceStart = setTimeout(maintain, 60_000);
  const maintenanceTimer = setInterval(() => void maintain().then(moveFormerRows), 3_600_000);

  // The rows of running totals a newer release keeps in another layout move after the start, a few
  // keys per short transaction (issue #32: an upgrade's first start stays short), until nothing is
  // left or the server stops. A step that moves nothing (a former table ended, or on Postgres an
  // instance of an older release still running, or a failed step) waits a little; after a minute of
  // those the hourly upkeep above tries again.
  let moving = false;
  let stopped = false;
  const moveFormerRows = async () => {
    if (moving) return;
    moving = true;
    try {
      for (let idle = 0; !stopped && idle < 20; ) {
        let moved = 0;
        try {
          const step = await storageStore.moveFormerRows({ maxKeys: 200 });
          if (step.done) return;
          moved = step.moved;
        } catch (error) {
          // A deadlock with a brand's delete, say: the step is rolled back whole and tried again.
          logger.warn("moving rollup rows to their new layout failed", { error: String(error) });
        }
        idle = moved ? 0 : idle + 1;
        await Bun.sleep(moved ? 5 : 3_000);
      }
    } finally {
      moving = false;
    }
  };
  const movingStart = setTimeout(() => void moveFormerRows(), 2_000);

  return {
    app,
    dispatcher,
    runSchedule,
    async stop() {
      clearTimeout(maintenanceStart);
      clearTimeout(movingStart);
      stopped = true;
      clearTimeout(digestStart);
      clearInterval(digestTimer);
      clearTimeout(alertTimer);
      mailAlerts = () => {};
      clearInterval(maintenanceTimer);
      await maintaining;
      clearTimeout(schedulerTimer);
      scheduler?.store.cron["daily-tracking"].stop();
      await app.close();
      await stopWorkers();
    },
  };
}
