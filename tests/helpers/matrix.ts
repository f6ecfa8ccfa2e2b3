// One suite, two backends: a feature suite written with `describeEachBackend` runs its cases once
// against a server on SQLite (DATA_DIR's file) and once against a server on PostgreSQL (a database
// of its own on the test cluster), from the same file, with the same expectations. Each run gets
// the contract harness' fixtures and `inspect` over the server's own database, so a case seeds and
// checks rows without knowing the backend (`inspect` takes `?` placeholders and answers in
// SQLite's shapes: ISO timestamps, 0/1 booleans).
import { afterAll, beforeAll, describe } from "bun:test";
import { loadConfig, type Env } from "../../src/config";
import { createLogger } from "../../src/http/log";
import { startServer, type RunningServer, type StartOptions } from "../../src/server";
import { sqliteHarnessOn, type Harness } from "../contracts/harness";
import { pgHarnessOn } from "../contracts/harness.pg";
import { testEnv } from "./app";
import { testPostgres } from "./postgres";

export type BackendName = "sqlite" | "postgres";

export interface BackendServer extends Harness {
  server: RunningServer;
  url: string;
}

export interface MatrixOptions {
  env?: Env | (() => Env);
  options?: StartOptions;
}

/**
 * Runs `suite` once per backend. `ctx()` is the running server with its fixtures (valid inside the
 * cases and hooks, after the server started). Without PostgreSQL (AW_SKIP_POSTGRES=1) the Postgres
 * run is skipped, visibly.
 */
export async function describeEachBackend(name: string, suite: (ctx: () => BackendServer, backend: BackendName) => void, matrix: MatrixOptions = {}): Promise<void> {
  const pg = await testPostgres();
  for (const backend of ["sqlite", "postgres"] as const) {
    const skip = backend === "postgres" && !pg;
    (skip ? describe.skip : describe)(`${name} (${backend})`, () => {
      let current: BackendServer | undefined;
      beforeAll(async () => {
        const extra = typeof matrix.env === "function" ? matrix.env() : (matrix.env ?? {});
        const url = backend === "postgres" ? await pg!.createDatabase("suite") : undefined;
        const server = await startServer(loadConfig(testEnv({ ...extra, ...(url ? { DATABASE_URL: url } : {}) })), createLogger("silent"), { scheduler: false, ...matrix.options });
        const h = url ? await pgHarnessOn(url) : sqliteHarnessOn(server.dbh);
        current = { ...h, server, url: server.url };
      }, 60_000);
      afterAll(async () => {
        await current?.close();
        await current?.server.stop();
      });
      suite(() => {
        if (!current) throw new Error("the server has not started (use ctx() inside cases and hooks)");
        return current;
      }, backend);
    });
  }
}
