// The composition of the stores: which implementation of each feature's store a backend uses. The
// app, the runtime and the CLI take a Stores and never name an implementation; a second backend
// (Postgres, issue #29) is a second function returning the same shape.
import type { CategoryList } from "./analysis/source-categories";
import type { DbHandle } from "./db/open";
import type { PgHandle } from "./db/pg/open";
import type { ClientReportStore } from "./client-report/store";
import { createPgClientReportStore } from "./client-report/store.pg";
import { createSqliteClientReportStore } from "./client-report/store.sqlite";
import type { CrawlerStore } from "./crawlers/store";
import { createPgCrawlerStore } from "./crawlers/store.pg";
import { createSqliteCrawlerStore } from "./crawlers/store.sqlite";
import type { InstanceStore } from "./http/instances";
import { createPgInstanceStore } from "./http/instances.pg";
import { memoryRateLimits, type RateLimitStore } from "./http/rate-limit";
import { createPgRateLimits } from "./http/rate-limit.pg";
import type { StatusStore } from "./http/status-store";
import { createPgStatusStore } from "./http/status-store.pg";
import { createSqliteStatusStore } from "./http/status-store.sqlite";
import type { KeyStore } from "./keys/store";
import { createPgKeyStore } from "./keys/store.pg";
import { createSqliteKeyStore } from "./keys/store.sqlite";
import type { MembersStore } from "./members/store";
import { createPgMembersStore } from "./members/store.pg";
import { createSqliteMembersStore } from "./members/store.sqlite";
import type { PixelStore, PixelStoreOptions } from "./pixel/store";
import { createPgPixelStore } from "./pixel/store.pg";
import { createSqlitePixelStore } from "./pixel/store.sqlite";
import type { AuthStore } from "./platform/auth/store";
import { createPgAuthStore } from "./platform/auth/store.pg";
import { createSqliteAuthStore } from "./platform/auth/store.sqlite";
import type { RestExecutor } from "./platform/rest/executor";
import { createSqliteRestExecutor } from "./platform/rest/executor.sqlite";
import { createPgRestExecutor } from "./platform/rest/executor.pg";
import type { QueueStore } from "./queue/store";
import { createPgQueueStore } from "./queue/store.pg";
import { createSqliteQueueStore } from "./queue/store.sqlite";
import type { ReportsStore } from "./reports/store";
import { createPgReportsStore } from "./reports/store.pg";
import { createSqliteReportsStore } from "./reports/store.sqlite";
import type { ScheduleStore } from "./schedule/store";
import { createPgScheduleStore } from "./schedule/store.pg";
import { createSqliteScheduleStore } from "./schedule/store.sqlite";
import type { SetupStore } from "./setup/store";
import { createPgSetupStore } from "./setup/store.pg";
import { createSqliteSetupStore } from "./setup/store.sqlite";
import type { PortfolioStore } from "./portfolio/store";
import { createPgPortfolioStore } from "./portfolio/store.pg";
import { createSqlitePortfolioStore } from "./portfolio/store.sqlite";
import type { ShareStore } from "./share/store";
import { createPgShareStore } from "./share/store.pg";
import { createSqliteShareStore } from "./share/store.sqlite";
import type { StorageStore } from "./storage/store";
import { createPgStorageStore } from "./storage/store.pg";
import { createSqliteStorageStore } from "./storage/store.sqlite";
import type { TrackingStore, UnitStore } from "./tracking/store";
import { createPgTrackingStore } from "./tracking/store.pg";
import { createSqliteTrackingStore } from "./tracking/store.sqlite";
import { createPgUnitStore } from "./tracking/units.pg";
import { createSqliteUnitStore } from "./tracking/units.sqlite";
import type { WebhookStore } from "./webhooks/store";
import { createPgWebhookStore } from "./webhooks/store.pg";
import type { MailStore } from "./mail/store";
import { createPgMailStore } from "./mail/store.pg";
import { createSqliteMailStore } from "./mail/store.sqlite";
import { createSqliteWebhookStore } from "./webhooks/store.sqlite";
import type { InsightsStore } from "./insights/store";
import { createPgInsightsStore } from "./insights/store.pg";
import { createSqliteInsightsStore } from "./insights/store.sqlite";
import type { DigestStore } from "./digests/store";
import { createPgDigestStore } from "./digests/store.pg";
import { createSqliteDigestStore } from "./digests/store.sqlite";

export interface Stores {
  backend: "sqlite" | "postgres";
  auth: AuthStore;
  status: StatusStore;
  keys: KeyStore;
  members: MembersStore;
  share: ShareStore;
  portfolio: PortfolioStore;
  /** The queue as of `now` (tests and the demo move the clock). */
  queue(now?: () => Date): QueueStore;
  tracking: TrackingStore;
  /** A unit's input, read ahead by the dispatcher (the worker threads have their own). */
  units: UnitStore;
  schedule: ScheduleStore;
  webhooks: WebhookStore;
  mail: MailStore;
  /** The insights' reads for the server's own work (digests, reports): requests read under their caller (platform/rest). */
  insights: InsightsStore;
  digests: DigestStore;
  crawlers: CrawlerStore;
  reports: ReportsStore;
  clientReport: ClientReportStore;
  storage: StorageStore;
  /** The pixel's store starts a writer on its first beacon: made when the pixel's routes are. */
  pixel(options?: PixelStoreOptions): PixelStore;
  rest: RestExecutor;
  setup: SetupStore;
  /** The deployment's instances (Postgres only: a SQLite deployment is one process). */
  instances?: InstanceStore;
  /** Rate limits as of the clock `now`: in the process on SQLite, shared by every instance on Postgres. */
  rateLimits(now?: () => number): RateLimitStore;
  /**
   * The stores of the reads a request starts outside /rest/v1, each statement stopped after
   * `timeoutMs` on Postgres (statement_timeout on a pool of their own); on SQLite the same stores
   * as above (their services check the deadline between statements).
   */
  requestReads(timeoutMs: number): RequestReads;
}

export type RequestReads = Pick<Stores, "insights" | "portfolio" | "clientReport" | "reports">;

/** Where this process keeps its data: the SQLite file in DATA_DIR (the default) or DATABASE_URL's PostgreSQL. */
export type Backend = { kind: "sqlite"; dbh: DbHandle; dbPath: string } | { kind: "postgres"; pg: PgHandle; url: string };

export interface StoreOptions {
  sourceCategories?: CategoryList;
}

/** Every store on the one SQLite file (statements are prepared when a store is first asked for). */
export function sqliteStores(dbh: DbHandle, options: StoreOptions = {}): Stores {
  const { sqlite } = dbh;
  const memo = new Map<string, unknown>();
  const once = <T>(name: string, make: () => T): T => {
    if (!memo.has(name)) memo.set(name, make());
    return memo.get(name) as T;
  };
  return {
    backend: "sqlite",
    get auth() {
      return once("auth", () => createSqliteAuthStore(sqlite));
    },
    get status() {
      return once("status", () => createSqliteStatusStore(sqlite));
    },
    rateLimits: (now) => memoryRateLimits(now),
    requestReads() {
      return { insights: this.insights, portfolio: this.portfolio, clientReport: this.clientReport, reports: this.reports };
    },
    get keys() {
      return once("keys", () => createSqliteKeyStore(sqlite));
    },
    get members() {
      return once("members", () => createSqliteMembersStore(sqlite));
    },
    get share() {
      return once("share", () => createSqliteShareStore(sqlite));
    },
    get portfolio() {
      return once("portfolio", () => createSqlitePortfolioStore(sqlite));
    },
    queue: (now) => (now ? createSqliteQueueStore(sqlite, now) : once("queue", () => createSqliteQueueStore(sqlite))),
    get tracking() {
      return once("tracking", () => createSqliteTrackingStore(sqlite));
    },
    get units() {
      return once("units", () => createSqliteUnitStore(sqlite));
    },
    get schedule() {
      return once("schedule", () => createSqliteScheduleStore(sqlite));
    },
    get webhooks() {
      return once("webhooks", () => createSqliteWebhookStore(sqlite));
    },
    get mail() {
      return once("mail", () => createSqliteMailStore(sqlite));
    },
    get insights() {
      return once("insights", () => createSqliteInsightsStore(sqlite));
    },
    get digests() {
      return once("digests", () => createSqliteDigestStore(sqlite));
    },
    get crawlers() {
      return once("crawlers", () => createSqliteCrawlerStore(sqlite));
    },
    get reports() {
      return once("reports", () => createSqliteReportsStore(sqlite));
    },
    get clientReport() {
      return once("clientReport", () => createSqliteClientReportStore(sqlite));
    },
    get storage() {
      return once("storage", () => createSqliteStorageStore(sqlite));
    },
    pixel: (options) => createSqlitePixelStore(sqlite, options),
    get rest() {
      return once("rest", () => createSqliteRestExecutor(sqlite, { sourceCategories: options.sourceCategories }));
    },
    get setup() {
      return once("setup", () => createSqliteSetupStore(sqlite));
    },
  };
}

/** Every store on one PostgreSQL (DATABASE_URL), shared by every instance. */
export function postgresStores(pg: PgHandle, options: StoreOptions = {}): Stores {
  const { sql } = pg;
  return {
    backend: "postgres",
    auth: createPgAuthStore(sql),
    status: createPgStatusStore(sql),
    keys: createPgKeyStore(sql),
    members: createPgMembersStore(sql),
    share: createPgShareStore(sql),
    portfolio: createPgPortfolioStore(sql),
    queue: (now) => createPgQueueStore(sql, now),
    tracking: createPgTrackingStore(sql),
    units: createPgUnitStore(sql),
    schedule: createPgScheduleStore(sql),
    webhooks: createPgWebhookStore(sql),
    mail: createPgMailStore(sql),
    insights: createPgInsightsStore(sql),
    digests: createPgDigestStore(sql),
    crawlers: createPgCrawlerStore(sql),
    reports: createPgReportsStore(sql),
    clientReport: createPgClientReportStore(sql),
    storage: createPgStorageStore(sql),
    pixel: (options) => createPgPixelStore(sql, options),
    rest: createPgRestExecutor(sql, { sourceCategories: options.sourceCategories }),
    setup: createPgSetupStore(sql),
    instances: createPgInstanceStore(sql),
    rateLimits: (now) => createPgRateLimits(sql, now),
    requestReads(timeoutMs) {
      const bounded = pg.bounded(timeoutMs);
      return { insights: createPgInsightsStore(bounded), portfolio: createPgPortfolioStore(bounded), clientReport: createPgClientReportStore(bounded), reports: createPgReportsStore(bounded) };
    },
  };
}

export function storesFor(backend: Backend, options: StoreOptions = {}): Stores {
  return backend.kind === "sqlite" ? sqliteStores(backend.dbh, options) : postgresStores(backend.pg, options);
}
