// Backend-neutral seeding and reading for the tracking, schedule and webhook suites (issue #29):
// the contract harness over a running server's own database (its SQLite file, or its database on
// the throwaway PostgreSQL), and async counterparts of tests/helpers/tracking.ts' seedBrand and
// organizationOf written through the harness' `inspect`, so one test file runs on both backends.
import type { SQL } from "bun";
import { postgresStores, sqliteStores, type Backend, type Stores } from "../../src/stores";
import { recheckBranded } from "../../src/insights/branded.pg";
import type { ResultKey } from "../../src/results/store";
import { insertResults } from "../../src/results/store.pg";
import { createResultStore } from "../../src/results/store.sqlite";
import { unpackedSql } from "../../src/db/text-codec";
import type { ResultValues } from "../../src/tracking/unit";
import { sqliteHarness, sqliteHarnessOn, type Harness, type SqliteHarness } from "../contracts/harness";
import { pgHarness, pgHarnessOn, type PgHarness } from "../contracts/harness.pg";
import { TEST_BACKEND } from "./app";
import type { SeededBrand, SeedOptions } from "./tracking";

export type ServerDb = SqliteHarness | PgHarness;

// Written once in server-db.ts for every suite.
export { countOf, organizationOfUser as organizationIn } from "./server-db";

/**
 * The harness (fixtures, inspect) over the server's own database. On Postgres it opens a small pool
 * of its own: close() it when the suite ends (on SQLite close() leaves the server's handle open).
 */
export async function serverDb(server: { backend: Backend } | { config: { database: { url?: string | null } }; dbh: unknown }): Promise<ServerDb> {
  if ("backend" in server) return server.backend.kind === "sqlite" ? sqliteHarnessOn(server.backend.dbh) : pgHarnessOn(server.backend.url);
  // testApp(): no backend field; its config says where its data is.
  const url = server.config.database.url;
  return url ? pgHarnessOn(url) : sqliteHarnessOn(server.dbh as never);
}

/** An expression reading a stored answer column as text: SQLite keeps it packed (aw_text, with its dictionary), Postgres plain (text or jsonb). */
export function textOf(db: Harness, column: string): string {
  return db.backend === "sqlite" ? unpackedSql(column) : `${column}::text`;
}

async function insertId(db: Harness, sql: string, ...params: unknown[]): Promise<string> {
  const [row] = await db.inspect<{ id: string }>(`${sql} RETURNING id`, ...params);
  return row!.id;
}

/** seedBrand (tests/helpers/tracking.ts) on either backend: a brand with domains, competitors and active prompts. */
export async function seedBrandIn(db: ServerDb, organizationId: string, options: SeedOptions = {}): Promise<SeededBrand> {
  const name = options.name ?? "Acme";
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${crypto.randomUUID().slice(0, 8)}`;
  const brandId = await insertId(db, "INSERT INTO brands (organization_id, name, slug, industry, region, language) VALUES (?, ?, ?, 'software', 'US', 'en')", organizationId, name, slug);
  await insertId(db, "INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, 'acme.com', ?)", brandId, true);
  const competitorIds = [
    await insertId(db, "INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Globex', 'globex.com')", brandId),
    await insertId(db, "INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Initech', 'initech.com')", brandId),
  ];
  const setId = await insertId(db, "INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'Core')", brandId);
  const promptIds: string[] = [];
  for (let i = 0; i < (options.prompts ?? 5); i++)
    promptIds.push(await insertId(db, "INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, ?)", setId, brandId, `What is the best project tool for a team of ${i + 2}?`));
  for (const p of options.platforms ?? [])
    await db.inspect("INSERT INTO brand_platforms (brand_id, platform, check_frequency, last_checked_at, is_enabled) VALUES (?, ?, ?, ?, ?)", brandId, p.platform, p.frequency ?? "daily", p.lastCheckedAt ?? null, p.enabled !== false);
  // Postgres keeps prompts.is_branded from a listener a moment later; recheck now, as SQLite's trigger has.
  if ("pg" in db) await recheckBranded(db.pg.sql, [brandId]);
  return { brandId, promptIds, competitorIds };
}

/** Result rows through the product's own bulk writer of the backend (what bench and imports use). */
export async function insertResultsIn(db: ServerDb, batch: { key: ResultKey; values: ResultValues }[]): Promise<void> {
  if ("dbh" in db) {
    const store = createResultStore(db.dbh.sqlite);
    db.dbh.sqlite.transaction(() => {
      for (const { key, values } of batch) store.insert(key, values);
    })();
    return;
  }
  await db.pg.sql.begin((tx: SQL) => insertResults(tx, batch));
}

/**
 * A database of its own for a unit-level test of src/ (no server): a temporary SQLite file, or on
 * the Postgres run a database of the test cluster; with the harness over it and the backend's stores.
 */
export async function unitDb(): Promise<{ db: ServerDb; stores: Stores }> {
  if (TEST_BACKEND === "postgres") {
    const db = await pgHarness();
    if (!db) throw new Error("AW_TEST_BACKEND=postgres needs PostgreSQL (TEST_DATABASE_URL or the binaries)");
    return { db, stores: postgresStores(db.pg) };
  }
  const db = sqliteHarness();
  return { db, stores: sqliteStores(db.dbh) };
}
