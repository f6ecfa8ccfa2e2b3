// What the auth service keeps (users, sessions, refresh tokens, organizations and memberships as
// sign-up makes them) and how it asks for it. Backend implementations: store.sqlite.ts (and, with
// #29, store.pg.ts); the contract both must keep is tests/contracts/auth.contract.ts.
import type { OrgRole } from "../../common/identity";

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string | null;
  role: string;
  appMetadata: unknown;
  userMetadata: unknown;
  emailConfirmedAt: string | null;
  lastSignInAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface OrganizationRecord {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
  updatedAt: string;
}

export interface NewUser {
  id: string;
  /** Canonical (normalizeEmail). */
  email: string;
  passwordHash: string;
  userMetadata: Record<string, unknown>;
  appMetadata: Record<string, unknown>;
  emailConfirmedAt: string | null;
  at: string;
  /** Join an existing organization, or create one the user belongs to. */
  membership:
    | { organizationId: string; role: OrgRole }
    | {
        organization: { id: string; name: string };
        /** Candidate slugs, in order: the first not taken is used (the last one when all are). */
        slugs: string[];
        role: OrgRole;
      };
}

/** Which sessions to end: one, or a user's (all, or all but one). */
export type SessionSelector = { sessionId: string } | { userId: string; exceptSessionId?: string };

export type RotateOutcome =
  /** Unknown token, or its session is gone or revoked. */
  | { kind: "not_found" }
  /** A token replaced longer ago than the reuse interval: its whole session was revoked. */
  | { kind: "reused" }
  /** The new token is stored (a successor, or a sibling when the old one was replaced within the interval). */
  | { kind: "rotated"; userId: string; sessionId: string };

export type OneTimeTokenType = "recovery" | "invite" | "confirmation" | "email_change";

export type RemoveUserOutcome = { kind: "unknown" } | { kind: "last_owner"; organizations: string[] } | { kind: "removed"; id: string };

export interface UserListing {
  email: string;
  id: string;
  created_at: string;
  /** "Org (role), Org (role)" or null without a membership. */
  orgs: string | null;
}

export interface AuthStore {
  /** The account of a canonical address, also when stored in an older spelling (the canonical row first); null when none. */
  findUserByEmail(email: string): Promise<UserRecord | null>;
  userById(id: string): Promise<UserRecord | null>;
  /** Creates the user and their membership (and organization) in one transaction; null when the address is taken. */
  createUser(input: NewUser): Promise<UserRecord | null>;
  /** Updates the given fields; the user afterwards, null when unknown. */
  updateUser(input: { id: string; patch: Partial<Pick<UserRecord, "email" | "passwordHash" | "userMetadata" | "emailConfirmedAt">> & { updatedAt: string } }): Promise<UserRecord | null>;
  /** Users by created_at, a page at a time. */
  listUsers(input: { limit: number; offset: number }): Promise<UserRecord[]>;

  /** A new session with its first refresh token; records the sign-in on the user. */
  startSession(input: { sessionId: string; userId: string; refreshTokenId: string; tokenHash: string; at: string }): Promise<void>;
  /** The session behind an access token (null when unknown). */
  sessionById(id: string): Promise<{ revokedAt: string | null; userId: string } | null>;
  /**
   * Exchanges a refresh token (by hash) for a new one (`newTokenHash`), in one transaction: a live
   * token is marked replaced at `at`; one replaced within `reuseIntervalMs` of `at` gets a sibling;
   * one replaced earlier revokes its session.
   */
  rotateRefreshToken(input: { tokenHash: string; newTokenId: string; newTokenHash: string; at: string; reuseIntervalMs: number }): Promise<RotateOutcome>;
  /** Revokes the selected live sessions and their refresh tokens. */
  revokeSessions(input: SessionSelector & { at: string }): Promise<void>;

  /** A mailed single-use token (hashes of its link token and its code); the user's unused ones of the same type are dropped: one live at a time. */
  createOneTimeToken(input: { userId: string; type: OneTimeTokenType; tokenHash: string; otpHash: string; at: string; expiresAt: string }): Promise<void>;
  /** Uses a live token of `type`, found by its link's hash or by a user's code hash; its user, or null (unknown, used or expired). */
  consumeOneTimeToken(input: { type: OneTimeTokenType; at: string } & ({ tokenHash: string } | { userId: string; otpHash: string })): Promise<string | null>;

  organizationExists(id: string): Promise<boolean>;
  /** The organization whose slug or name is exactly this; null when none. */
  findOrganizationBySlugOrName(nameOrSlug: string): Promise<OrganizationRecord | null>;
  /** The user's organizations with their role in each. */
  memberships(userId: string): Promise<{ organizationId: string; role: OrgRole }[]>;

  /** Every user with their organizations and roles, oldest first (the `user list` command). */
  listUsersWithOrganizations(): Promise<UserListing[]>;
  /**
   * Removes the user — by id, or by exactly this (lower-case, NFC) address — with their sessions,
   * tokens and memberships, unless they are an organization's last owner (an organization nobody
   * may manage or delete, whose runs and webhooks would go on); one transaction. Both doors (the
   * admin API, `answerwatch user remove`) go through it.
   */
  removeUser(who: { id: string } | { email: string }): Promise<RemoveUserOutcome>;
  /**
   * Deletes up to `limit` sessions revoked before `before` (their refresh tokens with them) and up
   * to `limit` one-time tokens used or expired before it (recovery, confirmation, invitation links);
   * how many rows in all. A session not revoked keeps its rotated refresh tokens: reuse detection
   * reads them.
   */
  pruneEnded(input: { before: string; limit: number }): Promise<number>;
}
