// The auth store on Postgres (store.ts says what each operation does). Several instances share the
// database, so every read-modify-write is one transaction holding the row locks it depends on, and
// uniqueness (addresses, slugs) is decided by the constraints, never by a look before the insert.
import type { SQL } from "bun";
import type { OrgRole } from "../../common/identity";
import { isUuid, iso, plainRow, plainRows } from "../../db/pg/values";
import { storedSpellings } from "./email";
import type { AuthStore, OrganizationRecord, RemoveUserOutcome, RotateOutcome, UserListing, UserRecord } from "./store";

type Row = Record<string, any>;

/** An auth.users row as UserRecord (the camelCase names the SQLite store's Drizzle rows have). */
function toUser(r: Row): UserRecord {
  return {
    id: r.id,
    email: r.email,
    passwordHash: r.encrypted_password,
    role: r.role,
    appMetadata: r.raw_app_meta_data,
    userMetadata: r.raw_user_meta_data,
    emailConfirmedAt: iso(r.email_confirmed_at),
    lastSignInAt: iso(r.last_sign_in_at),
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

export function createPgAuthStore(sql: SQL): AuthStore {
  const findUserByEmail = async (db: SQL, email: string): Promise<UserRecord | null> => {
    // The canonical spelling first, then a row stored in NFD before addresses were normalized.
    const [canonical, decomposed = canonical] = storedSpellings(email) as [string, string?];
    const [row] = await db`SELECT * FROM auth.users WHERE lower(email) IN (${canonical}, ${decomposed}) ORDER BY (lower(email) = ${email}) DESC LIMIT 1`;
    return row ? toUser(row) : null;
  };
  const findUser = async (db: SQL, id: string): Promise<UserRecord | null> => {
    if (!isUuid(id)) return null;
    const [row] = await db`SELECT * FROM auth.users WHERE id = ${id}`;
    return row ? toUser(row) : null;
  };

  /** Revokes the live sessions given and every refresh token of them, in one statement (sessions locked before tokens, the order rotation takes them in). */
  const revokeWhere = (db: SQL, at: string, where: { sessionId: string } | { userId: string; exceptSessionId: string | null }) =>
    "sessionId" in where
      ? db`WITH s AS (UPDATE auth.sessions SET revoked_at = ${at}, updated_at = ${at} WHERE id = ${where.sessionId} AND revoked_at IS NULL RETURNING id)
           UPDATE auth.refresh_tokens SET revoked = true WHERE session_id IN (SELECT id FROM s)`
      : db`WITH s AS (UPDATE auth.sessions SET revoked_at = ${at}, updated_at = ${at}
                       WHERE user_id = ${where.userId} AND id IS DISTINCT FROM ${where.exceptSessionId}::uuid AND revoked_at IS NULL RETURNING id)
           UPDATE auth.refresh_tokens SET revoked = true WHERE session_id IN (SELECT id FROM s)`;

  return {
    findUserByEmail: (email) => findUserByEmail(sql, email),
    userById: (id) => findUser(sql, id),

    async createUser(input) {
      return sql.begin(async (tx) => {
        // A row in an older spelling (NFD) is the same address; the unique index on lower(email)
        // only sees identical spellings, so that one is looked for. Two sign-ups of the canonical
        // spelling racing each other are settled by the index: the second inserts nothing.
        if (await findUserByEmail(tx, input.email)) return null;
        // This sign-up places its user itself (below): the sign-up trigger of auth.users, for users
        // inserted by others (drizzle-pg/0008), stands aside for this transaction.
        await tx`SELECT set_config('answerwatch.signup', 'placed', true)`;
        const [created] = await tx`
          INSERT INTO auth.users (id, email, encrypted_password, raw_user_meta_data, raw_app_meta_data, email_confirmed_at, created_at, updated_at)
          VALUES (${input.id}, ${input.email}, ${input.passwordHash}, ${input.userMetadata}, ${input.appMetadata}, ${input.emailConfirmedAt}, ${input.at}, ${input.at})
          ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`;
        if (!created) return null;
        const m = input.membership;
        let organizationId: string;
        if ("organizationId" in m) organizationId = m.organizationId;
        else {
          // The first candidate slug the constraint accepts; the last one is inserted as it is (and
          // fails like the SQLite store's when it is taken too).
          organizationId = m.organization.id;
          let placed = false;
          for (const slug of m.slugs.slice(0, -1)) {
            const [row] = await tx`INSERT INTO organizations (id, name, slug) VALUES (${organizationId}, ${m.organization.name}, ${slug}) ON CONFLICT (slug) DO NOTHING RETURNING id`;
            if (row) {
              placed = true;
              break;
            }
          }
          if (!placed) await tx`INSERT INTO organizations (id, name, slug) VALUES (${organizationId}, ${m.organization.name}, ${m.slugs[m.slugs.length - 1]!})`;
        }
        await tx`INSERT INTO organization_members (organization_id, user_id, role) VALUES (${organizationId}, ${input.id}, ${m.role})`;
        return (await findUser(tx, input.id))!;
      });
    },
    async updateUser({ id, patch }) {
      if (!isUuid(id)) return null;
      // Only the fields given change (as Drizzle's set(patch) leaves undefined ones out).
      const [row] = await sql`
        UPDATE auth.users SET
          email = CASE WHEN ${patch.email !== undefined} THEN ${patch.email ?? null} ELSE email END,
          encrypted_password = CASE WHEN ${patch.passwordHash !== undefined} THEN ${patch.passwordHash ?? null} ELSE encrypted_password END,
          raw_user_meta_data = CASE WHEN ${patch.userMetadata !== undefined} THEN ${patch.userMetadata ?? null}::jsonb ELSE raw_user_meta_data END,
          email_confirmed_at = CASE WHEN ${patch.emailConfirmedAt !== undefined} THEN ${patch.emailConfirmedAt ?? null}::timestamptz ELSE email_confirmed_at END,
          updated_at = ${patch.updatedAt}
        WHERE id = ${id} RETURNING *`;
      return row ? toUser(row) : null;
    },
    async listUsers({ limit, offset }) {
      return (await sql`SELECT * FROM auth.users ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`).map(toUser);
    },
    async startSession({ sessionId, userId, refreshTokenId, tokenHash, at }) {
      await sql.begin(async (tx) => {
        await tx`INSERT INTO auth.sessions (id, user_id) VALUES (${sessionId}, ${userId})`;
        await tx`UPDATE auth.users SET last_sign_in_at = ${at}, updated_at = ${at} WHERE id = ${userId}`;
        await tx`INSERT INTO auth.refresh_tokens (id, session_id, user_id, token_hash) VALUES (${refreshTokenId}, ${sessionId}, ${userId}, ${tokenHash})`;
      });
    },
    async sessionById(id) {
      if (!isUuid(id)) return null;
      const [row] = await sql`SELECT revoked_at AS "revokedAt", user_id AS "userId" FROM auth.sessions WHERE id = ${id}`;
      return row ? plainRow<{ revokedAt: string | null; userId: string }>(row) : null;
    },
    async createOneTimeToken({ userId, type, tokenHash, otpHash, at, expiresAt }) {
      await sql.begin(async (tx) => {
        await tx`DELETE FROM auth.one_time_tokens WHERE user_id = ${userId} AND token_type = ${type} AND used_at IS NULL`;
        await tx`INSERT INTO auth.one_time_tokens (user_id, token_type, token_hash, otp_hash, expires_at, created_at) VALUES (${userId}, ${type}, ${tokenHash}, ${otpHash}, ${expiresAt}, ${at})`;
      });
    },
    async consumeOneTimeToken(input) {
      if ("userId" in input && !isUuid(input.userId)) return null;
      // One statement: of two uses at once, one finds it unused.
      const [row] =
        "tokenHash" in input
          ? await sql`UPDATE auth.one_time_tokens SET used_at = ${input.at} WHERE token_hash = ${input.tokenHash} AND token_type = ${input.type} AND used_at IS NULL AND expires_at > ${input.at} RETURNING user_id`
          : await sql`UPDATE auth.one_time_tokens SET used_at = ${input.at} WHERE user_id = ${input.userId} AND otp_hash = ${input.otpHash} AND token_type = ${input.type} AND used_at IS NULL AND expires_at > ${input.at} RETURNING user_id`;
      return row ? String(row.user_id) : null;
    },
    async rotateRefreshToken({ tokenHash, newTokenId, newTokenHash, at, reuseIntervalMs }) {
      return sql.begin(async (tx): Promise<RotateOutcome> => {
        // The session row is locked first, then the token (revokeSessions takes them in that order
        // too, so the two cannot deadlock). Two instances rotating the same token queue on these
        // locks: the second reads the token as the first left it (replaced), so only one successor
        // is ever made from a live token; the other gets a sibling within the reuse interval.
        const [ref] = await tx`SELECT session_id FROM auth.refresh_tokens WHERE token_hash = ${tokenHash}`;
        if (!ref) return { kind: "not_found" };
        const [session] = await tx`SELECT revoked_at FROM auth.sessions WHERE id = ${ref.session_id} FOR UPDATE`;
        if (!session || session.revoked_at) return { kind: "not_found" };
        const [row] = await tx`SELECT id, session_id, user_id, parent_id, revoked, rotated_at FROM auth.refresh_tokens WHERE token_hash = ${tokenHash} FOR UPDATE`;
        if (!row) return { kind: "not_found" };
        const rotated = { kind: "rotated" as const, userId: row.user_id as string, sessionId: row.session_id as string };
        if (row.revoked) {
          const rotatedAgo = row.rotated_at ? Date.parse(at) - new Date(row.rotated_at).getTime() : Infinity;
          if (rotatedAgo > reuseIntervalMs) {
            await revokeWhere(tx, at, { sessionId: row.session_id });
            return { kind: "reused" };
          }
          await tx`INSERT INTO auth.refresh_tokens (id, session_id, user_id, token_hash, parent_id) VALUES (${newTokenId}, ${row.session_id}, ${row.user_id}, ${newTokenHash}, ${row.parent_id ?? row.id})`;
          return rotated;
        }
        await tx`UPDATE auth.refresh_tokens SET revoked = true, rotated_at = ${at} WHERE id = ${row.id}`;
        await tx`UPDATE auth.sessions SET updated_at = ${at} WHERE id = ${row.session_id}`;
        await tx`INSERT INTO auth.refresh_tokens (id, session_id, user_id, token_hash, parent_id) VALUES (${newTokenId}, ${row.session_id}, ${row.user_id}, ${newTokenHash}, ${row.id})`;
        return rotated;
      });
    },
    async revokeSessions(input) {
      if ("sessionId" in input) {
        if (isUuid(input.sessionId)) await revokeWhere(sql, input.at, { sessionId: input.sessionId });
        return;
      }
      if (!isUuid(input.userId)) return;
      // An except id that is no uuid matches no session: every session of the user goes.
      const except = input.exceptSessionId !== undefined && isUuid(input.exceptSessionId) ? input.exceptSessionId : null;
      await revokeWhere(sql, input.at, { userId: input.userId, exceptSessionId: except });
    },

    async organizationExists(id) {
      if (!isUuid(id)) return false;
      return (await sql`SELECT 1 FROM organizations WHERE id = ${id}`).length > 0;
    },
    async findOrganizationBySlugOrName(nameOrSlug) {
      const [row] = await sql`SELECT id, name, slug, created_at AS "createdAt", updated_at AS "updatedAt" FROM organizations WHERE slug = ${nameOrSlug} OR name = ${nameOrSlug} LIMIT 1`;
      return row ? plainRow<OrganizationRecord>(row) : null;
    },
    async memberships(userId) {
      if (!isUuid(userId)) return [];
      const rows = await sql`SELECT organization_id AS "organizationId", role FROM organization_members WHERE user_id = ${userId}`;
      return [...rows] as { organizationId: string; role: OrgRole }[];
    },

    async listUsersWithOrganizations() {
      const rows = await sql`
        SELECT u.email, u.id, u.created_at, string_agg(o.name || ' (' || m.role || ')', ', ' ORDER BY m.created_at, o.name) AS orgs
          FROM auth.users u LEFT JOIN organization_members m ON m.user_id = u.id LEFT JOIN organizations o ON o.id = m.organization_id
         GROUP BY u.id ORDER BY u.created_at, u.id`;
      return plainRows<UserListing>(rows);
    },
    async pruneEnded({ before, limit }) {
      // Refresh tokens go with their session (ON DELETE CASCADE).
      const sessions = await sql`DELETE FROM auth.sessions WHERE id IN (SELECT id FROM auth.sessions WHERE revoked_at < ${before}::timestamptz LIMIT ${limit}) RETURNING id`;
      const tokens = await sql`DELETE FROM auth.one_time_tokens WHERE id IN (SELECT id FROM auth.one_time_tokens WHERE coalesce(used_at, expires_at) < ${before}::timestamptz LIMIT ${limit}) RETURNING id`;
      return sessions.length + tokens.length;
    },
    async removeUser(who) {
      if ("id" in who && !isUuid(who.id)) return { kind: "unknown" };
      return sql.begin(async (tx): Promise<RemoveUserOutcome> => {
        const [user] = "id" in who ? await tx`SELECT id FROM auth.users WHERE id = ${who.id} FOR UPDATE` : await tx`SELECT id FROM auth.users WHERE email = ${who.email} FOR UPDATE`;
        if (!user) return { kind: "unknown" };
        // The organizations this user owns are locked (in id order) before their other owners are
        // counted: two co-owners removed at once queue here, and the second sees the first gone.
        await tx`SELECT o.id FROM organizations o JOIN organization_members m ON m.organization_id = o.id
                  WHERE m.user_id = ${user.id} AND m.role = 'owner' ORDER BY o.id FOR UPDATE OF o`;
        const orphaned = await tx`
          SELECT o.name FROM organization_members m JOIN organizations o ON o.id = m.organization_id
           WHERE m.user_id = ${user.id} AND m.role = 'owner'
             AND NOT EXISTS (SELECT 1 FROM organization_members x WHERE x.organization_id = m.organization_id AND x.role = 'owner' AND x.user_id <> ${user.id})
           ORDER BY o.name`;
        if (orphaned.length) return { kind: "last_owner", organizations: orphaned.map((o: { name: string }) => o.name) };
        await tx`DELETE FROM auth.users WHERE id = ${user.id}`;
        return { kind: "removed", id: user.id };
      });
    },
  };
}
