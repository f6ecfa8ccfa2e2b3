// /api/webhooks — thin: authenticate, call the service.
import { Elysia, t } from "elysia";
import { jsonBody, Uuid } from "../http/body-docs";
import { EVENT_TYPES } from "./events";
import { WEBHOOK_FORMATS } from "./store";

const WebhookBody = t.Object({
  organization_id: t.Optional(Uuid),
  url: t.String({ format: "uri", description: "https (http only to hosts allowed by WEBHOOK_ALLOW_PRIVATE)" }),
  events: t.Optional(t.Array(t.Union(EVENT_TYPES.map((e) => t.Literal(e))), { description: "empty: all but the digests (digest.weekly, digest.monthly go only where named)" })),
  format: t.Optional(t.Union(WEBHOOK_FORMATS.map((f) => t.Literal(f)), { description: "standard: the signed event JSON; slack: {\"text\": …} for Slack, Teams, Mattermost incoming webhooks" })),
  description: t.Optional(t.Union([t.String(), t.Null()])),
  brand_id: t.Optional(t.Union([Uuid, t.Null()])),
  is_active: t.Optional(t.Boolean()),
});
import type { CallerResolver } from "../platform/auth/caller";
import type { WebhookService } from "./service";

export function webhookRoutes(deps: { webhooks: WebhookService; callers: CallerResolver }) {
  const { webhooks, callers } = deps;
  const user = (request: Request) => callers.apiUser(request);
  return new Elysia({ prefix: "/api/webhooks" })
    .get("/", async ({ request }) => webhooks.list(await user(request)))
    .post("/", async ({ request, body }) => webhooks.create(await user(request), body as Record<string, unknown>), jsonBody(WebhookBody))
    .get("/:id", async ({ request, params }) => webhooks.get(await user(request), params.id))
    .patch("/:id", async ({ request, params, body }) => webhooks.update(await user(request), params.id, body as Record<string, unknown>), jsonBody(t.Partial(t.Omit(WebhookBody, ["organization_id", "brand_id"]))))
    .delete("/:id", async ({ request, params }) => webhooks.remove(await user(request), params.id))
    .post("/:id/rotate-secret", async ({ request, params }) => webhooks.rotateSecret(await user(request), params.id))
    .post("/:id/test", async ({ request, params }) => webhooks.test(await user(request), params.id))
    .get("/:id/deliveries", async ({ request, params, query }) => webhooks.deliveries(await user(request), params.id, query))
    .post("/deliveries/:deliveryId/retry", async ({ request, params }) => webhooks.retry(await user(request), params.deliveryId));
}
