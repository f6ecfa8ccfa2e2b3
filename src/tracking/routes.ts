// /api/tracking — thin: authenticate, call the service, return its answer.
import { Elysia, t } from "elysia";
import { jsonBody, Uuid } from "../http/body-docs";
import { MAX_SAMPLES, START_LIST_LIMITS } from "./service";

const StartBody = t.Object({
  brandId: Uuid,
  platforms: t.Optional(t.Array(t.String(), { maxItems: START_LIST_LIMITS.platforms, description: "default: every enabled platform" })),
  models: t.Optional(t.Array(t.String(), { maxItems: START_LIST_LIMITS.models })),
  promptIds: t.Optional(t.Array(Uuid, { maxItems: START_LIST_LIMITS.promptIds, description: "default: every active prompt" })),
  force: t.Optional(t.Boolean({ description: "run even if a job for the brand is open" })),
  samples: t.Optional(t.Number({ multipleOf: 1, minimum: 1, maximum: MAX_SAMPLES, description: "answers per prompt and platform (a whole number)" })),
});
import type { CallerResolver } from "../platform/auth/caller";
import type { TrackingService } from "./service";

export function trackingRoutes(deps: { tracking: TrackingService; callers: CallerResolver }) {
  const { tracking, callers } = deps;
  return new Elysia({ prefix: "/api/tracking" })
    .post("/start", async ({ request, body }) => tracking.start(await callers.apiUser(request), body as object), jsonBody(StartBody))
    .get("/job/:jobId", async ({ request, params }) => tracking.get(await callers.apiUser(request), params.jobId))
    .post("/job/:jobId/cancel", async ({ request, params }) => tracking.cancel(await callers.apiUser(request), params.jobId))
    .delete("/job/:jobId", async ({ request, params }) => tracking.cancel(await callers.apiUser(request), params.jobId))
    .get("/jobs", async ({ request, query }) => tracking.list(await callers.apiUser(request), query));
}
