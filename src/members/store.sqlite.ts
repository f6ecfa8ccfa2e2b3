// The members store on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import type { AcceptOutcome, InvitationRow, KeyedInvitationRow, MemberRow, MembersStore, MembershipRow, ReceivedInvitation } from "./store";

const INVITATION_COLUMNS = "id, organization_id, email, role, invited_by, expires_at, created_at";

export function createSqliteMembersStore(sqlite: Database): MembersStore {
  const q = {
    members: sqlite.prepare(
      `SELECT m.id, m.user_id, u.email, m.role, m.created_at FROM organization_members m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = ? ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END, u.email`,
    ),
    pending: sqlite.prepare(`SELECT ${INVITATION_COLUMNS} FROM organization_invitations WHERE organization_id = ? AND expires_at > ? ORDER BY created_at DESC LIMIT ?`),
    countPending: sqlite.prepare("SELECT count(*) AS n FROM organization_invitations WHERE organization_id = ? AND expires_at > ?"),
    // Inviting the same address again renews the invitation (its role, its expiry).
    upsert: sqlite.prepare(
      `INSERT INTO organization_invitations (organization_id, email, role, invited_by, expires_at, created_at, key_hash) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, expires_at = excluded.expires_at, created_at = excluded.created_at, key_hash = excluded.key_hash
       RETURNING ${INVITATION_COLUMNS}`,
    ),
    withdraw: sqlite.prepare("DELETE FROM organization_invitations WHERE id = ? AND organization_id = ? RETURNING id"),
    received: sqlite.prepare(
      `SELECT i.id, i.organization_id, o.name AS organization_name, i.role, u.email AS invited_by_email, i.expires_at, i.created_at
         FROM organization_invitations i JOIN organizations o ON o.id = i.organization_id LEFT JOIN users u ON u.id = i.invited_by
        WHERE i.email = ? AND i.expires_at > ? ORDER BY i.created_at DESC LIMIT ?`,
    ),
    invitation: sqlite.prepare(`SELECT ${INVITATION_COLUMNS}, key_hash FROM organization_invitations WHERE id = ?`),
    address: sqlite.prepare("SELECT email FROM users WHERE id = ?"),
    deleteInvitation: sqlite.prepare("DELETE FROM organization_invitations WHERE id = ?"),
    pruneExpired: sqlite.prepare("DELETE FROM organization_invitations WHERE id IN (SELECT id FROM organization_invitations WHERE expires_at < ? LIMIT ?)"),
    roleIn: sqlite.prepare("SELECT role FROM organization_members WHERE organization_id = ? AND user_id = ?"),
    join: sqlite.prepare("INSERT INTO organization_members (organization_id, user_id, role) VALUES (?, ?, ?) ON CONFLICT (organization_id, user_id) DO NOTHING"),
    membership: sqlite.prepare("SELECT id, organization_id, user_id, role, created_at FROM organization_members WHERE organization_id = ? AND user_id = ?"),
  };

  const inviteTx = sqlite.transaction((i: Parameters<MembersStore["invite"]>[0]): InvitationRow | null => {
    if ((q.countPending.get(i.organizationId, i.at) as { n: number }).n >= i.maxPending) return null;
    return q.upsert.get(i.organizationId, i.email, i.role, i.invitedBy, i.expiresAt, i.at, i.keyHash) as InvitationRow;
  });

  const acceptTx = sqlite.transaction((a: Parameters<MembersStore["accept"]>[0]): AcceptOutcome => {
    const inv = q.invitation.get(a.id) as KeyedInvitationRow | null;
    if (!inv || inv.email !== a.email || inv.expires_at <= a.now || inv.key_hash !== a.keyHash) return { outcome: "not_found" };
    const inviterRole = inv.invited_by ? ((q.roleIn.get(inv.organization_id, inv.invited_by) as { role: string } | null)?.role ?? undefined) : undefined;
    if (!a.inviterMayGrant(inviterRole, inv.role)) return { outcome: "void" };
    q.deleteInvitation.run(inv.id);
    q.join.run(inv.organization_id, a.userId, inv.role);
    return { outcome: "accepted", membership: q.membership.get(inv.organization_id, a.userId) as MembershipRow };
  });

  return {
    async members(organizationId) {
      return q.members.all(organizationId) as MemberRow[];
    },
    async pendingInvitations({ organizationId, now, limit }) {
      return q.pending.all(organizationId, now, limit) as InvitationRow[];
    },
    async invite(input) {
      return inviteTx.immediate(input);
    },
    async withdraw({ id, organizationId }) {
      return q.withdraw.get(id, organizationId) !== null;
    },
    async pruneExpired({ before, limit }) {
      return q.pruneExpired.run(before, limit).changes;
    },
    async invitationsFor({ email, now, limit }) {
      return q.received.all(email, now, limit) as ReceivedInvitation[];
    },
    async invitationById(id) {
      return q.invitation.get(id) as KeyedInvitationRow | null;
    },
    async accountAddress(userId) {
      return (q.address.get(userId) as { email: string } | null)?.email ?? null;
    },
    async organizationName(id) {
      return (sqlite.query("SELECT name FROM organizations WHERE id = ?").get(id) as { name: string } | null)?.name ?? null;
    },
    async deleteInvitation(id) {
      q.deleteInvitation.run(id);
    },
    async accept(input) {
      return acceptTx.immediate(input);
    },
  };
}
