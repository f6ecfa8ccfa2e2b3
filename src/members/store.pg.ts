// The members store on Postgres (store.ts says what each operation does). Invitations are capped per
// organization and several instances may invite at once: the cap is counted while holding the
// organization's row lock, so two invitations cannot both see room for one.
import type { SQL } from "bun";
import { isUuid, plainRow, plainRows } from "../db/pg/values";
import type { AcceptOutcome, InvitationRow, KeyedInvitationRow, MemberRow, MembersStore, MembershipRow, ReceivedInvitation } from "./store";

export function createPgMembersStore(sql: SQL): MembersStore {
  const invitationById = async (db: SQL, id: string, lock = false) => {
    if (!isUuid(id)) return null;
    const [row] = lock
      ? await db`SELECT id, organization_id, email, role, invited_by, expires_at, created_at, key_hash FROM organization_invitations WHERE id = ${id} FOR UPDATE`
      : await db`SELECT id, organization_id, email, role, invited_by, expires_at, created_at, key_hash FROM organization_invitations WHERE id = ${id}`;
    return row ? plainRow<KeyedInvitationRow>(row) : null;
  };

  return {
    async members(organizationId) {
      if (!isUuid(organizationId)) return [];
      // COLLATE "C": by code point, as SQLite orders text, whatever the database's locale.
      const rows = await sql`
        SELECT m.id, m.user_id, u.email, m.role, m.created_at FROM organization_members m JOIN auth.users u ON u.id = m.user_id
         WHERE m.organization_id = ${organizationId}
         ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END, u.email COLLATE "C"`;
      return plainRows<MemberRow>(rows);
    },
    async pendingInvitations({ organizationId, now, limit }) {
      if (!isUuid(organizationId)) return [];
      const rows = await sql`
        SELECT id, organization_id, email, role, invited_by, expires_at, created_at FROM organization_invitations
         WHERE organization_id = ${organizationId} AND expires_at > ${now} ORDER BY created_at DESC LIMIT ${limit}`;
      return plainRows<InvitationRow>(rows);
    },
    async invite(i) {
      return sql.begin(async (tx) => {
        // Invitations of one organization queue on its row; the count below then sees every
        // invitation committed before this one.
        await tx`SELECT 1 FROM organizations WHERE id = ${i.organizationId} FOR UPDATE`;
        const [{ n }] = await tx`SELECT count(*)::int AS n FROM organization_invitations WHERE organization_id = ${i.organizationId} AND expires_at > ${i.at}`;
        if (n >= i.maxPending) return null;
        // Inviting the same address again renews the invitation (its role, its expiry).
        const [row] = await tx`
          INSERT INTO organization_invitations (organization_id, email, role, invited_by, expires_at, created_at, key_hash)
          VALUES (${i.organizationId}, ${i.email}, ${i.role}, ${i.invitedBy}, ${i.expiresAt}, ${i.at}, ${i.keyHash})
          ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, expires_at = excluded.expires_at, created_at = excluded.created_at, key_hash = excluded.key_hash
          RETURNING id, organization_id, email, role, invited_by, expires_at, created_at`;
        return plainRow<InvitationRow>(row);
      });
    },
    async withdraw({ id, organizationId }) {
      if (!isUuid(id) || !isUuid(organizationId)) return false;
      return (await sql`DELETE FROM organization_invitations WHERE id = ${id} AND organization_id = ${organizationId} RETURNING id`).length > 0;
    },
    async pruneExpired({ before, limit }) {
      return (await sql`DELETE FROM organization_invitations WHERE id IN (SELECT id FROM organization_invitations WHERE expires_at < ${before}::timestamptz LIMIT ${limit}) RETURNING id`).length;
    },
    async invitationsFor({ email, now, limit }) {
      const rows = await sql`
        SELECT i.id, i.organization_id, o.name AS organization_name, i.role, u.email AS invited_by_email, i.expires_at, i.created_at
          FROM organization_invitations i JOIN organizations o ON o.id = i.organization_id LEFT JOIN auth.users u ON u.id = i.invited_by
         WHERE i.email = ${email} AND i.expires_at > ${now} ORDER BY i.created_at DESC LIMIT ${limit}`;
      return plainRows<ReceivedInvitation>(rows);
    },
    invitationById: (id) => invitationById(sql, id),
    async accountAddress(userId) {
      if (!isUuid(userId)) return null;
      const [row] = await sql`SELECT email FROM auth.users WHERE id = ${userId}`;
      return row?.email ? String(row.email) : null;
    },
    async organizationName(id) {
      if (!isUuid(id)) return null;
      const [row] = await sql`SELECT name FROM organizations WHERE id = ${id}`;
      return row ? String(row.name) : null;
    },
    async deleteInvitation(id) {
      if (isUuid(id)) await sql`DELETE FROM organization_invitations WHERE id = ${id}`;
    },
    async accept(a) {
      if (!isUuid(a.id)) return { outcome: "not_found" };
      return sql.begin(async (tx): Promise<AcceptOutcome> => {
        // Locked: two accepts of one invitation queue, and the second finds it consumed.
        const inv = await invitationById(tx, a.id, true);
        if (!inv || inv.email !== a.email || Date.parse(inv.expires_at) <= Date.parse(a.now) || inv.key_hash !== a.keyHash) return { outcome: "not_found" };
        // The inviter's role is read under a share lock: it cannot change until this accept commits.
        const [inviter] = inv.invited_by
          ? await tx`SELECT role FROM organization_members WHERE organization_id = ${inv.organization_id} AND user_id = ${inv.invited_by} FOR SHARE`
          : [];
        if (!a.inviterMayGrant(inviter?.role ?? undefined, inv.role)) return { outcome: "void" };
        await tx`DELETE FROM organization_invitations WHERE id = ${inv.id}`;
        await tx`INSERT INTO organization_members (organization_id, user_id, role) VALUES (${inv.organization_id}, ${a.userId}, ${inv.role}) ON CONFLICT (organization_id, user_id) DO NOTHING`;
        const [membership] = await tx`SELECT id, organization_id, user_id, role, created_at FROM organization_members WHERE organization_id = ${inv.organization_id} AND user_id = ${a.userId}`;
        return { outcome: "accepted", membership: plainRow<MembershipRow>(membership) };
      });
    },
  };
}
