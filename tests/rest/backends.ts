// /rest/v1 on each backend (SQLite and Postgres) for one suite: the REST service over the backend's
// executor with the contract harness' fixtures, and callers made directly (the auth store is
// another feature's: these suites test the engine, not sign-in). A suite written with
// `describeEachRestBackend` runs once per backend with the same cases and the same expectations.
import { describe } from "bun:test";
import { AppError } from "../../src/http/errors";
import type { Caller } from "../../src/platform/auth/caller";
import type { OrgRole } from "../../src/platform/auth/service";
import type { RestExecutor } from "../../src/platform/rest/executor";
import { createPgRestExecutor } from "../../src/platform/rest/executor.pg";
import { createSqliteRestExecutor } from "../../src/platform/rest/executor.sqlite";
import { createRestService, type RestService } from "../../src/platform/rest/service";
import { sqliteHarness, type Harness } from "../contracts/harness";
import { pgHarness } from "../contracts/harness.pg";

export interface RestBackend extends Harness {
  executor: RestExecutor;
  service: RestService;
  /** A request to /rest/v1 as `caller`: status, headers and the body (parsed when JSON). */
  request(caller: Caller, method: string, path: string, init?: { body?: unknown; prefer?: string; headers?: Record<string, string> }): Promise<{ status: number; headers: Headers; body: any }>;
}

export const serviceRole: Caller = { role: "service_role", user: null, orgRoles: new Map() } as unknown as Caller;

/** A signed-in user with these organization roles. */
export function userCaller(id: string, roles: [string, OrgRole][]): Caller {
  return { role: "authenticated", user: { id, email: `${id}@example.com`, sessionId: "s", claims: {} as never }, orgRoles: new Map(roles) } as Caller;
}

function backend(h: Harness, executor: RestExecutor): RestBackend {
  const service = createRestService({ executor, responseCache: false, statementTimeoutMs: 10_000 });
  return {
    ...h,
    executor,
    service,
    async request(caller, method, path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.body !== undefined) headers.set("content-type", "application/json");
      if (init.prefer) headers.set("prefer", init.prefer);
      const response = await service
        .handle(new Request(`http://localhost/rest/v1${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }), caller)
        .catch((error: unknown) => {
          // The HTTP layer turns AppErrors into PostgREST's error body; here the error is the body.
          if (!(error instanceof AppError)) throw error;
          return Response.json({ code: error.code, message: error.message, details: error.extra.details ?? null }, { status: error.status });
        });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // CSV and other text bodies stay text
      }
      return { status: response.status, headers: response.headers, body };
    },
  };
}

/** Runs `suite` once on SQLite and once on Postgres (skipped, visibly, without PostgreSQL: AW_SKIP_POSTGRES=1). */
export async function describeEachRestBackend(name: string, suite: (make: () => Promise<RestBackend>, backend: "sqlite" | "postgres") => void): Promise<void> {
  describe(`${name} (sqlite)`, () =>
    suite(async () => {
      const h = sqliteHarness();
      return backend(h, createSqliteRestExecutor(h.dbh.sqlite));
    }, "sqlite"),
  );
  const pg = await pgHarness();
  if (pg) describe(`${name} (postgres)`, () => suite(async () => backend(pg, createPgRestExecutor(pg.pg.sql)), "postgres"));
}
