// /api/tracking — thin: authenticate, call the service, return its answer.
import { Elysia } from "elysia";
import type { CallerResolver } from "../platform/auth/caller";
import type { TrackingService } from "./service";

export function trackingRoutes(deps: { tracking: TrackingService; callers: CallerResolver }) {
  const { tracking, callers } = deps;
  return new Elysia({ prefix: "/api/tracking" })
    .post("/start", async ({ request, body }) => tracking.start(await callers.apiUser(request), body as object))
    .get("/job/:jobId", async ({ request, params }) => tracking.get(await callers.apiUser(request), params.jobId))
    .post("/job/:jobId/cancel", async ({ request, params }) => tracking.cancel(await callers.apiUser(request), params.jobId))
    .delete("/job/:jobId", async ({ request, params }) => tracking.cancel(await callers.apiUser(request), params.jobId))
    .get("/jobs", async ({ request, query }) => tracking.list(await callers.apiUser(request), query));
}
