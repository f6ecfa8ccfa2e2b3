// What the members feature keeps (organization_members as seen by managers, organization_invitations)
// and how it asks for it. Backend implementations: store.sqlite.ts (and, with #29, store.pg.ts); the
// contract both must keep is tests/contracts/members.contract.ts.
import type { OrgRole } from "../common/identity";

export interface MemberRow {
  id: string;
  user_id: string;
  email: string;
  role: string;
  created_at: string;
}

export interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: OrgRole;
  invited_by: string | null;
  expires_at: string;
  created_at: string;
}

/** An invitation as its invited person sees it. */
export interface ReceivedInvitation {
  id: string;
  organization_id: string;
  organization_name: string;
  role: OrgRole;
  invited_by_email: string | null;
  expires_at: string;
  created_at: string;
}

/** An invitation with the hash of its link's key (what accepting and declining check; never listed). */
export type KeyedInvitationRow = InvitationRow & { key_hash: string | null };

export interface MembershipRow {
  id: string;
  organization_id: string;
  user_id: string;
  role: string;
  created_at: string;
}

export type AcceptOutcome =
  | { outcome: "accepted"; membership: MembershipRow }
  /** Unknown, expired, or addressed to another e-mail address. */
  | { outcome: "not_found" }
  /** The inviter can no longer grant the role; the invitation is left as it is. */
  | { outcome: "void" };

export interface MembersStore {
  /** The organization's members with their e-mail addresses: owners, admins, members, viewers, then by e-mail. */
  members(organizationId: string): Promise<MemberRow[]>;
  /** Invitations still live at `now`, newest first, at most `limit`. */
  pendingInvitations(input: { organizationId: string; now: string; limit: number }): Promise<InvitationRow[]>;
  /**
   * Invites `email`, or renews its invitation (role, inviter, expiry, created_at, key), unless the
   * organization already holds `maxPending` live invitations at `at`: then null and nothing changes.
   */
  invite(input: { organizationId: string; email: string; role: OrgRole; invitedBy: string; expiresAt: string; at: string; maxPending: number; keyHash: string }): Promise<InvitationRow | null>;
  /** Deletes the organization's invitation; false when there is none with that id in that organization. */
  withdraw(input: { id: string; organizationId: string }): Promise<boolean>;
  /** Deletes up to `limit` invitations that expired before `before` (an address, a role and an inviter nobody can see or use); how many. */
  pruneExpired(input: { before: string; limit: number }): Promise<number>;
  /** Live invitations addressed to `email` (lower case), newest first, at most `limit`. */
  invitationsFor(input: { email: string; now: string; limit: number }): Promise<ReceivedInvitation[]>;
  invitationById(id: string): Promise<KeyedInvitationRow | null>;
  /**
   * The account's address as it is stored now, or null when there is no such account: what an
   * invitation is matched by (in its canonical spelling) — not a token's `email` claim, which names
   * the address it was issued to.
   */
  accountAddress(userId: string): Promise<string | null>;
  /** The organization's name (what an invitation by mail says), or null when unknown. */
  organizationName(id: string): Promise<string | null>;
  deleteInvitation(id: string): Promise<void>;
  /**
   * In one transaction: the live invitation `id` addressed to `email`; `inviterMayGrant` is asked with
   * its inviter's current role (undefined when they left); the invitation is consumed and `userId`
   * joins at its role (an existing membership stays as it is). An invitation whose key hash is not
   * `keyHash` is not_found.
   */
  accept(input: { id: string; email: string; userId: string; now: string; keyHash: string; inviterMayGrant: (inviterRole: string | undefined, role: OrgRole) => boolean }): Promise<AcceptOutcome>;
}
