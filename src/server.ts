// Starts the whole server on one port: database, secrets, then the runtime (every feature module,
// the worker pool, the dispatcher, the webhook deliverer, the scheduler). With `lazy` (the CLI's
// serve) the runtime loads on first use: the first request other than /healthz, work left in the
// database by a previous run (waiting jobs, pending webhook deliveries), or the next scheduled run.
// Until then /healthz answers from the database alone and the process holds only this shell.
// The returned handle stops everything in order, which both SIGTERM and tests use.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { Cron } from "croner";
import type { App } from "./app";
import { errorCode, StartupError, type Config } from "./config";
import { DB_FILE, lockDataDir, prepareDataDir, type DbHandle } from "./db/open";
import type { PgHandle } from "./db/pg/open";
import { openDataDirDatabase, openPostgresDatabase } from "./database";
import { HEARTBEAT_MS, type InstanceStore } from "./http/instances";
import type { StatusStore } from "./http/status-store";
import type { Backend } from "./stores";
import { healthResponse } from "./http/health";
import { createSqliteStatusStore } from "./http/status-store.sqlite";
import type { Resolver } from "./webhooks/destination";
import { requestIdFor } from "./http/request-id";
import { createLogger, type Logger } from "./http/log";
import type { Runtime } from "./runtime";
import { ensureSecrets, type Secrets } from "./secrets";
import type { Dispatcher } from "./tracking/dispatcher";
import { VERSION } from "./version";
import { loadWebAssets, webRoutes } from "./web/assets";

export interface RunningServer {
  url: string;
  port: number;
  /** The runtime's app and dispatcher; they throw when read before the runtime has loaded. */
  readonly app: App;
  readonly dispatcher: Dispatcher;
  /** The SQLite handle (throws in Postgres mode). */
  readonly dbh: DbHandle;
  backend: Backend;
  secrets: Secrets;
  logger: Logger;
  /** Loads the runtime now if it is not loaded yet. */
  runtime(): Promise<Runtime>;
  /** True once the runtime has loaded. */
  readonly loaded: boolean;
  stop(): Promise<void>;
}

export interface StartOptions {
  now?: () => Date;
  scheduler?: boolean;
  /** Host name → addresses for webhook destinations (the system resolver by default; tests stub it). */
  resolveHost?: Resolver;
  /** Load the runtime on first use instead of before returning. */
  lazy?: boolean;
  /**
   * Called when a lazy load fails (the runtime cannot start: the process can no longer serve).
   * Without it the failure is logged, the requests waiting get 503, and the next request retries.
   */
  onLoadFailure?: (error: unknown) => void;
}

// setTimeout holds at most ~24.8 days; longer waits are taken in steps.
const MAX_TIMER_MS = 24 * 3600 * 1000;
/**
 * Bun's own limit on a request body, above MAX_BODY_BYTES (which the app enforces with its 413):
 * a body declared larger still than this is refused by Bun at its headers, before the runtime (or
 * while it loads), with a 413 of no body.
 */
const bodyCeilingBytes = (maxBodyBytes: number) => Math.max(4 * maxBodyBytes, 64 * 1024 * 1024);
// The runtime is loaded this long before a scheduled run, so the scheduler is in place for it.
const SCHEDULE_LEAD_MS = 5_000;
// The next run is computed this long after start: croner's first date computation initializes
// time-zone data for ~8 ms, which would otherwise delay the first answers.
const SCHEDULE_ARM_DELAY_MS = 250;

interface OpenedBackend {
  backend: Backend;
  secrets: Secrets;
  status: StatusStore;
  instances?: InstanceStore;
  /** Closes the database and frees what this server held (DATA_DIR's lock). */
  close(): Promise<void>;
}

/**
 * The database this server keeps its data in, open, with its secrets. SQLite (the default): DATA_DIR
 * made ready and held by this server. Postgres (DATABASE_URL): the shared database, migrated under
 * its lock, with the secrets every instance shares; nothing is held on this host, so several
 * instances may run. A failure is a StartupError (one line, an exit code) and leaves nothing held.
 */
async function openBackend(config: Config): Promise<OpenedBackend> {
  if (config.database.url) return openPostgresBackend(config, config.database.url);
  prepareDataDir(config.dataDir);
  const lock = lockDataDir(config.dataDir);
  try {
    const secrets = await ensureSecrets(config);
    const dbh = openDataDirDatabase(config.dataDir);
    return {
      backend: { kind: "sqlite", dbh, dbPath: join(config.dataDir, DB_FILE) },
      secrets,
      status: createSqliteStatusStore(dbh.sqlite),
      async close() {
        try {
          dbh.close();
        } finally {
          // Last: DATA_DIR is free for the next server only once nothing here writes to it.
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function openPostgresBackend(config: Config, url: string): Promise<OpenedBackend> {
  let pg: PgHandle;
  try {
    pg = await openPostgresDatabase(url, { poolSize: config.database.poolSize });
  } catch (error) {
    // The URL's password stays out of the message.
    throw new StartupError(`DATABASE_URL cannot be used: ${(error as Error).message ?? error}`, 2);
  }
  try {
    const [{ createPgSecretStore }, { postgresStores }] = await Promise.all([import("./secrets.pg"), import("./stores")]);
    const secrets = await createPgSecretStore(pg.sql, config).ensure();
    const stores = postgresStores(pg);
    return { backend: { kind: "postgres", pg, url }, secrets, status: stores.status, instances: stores.instances, close: () => pg.close() };
  } catch (error) {
    await pg.close();
    throw error;
  }
}

/**
 * HOST looked up before listening, so a name that does not resolve is said the same way on every
 * machine (some resolvers let Bun's listen fail first with EINVAL or ENOENT).
 */
async function checkHostResolves(host: string): Promise<void> {
  if (isIP(host) !== 0) return;
  try {
    await lookup(host);
  } catch (error) {
    throw new StartupError(`HOST=${host} does not resolve to an address of this machine (${errorCode(error)})`);
  }
}

/** Bun.serve, with a port or address that cannot be had said in one line naming PORT / HOST (exit 2). */
function listen(
  config: Config,
  fetch: (request: Request, srv: Server<undefined>) => Promise<Response>,
  error: (error: Error) => Response,
): Server<undefined> {
  try {
    // The app answers a body over MAX_BODY_BYTES with its own 413 in the surface's error shape before
    // reading it (app.ts); Bun's ceiling, whose 413 has no body, only stops what the app never sees.
    return Bun.serve({ port: config.port, hostname: config.host, maxRequestBodySize: bodyCeilingBytes(config.maxBodyBytes), fetch, error });
  } catch (error) {
    throw new StartupError(listenProblem(config, errorCode(error)));
  }
}

function listenProblem({ host, port }: Config, code: string): string {
  if (code === "EADDRINUSE") return `PORT=${port} is already in use on HOST=${host}`;
  if (code === "EACCES") return `PORT=${port} on HOST=${host} needs privileges this process lacks (EACCES)`;
  if (code === "EADDRNOTAVAIL") return `HOST=${host} is not an address of this machine (EADDRNOTAVAIL)`;
  // Bun says ENOENT when the name does not resolve.
  if (code === "ENOENT" || code.startsWith("EAI_")) return `HOST=${host} does not resolve to an address of this machine (${code})`;
  return `cannot listen on HOST=${host} PORT=${port} (${code})`;
}

export async function startServer(config: Config, logger = createLogger(config.logLevel), options: StartOptions = {}): Promise<RunningServer> {
  await checkHostResolves(config.host);
  const { backend, secrets, status, instances, close: closeBackend } = await openBackend(config);
  const startedAt = Date.now();
  let runtime: Runtime | undefined;
  let loading: Promise<Runtime> | undefined;
  let scheduleTimer: ReturnType<typeof setTimeout> | undefined;

  let loadFailed = false;
  const fetch = async (request: Request, srv: Server<undefined>) => {
    if (!runtime) {
      if ((request.method === "GET" || request.method === "HEAD") && new URL(request.url).pathname === "/healthz") return shellHealth(request);
      try {
        await load();
      } catch {
        return Response.json(
          { success: false, error: { code: "unavailable", message: "The server could not start its features; see its log" } },
          { status: 503, headers: { "retry-after": "5", "x-request-id": requestIdFor(request) } },
        );
      }
    }
    return runtime!.app.handle(request, srv.requestIP(request)?.address);
  };
  /** /healthz before the runtime is loaded: the same answer, and 503 while the runtime cannot load. */
  async function shellHealth(request: Request): Promise<Response> {
    const response = await healthResponse(status, VERSION, startedAt, { runtimeFailed: loadFailed }, instances);
    response.headers.set("x-request-id", requestIdFor(request));
    return response;
  }
  const error = (error: Error) => {
    logger.error("server error", { error: String(error?.stack ?? error) });
    return Response.json({ success: false, error: { code: "internal_error", message: "Internal server error" } }, { status: 500 });
  };
  let server: Server<undefined>;
  try {
    server = listen(config, fetch, error);
  } catch (err) {
    await closeBackend();
    throw err;
  }
  const url = `http://${config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host}:${server.port}`;

  // Postgres mode: this instance announces itself and renews its heartbeat while it runs.
  const instanceId = crypto.randomUUID();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  if (instances) {
    // Loaded only in Postgres mode: the level counts the embedded Postgres migrations.
    const { PG_SCHEMA_LEVEL } = await import("./db/pg/schema-level");
    const thisInstance = { id: instanceId, host: hostname(), pid: process.pid, version: VERSION, url, schema: PG_SCHEMA_LEVEL };
    await instances.register(thisInstance).catch((err) => logger.warn("instance registration failed", { error: String(err) }));
    heartbeat = setInterval(() => void instances.heartbeat(thisInstance).catch((err) => logger.warn("instance heartbeat failed", { error: String(err) })), HEARTBEAT_MS);
    heartbeat.unref?.();
  }

  // Native routes: the web app's files (they need no feature runtime) and the runtime's direct routes.
  let pageRoutes: Record<string, Response> = {};
  let runtimeRoutes: Record<string, Record<string, (request: Request, srv: Server<undefined>) => Promise<Response>>> = {};
  const applyRoutes = () => {
    try {
      server.reload({ routes: { ...pageRoutes, ...runtimeRoutes }, fetch, error });
    } catch {
      // stopped meanwhile
    }
  };
  loadWebAssets().then(
    (assets) => {
      pageRoutes = webRoutes(assets);
      applyRoutes();
    },
    (err) => logger.error("the web app could not be loaded", { error: String((err as Error)?.stack ?? err) }),
  );

  function load(): Promise<Runtime> {
    loading ??= loadRuntime().catch((err) => {
      loading = undefined;
      loadFailed = true;
      logger.error("runtime failed to load", { error: String((err as Error)?.stack ?? err) });
      options.onLoadFailure?.(err);
      throw err;
    });
    return loading;
  }

  async function loadRuntime(): Promise<Runtime> {
    clearTimeout(scheduleTimer);
    const began = performance.now();
    const { startRuntime } = await import("./runtime");
    const rt = await startRuntime({ config, secrets, backend, logger, startedAt, selfUrl: () => url, options });
    // The app's direct routes become native routes: Bun matches them before any JavaScript runs.
    const routes: Record<string, Record<string, (request: Request, srv: Server<undefined>) => Promise<Response>>> = {};
    for (const [path, methods] of Object.entries(rt.app.direct)) {
      routes[path] = {};
      for (const method of Object.keys(methods)) routes[path][method] = (request, srv) => rt.app.handle(request, srv.requestIP(request)?.address, path);
    }
    runtimeRoutes = routes;
    applyRoutes();
    runtime = rt;
    loadFailed = false;
    logger.info("runtime loaded", { duration_ms: Math.round(performance.now() - began) });
    return rt;
  }

  /** Loads the runtime shortly before the scheduler's next run (the scheduler lives in the runtime). */
  function armSchedule(): void {
    if (options.scheduler === false) return;
    const next = new Cron(config.cronSchedule, { paused: true, timezone: config.cronTz }).nextRun();
    if (!next) return;
    const wait = next.getTime() - Date.now() - SCHEDULE_LEAD_MS;
    scheduleTimer = setTimeout(() => (wait > MAX_TIMER_MS ? armSchedule() : void load().then((rt) => catchUp(rt, next), fail)), Math.min(Math.max(wait, 0), MAX_TIMER_MS));
  }
  /**
   * The runtime's scheduler only looks ahead: when it came up too late for the run it was loaded
   * for (a busy or suspended machine), that run is made here. A run twice in a row is harmless —
   * the second finds nothing due.
   */
  function catchUp(rt: Runtime, next: Date): void {
    if (Date.now() >= next.getTime() - 1000) rt.runSchedule(true);
  }
  // load() has logged it and told onLoadFailure; nothing is waiting on this promise.
  const fail = () => {};

  if (options.lazy) {
    // Looked at just after start, so the first requests are not kept waiting by it.
    scheduleTimer = setTimeout(async () => {
      // Work a previous run left behind: the runtime must load at once to carry it on (and, when the
      // database cannot say, loading is what reports why).
      if (await status.pendingWork().catch(() => true)) void load().catch(fail);
      else scheduleTimer = setTimeout(armSchedule, SCHEDULE_ARM_DELAY_MS);
    }, 0);
  } else {
    try {
      await load();
    } catch (err) {
      server.stop(true);
      await closeBackend();
      throw err;
    }
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      clearTimeout(scheduleTimer);
      // Stop accepting, let in-flight requests finish (bounded), then close everything else.
      const drained = server.stop(false);
      const timedOut = await Promise.race([
        drained.then(() => false),
        Bun.sleep(config.shutdownTimeoutMs).then(() => true),
      ]);
      if (timedOut) await server.stop(true);
      // A runtime still loading is let finish, so its parts can be stopped in order.
      const rt = runtime ?? (loading ? await loading.catch(() => undefined) : undefined);
      await rt?.stop();
      clearInterval(heartbeat);
      await instances?.remove(instanceId).catch(() => {});
      await closeBackend();
    })());

  const loaded = (): Runtime => {
    if (!runtime) throw new Error("The runtime has not loaded yet (call runtime() first)");
    return runtime;
  };
  return {
    url,
    port: server.port!,
    get app() {
      return loaded().app;
    },
    get dispatcher() {
      return loaded().dispatcher;
    },
    get loaded() {
      return runtime !== undefined;
    },
    get dbh() {
      if (backend.kind !== "sqlite") throw new Error("A server on DATABASE_URL has no SQLite handle");
      return backend.dbh;
    },
    backend,
    secrets,
    logger,
    runtime: load,
    stop,
  };
}
