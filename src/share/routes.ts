// /api/share-links (owners and admins), GET /api/share/:token (what a shared page needs to start;
// 404 once revoked or expired), and /share/:token itself: the web app's page while the link lives,
// a 404 page after.
import { Elysia, t } from "elysia";
import { DateTime, jsonBody, Uuid } from "../http/body-docs";

const ShareBody = t.Object({ brand_id: Uuid, expires_at: t.Optional(t.Union([DateTime, t.Null()])) });
import type { CallerResolver } from "../platform/auth/caller";
import type { ShareService } from "./service";

const GONE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Link not found — answerwatch</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:1rem"><h1>This link does not open anything</h1><p>The share link does not exist, was revoked, or has expired. Ask whoever sent it for a new one.</p></body></html>`;

export function shareRoutes(deps: { share: ShareService; callers: CallerResolver; page: () => Promise<string | undefined> }) {
  const { share, callers } = deps;
  const routes = new Elysia()
    .post("/api/share-links", async ({ request, body }) => share.create(await callers.apiUser(request), body as Record<string, unknown>), jsonBody(ShareBody))
    .get("/api/share-links", async ({ request, query }) => share.list(await callers.apiUser(request), query.brand_id))
    .delete("/api/share-links/:id", async ({ request, params }) => share.revoke(await callers.apiUser(request), params.id))
    .get("/api/share/:token", ({ params }) => share.describe(params.token))
    .get("/share/:token", ({ params }) => sharedPage(params.token))
    .get("/share/:token/:page", ({ params }) => sharedPage(params.token));
  return routes;

  async function sharedPage(token: string): Promise<Response> {
    const page = (await share.resolve(token)) ? await deps.page() : undefined;
    return page ? new Response(page, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer" } }) : new Response(GONE, { status: 404, headers: { "content-type": "text/html; charset=utf-8" } });
  }
}
