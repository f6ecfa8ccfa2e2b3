// The composition of the stores: which implementation of each feature's store a backend uses. The
// app, the runtime and the CLI take a Stores and never name an implementation; a second backend
// (Postgres, issue #29) is a second function returning the same shape.
import type { CategoryList } from "./analysis/source-categories";
import type { DbHandle } from "./db/open";
import type { PgHandle } from "./db/pg/open";
import type { CrawlerStore } from "./crawlers/store";
import { createSqliteCrawlerStore } from "./crawlers/store.sqlite";
import type { StatusStore } from "./http/status-store";
import { createSqliteStatusStore } from "./http/status-store.sqlite";
import type { KeyStore } from "./keys/store";
import { createPgKeyStore } from "./keys/store.pg";
import { createSqliteKeyStore } from "./keys/store.sqlite";
import type { MembersStore } from "./members/store";
import { createSqliteMembersStore } from "./members/store.sqlite";
import type { PixelStore } from "./pixel/store";
import { createSqlitePixelStore } from "./pixel/store.sqlite";
import type { AuthStore } from "./platform/auth/store";
import { createSqliteAuthStore } from "./platform/auth/store.sqlite";
import type { RestExecutor } from "./platform/rest/executor";
import { createSqliteRestExecutor } from "./platform/rest/executor.sqlite";
import { createPgRestExecutor } from "./platform/rest/executor.pg";
import type { QueueStore } from "./queue/store";
import { createSqliteQueueStore } from "./queue/store.sqlite";
import type { ReportsStore } from "./reports/store";
import { createSqliteReportsStore } from "./reports/store.sqlite";
import type { ScheduleStore } from "./schedule/store";
import { createSqliteScheduleStore } from "./schedule/store.sqlite";
import type { ShareStore } from "./share/store";
import { createSqliteShareStore } from "./share/store.sqlite";
import type { StorageStore } from "./storage/store";
import { createSqliteStorageStore } from "./storage/store.sqlite";
import type { TrackingStore } from "./tracking/store";
import { createSqliteTrackingStore } from "./tracking/store.sqlite";
import type { WebhookStore } from "./webhooks/store";
import { createSqliteWebhookStore } from "./webhooks/store.sqlite";

export interface Stores {
  backend: "sqlite" | "postgres";
  auth: AuthStore;
  status: StatusStore;
  keys: KeyStore;
  members: MembersStore;
  share: ShareStore;
  /** The queue as of `now` (tests and the demo move the clock). */
  queue(now?: () => Date): QueueStore;
  tracking: TrackingStore;
  schedule: ScheduleStore;
  webhooks: WebhookStore;
  crawlers: CrawlerStore;
  reports: ReportsStore;
  storage: StorageStore;
  /** The pixel's store starts a writer on its first beacon: made when the pixel's routes are. */
  pixel(): PixelStore;
  rest: RestExecutor;
}

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
    get keys() {
      return once("keys", () => createSqliteKeyStore(sqlite));
    },
    get members() {
      return once("members", () => createSqliteMembersStore(sqlite));
    },
    get share() {
      return once("share", () => createSqliteShareStore(sqlite));
    },
    queue: (now) => (now ? createSqliteQueueStore(sqlite, now) : once("queue", () => createSqliteQueueStore(sqlite))),
    get tracking() {
      return once("tracking", () => createSqliteTrackingStore(sqlite));
    },
    get schedule() {
      return once("schedule", () => createSqliteScheduleStore(sqlite));
    },
    get webhooks() {
      return once("webhooks", () => createSqliteWebhookStore(sqlite));
    },
    get crawlers() {
      return once("crawlers", () => createSqliteCrawlerStore(sqlite));
    },
    get reports() {
      return once("reports", () => createSqliteReportsStore(sqlite));
    },
    get storage() {
      return once("storage", () => createSqliteStorageStore(sqlite));
    },
    pixel: () => createSqlitePixelStore(sqlite),
    get rest() {
      return once("rest", () => createSqliteRestExecutor(sqlite, { sourceCategories: options.sourceCategories }));
    },
  };
}

/** A store that has no Postgres implementation yet: any use says so instead of failing obscurely. */
function notYet<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get(_target, operation) {
      if (operation === "then") return undefined;
      return () => Promise.reject(new Error(`the ${name} store has no Postgres implementation yet (${String(operation)})`));
    },
  });
}

/** Every store on one PostgreSQL (DATABASE_URL), shared by every instance. */
export function postgresStores(pg: PgHandle): Stores {
  const { sql } = pg;
  return {
    backend: "postgres",
    auth: notYet("auth"),
    status: notYet("status"),
    keys: createPgKeyStore(sql),
    members: notYet("members"),
    share: notYet("share"),
    queue: () => notYet("queue"),
    tracking: notYet("tracking"),
    schedule: notYet("schedule"),
    webhooks: notYet("webhooks"),
    crawlers: notYet("crawlers"),
    reports: notYet("reports"),
    storage: notYet("storage"),
    pixel: () => notYet("pixel"),
    rest: createPgRestExecutor(sql),
  };
}
