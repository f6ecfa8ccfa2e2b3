// What the personal API keys feature keeps (personal_api_keys) and how it asks for it. Backend
// implementations: store.sqlite.ts (and, with #29, store.pg.ts); the contract both must keep is
// tests/contracts/keys.contract.ts.
import type { OrgRole } from "../common/identity";

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

/** A key found by its hash, with its creator's email and current role in the key's organization (null when they left). */
export interface KeyHolder extends Omit<KeyRow, "name" | "prefix"> {
  email: string;
  member_role: OrgRole | null;
  /** When the creator's current membership of the key's organization began. */
  member_since: string | null;
}

export interface KeyStore {
  findByHash(hash: string): Promise<KeyHolder | null>;
  markUsed(input: { id: string; at: string }): Promise<void>;
  create(input: { organizationId: string; userId: string; name: string; role: OrgRole; prefix: string; hash: string; expiresAt: string | null }): Promise<KeyRow>;
  /** The user's own keys and every key of the given organizations, newest first. */
  listVisible(input: { userId: string; organizationIds: string[] }): Promise<KeyRow[]>;
  byId(id: string): Promise<KeyRow | null>;
  /** Sets revoked_at unless it is set already; the key as it is afterwards (null when unknown). */
  revoke(input: { id: string; at: string }): Promise<KeyRow | null>;
}
