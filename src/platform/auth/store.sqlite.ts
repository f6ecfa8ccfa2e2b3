// The auth store on SQLite, through Drizzle (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import { and, desc, eq, inArray, isNull, ne, sql, type SQL } from "drizzle-orm";
import { drizzleDb } from "../../db/drizzle";
import { oneTimeTokens, organizationMembers, organizations, refreshTokens, sessions, users } from "../../db/schema";
import type { OrgRole } from "../../common/identity";
import { storedSpellings } from "./email";
import type { AuthStore, OrganizationRecord, RemoveUserOutcome, SessionSelector, UserListing, UserRecord } from "./store";

/** Write transactions take the write lock at BEGIN: a read-then-write upgrade would fail at once when another connection committed in between. */
const IMMEDIATE = { behavior: "immediate" } as const;

export function createSqliteAuthStore(sqlite: Database): AuthStore {
  const db = drizzleDb(sqlite);

  // The two queries behind every authenticated request, prepared once (Drizzle would otherwise
  // build and prepare the SQL on each call, which cost more than the rest of a cached REST read).
  const sessionById = db
    .select({ revokedAt: sessions.revokedAt, userId: sessions.userId })
    .from(sessions)
    .where(eq(sessions.id, sql.placeholder("id")))
    .prepare();
  const membershipsOf = db
    .select({ organizationId: organizationMembers.organizationId, role: organizationMembers.role })
    .from(organizationMembers)
    .where(eq(organizationMembers.userId, sql.placeholder("userId")))
    .prepare();

  const findUserByEmail = (email: string): UserRecord | null => {
    const stored = sql`lower(${users.email})`;
    return db.select().from(users).where(inArray(stored, storedSpellings(email))).orderBy(desc(sql`${stored} = ${email}`)).get() ?? null;
  };
  const findUser = (id: string): UserRecord | null => db.select().from(users).where(eq(users.id, id)).get() ?? null;

  const insertRefreshToken = (id: string, sessionId: string, userId: string, tokenHash: string, parentId: string | null) =>
    db.insert(refreshTokens).values({ id, sessionId, userId, tokenHash, parentId }).run();

  function revoke(where: SQL | undefined, at: string) {
    const revoked = db.update(sessions).set({ revokedAt: at, updatedAt: at }).where(and(where, isNull(sessions.revokedAt))).returning({ id: sessions.id }).all();
    for (const s of revoked) db.update(refreshTokens).set({ revoked: true }).where(eq(refreshTokens.sessionId, s.id)).run();
  }
  const selected = (s: SessionSelector) =>
    "sessionId" in s ? eq(sessions.id, s.sessionId) : s.exceptSessionId !== undefined ? and(eq(sessions.userId, s.userId), ne(sessions.id, s.exceptSessionId)) : eq(sessions.userId, s.userId);

  const removeQ = {
    byEmail: sqlite.prepare("SELECT id FROM users WHERE email = ?"),
    byId: sqlite.prepare("SELECT id FROM users WHERE id = ?"),
    orphaned: sqlite.prepare(
      `SELECT o.name FROM organization_members m JOIN organizations o ON o.id = m.organization_id
        WHERE m.user_id = ?1 AND m.role = 'owner'
          AND NOT EXISTS (SELECT 1 FROM organization_members x WHERE x.organization_id = m.organization_id AND x.role = 'owner' AND x.user_id != ?1)`,
    ),
    remove: sqlite.prepare("DELETE FROM users WHERE id = ?"),
  };

  return {
    async findUserByEmail(email) {
      return findUserByEmail(email);
    },
    async userById(id) {
      return findUser(id);
    },
    async createUser(input) {
      return db.transaction(() => {
        if (findUserByEmail(input.email)) return null;
        db.insert(users)
          .values({
            id: input.id,
            email: input.email,
            passwordHash: input.passwordHash,
            userMetadata: input.userMetadata,
            appMetadata: input.appMetadata,
            emailConfirmedAt: input.emailConfirmedAt,
            createdAt: input.at,
            updatedAt: input.at,
          })
          .run();
        const m = input.membership;
        if ("organizationId" in m) {
          db.insert(organizationMembers).values({ organizationId: m.organizationId, userId: input.id, role: m.role }).run();
        } else {
          const taken = (slug: string) => db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, slug)).get();
          const slug = m.slugs.find((s) => !taken(s)) ?? m.slugs[m.slugs.length - 1]!;
          db.insert(organizations).values({ id: m.organization.id, name: m.organization.name, slug }).run();
          db.insert(organizationMembers).values({ organizationId: m.organization.id, userId: input.id, role: m.role }).run();
        }
        return findUser(input.id)!;
      }, IMMEDIATE);
    },
    async updateUser({ id, patch }) {
      db.update(users).set(patch).where(eq(users.id, id)).run();
      return findUser(id);
    },
    async listUsers({ limit, offset }) {
      return db.select().from(users).orderBy(users.createdAt).limit(limit).offset(offset).all();
    },
    async startSession({ sessionId, userId, refreshTokenId, tokenHash, at }) {
      db.transaction(() => {
        db.insert(sessions).values({ id: sessionId, userId }).run();
        db.update(users).set({ lastSignInAt: at, updatedAt: at }).where(eq(users.id, userId)).run();
        insertRefreshToken(refreshTokenId, sessionId, userId, tokenHash, null);
      }, IMMEDIATE);
    },
    async sessionById(id) {
      return sessionById.get({ id }) ?? null;
    },
    async createOneTimeToken({ userId, type, tokenHash, otpHash, at, expiresAt }) {
      db.transaction(() => {
        db.delete(oneTimeTokens).where(and(eq(oneTimeTokens.userId, userId), eq(oneTimeTokens.tokenType, type), isNull(oneTimeTokens.usedAt))).run();
        db.insert(oneTimeTokens).values({ userId, tokenType: type, tokenHash, otpHash, expiresAt, createdAt: at }).run();
      }, IMMEDIATE);
    },
    async consumeOneTimeToken(input) {
      const which = "tokenHash" in input ? eq(oneTimeTokens.tokenHash, input.tokenHash) : and(eq(oneTimeTokens.userId, input.userId), eq(oneTimeTokens.otpHash, input.otpHash));
      // One statement: of two uses at once, one finds it unused.
      const [row] = db
        .update(oneTimeTokens)
        .set({ usedAt: input.at })
        .where(and(which, eq(oneTimeTokens.tokenType, input.type), isNull(oneTimeTokens.usedAt), sql`${oneTimeTokens.expiresAt} > ${input.at}`))
        .returning({ userId: oneTimeTokens.userId })
        .all();
      return row?.userId ?? null;
    },
    async rotateRefreshToken({ tokenHash, newTokenId, newTokenHash, at, reuseIntervalMs }) {
      // A made-up token is found missing by a plain read: the write lock (and its wait, on the
      // thread that answers every request) is taken only for a token that exists.
      if (!db.select({ id: refreshTokens.id }).from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).get()) return { kind: "not_found" as const };
      return db.transaction(() => {
        const row = db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).get();
        if (!row) return { kind: "not_found" as const };
        const session = db.select().from(sessions).where(eq(sessions.id, row.sessionId)).get();
        if (!session || session.revokedAt) return { kind: "not_found" as const };
        if (row.revoked) {
          const rotatedAgo = row.rotatedAt ? Date.parse(at) - Date.parse(row.rotatedAt) : Infinity;
          if (rotatedAgo > reuseIntervalMs) {
            revoke(eq(sessions.id, row.sessionId), at);
            return { kind: "reused" as const };
          }
          insertRefreshToken(newTokenId, row.sessionId, row.userId, newTokenHash, row.parentId ?? row.id);
          return { kind: "rotated" as const, userId: row.userId, sessionId: row.sessionId };
        }
        db.update(refreshTokens).set({ revoked: true, rotatedAt: at }).where(eq(refreshTokens.id, row.id)).run();
        db.update(sessions).set({ updatedAt: at }).where(eq(sessions.id, row.sessionId)).run();
        insertRefreshToken(newTokenId, row.sessionId, row.userId, newTokenHash, row.id);
        return { kind: "rotated" as const, userId: row.userId, sessionId: row.sessionId };
      }, IMMEDIATE);
    },
    async revokeSessions(input) {
      db.transaction(() => revoke(selected(input), input.at), IMMEDIATE);
    },

    async organizationExists(id) {
      return !!db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, id)).get();
    },
    async findOrganizationBySlugOrName(nameOrSlug) {
      return (
        (db
          .select()
          .from(organizations)
          .where(sql`${organizations.slug} = ${nameOrSlug} OR ${organizations.name} = ${nameOrSlug}`)
          .get() as OrganizationRecord | undefined) ?? null
      );
    },
    async memberships(userId) {
      return membershipsOf.all({ userId }) as { organizationId: string; role: OrgRole }[];
    },

    async listUsersWithOrganizations() {
      return sqlite
        .query(
          `SELECT u.email, u.id, u.created_at, group_concat(o.name || ' (' || m.role || ')', ', ') AS orgs
             FROM users u LEFT JOIN organization_members m ON m.user_id = u.id LEFT JOIN organizations o ON o.id = m.organization_id
            GROUP BY u.id ORDER BY u.created_at`,
        )
        .all() as UserListing[];
    },
    async pruneEnded({ before, limit }) {
      return sqlite
        .transaction(() =>
          // Refresh tokens go with their session (ON DELETE CASCADE).
          sqlite.prepare("DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE revoked_at < ?1 LIMIT ?2)").run(before, limit).changes +
          sqlite.prepare("DELETE FROM one_time_tokens WHERE id IN (SELECT id FROM one_time_tokens WHERE coalesce(used_at, expires_at) < ?1 LIMIT ?2)").run(before, limit).changes,
        )
        .immediate();
    },
    async removeUser(who) {
      return sqlite
        .transaction((): RemoveUserOutcome => {
          const user = ("id" in who ? removeQ.byId.get(who.id) : removeQ.byEmail.get(who.email)) as { id: string } | null;
          if (!user) return { kind: "unknown" };
          const orphaned = removeQ.orphaned.all(user.id) as { name: string }[];
          if (orphaned.length) return { kind: "last_owner", organizations: orphaned.map((o) => o.name) };
          removeQ.remove.run(user.id);
          return { kind: "removed", id: user.id };
        })
        .immediate();
    },
  };
}
