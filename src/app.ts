// createApp(deps) composes the feature plugins behind one request wrapper that owns what every
// surface shares: request id, JSON access log, body-size limit, CORS, error shape, 404.
import type { MailService } from "./mail/service";
import { Elysia } from "elysia";
import type { Config } from "./config";
import type { Stores } from "./stores";
import { applyCors, corsPreflight } from "./http/cors";
import { applySecurityHeaders } from "./http/security-headers";
import { bodyTooLarge, cappedStream } from "./http/body";
import { AppError, errorResponse, surfaceOf, toAppError, type Surface } from "./http/errors";
import type { Logger } from "./http/log";
import { requestIdFor } from "./http/request-id";
import { apiHealthRoutes } from "./http/api-routes";
import { createStorageHealth, healthResponse, type StorageHealth } from "./http/health";
import type { Resolver } from "./webhooks/destination";
import { createCallerResolver, type CallerResolver } from "./platform/auth/caller";
import { authRoutes } from "./platform/auth/routes";
import type { DirectRoutes, RequestMeta } from "./http/request";
import type { RestThreadPool } from "./platform/rest/thread-pool";
import { restRoutes } from "./platform/rest/routes";
import { createAuthService, type AuthService } from "./platform/auth/service";
import { createTokenService } from "./platform/auth/tokens";
import { pixelRoutes } from "./pixel/routes";
import { inProcessReports } from "./reports/registry";
import type { Secrets } from "./secrets";
import type { QueueStore } from "./queue/store";
import { scheduleRoutes } from "./schedule/routes";
import { digestRoutes } from "./digests/routes";
import { createDigestService, type DigestService } from "./digests/service";
import { createScheduleService, type ScheduleService } from "./schedule/service";
import { secretMatches } from "./common/secret-match";
import { webRoutes } from "./web/routes";
import { createKeyService } from "./keys/service";
import { keyRoutes } from "./keys/routes";
import { memberRoutes } from "./members/routes";
import { createMembersService } from "./members/service";
import { createClientAddress } from "./http/client-address";
import { crawlerRoutes } from "./crawlers/routes";
import { crawlerIngestFor } from "./crawlers/setup";
import { createShareService } from "./share/service";
import { shareRoutes } from "./share/routes";
import { clientReportRoutes } from "./client-report/routes";
import { buildClientReport } from "./client-report/service";
import { createClientReportService } from "./client-report/service";
import { createPortfolioService } from "./portfolio/service";
import { portfolioRoutes } from "./portfolio/routes";
import { createRouteLabeler, type Metrics, type RouteLabeler } from "./http/metrics";
import { REST_POLICIES } from "./platform/rest/policies";
import { ROUTINES } from "./platform/rest/rpc";
import { INSIGHT_RPCS } from "./insights/rpc";
import { trackingRoutes } from "./tracking/routes";
import { webhookRoutes } from "./webhooks/routes";
import { createWebhookService } from "./webhooks/service";
import { createTrackingService, type TrackingNotifier } from "./tracking/service";

export interface AppDeps {
  /** Reverse DNS for crawler verification (VERIFY_RDNS); the system's by default, a stub in tests. */
  crawlerResolver?: import("./crawlers/verify").Resolver;
  /** Prometheus metrics (GET /metrics when METRICS_TOKEN is set); request counts and latencies are fed here. */
  metrics?: Metrics;
  config: Config;
  secrets: Secrets;
  stores: Stores;
  logger: Logger;
  version: string;
  now?: () => Date;
  /** When the process started serving (for uptime). */
  startedAt?: number;
  /** The webhook deliverer, woken when a test event or a manual retry is queued. */
  webhooks?: { wake(): void };
  /** Outgoing mail (src/mail/service.ts); off when the runtime gives none (tests of the app alone). */
  mail?: MailService;
  /** The address this server really listens on (known once it does). */
  selfUrl?: () => string;
  /** The running dispatcher, told about new and cancelled jobs (absent in request-only tests). */
  tracking?: { store?: QueueStore; notifier?: TrackingNotifier };
  /** Threads for /rest/v1 reads and writes (absent in request-only tests: they run in-process). */
  rest?: { readers: Pick<RestThreadPool, "run" | "report">; writer: Pick<RestThreadPool, "run"> };
  /** Failed writes for /healthz (one per process: the REST threads report into it too). */
  storage?: StorageHealth;
  /** Resolves webhook host names when an endpoint is created or changed (absent: checked at delivery only). */
  resolveHost?: Resolver;
}

export type { DirectRoutes, RequestMeta } from "./http/request";

export interface App {
  elysia: Elysia<any, any, any, any, any, any, any>;
  /**
   * Serves one request; `ip` is the peer address when served over a socket, `pathname` the route
   * when the server already knows it (native routes).
   */
  handle(request: Request, ip?: string, pathname?: string): Promise<Response>;
  /** Served by app.handle ahead of Elysia; the server also mounts them as native Bun.serve routes. */
  direct: DirectRoutes;
  meta(request: Request): RequestMeta;
  auth: AuthService;
  callers: CallerResolver;
  schedule: ScheduleService;
  /** Digests and mailed alerts: the runtime sends what is due on its timer. */
  digests: DigestService;
  /** Shutdown work of the features (e.g. flushing the pixel's batch writer); runs before the database closes. */
  close(): Promise<void>;
}

export async function createApp(deps: AppDeps): Promise<App> {
  const startedAt = deps.startedAt ?? Date.now();
  const metaOf = new WeakMap<Request, RequestMeta>();
  const meta = (request: Request) => metaOf.get(request) ?? { requestId: requestIdFor(request), ip: "unknown" };

  const tokens = await createTokenService({
    jwtSecret: deps.secrets.jwtSecret,
    signingKey: deps.config.auth.jwtSigningKey,
    expirySeconds: deps.config.auth.jwtExpirySeconds,
    issuer: `${deps.config.publicUrl}/auth/v1`,
  });
  const publicUrl = () => (deps.config.env.PUBLIC_URL?.trim() ? deps.config.publicUrl : (deps.selfUrl?.() ?? deps.config.publicUrl));
  // One set of limiters (shared by instances on Postgres) for every service that limits.
  const limits = deps.stores.rateLimits(deps.now && (() => deps.now!().getTime()));
  // Whose address a request is (rate limits, the pixel's visitor hash): the peer, or past trusted proxies.
  const clientAddress = createClientAddress(deps.config.trustedProxies);
  const auth = createAuthService({ store: deps.stores.auth, config: deps.config, publicUrl, tokens, now: deps.now, mail: deps.mail, limits });
  const status = deps.stores.status;
  const keys = createKeyService({ store: deps.stores.keys, now: deps.now });
  const members = createMembersService({ store: deps.stores.members, now: deps.now, mail: deps.mail, publicUrl, limits });
  const shares = createShareService({ store: deps.stores.share, now: deps.now, publicUrl });
  const callers = createCallerResolver({ auth, secrets: deps.secrets, keys, shares });
  let appPage: Promise<string | undefined> | undefined;
  const closers: (() => void | Promise<void>)[] = [];
  const tracking = createTrackingService({
    store: deps.tracking?.store ?? deps.stores.queue(deps.now),
    tracking: deps.stores.tracking,
    engines: deps.config.engines,
    notifier: deps.tracking?.notifier,
  });
  const webhooks = createWebhookService({ store: deps.stores.webhooks, allowPrivate: deps.config.webhooks.allowPrivate, wake: () => deps.webhooks?.wake(), now: deps.now, resolve: deps.resolveHost, limits });
  const schedule = createScheduleService({ store: deps.stores.schedule, tracking, now: deps.now, logger: deps.logger, timeZone: deps.config.cronTz });
  const reportDeps = { store: deps.stores.clientReport, insights: deps.stores.insights, sourceCategories: deps.config.rest.sourceCategories, now: deps.now };
  // The reports a request starts (traffic, portfolio, client report): on SQLite's reader threads,
  // else here — on Postgres over stores whose every statement is bounded (statement_timeout). The
  // digests are the server's own work.
  const statementTimeoutMs = deps.config.rest.statementTimeoutMs;
  const reports = deps.rest?.readers.report ?? inProcessReports({ ...deps.stores.requestReads(statementTimeoutMs), sourceCategories: deps.config.rest.sourceCategories, timeoutMs: statementTimeoutMs });
  const digests = createDigestService({ store: deps.stores.digests, insights: deps.stores.insights, sourceCategories: deps.config.rest.sourceCategories, mail: deps.mail, publicUrl, secret: deps.secrets.jwtSecret, now: deps.now, logger: deps.logger, limits, report: (input) => buildClientReport(reportDeps, input) });

  const storage = deps.storage ?? createStorageHealth();
  const crawlerStore = deps.stores.crawlers;

  /** Anything a route threw, in its surface's error shape; what is not an AppError is logged as a 5xx. */
  function thrownResponse(error: unknown, surface: Surface, request: Request, requestId: string): Response {
    storage.record(error);
    const appError = toAppError(error);
    if (appError.status === 500) deps.logger.error("unhandled error", { requestId, error: String((error as Error)?.stack ?? error) });
    else if (appError.status > 500 && !(error instanceof AppError)) deps.logger.warn(appError.message, { requestId, error: String(error) });
    return errorResponse(appError, surface, request);
  }

  let mcp: ((request: Request) => Promise<Response>) | undefined;
  let openapi: unknown;
  // Bound once the app exists: the route table the document is generated from.
  let routeTable: () => { method: string; path: string; requestBody?: unknown }[] = () => [];
  /** The document for the route table: Elysia's routes, the native ones (pixel, web app). */
  async function openApiFor(routes: { method: string; path: string; requestBody?: unknown }[]) {
    const [{ fullDocument }, { buildSchemaCache }, schema, { REST_POLICIES }, { WEB_PATHS }] = await Promise.all([import("./openapi/service"), import("./platform/rest/schema-cache"), import("./db/schema"), import("./platform/rest/policies"), import("./web/assets")]);
    const native = [...Object.entries(direct).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method, path }))), ...WEB_PATHS.map((path) => ({ method: "GET", path }))];
    return fullDocument(buildSchemaCache(schema), REST_POLICIES, [...routes, ...native], deps.version);
  }
  const pixel = pixelRoutes({ store: deps.stores.pixel({ maxPageKeys: deps.config.pixelMaxPages }), callers, meta, now: deps.now, reports, clientAddress, onClose: (fn) => closers.push(fn) });
  const direct = pixel.direct;
  const rest = restRoutes({ executor: deps.stores.rest, callers, now: deps.now, readers: deps.rest?.readers, writer: deps.rest?.writer, readConcurrency: deps.config.rest.readers, perCaller: deps.config.rest.perCaller, maxRows: deps.config.rest.maxRows || undefined, writeConcurrency: Math.max(1, Math.floor(deps.config.database.poolSize / 2)), onReadWait: deps.metrics?.readerWait, statementTimeoutMs, responseCache: deps.config.restCacheBytes > 0 && { maxBytes: deps.config.restCacheBytes, maxEntryBytes: Math.min(deps.config.restCacheBytes / 8, 4 * 1024 * 1024) } });
  const elysia = new Elysia()
    .onError(({ code, error, request }) => {
      const surface = surfaceOf(new URL(request.url).pathname);
      if (code === "NOT_FOUND") {
        const err = new AppError(404, "not_found", `No route for ${request.method} ${new URL(request.url).pathname}`);
        return errorResponse(err, surface, request);
      }
      if (code === "PARSE") return errorResponse(new AppError(400, "bad_json", "The request body is not valid JSON"), surface, request);
      if (code === "VALIDATION") return errorResponse(new AppError(400, "validation_failed", "The request is not valid", { details: String((error as Error).message).slice(0, 2000) }), surface, request);
      return thrownResponse(error, surface, request, meta(request).requestId);
    })
    .get("/healthz", () => healthResponse(status, deps.version, startedAt, { writeFailure: storage.writeFailure() }, deps.stores.instances))
    .use(authRoutes({ auth, callers, config: deps.config, meta, clientAddress, version: deps.version }))
    .use(apiHealthRoutes(callers))
    .use(rest)
    .use(trackingRoutes({ tracking, callers }))
    .use(webhookRoutes({ webhooks, callers }))
    .use(keyRoutes({ keys, callers }))
    .use(memberRoutes({ members, callers }))
    .use(crawlerRoutes({ store: crawlerStore, callers, ingest: crawlerIngestFor({ store: crawlerStore, jwtSecret: deps.secrets.jwtSecret, verifyRdns: deps.config.verifyRdns, retentionMonths: deps.config.logRetentionMonths, maxPaths: deps.config.crawlerMaxPaths, resolver: deps.crawlerResolver, now: deps.now, onEvents: () => deps.webhooks?.wake() }) }))
    .use(shareRoutes({ share: shares, callers, rest: { answer: rest.answer, anonKey: deps.secrets.anonKey }, page: () => (appPage ??= import("./web/assets").then((m) => m.loadWebAssets()).then((a) => a["/index.html"]?.body)) }))
    .use(portfolioRoutes({ portfolio: createPortfolioService({ make: (query) => reports("portfolio", query), now: deps.now }), callers }))
    .use(digestRoutes({ digests, callers, cronSecret: deps.secrets.cronSecret }))
    .use(clientReportRoutes({ reports: createClientReportService({ store: deps.stores.clientReport, make: (input) => reports("client", input), now: deps.now }), callers, share: shares }))
    .use(scheduleRoutes({ schedule, cronSecret: deps.secrets.cronSecret, cronTargetUrl: () => deps.config.cronTargetUrl ?? deps.selfUrl?.() ?? deps.config.publicUrl }))
    .use(pixel.elysia)
    // Generated from the app's own definitions on first request (src/openapi).
    .get("/openapi.json", async () => (openapi ??= await openApiFor(routeTable())))
    .get("/docs", async () => new Response((await import("./openapi/docs-page")).DOCS_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }))
    .get("/docs.js", async () => new Response((await import("./openapi/docs-page")).DOCS_SCRIPT, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" } }))
    .get("/docs.css", async () => new Response((await import("./openapi/docs-page")).DOCS_CSS, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" } }))
    .get("/metrics", async ({ request }) => {
      const token = deps.config.metricsToken;
      // Off unless configured: no hint that it exists.
      if (!token || !deps.metrics) throw new AppError(404, "not_found", "No route for GET /metrics");
      const given = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? "";
      if (!secretMatches(given, token)) throw new AppError(401, "unauthorized", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>");
      return new Response(await deps.metrics.text(), { headers: { "content-type": deps.metrics.contentType } });
    })
    // The MCP server is loaded on its first call: the SDK stays out of the start-up.
    .all("/mcp", async ({ request }) => (mcp ??= (await import("./mcp/server")).createMcpHandler({ apiUser: (r) => callers.apiUser(r), handle: (r) => handle(r), anonKey: deps.secrets.anonKey }))(request), { parse: "none" })
    .use(webRoutes({ anonKey: deps.secrets.anonKey, version: deps.version, publicUrl, engines: deps.config.engines }));

  routeTable = () => elysia.routes.map((r) => ({ method: r.method, path: r.path, requestBody: (r.hooks as { detail?: { requestBody?: unknown } } | undefined)?.detail?.requestBody }));
  let routeLabel: RouteLabeler | undefined;
  const labelRoute = (pathname: string, status: number) =>
    (routeLabel ??= createRouteLabeler([...routeTable().map((r) => r.path), ...Object.keys(direct)], new Set([...Object.keys(REST_POLICIES), ...Object.keys(ROUTINES), ...Object.keys(INSIGHT_RPCS)])))(pathname, status);

  // /auth/v1 and /rest/v1 answer nothing without a known apikey (as Supabase's gateway does), but
  // for what a browser opens from a mail: GET /auth/v1/verify (Supabase's gateway leaves it open too).
  async function gate(request: Request, pathname: string): Promise<Response | null> {
    if (!pathname.startsWith("/auth/v1") && !pathname.startsWith("/rest/v1")) return null;
    if (pathname === "/auth/v1/verify" && request.method === "GET") return null;
    try {
      callers.requireApiKey(request);
      return null;
    } catch (error) {
      return errorResponse(toAppError(error), surfaceOf(pathname), request);
    }
  }

  async function serveDirect(route: (request: Request) => Response | Promise<Response>, request: Request, requestId: string): Promise<Response> {
    try {
      return await route(request);
    } catch (error) {
      return thrownResponse(error, "api", request, requestId);
    }
  }

  async function handle(request: Request, ip = "unknown", knownPathname?: string): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdFor(request);
    const pathname = knownPathname ?? new URL(request.url).pathname;
    let response: Response;
    const declared = request.headers.get("content-length");
    // Bun's own ceiling is far above the cap, and its 413 has no body (server.ts): a declared length
    // is checked here, before the body is read; one of no declared length (chunked) is cut off past
    // the cap as the route reads it, and whatever the route made of that is answered 413.
    let overflowed = false;
    if (declared === null && request.body && request.method !== "GET" && request.method !== "HEAD")
      request = new Request(request, { body: cappedStream(request.body, deps.config.maxBodyBytes, () => (overflowed = true)), duplex: "half" } as RequestInit);
    metaOf.set(request, { requestId, ip });
    const route = direct[pathname]?.[request.method];
    if (Number(declared ?? 0) > deps.config.maxBodyBytes) {
      response = errorResponse(bodyTooLarge(deps.config.maxBodyBytes), surfaceOf(pathname), request);
    } else if (route) {
      response = await serveDirect(route, request, requestId);
    } else {
      const preflight = pathname.startsWith("/t/") ? null : corsPreflight(deps.config, request);
      response = preflight ?? (await gate(request, pathname)) ?? (await elysia.handle(request));
    }
    if (overflowed) response = errorResponse(bodyTooLarge(deps.config.maxBodyBytes), surfaceOf(pathname), request);
    // Responses from fetch-like sources can have immutable headers; copy when needed.
    try {
      response.headers.set("x-request-id", requestId);
    } catch {
      response = new Response(response.body, response);
      response.headers.set("x-request-id", requestId);
    }
    if (!pathname.startsWith("/t/")) applyCors(deps.config, request, response.headers);
    applySecurityHeaders(pathname, response.headers);
    const durationMs = performance.now() - started;
    deps.metrics?.request(pathname, labelRoute(pathname, response.status), request.method, response.status, durationMs);
    deps.logger.info("request", {
      method: request.method,
      // A share link's token is its secret: the log keeps the path without it.
      path: pathname.replace(/^(\/api)?\/share\/[^/]+/, "$1/share/:token"),
      status: response.status,
      duration_ms: Math.round(durationMs * 100) / 100,
      request_id: requestId,
    });
    return response;
  }

  const close = async () => {
    for (const fn of closers.splice(0).reverse()) await fn();
  };
  return { elysia, handle, direct, meta, auth, callers, schedule, digests, close };
}
