// Builds a fresh app on a temp database for in-process tests (app.handle), and starts the real
// server on 127.0.0.1 with a free port for tests that need a socket.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app";
import { postgresStores, sqliteStores } from "../../src/stores";
import { loadConfig, type Env } from "../../src/config";
import { DB_FILE } from "../../src/db/open";
import { openDatabase, openPostgresDatabase } from "../../src/database";
import { createPgSecretStore } from "../../src/secrets.pg";
import { createLogger } from "../../src/http/log";
import { ensureSecrets } from "../../src/secrets";
import { startServer } from "../../src/server";
import { testPostgres } from "./postgres";

/**
 * The backend this run's test servers keep their data in: SQLite, or — when scripts/test.ts runs
 * the suites marked `backends: sqlite, postgres` again with AW_TEST_BACKEND=postgres — a database
 * of their own on the throwaway PostgreSQL.
 */
export const TEST_BACKEND: "sqlite" | "postgres" = Bun.env.AW_TEST_BACKEND === "postgres" ? "postgres" : "sqlite";

/** The environment that points a server at this run's backend: nothing on SQLite, a fresh database on Postgres. */
export async function backendEnv(): Promise<Env> {
  if (TEST_BACKEND === "sqlite") return {};
  const pg = await testPostgres();
  if (!pg) throw new Error("AW_TEST_BACKEND=postgres needs PostgreSQL (TEST_DATABASE_URL or the binaries)");
  return { DATABASE_URL: await pg.createDatabase("server") };
}

/**
 * This test process' temporary folders live under one root, which a watchdog removes once the
 * process has ended in any way (bun test runs no exit handlers): repeated runs must not fill the
 * disk with databases and binaries (one machine reached 76 GB of them).
 */
let runRoot: string | undefined;
function testRoot(): string {
  if (runRoot) return runRoot;
  runRoot = mkdtempSync(join(tmpdir(), `aw-run-${process.pid}-`));
  Bun.spawn(["bash", "-c", `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; rm -rf '${runRoot}'`], { stdio: ["ignore", "ignore", "ignore"] }).unref();
  return runRoot;
}

export function tempDir(prefix = "aw-test-"): string {
  return mkdtempSync(join(testRoot(), prefix));
}

export function testEnv(extra: Env = {}): Env {
  return { DATA_DIR: tempDir(), PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", WORKERS: "1", ...extra };
}

export async function testApp(extra: Env = {}) {
  const config = loadConfig(testEnv({ ...(await backendEnv()), ...extra }));
  if (config.database.url) {
    // The same app over a Postgres database (its dbh is the SQLite one's place only in SQLite runs).
    const pg = await openPostgresDatabase(config.database.url, { poolSize: 4 });
    const secrets = await createPgSecretStore(pg.sql, config).ensure();
    const stores = postgresStores(pg, { sourceCategories: config.rest.sourceCategories });
    const app = await createApp({ config, secrets, stores, logger: createLogger("silent"), version: "test" });
    const request = (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init));
    return { app, config, secrets, dbh: undefined as never, stores, request };
  }
  const secrets = await ensureSecrets(config);
  const dbh = openDatabase(join(config.dataDir, DB_FILE));
  const stores = sqliteStores(dbh, { sourceCategories: config.rest.sourceCategories });
  const app = await createApp({ config, secrets, stores, logger: createLogger("silent"), version: "test" });
  const request = (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init));
  return { app, config, secrets, dbh, stores, request };
}

/**
 * Tests never ask a real DNS server: `*.localhost.test` names are 127.0.0.1, anything else does not
 * resolve (a webhook to such a name is accepted at creation and fails at delivery).
 */
export const testResolver = async (hostname: string): Promise<string[]> => {
  if (hostname.endsWith(".localhost.test")) return ["127.0.0.1"];
  throw Object.assign(new Error(`${hostname}: not resolved in tests`), { code: "ENOTFOUND" });
};

export async function testServer(extra: Env = {}, options: { now?: () => Date; scheduler?: boolean; resolveHost?: (hostname: string) => Promise<string[]> } = {}) {
  // The internal scheduler stays paused in tests unless a test asks for it.
  return startServer(loadConfig(testEnv({ ...(await backendEnv()), ...extra })), createLogger("silent"), { scheduler: false, resolveHost: testResolver, ...options });
}

/**
 * JWT_SIGNING_KEY that passes configuration checks (JSON with kty/crv/d/x/y) but is no usable key:
 * a runtime that imports it cannot start.
 */
export const BROKEN_SIGNING_KEY = JSON.stringify({ kty: "EC", crv: "P-256", d: "AAAA", x: "AAAA", y: "AAAA" });

/** A clock tests can move forward. */
export function testClock(start = Date.now()) {
  let offset = 0;
  return {
    now: () => new Date(start + offset + (Date.now() - start)),
    advance(ms: number) {
      offset += ms;
    },
  };
}

/** Repo root, for spawning src/main.ts. */
export const ROOT = new URL("../..", import.meta.url).pathname;
