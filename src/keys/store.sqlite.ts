// The keys store on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import type { KeyHolder, KeyRow, KeyStore } from "./store";

const COLUMNS = "id, organization_id, user_id, name, role, prefix, expires_at, last_used_at, revoked_at, created_at";

export function createSqliteKeyStore(sqlite: Database): KeyStore {
  const q = {
    byHash: sqlite.prepare(
      `SELECT k.id, k.organization_id, k.user_id, k.role, k.expires_at, k.revoked_at, k.last_used_at, k.created_at, u.email, m.role AS member_role, m.created_at AS member_since
         FROM personal_api_keys k JOIN users u ON u.id = k.user_id
         LEFT JOIN organization_members m ON m.organization_id = k.organization_id AND m.user_id = k.user_id
        WHERE k.hash = ?`,
    ),
    touch: sqlite.prepare("UPDATE personal_api_keys SET last_used_at = ? WHERE id = ?"),
    insert: sqlite.prepare(`INSERT INTO personal_api_keys (organization_id, user_id, name, role, prefix, hash, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`),
    byId: sqlite.prepare(`SELECT ${COLUMNS} FROM personal_api_keys WHERE id = ?`),
    revoke: sqlite.prepare("UPDATE personal_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
  };
  return {
    async findByHash(hash) {
      return q.byHash.get(hash) as KeyHolder | null;
    },
    async markUsed({ id, at }) {
      q.touch.run(at, id);
    },
    async create(k) {
      return q.insert.get(k.organizationId, k.userId, k.name, k.role, k.prefix, k.hash, k.expiresAt) as KeyRow;
    },
    async listVisible({ userId, organizationIds }) {
      return sqlite
        .query(`SELECT ${COLUMNS} FROM personal_api_keys WHERE user_id = ? OR organization_id IN (${organizationIds.map(() => "?").join(",") || "NULL"}) ORDER BY created_at DESC`)
        .all(userId, ...organizationIds) as KeyRow[];
    },
    async byId(id) {
      return q.byId.get(id) as KeyRow | null;
    },
    async revoke({ id, at }) {
      q.revoke.run(at, id);
      return q.byId.get(id) as KeyRow | null;
    },
  };
}
