// /api/share-links (owners and admins), GET /api/share/:token (what a shared page needs to start;
// 404 once revoked or expired), and /share/:token itself: the web app's page while the link lives,
// a 404 page after.
import { Elysia, t } from "elysia";
import { inlinePagePolicy } from "../http/security-headers";
import { DateTime, jsonBody, Uuid } from "../http/body-docs";

const ShareBody = t.Object({ brand_id: Uuid, expires_at: t.Optional(t.Union([DateTime, t.Null()])) });
import type { CallerResolver } from "../platform/auth/caller";
import type { ShareService } from "./service";
import { SHEET_TABLES } from "../common/sheets";

const GONE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Link not found — answerwatch</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:1rem"><h1>This link does not open anything</h1><p>The share link does not exist, was revoked, or has expired. Ask whoever sent it for a new one.</p></body></html>`;


export interface ShareRouteDeps {
  share: ShareService;
  callers: CallerResolver;
  page: () => Promise<string | undefined>;
  /** A /rest/v1 request answered by the REST service (rest/routes.ts), and the anon key it is sent with. */
  rest: { answer(request: Request): Promise<Response>; anonKey: string };
}

export function shareRoutes(deps: ShareRouteDeps) {
  const { share, callers } = deps;
  const routes = new Elysia()
    .post("/api/share-links", async ({ request, body }) => share.create(await callers.apiUser(request), body as Record<string, unknown>), jsonBody(ShareBody))
    .get("/api/share-links", async ({ request, query }) => share.list(await callers.apiUser(request), query.brand_id))
    .delete("/api/share-links/:id", async ({ request, params }) => share.revoke(await callers.apiUser(request), params.id))
    .get("/api/share/:token", ({ params }) => share.describe(params.token))
    .get("/share/:token", ({ params }) => sharedPage(params.token))
    .get("/share/:token/:page", ({ params }) => sharedPage(params.token))
    .get("/share/:token/csv/:table", ({ params, request }) => sharedSheet(params.token, params.table, request));
  return routes;

  /**
   * One insights table of the shared brand as CSV at a URL that needs no header — what Google Sheets'
   * IMPORTDATA and Looker Studio's CSV connectors fetch. The RPC runs as the link (its brand, nothing
   * else) through /rest/v1, with the URL's other parameters (window, filters, select, order, limit).
   */
  async function sharedSheet(token: string, table: string, request: Request): Promise<Response> {
    const shared = await share.resolve(token);
    if (!shared) return new Response("This share link does not exist, was revoked or has expired\n", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
    if (!(SHEET_TABLES as readonly string[]).includes(table)) return Response.json({ code: "not_found", message: `No table ${table}: a share link's CSV tables are ${SHEET_TABLES.join(", ")}` }, { status: 404 });
    const query = new URL(request.url).searchParams;
    query.set("p_brand_id", shared.brandId);
    const url = new URL(request.url);
    const inner = new Request(`${url.origin}/rest/v1/rpc/${table}?${query}`, { headers: { apikey: deps.rest.anonKey, authorization: `Bearer ${token}`, accept: "text/csv" } });
    const answered = await deps.rest.answer(inner);
    const headers = new Headers(answered.headers);
    headers.set("cache-control", "no-store");
    headers.set("referrer-policy", "no-referrer");
    if (answered.ok) headers.set("content-disposition", `inline; filename="${table}.csv"`);
    return new Response(answered.body, { status: answered.status, headers });
  }

  async function sharedPage(token: string): Promise<Response> {
    const page = (await share.resolve(token)) ? await deps.page() : undefined;
    return page ? new Response(page, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer" } }) : new Response(GONE, { status: 404, headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": inlinePagePolicy("embeddable") } });
  }
}
