// Who a request acts as: the vocabulary of roles and callers that auth resolves and that the
// features (tracking, webhooks, schedule, keys, members, share, REST) take as input. It lives below
// all of them, so a feature depends on what a caller is, not on the code that resolves one.
import type { JWTPayload } from "jose";

export type OrgRole = "owner" | "admin" | "member" | "viewer";
export const ORG_ROLES: OrgRole[] = ["owner", "admin", "member", "viewer"];

/** The two project keys of the `apikey` header. */
export type ApiKeyRole = "anon" | "service_role";

export interface AccessClaims extends JWTPayload {
  sub: string;
  aud: string;
  role: string;
  email: string;
  phone: string;
  app_metadata: Record<string, unknown>;
  user_metadata: Record<string, unknown>;
  aal: string;
  amr: { method: string; timestamp: number }[];
  session_id: string;
  is_anonymous: boolean;
}

export interface AuthenticatedUser {
  id: string;
  email: string;
  sessionId: string;
  claims: AccessClaims;
}

/** How an API key's session id starts (`key:<key id>`): a key acts within its organization and role only. */
export const KEY_SESSION_PREFIX = "key:";

/** Whether the user is acting through a personal API key rather than a session of their own. */
export const viaApiKey = (user: AuthenticatedUser | undefined): boolean => !!user && user.sessionId.startsWith(KEY_SESSION_PREFIX);

export interface Caller {
  role: ApiKeyRole | "authenticated";
  user?: AuthenticatedUser;
  /** organization id → the caller's role in it (empty for anon and service_role) */
  orgRoles: Map<string, OrgRole>;
  /** A share link's reader: this brand's insights RPCs and nothing else. */
  shareBrandId?: string;
}

export interface ApiUser {
  user: AuthenticatedUser;
  orgRoles: Map<string, OrgRole>;
  /** Set when the bearer is a personal API key (its id): one organization, the key's role. */
  viaKey?: string;
}
