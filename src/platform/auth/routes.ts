// /auth/v1 — GoTrue's wire format, so @supabase/supabase-js works unchanged (DESIGN §4).
import { Elysia } from "elysia";
import { AppError } from "../../http/errors";
import type { RequestMeta } from "../../app";
import type { Config } from "../../config";
import type { CallerResolver } from "./caller";
import type { AuthService } from "./service";

type Body = Record<string, unknown>;

function objectBody(body: unknown): Body {
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "bad_json", "The request body must be a JSON object");
  return body as Body;
}

export function authRoutes(deps: {
  auth: AuthService;
  callers: CallerResolver;
  config: Pick<Config, "auth" | "publicUrl">;
  meta: (request: Request) => RequestMeta;
  version: string;
}) {
  const { auth, callers } = deps;
  const noContent = () => new Response(null, { status: 204 });

  return new Elysia({ prefix: "/auth/v1" })
    .get("/health", () => ({ version: deps.version, name: "answerwatch-auth", description: "Supabase Auth (GoTrue) compatible API" }))
    .get("/settings", () => ({
      external: { email: true, phone: false, anonymous_users: false },
      disable_signup: deps.config.auth.disableSignup,
      mailer_autoconfirm: true,
      phone_autoconfirm: false,
      sms_provider: "",
      saml_enabled: false,
    }))
    .get("/.well-known/jwks.json", () => auth.tokens.jwks())
    .post("/signup", async ({ body }) => {
      const b = objectBody(body);
      return auth.signUp({ email: b.email, password: b.password, data: b.data });
    })
    .post("/token", async ({ body, query, request }) => {
      const b = objectBody(body);
      switch (query.grant_type) {
        case "password":
          return auth.signInWithPassword({ email: b.email, password: b.password }, deps.meta(request).ip);
        case "refresh_token":
          return auth.refresh({ refresh_token: b.refresh_token });
        default:
          throw new AppError(400, "unsupported_grant_type", "grant_type must be password or refresh_token");
      }
    })
    .get("/user", async ({ request }) => {
      const user = await callers.authUser(request);
      return auth.getUser(user.id);
    })
    .put("/user", async ({ request, body }) => {
      const user = await callers.authUser(request);
      const b = objectBody(body);
      return auth.updateUser(user.id, { password: b.password, data: b.data, email: b.email });
    })
    .post("/logout", async ({ request, query }) => {
      const user = await callers.authUser(request);
      auth.logout(user, query.scope ?? "global");
      return noContent();
    })
    .post("/admin/users", async ({ request, body }) => {
      await callers.requireServiceRole(request);
      return auth.adminCreateUser(objectBody(body));
    })
    .get("/admin/users", async ({ request, query }) => {
      await callers.requireServiceRole(request);
      const page = Math.max(1, Number(query.page) || 1);
      const perPage = Math.min(1000, Math.max(1, Number(query.per_page) || 50));
      return auth.adminListUsers(page, perPage);
    })
    .get("/admin/users/:id", async ({ request, params }) => {
      await callers.requireServiceRole(request);
      return auth.getUser(params.id);
    })
    .delete("/admin/users/:id", async ({ request, params }) => {
      await callers.requireServiceRole(request);
      auth.adminDeleteUser(params.id);
      return {};
    });
}
