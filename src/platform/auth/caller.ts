// Who is calling: the `apikey` gate of /auth/v1 and /rest/v1, and the bearer token resolved for
// each surface with that surface's errors (GoTrue, PostgREST, /api).
import { AppError } from "../../http/errors";
import { secretMatcher } from "../../common/secret-match";
import type { Secrets } from "../../secrets";
import { apiKeyRole, type ApiKeyRole } from "./api-keys";
import { SessionGoneError, type AuthService, type AuthenticatedUser, type OrgRole } from "./service";
import { TokenError, bearerToken } from "./tokens";
import { KEY_SESSION_PREFIX, type ApiUser, type Caller } from "../../common/identity";
export type { ApiUser, Caller };

/** Share links (src/share): the brand a live `aws_` token opens, or null. */
export interface ShareResolver {
  resolve(token: string): Promise<{ brandId: string; organizationId: string } | null>;
}

/** Personal API keys (src/keys): the identity behind an `aw_` bearer, or null. */
export interface KeyResolver {
  resolve(token: string): Promise<{ keyId: string; userId: string; email: string; organizationId: string; role: OrgRole } | null>;
}

const NO_API_KEY = new AppError(401, "no_api_key", "No API key found in request", {
  rawBody: { message: "No API key found in request", hint: "No `apikey` request header or url param was found." },
});
const BAD_API_KEY = new AppError(401, "invalid_api_key", "Invalid API key", {
  rawBody: { message: "Invalid API key", hint: "Double check your Supabase `anon` or `service_role` API key." },
});

export function createCallerResolver(deps: { auth: AuthService; secrets: Secrets; keys?: KeyResolver; shares?: ShareResolver }) {
  const { auth, secrets } = deps;
  const isAnonKey = secretMatcher(secrets.anonKey);
  const isServiceKey = secretMatcher(secrets.serviceRoleKey);

  /** An `aw_` bearer as a user scoped to the key's organization and role; null for any other token. */
  async function keyUser(token: string): Promise<ApiUser | null> {
    if (!token.startsWith("aw_") || !deps.keys) return null;
    const key = await deps.keys.resolve(token);
    if (!key) throw new AppError(401, "invalid_api_key", "The API key is unknown, revoked or expired");
    const claims = { sub: key.userId, aud: "authenticated", role: "authenticated", email: key.email, phone: "", app_metadata: {}, user_metadata: {}, aal: "aal1", amr: [], session_id: `${KEY_SESSION_PREFIX}${key.keyId}`, is_anonymous: false };
    return { user: { id: key.userId, email: key.email, sessionId: `${KEY_SESSION_PREFIX}${key.keyId}`, claims }, orgRoles: new Map([[key.organizationId, key.role]]), viaKey: key.keyId };
  }

  function requireApiKey(request: Request): ApiKeyRole {
    const key = request.headers.get("apikey") ?? new URL(request.url).searchParams.get("apikey");
    if (!key) throw NO_API_KEY;
    if (isAnonKey(key)) return "anon";
    if (isServiceKey(key)) return "service_role";
    throw BAD_API_KEY;
  }

  async function keyRole(token: string): Promise<ApiKeyRole | null> {
    if (isAnonKey(token)) return "anon";
    if (isServiceKey(token)) return "service_role";
    return apiKeyRole(secrets.jwtSecret, token);
  }

  return {
    requireApiKey,

    /** /rest/v1: apikey, then the bearer (user token or API key) decides the role. */
    async restCaller(request: Request): Promise<Caller> {
      const keyRoleOfApiKey = requireApiKey(request);
      const token = bearerToken(request);
      if (token === null) return { role: keyRoleOfApiKey, orgRoles: new Map() };
      const invalid = (message: string, code = "PGRST301") =>
        new AppError(401, code, message, { headers: { "www-authenticate": `Bearer error="invalid_token", error_description="${message}"` } });
      if (!token) throw invalid("No suitable key or wrong key type");
      const role = await keyRole(token);
      if (role) return { role, orgRoles: new Map() };
      if (token.startsWith("aws_") && deps.shares) {
        const shared = await deps.shares.resolve(token);
        if (!shared) throw invalid("The share link is unknown, revoked or expired");
        return { role: "authenticated", orgRoles: new Map([[shared.organizationId, "viewer"]]), shareBrandId: shared.brandId };
      }
      try {
        const viaKey = await keyUser(token);
        if (viaKey) return { role: "authenticated", user: viaKey.user, orgRoles: viaKey.orgRoles };
      } catch (error) {
        // Only a key found wanting is 401: a database that failed to answer stays the 5xx/503 it is,
        // or a script would throw away a good key.
        if (error instanceof AppError && error.status === 401) throw invalid("The API key is unknown, revoked or expired");
        throw error;
      }
      try {
        return { role: "authenticated", ...(await auth.authenticateWithRoles(token)) };
      } catch (error) {
        if (error instanceof TokenError) throw error.problem === "expired" ? invalid("JWT expired", "PGRST303") : invalid(error.message);
        if (error instanceof SessionGoneError) throw invalid("JWT session not found or revoked");
        throw error;
      }
    },

    /** /auth/v1 endpoints that need a user: GoTrue's 401 no_authorization, 403 bad_jwt / session_not_found. */
    async authUser(request: Request): Promise<AuthenticatedUser> {
      const token = bearerToken(request);
      if (!token) throw new AppError(401, "no_authorization", "This endpoint requires a valid Bearer token");
      try {
        return await auth.authenticate(token);
      } catch (error) {
        if (error instanceof TokenError) throw new AppError(403, "bad_jwt", error.message);
        if (error instanceof SessionGoneError) throw new AppError(403, "session_not_found", error.message);
        throw error;
      }
    },

    /** /api/*: a live user access token, or 401 in the /api error shape. */
    async apiUser(request: Request): Promise<ApiUser> {
      const token = bearerToken(request);
      if (!token) throw new AppError(401, "unauthorized", "Missing bearer token: send Authorization: Bearer <access token or API key>");
      const viaKey = await keyUser(token);
      if (viaKey) return viaKey;
      try {
        return await auth.authenticateWithRoles(token);
      } catch (error) {
        if (error instanceof TokenError) throw new AppError(401, error.problem === "expired" ? "token_expired" : "invalid_token", error.message);
        if (error instanceof SessionGoneError) throw new AppError(401, "session_revoked", error.message);
        throw error;
      }
    },

    /** Admin endpoints: the bearer must be the service_role key. */
    async requireServiceRole(request: Request): Promise<void> {
      const token = bearerToken(request);
      if (!token) throw new AppError(401, "no_authorization", "This endpoint requires a Bearer token");
      if ((await keyRole(token)) !== "service_role") throw new AppError(403, "not_admin", "User not allowed");
    },
  };
}

export type CallerResolver = ReturnType<typeof createCallerResolver>;
