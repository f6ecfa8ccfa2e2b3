// The keys store on Postgres (store.ts says what each operation does).
import type { SQL } from "bun";
import { isUuid, plainRow, plainRows } from "../db/pg/values";
import type { KeyHolder, KeyRow, KeyStore } from "./store";

export function createPgKeyStore(sql: SQL): KeyStore {
  const byId = async (id: string) => {
    if (!isUuid(id)) return null;
    const [row] = await sql`SELECT id, organization_id, user_id, name, role, prefix, expires_at, last_used_at, revoked_at, created_at FROM personal_api_keys WHERE id = ${id}`;
    return row ? plainRow<KeyRow>(row) : null;
  };
  return {
    async findByHash(hash) {
      const [row] = await sql`
        SELECT k.id, k.organization_id, k.user_id, k.role, k.expires_at, k.revoked_at, k.last_used_at, k.created_at, u.email, m.role AS member_role, m.created_at AS member_since
          FROM personal_api_keys k JOIN auth.users u ON u.id = k.user_id
          LEFT JOIN organization_members m ON m.organization_id = k.organization_id AND m.user_id = k.user_id
         WHERE k.hash = ${hash}`;
      return row ? plainRow<KeyHolder>(row) : null;
    },
    async markUsed({ id, at }) {
      await sql`UPDATE personal_api_keys SET last_used_at = ${at} WHERE id = ${id}`;
    },
    async create(k) {
      const [row] = await sql`
        INSERT INTO personal_api_keys (organization_id, user_id, name, role, prefix, hash, expires_at)
        VALUES (${k.organizationId}, ${k.userId}, ${k.name}, ${k.role}, ${k.prefix}, ${k.hash}, ${k.expiresAt})
        RETURNING id, organization_id, user_id, name, role, prefix, expires_at, last_used_at, revoked_at, created_at`;
      return plainRow<KeyRow>(row);
    },
    async listVisible({ userId, organizationIds }) {
      const rows = await sql`
        SELECT id, organization_id, user_id, name, role, prefix, expires_at, last_used_at, revoked_at, created_at FROM personal_api_keys
         WHERE user_id = ${userId} OR organization_id = ANY(${sql.array(organizationIds, "uuid")})
         ORDER BY created_at DESC`;
      return plainRows<KeyRow>(rows);
    },
    byId,
    async revoke({ id, at }) {
      if (!isUuid(id)) return null;
      await sql`UPDATE personal_api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`;
      return byId(id);
    },
  };
}
