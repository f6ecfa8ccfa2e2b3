// Personal API keys (issue #20): `aw_` + 32 random bytes, shown once, stored as a SHA-256 hash with a
// visible prefix; scoped to one organization and a role no higher than the creator's (and never
// above the creator's role at the time of use); optional expiry; last use recorded; revocable.
import type { Database } from "bun:sqlite";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { ApiUser } from "../common/identity";
import { ORG_ROLES, type OrgRole } from "../common/identity";

export const KEY_PREFIX = "aw_";
const RANK: Record<OrgRole, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
const MANAGERS: OrgRole[] = ["owner", "admin"];
/** last_used_at is written at most this often per key: a busy script must not turn reads into writes. */
const LAST_USED_EVERY_MS = 60_000;

export interface KeyRow {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  role: OrgRole;
  prefix: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
const keyJson = (k: KeyRow) => ({ id: k.id, name: k.name, organization_id: k.organization_id, user_id: k.user_id, role: k.role, prefix: k.prefix, expires_at: k.expires_at, last_used_at: k.last_used_at, revoked_at: k.revoked_at, created_at: k.created_at });
const COLUMNS = "id, organization_id, user_id, name, role, prefix, expires_at, last_used_at, revoked_at, created_at";

export interface KeyIdentity {
  keyId: string;
  userId: string;
  email: string;
  organizationId: string;
  role: OrgRole;
}

export function createKeyService(deps: { sqlite: Database; now?: () => Date }) {
  const { sqlite } = deps;
  const now = deps.now ?? (() => new Date());
  const q = {
    byHash: sqlite.prepare(
      `SELECT k.id, k.organization_id, k.user_id, k.role, k.expires_at, k.revoked_at, k.last_used_at, u.email, m.role AS member_role
         FROM personal_api_keys k JOIN users u ON u.id = k.user_id
         LEFT JOIN organization_members m ON m.organization_id = k.organization_id AND m.user_id = k.user_id
        WHERE k.hash = ?`,
    ),
    touch: sqlite.prepare("UPDATE personal_api_keys SET last_used_at = ? WHERE id = ?"),
  };

  return {
    /** The identity behind a key, or null when it is unknown, revoked, expired, or its creator left the organization. */
    resolve(token: string): KeyIdentity | null {
      if (!token.startsWith(KEY_PREFIX)) return null;
      const row = q.byHash.get(sha256(token)) as (Omit<KeyRow, "name" | "prefix" | "created_at"> & { email: string; member_role: OrgRole | null }) | null;
      const at = now();
      if (!row || row.revoked_at || !row.member_role || (row.expires_at && Date.parse(row.expires_at) <= at.getTime())) return null;
      if (!row.last_used_at || at.getTime() - Date.parse(row.last_used_at) > LAST_USED_EVERY_MS) q.touch.run(at.toISOString(), row.id);
      // Never above what its creator may do today.
      const role = RANK[row.member_role] < RANK[row.role] ? row.member_role : row.role;
      return { keyId: row.id, userId: row.user_id, email: row.email, organizationId: row.organization_id, role };
    },

    create(user: ApiUser & { viaKey?: string }, body: Record<string, unknown>) {
      if (user.viaKey) throw new AppError(403, "forbidden", "An API key cannot create API keys: sign in as the user");
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "validation_failed", "The body must be a JSON object");
      const name = typeof body.name === "string" ? body.name.trim() : "";
      if (!name || name.length > 100) throw new AppError(400, "validation_failed", "name must be 1 to 100 characters");
      const organizationId = requireUuid(body.organization_id, "organization_id");
      const mine = user.orgRoles.get(organizationId);
      if (!mine) throw new AppError(404, "not_found", "Organization not found");
      const role = (body.role ?? mine) as OrgRole;
      if (!ORG_ROLES.includes(role)) throw new AppError(400, "validation_failed", `role must be one of ${ORG_ROLES.join(", ")}`);
      if (RANK[role] > RANK[mine]) throw new AppError(403, "forbidden", `A ${mine} cannot create a key with the role ${role}`);
      let expiresAt: string | null = null;
      if (body.expires_at !== undefined && body.expires_at !== null) {
        const t = typeof body.expires_at === "string" ? Date.parse(body.expires_at) : NaN;
        if (Number.isNaN(t)) throw new AppError(400, "validation_failed", "expires_at must be an ISO 8601 date-time");
        if (t <= now().getTime()) throw new AppError(400, "validation_failed", "expires_at must be in the future");
        expiresAt = new Date(t).toISOString();
      }
      const secret = `${KEY_PREFIX}${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
      const row = sqlite
        .query(`INSERT INTO personal_api_keys (organization_id, user_id, name, role, prefix, hash, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`)
        .get(organizationId, user.user.id, name, role, secret.slice(0, 10), sha256(secret), expiresAt) as KeyRow;
      return { success: true, key: keyJson(row), secret };
    },

    /** The caller's own keys, and every key of the organizations they manage; never a secret. */
    list(user: ApiUser) {
      const managed = [...user.orgRoles].filter(([, r]) => MANAGERS.includes(r)).map(([id]) => id);
      const rows = sqlite
        .query(`SELECT ${COLUMNS} FROM personal_api_keys WHERE user_id = ? OR organization_id IN (${managed.map(() => "?").join(",") || "NULL"}) ORDER BY created_at DESC`)
        .all(user.user.id, ...managed) as KeyRow[];
      return { success: true, keys: rows.filter((k) => user.orgRoles.has(k.organization_id)).map(keyJson) };
    },

    revoke(user: ApiUser, id: unknown) {
      const keyId = requireUuid(id, "id");
      const row = sqlite.query(`SELECT ${COLUMNS} FROM personal_api_keys WHERE id = ?`).get(keyId) as KeyRow | null;
      const role = row ? user.orgRoles.get(row.organization_id) : undefined;
      if (!row || !role || (row.user_id !== user.user.id && !MANAGERS.includes(role))) throw new AppError(404, "not_found", "Key not found");
      if (!row.revoked_at) sqlite.run("UPDATE personal_api_keys SET revoked_at = ? WHERE id = ?", [now().toISOString(), keyId]);
      return { success: true, key: keyJson(sqlite.query(`SELECT ${COLUMNS} FROM personal_api_keys WHERE id = ?`).get(keyId) as KeyRow) };
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
