// /api/webhooks — thin: authenticate, call the service.
import { Elysia } from "elysia";
import type { CallerResolver } from "../platform/auth/caller";
import type { WebhookService } from "./service";

export function webhookRoutes(deps: { webhooks: WebhookService; callers: CallerResolver }) {
  const { webhooks, callers } = deps;
  const user = (request: Request) => callers.apiUser(request);
  return new Elysia({ prefix: "/api/webhooks" })
    .get("/", async ({ request }) => webhooks.list(await user(request)))
    .post("/", async ({ request, body }) => webhooks.create(await user(request), body as Record<string, unknown>))
    .get("/:id", async ({ request, params }) => webhooks.get(await user(request), params.id))
    .patch("/:id", async ({ request, params, body }) => webhooks.update(await user(request), params.id, body as Record<string, unknown>))
    .delete("/:id", async ({ request, params }) => webhooks.remove(await user(request), params.id))
    .post("/:id/rotate-secret", async ({ request, params }) => webhooks.rotateSecret(await user(request), params.id))
    .post("/:id/test", async ({ request, params }) => webhooks.test(await user(request), params.id))
    .get("/:id/deliveries", async ({ request, params, query }) => webhooks.deliveries(await user(request), params.id, query))
    .post("/deliveries/:deliveryId/retry", async ({ request, params }) => webhooks.retry(await user(request), params.deliveryId));
}
