// /api/keys: create (the secret shown once), list (never the secret), revoke.
import { Elysia, t } from "elysia";
import { DateTime, jsonBody, Role, Uuid } from "../http/body-docs";

const KeyBody = t.Object({ name: t.String({ minLength: 1, maxLength: 100 }), organization_id: Uuid, role: t.Optional(Role), expires_at: t.Optional(t.Union([DateTime, t.Null()])) }, { description: "role: at most yours (default: yours)" });
import type { CallerResolver } from "../platform/auth/caller";
import type { KeyService } from "./service";

export function keyRoutes(deps: { keys: KeyService; callers: CallerResolver }) {
  const { keys, callers } = deps;
  return new Elysia({ prefix: "/api/keys" })
    .post("/", async ({ request, body }) => keys.create(await callers.apiUser(request), body as Record<string, unknown>), jsonBody(KeyBody))
    .get("/", async ({ request }) => keys.list(await callers.apiUser(request)))
    .delete("/:id", async ({ request, params }) => keys.revoke(await callers.apiUser(request), params.id));
}
