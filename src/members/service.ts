// An organization's members and invitations. Owners and admins see the members with their e-mail
// addresses and invite people by e-mail; nobody joins without consent: the invited person accepts
// or declines (GET /api/invitations, in the web app's home page). Inviting answers the same whether
// or not the address has an account, so the members API tells nobody who has signed up. The role
// rules are the membership table's (src/platform/rest/membership.ts): only owners grant owner or
// admin — checked when inviting and again when accepting, so an invitation dies with its inviter's
// rights, as API keys and share links do.
import type { Database } from "bun:sqlite";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { ApiUser } from "../common/identity";

const ROLES = ["owner", "admin", "member", "viewer"] as const;
type Role = (typeof ROLES)[number];
const MANAGERS = ["owner", "admin"];
/** An invitation not answered in this time is void. */
export const INVITATION_DAYS = 14;
/** Pending invitations one organization may hold: inviting is work someone else has to answer. */
export const MAX_PENDING_INVITATIONS = 200;

/** Who may hand out `role`: owners any role, admins members and viewers. */
const mayGrant = (granter: string | undefined, role: string) => granter === "owner" || (granter === "admin" && !MANAGERS.includes(role));

interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  expires_at: string;
  created_at: string;
}

const INVITATION_COLUMNS = "id, organization_id, email, role, invited_by, expires_at, created_at";

export function createMembersService(deps: { sqlite: Database; now?: () => Date }) {
  const { sqlite } = deps;
  const now = deps.now ?? (() => new Date());

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

  function membersOf(organizationId: string) {
    return sqlite
      .query(
        `SELECT m.id, m.user_id, u.email, m.role, m.created_at FROM organization_members m JOIN users u ON u.id = m.user_id
          WHERE m.organization_id = ? ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END, u.email`,
      )
      .all(organizationId) as { id: string; user_id: string; email: string; role: string; created_at: string }[];
  }

  function pendingOf(organizationId: string) {
    return sqlite
      .query(`SELECT ${INVITATION_COLUMNS} FROM organization_invitations WHERE organization_id = ? AND expires_at > ? ORDER BY created_at DESC LIMIT ${MAX_PENDING_INVITATIONS}`)
      .all(organizationId, now().toISOString()) as InvitationRow[];
  }

  /** The caller's own live invitation `id`, or 404 (someone else's reads as missing). */
  function ownInvitation(user: ApiUser, id: unknown): InvitationRow {
    const row = sqlite.query(`SELECT ${INVITATION_COLUMNS} FROM organization_invitations WHERE id = ?`).get(requireUuid(id, "invitation id")) as InvitationRow | null;
    if (!row || row.email !== user.user.email.toLowerCase() || row.expires_at <= now().toISOString()) throw new AppError(404, "not_found", "Invitation not found (it may have expired or been withdrawn)");
    return row;
  }

  const roleIn = (organizationId: string, userId: string | null) =>
    userId ? ((sqlite.query("SELECT role FROM organization_members WHERE organization_id = ? AND user_id = ?").get(organizationId, userId) as { role: string } | null)?.role ?? undefined) : undefined;

  return {
    list(user: ApiUser, organizationId: string) {
      managed(user, organizationId);
      return { success: true, members: membersOf(organizationId), invitations: pendingOf(organizationId) };
    },

    /** Invites `email` at `role`: 201 and the invitation, whether or not the address has an account. */
    invite(user: ApiUser & { viaKey?: string }, organizationId: string, body: Record<string, unknown> | null | undefined) {
      const myRole = managed(user, organizationId);
      const email = typeof body?.email === "string" ? body.email.trim().toLowerCase() : "";
      if (email.length > 320 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new AppError(400, "validation_failed", "email must be an e-mail address");
      const role = body?.role ?? "member";
      if (!ROLES.includes(role as Role)) throw new AppError(400, "validation_failed", `role must be one of ${ROLES.join(", ")}`);
      if (!mayGrant(myRole, role as string)) throw new AppError(403, "forbidden", "Only owners invite owners and admins");
      const at = now();
      const expiresAt = new Date(at.getTime() + INVITATION_DAYS * 86_400_000).toISOString();
      const invitation = sqlite.transaction(() => {
        const pending = sqlite.query("SELECT count(*) AS n FROM organization_invitations WHERE organization_id = ? AND expires_at > ?").get(organizationId, at.toISOString()) as { n: number };
        if (pending.n >= MAX_PENDING_INVITATIONS) throw new AppError(429, "too_many_invitations", `At most ${MAX_PENDING_INVITATIONS} pending invitations per organization: withdraw some first`);
        // Inviting the same address again renews the invitation (its role, its expiry).
        return sqlite
          .query(
            `INSERT INTO organization_invitations (organization_id, email, role, invited_by, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, expires_at = excluded.expires_at, created_at = excluded.created_at
             RETURNING ${INVITATION_COLUMNS}`,
          )
          .get(organizationId, email, role as string, user.user.id, expiresAt, at.toISOString()) as InvitationRow;
      }).immediate();
      return { success: true, invitation };
    },

    withdraw(user: ApiUser, organizationId: string, invitationId: unknown) {
      managed(user, organizationId);
      const removed = sqlite.query("DELETE FROM organization_invitations WHERE id = ? AND organization_id = ? RETURNING id").get(requireUuid(invitationId, "invitation id"), organizationId);
      if (!removed) throw new AppError(404, "not_found", "Invitation not found");
      return { success: true };
    },

    /** The caller's pending invitations, with the organization's name. */
    mine(user: ApiUser & { viaKey?: string }) {
      person(user);
      const rows = sqlite
        .query(
          `SELECT i.id, i.organization_id, o.name AS organization_name, i.role, u.email AS invited_by_email, i.expires_at, i.created_at
             FROM organization_invitations i JOIN organizations o ON o.id = i.organization_id LEFT JOIN users u ON u.id = i.invited_by
            WHERE i.email = ? AND i.expires_at > ? ORDER BY i.created_at DESC LIMIT ${MAX_PENDING_INVITATIONS}`,
        )
        .all(user.user.email.toLowerCase(), now().toISOString());
      return { success: true, invitations: rows };
    },

    accept(user: ApiUser & { viaKey?: string }, invitationId: unknown) {
      person(user);
      return sqlite.transaction(() => {
        const inv = ownInvitation(user, invitationId);
        // The inviter must still be able to grant the role: an invitation dies with their rights.
        if (!mayGrant(roleIn(inv.organization_id, inv.invited_by), inv.role))
          throw new AppError(410, "invitation_void", "Whoever invited you can no longer grant this role: ask the organization for a new invitation");
        sqlite.run("DELETE FROM organization_invitations WHERE id = ?", [inv.id]);
        // Already a member: the membership stays as it is.
        sqlite.run("INSERT INTO organization_members (organization_id, user_id, role) VALUES (?, ?, ?) ON CONFLICT (organization_id, user_id) DO NOTHING", [inv.organization_id, user.user.id, inv.role]);
        const membership = sqlite.query("SELECT id, organization_id, user_id, role, created_at FROM organization_members WHERE organization_id = ? AND user_id = ?").get(inv.organization_id, user.user.id);
        return { success: true, membership };
      }).immediate();
    },

    decline(user: ApiUser & { viaKey?: string }, invitationId: unknown) {
      person(user);
      const inv = ownInvitation(user, invitationId);
      sqlite.run("DELETE FROM organization_invitations WHERE id = ?", [inv.id]);
      return { success: true };
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
