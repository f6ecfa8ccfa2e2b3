// Client reports' doors: GET /api/brands/:brandId/report?from&to (session or API key, any member of
// the brand's organization), the same as a POST whose form carries the access token (how the web
// app opens it in a new tab: a link cannot send a header, and a token in a URL stays in the
// history), and GET /share/:token/report for a share link's brand. `download=1` saves it instead.
import { AppError } from "../http/errors";
import { inlinePagePolicy, type PageFraming } from "../http/security-headers";
import { Elysia } from "elysia";
import type { CallerResolver, ShareResolver } from "../platform/auth/caller";
import type { ClientReport, ClientReportService } from "./service";


export interface ClientReportRouteDeps {
  reports: ClientReportService;
  callers: CallerResolver;
  share: ShareResolver;
}

type Query = Record<string, unknown>;

const wantsDownload = (value: unknown) => value === "1" || value === "true";

/**
 * Nothing in a report may make a request, even in a browser: no script, no connection, no font or
 * image but data: ones. Stricter than any page's policy (src/http/security-headers.ts keeps it).
 */
function reportResponse(report: ClientReport, download: boolean, framing: PageFraming): Response {
  return new Response(report.html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-disposition": `${download ? "attachment" : "inline"}; filename="${report.filename}"`,
      "content-security-policy": inlinePagePolicy(framing, { images: true }),
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    },
  });
}

export function clientReportRoutes(deps: ClientReportRouteDeps) {
  const { reports, callers } = deps;
  return (
    new Elysia()
      .get("/api/brands/:brandId/report", async ({ request, params, query }) => {
        const report = await reports.forUser(await callers.apiUser(request), params.brandId, query);
        return reportResponse(report, wantsDownload(query.download), "deny");
      })
      .post("/api/brands/:brandId/report", async ({ request, params, body }) => {
        const form: Query = body && typeof body === "object" && !Array.isArray(body) ? (body as Query) : {};
        // The form's token stands for the Authorization header a link cannot send.
        const token = typeof form.access_token === "string" ? form.access_token : "";
        // A token is base64url and dots; anything a header cannot hold (a line break, NUL, non-ASCII) is no token.
        if (token && !/^[A-Za-z0-9._~+/=-]{1,8192}$/.test(token)) throw new AppError(401, "invalid_token", "The access token is not valid");
        const asked = request.headers.has("authorization") || !token ? request : new Request(request.url, { headers: { authorization: `Bearer ${token}` } });
        const report = await reports.forUser(await callers.apiUser(asked), params.brandId, form);
        return reportResponse(report, wantsDownload(form.download), "deny");
      })
      // Share links may be framed (a client's portal), as their pages may.
      .get("/share/:token/report", async ({ params, query }) => {
        const shared = await deps.share.resolve(params.token);
        if (!shared) return new Response("This share link does not exist, was revoked or has expired\n", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
        return reportResponse(await reports.forShare(shared, query), wantsDownload(query.download), "embeddable");
      })
  );
}
