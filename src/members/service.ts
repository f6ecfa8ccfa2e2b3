// An organization's members and invitations. Owners and admins see the members with their e-mail
// addresses and invite people by e-mail; nobody joins without consent: the invited person accepts
// or declines (GET /api/invitations, in the web app's home page). Inviting answers the same whether
// or not the address has an account, so the members API tells nobody who has signed up. The role
// rules are the membership table's (src/platform/rest/membership.ts): only owners grant owner or
// admin — checked when inviting and again when accepting, so an invitation dies with its inviter's
// rights, as API keys and share links do. An invitation is answered only with the key its link
// carries (the mail's reader, or whoever the inviter handed the link to): an account's address
// may be unproven — AUTH_CONFIRM_EMAIL off (the default), or an account made before it was turned
// on — so whoever claimed the invited address first must not join by it.
import { AppError } from "../http/errors";
import { canonicalEmail, isEmailFormat } from "../platform/auth/email";
import type { RateLimitStore } from "../http/rate-limit";
import { requireUuid } from "../http/validate";
import type { ApiUser, OrgRole } from "../common/identity";
import type { InvitationRow, KeyedInvitationRow, MembersStore, ReceivedInvitation } from "./store";
import { escapeHtml, type MailService } from "../mail/service";
import { opaqueToken, sha256Hex } from "../common/tokens";

const ROLES = ["owner", "admin", "member", "viewer"] as const;
type Role = (typeof ROLES)[number];
const MANAGERS = ["owner", "admin"];
/** An invitation not answered in this time is void. */
export const INVITATION_DAYS = 14;
/** Pending invitations one organization may hold: inviting is work someone else has to answer. */
export const MAX_PENDING_INVITATIONS = 200;

/** Who may hand out `role`: owners any role, admins members and viewers. */
const mayGrant = (granter: string | undefined, role: string) => granter === "owner" || (granter === "admin" && !MANAGERS.includes(role));

export interface MembersDeps {
  store: MembersStore;
  now?: () => Date;
  /** Mail (src/mail/service.ts): with it on, the invited person is told by mail, linked to the app. */
  mail?: MailService;
  /** Where the app is (the invitation's link). */
  publicUrl?: () => string;
  /** Shared by instances on Postgres: how many invitations an organization sends an hour (each may be a mail). */
  limits?: RateLimitStore;
}

/** Invitations (new or renewed) one organization may send an hour: the pending cap alone is freed by withdrawing. */
const INVITATIONS_PER_HOUR = 50;

export function createMembersService(deps: MembersDeps) {
  const { store } = deps;
  const invitationsByOrganization = deps.limits?.limiter("members.invitations", { limit: INVITATIONS_PER_HOUR, windowMs: 3_600_000 });
  const now = deps.now ?? (() => new Date());

  const site = () => (deps.publicUrl?.() ?? "").replace(/\/+$/, "");
  /** The home page with the invitation and its key; the query makes a new account land there, not at onboarding. */
  const invitationLink = (id: string, key: string) => `${site()}/?invitation=${id}&key=${key}`;

  /** Tells the invited person by mail: who, where, which role, until when, and that nothing happens without their answer. */
  async function mailInvitation(invitation: InvitationRow, link: string, inviter: string) {
    if (!deps.mail?.enabled || !deps.publicUrl) return;
    const organization = (await store.organizationName(invitation.organization_id)) ?? "an organization";
    const until = invitation.expires_at.slice(0, 10);
    const text = [
      `${inviter} invited you to join ${organization} on answerwatch (${site()}) as ${invitation.role}.`,
      "",
      `Open this link, sign in with this address or create an account with it, and accept or decline: ${link}`,
      "",
      `The invitation stands until ${until}. Nobody joins without accepting: if you do not know them, ignore this message.`,
    ].join("\n");
    const html = `<p>${escapeHtml(inviter)} invited you to join <b>${escapeHtml(organization)}</b> on answerwatch as <b>${escapeHtml(invitation.role)}</b>.</p><p><a href="${escapeHtml(link)}">Open the invitation</a>, sign in or create an account with this address, then accept or decline.</p><p>The invitation stands until ${until}. Nobody joins without accepting: if you do not know them, ignore this message.</p>`;
    await deps.mail.queue({ kind: "invite", to: invitation.email, subject: `${inviter} invited you to ${organization} on answerwatch`, text, html, dedupeKey: `invite:${invitation.id}:${invitation.created_at}` });
  }

  function managed(user: ApiUser, organizationId: string): string {
    requireUuid(organizationId, "organization id");
    const role = user.orgRoles.get(organizationId);
    if (!role) throw new AppError(404, "not_found", "Organization not found");
    if (!MANAGERS.includes(role)) throw new AppError(403, "forbidden", "Only owners and admins see and invite members");
    return role;
  }

  /** Invitations are answered by a signed-in person, never by an API key. */
  function person(user: ApiUser & { viaKey?: string }): void {
    if (user.viaKey) throw new AppError(403, "forbidden", "Invitations are answered by the invited person signed in, not by an API key");
  }

  const INVITATION_GONE = () => new AppError(404, "not_found", "Invitation not found (it may have expired or been withdrawn)");

  /**
   * The caller's address as the account holds it now: a token names the address it was issued to,
   * which a confirmed change has since left (the old address's invitations are not theirs any more).
   */
  async function addressOf(user: ApiUser): Promise<string> {
    const stored = await store.accountAddress(user.user.id);
    if (!stored) throw INVITATION_GONE();
    // The spelling invitations are kept under (NFC, lower case), whatever a row written before normalization holds.
    return canonicalEmail(stored);
  }

  /** The hash the invitation's key must have (the given key's); 403 without one. */
  function keyHashFrom(body: unknown): string {
    const key = body && typeof body === "object" ? (body as Record<string, unknown>).key : undefined;
    if (typeof key === "string" && key.length > 0 && key.length <= 100) return sha256Hex(key);
    if (key !== undefined && key !== null) throw new AppError(400, "validation_failed", "key must be the key from the invitation's link");
    throw new AppError(403, "invitation_key_required", "Open the link of the invitation (mailed to you, or handed to you by whoever invited you) to answer it");
  }

  /** The caller's own live invitation `id` whose key matches, or 404 (someone else's reads as missing). */
  async function ownInvitation(user: ApiUser, id: unknown, keyHash: string): Promise<KeyedInvitationRow> {
    const row = await store.invitationById(requireUuid(id, "invitation id"));
    if (!row || row.email !== (await addressOf(user)) || row.expires_at <= now().toISOString() || row.key_hash !== keyHash) throw INVITATION_GONE();
    return row;
  }

  return {
    async list(user: ApiUser, organizationId: string) {
      managed(user, organizationId);
      const [members, invitations] = await Promise.all([store.members(organizationId), store.pendingInvitations({ organizationId, now: now().toISOString(), limit: MAX_PENDING_INVITATIONS })]);
      return { success: true, members, invitations };
    },

    /**
     * Invites `email` at `role`: 201, the invitation and its link (to hand over where no mail is
     * sent), whether or not the address has an account. Inviting again makes a new key.
     */
    async invite(user: ApiUser & { viaKey?: string }, organizationId: string, body: Record<string, unknown> | null | undefined) {
      const myRole = managed(user, organizationId);
      // A membership outlives the key that asked for it: a leaked key must not add its holder for good.
      if (user.viaKey) throw new AppError(403, "forbidden", "Invitations are sent by a member signed in, not by an API key");
      // Kept in the spelling accounts are matched by (canonicalEmail: trimmed, NFC, lower case).
      const email = typeof body?.email === "string" ? canonicalEmail(body.email) : "";
      if (!isEmailFormat(email)) throw new AppError(400, "validation_failed", "email must be an e-mail address");
      const role = body?.role ?? "member";
      if (!ROLES.includes(role as Role)) throw new AppError(400, "validation_failed", `role must be one of ${ROLES.join(", ")}`);
      if (!mayGrant(myRole, role as string)) throw new AppError(403, "forbidden", "Only owners invite owners and admins");
      // Asked first, counted once the invitation is made (one refused by the pending cap costs nothing).
      if (invitationsByOrganization && !(await invitationsByOrganization.allows(organizationId)))
        throw new AppError(429, "too_many_invitations", `An organization sends at most ${INVITATIONS_PER_HOUR} invitations an hour: try again later`, { headers: { "retry-after": "3600" } });
      const at = now();
      const expiresAt = new Date(at.getTime() + INVITATION_DAYS * 86_400_000).toISOString();
      const key = opaqueToken();
      const invitation = await store.invite({ organizationId, email, role: role as OrgRole, invitedBy: user.user.id, expiresAt, at: at.toISOString(), maxPending: MAX_PENDING_INVITATIONS, keyHash: sha256Hex(key) });
      if (!invitation) throw new AppError(429, "too_many_invitations", `At most ${MAX_PENDING_INVITATIONS} pending invitations per organization: withdraw some first`);
      await invitationsByOrganization?.hit(organizationId);
      const link = invitationLink(invitation.id, key);
      await mailInvitation(invitation, link, user.user.email);
      return { success: true, invitation, link, mailed: !!deps.mail?.enabled };
    },

    async withdraw(user: ApiUser, organizationId: string, invitationId: unknown) {
      managed(user, organizationId);
      if (!(await store.withdraw({ id: requireUuid(invitationId, "invitation id"), organizationId }))) throw new AppError(404, "not_found", "Invitation not found");
      return { success: true };
    },

    /**
     * The caller's pending invitations: their role and expiry only. Who invites, and to which
     * organization, is for the holder of the link (open): whoever claimed the invited address
     * first must not learn it either.
     */
    async mine(user: ApiUser & { viaKey?: string }) {
      person(user);
      const received = await store.invitationsFor({ email: await addressOf(user), now: now().toISOString(), limit: MAX_PENDING_INVITATIONS });
      return { success: true, invitations: received.map(({ id, role, expires_at, created_at }) => ({ id, role, expires_at, created_at })) };
    },

    /** One of the caller's invitations in full (organization, inviter), for the key of its link; 404 otherwise. */
    async open(user: ApiUser & { viaKey?: string }, invitationId: unknown, body?: unknown) {
      person(user);
      const id = requireUuid(invitationId, "invitation id");
      const row = await ownInvitation(user, id, keyHashFrom(body));
      const [organizationName, inviter] = await Promise.all([store.organizationName(row.organization_id), row.invited_by ? store.accountAddress(row.invited_by) : null]);
      if (organizationName === null) throw INVITATION_GONE();
      const invitation: ReceivedInvitation = { id: row.id, organization_id: row.organization_id, organization_name: organizationName, role: row.role, invited_by_email: inviter, expires_at: row.expires_at, created_at: row.created_at };
      return { success: true, invitation };
    },

    async accept(user: ApiUser & { viaKey?: string }, invitationId: unknown, body?: unknown) {
      person(user);
      const id = requireUuid(invitationId, "invitation id");
      const keyHash = keyHashFrom(body);
      const result = await store.accept({
        id,
        email: await addressOf(user),
        userId: user.user.id,
        now: now().toISOString(),
        keyHash,
        // The inviter must still be able to grant the role: an invitation dies with their rights.
        inviterMayGrant: mayGrant,
      });
      if (result.outcome === "not_found") throw INVITATION_GONE();
      if (result.outcome === "void") throw new AppError(410, "invitation_void", "Whoever invited you can no longer grant this role: ask the organization for a new invitation");
      // Already a member: the membership stays as it is.
      return { success: true, membership: result.membership };
    },

    async decline(user: ApiUser & { viaKey?: string }, invitationId: unknown, body?: unknown) {
      person(user);
      const id = requireUuid(invitationId, "invitation id");
      const inv = await ownInvitation(user, id, keyHashFrom(body));
      await store.deleteInvitation(inv.id);
      return { success: true };
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
