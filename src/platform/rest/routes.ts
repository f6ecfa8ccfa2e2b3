// /rest/v1 — PostgREST-compatible REST and RPC (DESIGN §5). Not built yet: every table is unknown.
import { Elysia } from "elysia";
import { AppError } from "../../http/errors";
import type { DbHandle } from "../../db/open";
import type { CallerResolver } from "../auth/caller";

export interface RestDeps {
  dbh: DbHandle;
  callers: CallerResolver;
  now?: () => Date;
}

export function restRoutes(deps: RestDeps) {
  return new Elysia().all("/rest/v1/*", async ({ request, params }) => {
    await deps.callers.restCaller(request);
    throw new AppError(404, "PGRST205", `Could not find the table 'public.${params["*"]}' in the schema cache`);
  });
}
