// The composition of the database: which features hand which schema parts (triggers, SQL functions)
// down to src/db/, in the order they are made. Everything that opens the answerwatch database opens
// it through here, so every connection registers the same functions.
import type { DbHandle } from "./db/open";
import type { PgHandle, PgSchemaPart } from "./db/pg/open";
import { openDatabase as openWith, openDataDirDatabase as openDataDirWith, prepareSchema as prepareWith } from "./db/open";
import { registerSqlFunctions as registerWith } from "./db/functions";
import { brandedSchema } from "./insights/branded.sqlite";
import { latestSchema } from "./results/latest.sqlite";
import { rollupsSchema } from "./rollups/triggers.sqlite";
import { brandMoveSchema } from "./setup/brand-move.sqlite";
import { dictionariesSchema } from "./storage/dictionaries.sqlite";

/** Rollups first: latest results and branded prompts do not read them, and the order has always been this. */
export const SCHEMA_PARTS = [rollupsSchema, latestSchema, brandedSchema, brandMoveSchema, dictionariesSchema] as const;

type Options = { migrate?: boolean; busyTimeoutMs?: number };

export const openDatabase = (path: string, options: Options = {}): DbHandle => openWith(path, { ...options, parts: SCHEMA_PARTS });
export const openDataDirDatabase = (dataDir: string, options: Options = {}): DbHandle => openDataDirWith(dataDir, { ...options, parts: SCHEMA_PARTS });
export const prepareSchema = (sqlite: DbHandle["sqlite"]): number => prepareWith(sqlite, SCHEMA_PARTS);
export const registerSqlFunctions = (sqlite: DbHandle["sqlite"]): void => registerWith(sqlite, SCHEMA_PARTS);

/**
 * The Postgres side's schema parts (partitions, triggers and functions the features keep from
 * code), in the order they are made; loaded only in Postgres mode.
 */
async function pgSchemaParts(): Promise<PgSchemaPart[]> {
  const [{ logPartitionsPart }, { pgRollupsSchema }, { latestPgSchema }, { brandedPgSchema }, { rowSecurityPgSchema }] = await Promise.all([
    import("./db/pg/partitions"),
    import("./rollups/triggers.pg"),
    import("./results/latest.pg"),
    import("./insights/branded.pg"),
    import("./platform/rest/policies.pg"),
  ]);
  // Partitions first: the rollup triggers attach to the partitioned tables. Row-level security
  // last: its policies and grants cover the tables as the parts before left them.
  return [logPartitionsPart, pgRollupsSchema, latestPgSchema, brandedPgSchema, rowSecurityPgSchema];
}

/** DATABASE_URL's database: migrated and its schema parts made to match, under the migration lock. */
/** Applies what is pending on an open Postgres database (answerwatch migrate); the migrations applied. */
export async function migratePostgresDatabase(pg: PgHandle): Promise<number> {
  const [{ migratePostgres }, { embeddedMigrations }] = await Promise.all([import("./db/pg/open"), import("./db/pg/migrations.generated")]);
  return migratePostgres(pg.sql, { migrations: embeddedMigrations, parts: await pgSchemaParts() });
}

export async function openPostgresDatabase(url: string, options: { poolSize?: number; migrate?: boolean } = {}): Promise<PgHandle> {
  if (options.migrate === false) return (await import("./db/pg/open")).openPostgresPool(url, options.poolSize ?? 10);
  // Loaded only in Postgres mode: a SQLite server never parses the Postgres migrations.
  const [{ openPostgres }, { embeddedMigrations }] = await Promise.all([import("./db/pg/open"), import("./db/pg/migrations.generated")]);
  return openPostgres(url, { ...options, migrations: embeddedMigrations, parts: await pgSchemaParts() });
}
