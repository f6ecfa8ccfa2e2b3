// POST /cron/daily-tracking (the server's secret route) and /api/cron/daily-tracking (the web
// app's scheduled route, which forwards to the first with the shared secret).
import { Elysia } from "elysia";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import { bearerToken } from "../platform/auth/tokens";
import { secretMatches } from "../common/secret-match";
import type { ScheduleService } from "./service";

export function scheduleRoutes(deps: { schedule: ScheduleService; cronSecret: string; cronTargetUrl: () => string; fetch?: typeof fetch }) {
  const doFetch = deps.fetch ?? fetch;
  const requireSecret = (request: Request) => {
    if (!secretMatches(bearerToken(request), deps.cronSecret)) throw new AppError(401, "unauthorized", "Send Authorization: Bearer <CRON_SECRET>");
  };

  const runDue = async ({ request }: { request: Request }) => {
    requireSecret(request);
    let organizationId: string | null = null;
    const text = request.method === "POST" ? await request.text() : "";
    if (text.trim()) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new AppError(400, "bad_json", "The request body is not valid JSON");
      }
      const org = (body as { organizationId?: unknown } | null)?.organizationId;
      organizationId = org === undefined ? null : requireUuid(org, "organizationId");
    }
    return deps.schedule.runDue({ organizationId });
  };

  const forward = async ({ request }: { request: Request }) => {
    requireSecret(request);
    const target = `${deps.cronTargetUrl()}/cron/daily-tracking`;
    try {
      const upstream = await doFetch(target, {
        method: "POST",
        headers: { authorization: request.headers.get("authorization")!, "content-type": "application/json" },
        body: request.method === "POST" ? await request.text() : undefined,
        signal: AbortSignal.timeout(30_000),
      });
      return new Response(await upstream.arrayBuffer(), { status: upstream.status, headers: { "content-type": upstream.headers.get("content-type") ?? "application/json" } });
    } catch (error) {
      throw new AppError(502, "upstream_unreachable", `Could not reach the tracking server at ${target}: ${(error as Error).message}`);
    }
  };

  return new Elysia()
    .post("/cron/daily-tracking", runDue, { parse: "none" })
    .get("/cron/daily-tracking", runDue)
    .post("/api/cron/daily-tracking", forward, { parse: "none" })
    .get("/api/cron/daily-tracking", forward);
}
