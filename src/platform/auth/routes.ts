// /auth/v1 — GoTrue's wire format, so @supabase/supabase-js works unchanged (DESIGN §4).
import { Elysia } from "elysia";
import { AppError } from "../../http/errors";
import type { RequestMeta } from "../../http/request";
import type { Config } from "../../config";
import type { CallerResolver } from "./caller";
import type { AuthService } from "./service";

type Body = Record<string, unknown>;

function objectBody(body: unknown): Body {
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "bad_json", "The request body must be a JSON object");
  return body as Body;
}

/**
 * A pagination parameter as GoTrue reads it (an unsigned whole number, 400 otherwise); absent or 0
 * is the default. Capped at `max`, so an offset built from it stays a safe SQLite integer.
 */
function paginationParam(name: string, raw: unknown, fallback: number, max: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || Number(raw) > max)
    throw new AppError(400, "validation_failed", `Bad Pagination Parameters: ${name} must be a whole number no larger than ${max}`);
  return Number(raw) || fallback;
}

const MAX_PER_PAGE = 1000;
// page × per_page must stay an exact integer (below 2^53) for the OFFSET.
const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / MAX_PER_PAGE);

export function authRoutes(deps: {
  auth: AuthService;
  callers: CallerResolver;
  config: Pick<Config, "auth" | "publicUrl">;
  meta: (request: Request) => RequestMeta;
  /** The client behind a request (TRUSTED_PROXIES), as the pixel reads it. */
  clientAddress: (peer: string, forwardedFor: string | null) => string;
  version: string;
}) {
  const { auth, callers } = deps;
  const noContent = () => new Response(null, { status: 204 });
  const addressOf = (request: Request) => deps.clientAddress(deps.meta(request).ip, request.headers.get("x-forwarded-for"));

  return new Elysia({ prefix: "/auth/v1" })
    .get("/health", () => ({ version: deps.version, name: "answerwatch-auth", description: "Supabase Auth (GoTrue) compatible API" }))
    .get("/settings", () => ({
      external: { email: true, phone: false, anonymous_users: false },
      disable_signup: deps.config.auth.disableSignup,
      mailer_autoconfirm: !deps.config.auth.confirmEmail,
      phone_autoconfirm: false,
      sms_provider: "",
      saml_enabled: false,
    }))
    .get("/.well-known/jwks.json", () => auth.tokens.jwks())
    .post("/signup", async ({ body, query, request }) => {
      const b = objectBody(body);
      return auth.signUp({ email: b.email, password: b.password, data: b.data }, addressOf(request), query.redirect_to);
    })
    .post("/resend", async ({ body, query, request }) => auth.resend(objectBody(body), query.redirect_to, addressOf(request)))
    .post("/invite", async ({ body, query, request }) => {
      await callers.requireServiceRole(request);
      return auth.invite(objectBody(body), query.redirect_to);
    })
    .post("/token", async ({ body, query, request }) => {
      const b = objectBody(body);
      switch (query.grant_type) {
        case "password":
          return auth.signInWithPassword({ email: b.email, password: b.password }, addressOf(request));
        case "refresh_token":
          return auth.refresh({ refresh_token: b.refresh_token });
        default:
          throw new AppError(400, "unsupported_grant_type", "grant_type must be password or refresh_token");
      }
    })
    .post("/recover", async ({ body, query, request }) => auth.recover(objectBody(body), query.redirect_to, addressOf(request)))
    .post("/verify", async ({ body, request }) => auth.verify(objectBody(body), addressOf(request)))
    .get("/verify", async ({ query, request }) =>
      // 303 with the session (or the error) in the fragment, which never reaches a server's log.
      new Response(null, { status: 303, headers: { location: await auth.verifyLink(query, addressOf(request)), "cache-control": "no-store", "referrer-policy": "no-referrer" } }),
    )
    .get("/user", async ({ request }) => {
      const user = await callers.authUser(request);
      return auth.getUser(user.id);
    })
    .put("/user", async ({ request, body, query }) => {
      const user = await callers.authUser(request);
      const b = objectBody(body);
      return auth.updateUser(user.id, { password: b.password, data: b.data, email: b.email }, query.redirect_to, addressOf(request), user.sessionId);
    })
    .post("/logout", async ({ request, query }) => {
      const user = await callers.authUser(request);
      await auth.logout(user, query.scope ?? "global");
      return noContent();
    })
    .post("/admin/users", async ({ request, body }) => {
      await callers.requireServiceRole(request);
      return auth.adminCreateUser(objectBody(body));
    })
    .get("/admin/users", async ({ request, query }) => {
      await callers.requireServiceRole(request);
      const perPage = Math.min(MAX_PER_PAGE, paginationParam("per_page", query.per_page, 50, Number.MAX_SAFE_INTEGER));
      const page = paginationParam("page", query.page, 1, MAX_PAGE);
      return auth.adminListUsers(page, perPage);
    })
    .get("/admin/users/:id", async ({ request, params }) => {
      await callers.requireServiceRole(request);
      return auth.getUser(params.id);
    })
    .delete("/admin/users/:id", async ({ request, params }) => {
      await callers.requireServiceRole(request);
      await auth.adminDeleteUser(params.id);
      return {};
    });
}
