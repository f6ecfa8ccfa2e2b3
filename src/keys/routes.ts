// /api/keys: create (the secret shown once), list (never the secret), revoke.
import { Elysia } from "elysia";
import type { CallerResolver } from "../platform/auth/caller";
import type { KeyService } from "./service";

export function keyRoutes(deps: { keys: KeyService; callers: CallerResolver }) {
  const { keys, callers } = deps;
  return new Elysia({ prefix: "/api/keys" })
    .post("/", async ({ request, body }) => keys.create(await callers.apiUser(request), body as Record<string, unknown>))
    .get("/", async ({ request }) => keys.list(await callers.apiUser(request)))
    .delete("/:id", async ({ request, params }) => keys.revoke(await callers.apiUser(request), params.id));
}
