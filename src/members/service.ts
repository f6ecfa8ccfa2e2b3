// An organization's members with their e-mail addresses, for its owners and admins, and adding an
// existing account by e-mail. The membership row itself is written through /rest/v1 as the caller,
// so the same policies and rules apply as to any other client (only owners grant owner or admin;
// an organization keeps an owner: src/platform/rest/membership.ts). Nobody is e-mailed: the
// person signs up first, then an owner or admin adds them here.
import type { Database } from "bun:sqlite";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { ApiUser } from "../platform/auth/caller";

const ROLES = ["owner", "admin", "member", "viewer"] as const;
const MANAGERS = ["owner", "admin"];

export interface MembersDeps {
  sqlite: Database;
  /** A /rest/v1 request as the caller (their Authorization header), answered by the app itself. */
  rest(method: string, path: string, authorization: string, body: unknown): Promise<Response>;
}

export function createMembersService(deps: MembersDeps) {
  const { sqlite } = deps;

  function managed(user: ApiUser, organizationId: string) {
    requireUuid(organizationId, "organization id");
    const role = user.orgRoles.get(organizationId);
    if (!role) throw new AppError(404, "not_found", "Organization not found");
    if (!MANAGERS.includes(role)) throw new AppError(403, "forbidden", "Only owners and admins see and add members");
  }

  function membersOf(organizationId: string) {
    return sqlite
      .query(
        `SELECT m.id, m.user_id, u.email, m.role, m.created_at FROM organization_members m JOIN users u ON u.id = m.user_id
          WHERE m.organization_id = ? ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END, u.email`,
      )
      .all(organizationId) as { id: string; user_id: string; email: string; role: string; created_at: string }[];
  }

  return {
    list(user: ApiUser, organizationId: string) {
      managed(user, organizationId);
      return { success: true, members: membersOf(organizationId) };
    },

    async add(user: ApiUser, organizationId: string, body: Record<string, unknown> | null | undefined, authorization: string) {
      managed(user, organizationId);
      const email = typeof body?.email === "string" ? body.email.trim().toLowerCase() : "";
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new AppError(400, "validation_failed", "email must be an e-mail address");
      const role = body?.role ?? "member";
      if (!ROLES.includes(role as (typeof ROLES)[number])) throw new AppError(400, "validation_failed", `role must be one of ${ROLES.join(", ")}`);
      const account = sqlite.query("SELECT id FROM users WHERE lower(email) = ?").get(email) as { id: string } | null;
      if (!account) throw new AppError(404, "user_not_found", `No account uses ${email}: ask them to sign up first, then add them`);
      if (sqlite.query("SELECT 1 FROM organization_members WHERE organization_id = ? AND user_id = ?").get(organizationId, account.id))
        throw new AppError(409, "already_member", `${email} is already a member`);
      const res = await deps.rest("POST", "/organization_members", authorization, { organization_id: organizationId, user_id: account.id, role });
      if (!res.ok) {
        const error = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
        throw new AppError(res.status, error.code ?? "refused", error.message ?? "The membership was refused");
      }
      return { success: true, member: membersOf(organizationId).find((m) => m.user_id === account.id) };
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
