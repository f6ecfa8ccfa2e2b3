// /rest/v1 — PostgREST-compatible REST and RPC (DESIGN §5). Thin: resolve the caller, hand the
// request to the service, render its errors in PostgREST's shape.
import { Elysia } from "elysia";
import type { DbHandle } from "../../db/open";
import { AppError, errorResponse } from "../../http/errors";
import type { CallerResolver } from "../auth/caller";
import { createRestService, type RestServiceDeps } from "./service";

export interface RestDeps {
  dbh: DbHandle;
  callers: CallerResolver;
  now?: () => Date;
  /** Observes the SQL text of every statement /rest/v1 runs (tests count statements per request). */
  onStatement?: RestServiceDeps["onStatement"];
  responseCache?: RestServiceDeps["responseCache"];
  readers?: RestServiceDeps["readers"];
  writer?: RestServiceDeps["writer"];
  statementTimeoutMs?: number;
  sourceCategories?: RestServiceDeps["sourceCategories"];
}

export function restRoutes(deps: RestDeps) {
  const service = createRestService({ sqlite: deps.dbh.sqlite, now: deps.now, onStatement: deps.onStatement, responseCache: deps.responseCache, readers: deps.readers, writer: deps.writer, statementTimeoutMs: deps.statementTimeoutMs, sourceCategories: deps.sourceCategories });
  return new Elysia().all(
    "/rest/v1/*",
    async ({ request }) => {
      try {
        return await service.handle(request, await deps.callers.restCaller(request));
      } catch (error) {
        // Rendered here (not only by the app's onError) so the plugin stands alone in tests.
        if (error instanceof AppError) return errorResponse(error, "rest", request);
        throw error;
      }
    },
    { parse: "none" },
  );
}
