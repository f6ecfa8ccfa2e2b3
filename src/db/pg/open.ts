// Opens answerwatch's PostgreSQL (DATABASE_URL) with Bun's built-in client: a pool of
// DATABASE_POOL_SIZE connections, the embedded Postgres migrations applied under an advisory lock
// (N instances may start at once: one migrates, the others wait and then find nothing to do), then
// the features' schema parts (triggers, functions) made to match under the same lock.
import { SQL } from "bun";
import type { EmbeddedMigration } from "../migrations";

export interface PgSchemaPart {
  name: string;
  /** After the migrations, under the migration lock, inside its own transaction. */
  ensure?(tx: SQL): Promise<unknown>;
}

export interface PgHandle {
  sql: SQL;
  /**
   * A second, smaller pool whose sessions stop any statement after `timeoutMs` (statement_timeout):
   * for the reads a request starts outside /rest/v1 (the portfolio, client and traffic reports),
   * which /rest/v1's per-transaction timeout does not cover. Made on first use, closed with the handle.
   */
  bounded(timeoutMs: number): SQL;
  close(): Promise<void>;
}

export interface PgOpenOptions {
  migrations: readonly EmbeddedMigration[];
  parts: readonly PgSchemaPart[];
  poolSize?: number;
  migrate?: boolean;
}

/** Any 64-bit number; the same in every instance, so all of them queue on one lock. */
export const MIGRATION_LOCK = 4_242_028_001;

/**
 * A pool that never migrates (a tracking thread's, the CLI's): neither the migrations nor the schema
 * parts are loaded — parsing them was most of a tracking thread's start (~0.1 s, issue #29).
 */
export const openPostgresPool = (url: string, poolSize: number): Promise<PgHandle> => openPostgres(url, { poolSize, migrate: false, migrations: [], parts: [] });

export async function openPostgres(url: string, options: PgOpenOptions): Promise<PgHandle> {
  const poolSize = options.poolSize ?? 10;
  const sql = new SQL(url, { max: poolSize, idleTimeout: 60, connection: { jit: "off" } });
  try {
    if (options.migrate !== false) await migratePostgres(sql, options);
  } catch (error) {
    await sql.close();
    throw error;
  }
  const bounded = new Map<number, SQL>();
  return {
    sql,
    bounded(timeoutMs) {
      const ms = Math.max(1, Math.ceil(timeoutMs));
      let pool = bounded.get(ms);
      if (!pool) bounded.set(ms, (pool = new SQL(url, { max: Math.max(2, Math.ceil(poolSize / 2)), idleTimeout: 60, connection: { jit: "off", statement_timeout: String(ms) } })));
      return pool;
    },
    async close() {
      await Promise.all([...bounded.values()].map((pool) => pool.close()));
      await sql.close();
    },
  };
}

/** Applies what is pending and the schema parts, holding the migration lock; returns the migrations applied. */
export async function migratePostgres(sql: SQL, options: Pick<PgOpenOptions, "migrations" | "parts">): Promise<number> {
  // One session holds the lock for the whole run: a session-level advisory lock belongs to a
  // connection, so it must be taken and released on the same reserved one.
  const session = await sql.reserve();
  try {
    await session`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    try {
      await session`CREATE TABLE IF NOT EXISTS __drizzle_migrations (id serial PRIMARY KEY, hash text NOT NULL, created_at bigint)`;
      const [{ at }] = await session`SELECT max(created_at) AS at FROM __drizzle_migrations`;
      const pending = options.migrations.filter((m) => at === null || m.when > Number(at));
      for (const m of pending) {
        await session.begin(async (tx) => {
          for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) await tx.unsafe(statement);
          await tx`INSERT INTO __drizzle_migrations (hash, created_at) VALUES (${new Bun.CryptoHasher("sha256").update(m.sql).digest("hex")}, ${m.when})`;
        });
      }
      for (const part of options.parts) if (part.ensure) await session.begin((tx) => part.ensure!(tx));
      return pending.length;
    } finally {
      await session`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`;
    }
  } finally {
    session.release();
  }
}
