// Personal API keys (issue #20): `aw_` + 32 random bytes, shown once, stored as a SHA-256 hash with a
// visible prefix; scoped to one organization and a role no higher than the creator's (and never
// above the creator's role at the time of use); optional expiry; last use recorded; revocable.
import { futureExpiry, isLive, madeBeforeMembership } from "../http/date-range";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { ApiUser } from "../common/identity";
import { ORG_ROLES, type OrgRole } from "../common/identity";
import type { KeyRow, KeyStore } from "./store";
import { sha256Hex } from "../common/tokens";

export type { KeyRow };

export const KEY_PREFIX = "aw_";
const RANK: Record<OrgRole, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
const MANAGERS: OrgRole[] = ["owner", "admin"];
/** last_used_at is written at most this often per key: a busy script must not turn reads into writes. */
const LAST_USED_EVERY_MS = 60_000;
/** Usable keys one person holds in one organization: a bound on what a list answers and a leak can hold. */
export const MAX_LIVE_KEYS = 50;

const keyJson = (k: KeyRow) => ({ id: k.id, name: k.name, organization_id: k.organization_id, user_id: k.user_id, role: k.role, prefix: k.prefix, expires_at: k.expires_at, last_used_at: k.last_used_at, revoked_at: k.revoked_at, created_at: k.created_at });

export interface KeyIdentity {
  keyId: string;
  userId: string;
  email: string;
  organizationId: string;
  role: OrgRole;
}

export function createKeyService(deps: { store: KeyStore; now?: () => Date }) {
  const { store } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /** The identity behind a key, or null when it is unknown, revoked, expired, or its creator left the organization. */
    async resolve(token: string): Promise<KeyIdentity | null> {
      if (!token.startsWith(KEY_PREFIX)) return null;
      const row = await store.findByHash(sha256Hex(token));
      const at = now();
      if (!row || !isLive(row, at) || !row.member_role || madeBeforeMembership(row.created_at, row.member_since)) return null;
      // Bookkeeping: a busy database that cannot stamp last_used_at must not fail the request.
      if (!row.last_used_at || at.getTime() - Date.parse(row.last_used_at) > LAST_USED_EVERY_MS) await store.markUsed({ id: row.id, at: at.toISOString() }).catch(() => {});
      // Never above what its creator may do today.
      const role = RANK[row.member_role] < RANK[row.role] ? row.member_role : row.role;
      return { keyId: row.id, userId: row.user_id, email: row.email, organizationId: row.organization_id, role };
    },

    async create(user: ApiUser & { viaKey?: string }, body: Record<string, unknown>) {
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
      const expiresAt = futureExpiry(body.expires_at, now());
      const live = (await store.listVisible({ userId: user.user.id, organizationIds: [] })).filter((k) => k.organization_id === organizationId && isLive(k, now()));
      if (live.length >= MAX_LIVE_KEYS) throw new AppError(429, "too_many_keys", `You hold ${MAX_LIVE_KEYS} usable keys in this organization, the most there may be: revoke one first`, { details: { max: MAX_LIVE_KEYS } });
      const secret = `${KEY_PREFIX}${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
      const row = await store.create({ organizationId, userId: user.user.id, name, role, prefix: secret.slice(0, 10), hash: sha256Hex(secret), expiresAt });
      return { success: true, key: keyJson(row), secret };
    },

    /** The caller's own keys, and every key of the organizations they manage; never a secret. */
    async list(user: ApiUser) {
      const managed = [...user.orgRoles].filter(([, r]) => MANAGERS.includes(r)).map(([id]) => id);
      const rows = await store.listVisible({ userId: user.user.id, organizationIds: managed });
      return { success: true, keys: rows.filter((k) => user.orgRoles.has(k.organization_id)).map(keyJson) };
    },

    async revoke(user: ApiUser & { viaKey?: string }, id: unknown) {
      const keyId = requireUuid(id, "id");
      const row = await store.byId(keyId);
      const role = row ? user.orgRoles.get(row.organization_id) : undefined;
      if (!row || !role || (row.user_id !== user.user.id && !MANAGERS.includes(role))) throw new AppError(404, "not_found", "Key not found");
      // A key stops itself only: a leaked read-only key must not switch off its user's other keys.
      if (user.viaKey && user.viaKey !== row.id) throw new AppError(403, "forbidden", "An API key can revoke itself only: sign in as the user to revoke other keys");
      return { success: true, key: keyJson((await store.revoke({ id: keyId, at: now().toISOString() }))!) };
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
