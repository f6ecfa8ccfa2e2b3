// /api/digests (the signed-in member's choices), PUT /api/brands/:id/digest (one brand's),
// /digests/unsubscribe (the link in every digest and alert: GET asks to confirm, POST — the mail
// client's RFC 8058 one-click, or the page's button — turns the mail off), /digests/confirm (the
// link confirming an address for digests: GET asks, POST confirms), POST /api/digests/confirmation
// (mail that link again) and POST /cron/digests
// (the server's secret route, for deployments that run their own cron).
import { Elysia, t } from "elysia";
import { inlinePagePolicy } from "../http/security-headers";
import { escapeHtml } from "../mail/service";
import { AppError } from "../http/errors";
import { jsonBody } from "../http/body-docs";
import type { CallerResolver } from "../platform/auth/caller";
import { bearerToken } from "../platform/auth/tokens";
import { secretMatches } from "../common/secret-match";
import { FREQUENCIES } from "./model";
import type { DigestService } from "./service";

const DigestBody = t.Object({ frequency: t.Union(FREQUENCIES.map((f) => t.Literal(f))), alerts: t.Optional(t.Boolean()) }, { description: "frequency none with alerts false removes the choice" });

/** A small page of its own: the unsubscribe link opens outside the app, without script. */
function page(title: string, body: string, status = 200): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · answerwatch</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font:inherit;padding:.5rem 1rem}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "content-security-policy": inlinePagePolicy("deny", { form: true }) } });
}

export function digestRoutes(deps: { digests: DigestService; callers: CallerResolver; cronSecret: string }) {
  const { digests, callers } = deps;
  const tokenOf = (request: Request) => new URL(request.url).searchParams.get("token");
  const failureOf = (title: string) => (error: unknown) => {
    if (error instanceof AppError) return page(title, `<p>${escapeHtml(error.message)}.</p>`, error.status);
    throw error;
  };
  const failurePage = failureOf("Unsubscribe");
  const confirmFailurePage = failureOf("Confirm your address");
  return new Elysia()
    .get("/api/digests", async ({ request }) => digests.mine(await callers.apiUser(request)))
    .put("/api/brands/:id/digest", async ({ request, params, body }) => digests.set(await callers.apiUser(request), params.id, body), jsonBody(DigestBody))
    .post("/api/digests/confirmation", async ({ request }) => digests.sendConfirmation(await callers.apiUser(request)), { parse: "none" })
    .get("/digests/confirm", ({ request }) => {
      const token = tokenOf(request);
      let email: string;
      try {
        email = digests.checkConfirmToken(token);
      } catch (error) {
        return confirmFailurePage(error);
      }
      // A GET never acts: mail scanners open links. The button POSTs.
      return page("Confirm your address", `<p>Receive answerwatch digests and alerts at ${escapeHtml(email)}?</p><form method="post" action="/digests/confirm?token=${escapeHtml(encodeURIComponent(token!))}"><button type="submit">Confirm</button></form>`);
    })
    .post(
      "/digests/confirm",
      async ({ request }) => {
        try {
          const done = await digests.confirmAddress(tokenOf(request));
          return page("Address confirmed", `<p>Digests and alerts you chose will go to ${escapeHtml(done.email)}. You can change them in your account.</p>`);
        } catch (error) {
          return confirmFailurePage(error);
        }
      },
      { parse: "none" },
    )
    .get("/digests/unsubscribe", ({ request }) => {
      const token = tokenOf(request);
      try {
        digests.checkToken(token);
      } catch (error) {
        return failurePage(error);
      }
      // A GET never acts: mail scanners open links. The button POSTs, as a one-click client does.
      return page("Unsubscribe", `<p>Stop the digests and alerts this message came with?</p><form method="post" action="/digests/unsubscribe?token=${escapeHtml(encodeURIComponent(token!))}"><button type="submit">Unsubscribe</button></form>`);
    })
    .post(
      "/digests/unsubscribe",
      async ({ request }) => {
        try {
          const done = await digests.unsubscribe(tokenOf(request));
          return page("Unsubscribed", `<p>${escapeHtml(done.email)} will no longer receive digests or alerts about ${escapeHtml(done.brand_name)}. You can choose them again in your account.</p>`);
        } catch (error) {
          return failurePage(error);
        }
      },
      { parse: "none" },
    )
    .post(
      "/cron/digests",
      async ({ request }) => {
        if (!secretMatches(bearerToken(request), deps.cronSecret)) throw new AppError(401, "unauthorized", "Send Authorization: Bearer <CRON_SECRET>");
        const sent = await digests.sendDue();
        const alerts = await digests.mailAlerts();
        return { success: true, ...sent, alert_mails: alerts.mails };
      },
      { parse: "none" },
    );
}
