// /rest/v1 — PostgREST-compatible REST and RPC (DESIGN §5). Thin: resolve the caller, hand the
// request to the service, render its errors in PostgREST's shape.
import { Elysia } from "elysia";
import { AppError, errorResponse } from "../../http/errors";
import type { CallerResolver } from "../auth/caller";
import type { RestExecutor } from "./executor";
import { createRestService, type RestServiceDeps } from "./service";

export interface RestDeps {
  /** Runs the statements of requests answered on this thread (executor.ts). */
  executor: RestExecutor;
  callers: CallerResolver;
  now?: () => Date;
  responseCache?: RestServiceDeps["responseCache"];
  readers?: RestServiceDeps["readers"];
  writer?: RestServiceDeps["writer"];
  statementTimeoutMs?: number;
  readConcurrency?: RestServiceDeps["readConcurrency"];
  onReadWait?: RestServiceDeps["onReadWait"];
  perCaller?: RestServiceDeps["perCaller"];
  writeConcurrency?: RestServiceDeps["writeConcurrency"];
  maxRows?: RestServiceDeps["maxRows"];
}

export function restRoutes(deps: RestDeps) {
  const service = createRestService({ executor: deps.executor, now: deps.now, responseCache: deps.responseCache, readers: deps.readers, writer: deps.writer, statementTimeoutMs: deps.statementTimeoutMs, readConcurrency: deps.readConcurrency, onReadWait: deps.onReadWait, perCaller: deps.perCaller, writeConcurrency: deps.writeConcurrency, maxRows: deps.maxRows });
  /** A /rest/v1 request answered as PostgREST would (also for other doors: a share link's CSV). */
  async function answer(request: Request): Promise<Response> {
    try {
      return await service.handle(request, await deps.callers.restCaller(request));
    } catch (error) {
      // Rendered here (not only by the app's onError) so the plugin stands alone in tests.
      if (error instanceof AppError) return errorResponse(error, "rest", request);
      throw error;
    }
  }
  return Object.assign(
    new Elysia().all("/rest/v1/*", ({ request }) => answer(request), { parse: "none" }),
    { answer },
  );
}
