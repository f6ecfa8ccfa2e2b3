// The suites' way to their server's own database on either backend (issue #29; the suites marked
// `backends: sqlite, postgres`): the contract harness (fixtures, and `inspect` with `?`
// placeholders answering in SQLite's shapes) over the database a `testServer()` or `testApp()`
// keeps its data in, and the few seeding helpers these suites share, written once for both.
import { insertResults } from "../../src/results/store.pg";
import { createResultStore, type ResultKey } from "../../src/results/store.sqlite";
import type { RunningServer } from "../../src/server";
import type { ResultValues } from "../../src/tracking/unit";
import type { Backend } from "../../src/stores";
import { sqliteHarnessOn, type Harness } from "../contracts/harness";
import { pgHarnessOn } from "../contracts/harness.pg";
import { TEST_BACKEND } from "./app";

export type ServerDb = Harness;

const opened = new WeakMap<object, Promise<Harness>>();

/**
 * The harness over the server's own database (one per server: on Postgres a pool of its own on the
 * server's database; `close()` it in afterAll — on SQLite close() leaves the server's handle open).
 */
export function serverDb(server: Pick<RunningServer, "backend">): Promise<ServerDb> {
  let db = opened.get(server);
  if (!db) {
    const backend: Backend = server.backend;
    db = backend.kind === "sqlite" ? Promise.resolve(sqliteHarnessOn(backend.dbh)) : pgHarnessOn(backend.url);
    opened.set(server, db);
  }
  return db;
}

/** The same over a `testApp()`'s database (its dbh on SQLite, its DATABASE_URL on Postgres). */
export function appDb(app: { dbh: RunningServer["dbh"] | undefined; config: { database: { url?: string | null } } }): Promise<ServerDb> {
  let db = opened.get(app);
  if (!db) {
    db = app.config.database.url ? pgHarnessOn(app.config.database.url) : Promise.resolve(sqliteHarnessOn(app.dbh!));
    opened.set(app, db);
  }
  return db;
}

/** A boolean as the backend's columns take it (0/1 on SQLite, true/false on Postgres). */
export const sqlBool = (db: ServerDb, value: boolean): boolean | number => (db.backend === "postgres" ? value : value ? 1 : 0);

/** The accounts table: auth.users on Postgres (Supabase's schema, drizzle-pg/0008), users on SQLite. */
export const usersTable = (db: ServerDb): string => (db.backend === "postgres" ? "auth.users" : "users");

/** A placeholder for JSON text into a JSON column (Postgres' jsonb would otherwise take the text as one JSON string). */
export const json = (db: ServerDb): string => (db.backend === "postgres" ? "CAST(? AS text)::jsonb" : "?");

/** `count(*)` of a query (`?` placeholders): bigint arrives as a string on Postgres. */
export async function countOf(db: ServerDb, sql: string, ...params: unknown[]): Promise<number> {
  const [row] = await db.inspect<Record<string, unknown>>(sql, ...params);
  return Number(Object.values(row!)[0]);
}

/** The organization a signed-up user owns (the one they were given at sign-up). */
export async function organizationOfUser(db: ServerDb, userId: string): Promise<string> {
  const [row] = await db.inspect<{ id: string }>("SELECT organization_id AS id FROM organization_members WHERE user_id = ?", userId);
  if (!row) throw new Error(`no organization for user ${userId}`);
  return row.id;
}

/**
 * Polls a read until it answers `expected` (or gives up and returns the last answer): on Postgres
 * prompts.is_branded is kept by a listener a moment after the write (src/insights/branded.pg.ts);
 * on SQLite the first read is the answer (its triggers run inside the write).
 */
export async function settled<T>(read: () => Promise<T>, expected: T, tries = TEST_BACKEND === "postgres" ? 100 : 1): Promise<T> {
  let got = await read();
  for (let i = 1; i < tries && JSON.stringify(got) !== JSON.stringify(expected); i++) {
    await Bun.sleep(20);
    got = await read();
  }
  return got;
}

/** A prompt_results row as the tracking run writes it (server side, straight into the database). */
export async function insertResultIn(
  db: ServerDb,
  row: { brand_id: string; prompt_id: string; platform: string; model: string; region?: string; created_at: string; job_id?: string; mentioned?: boolean; visibility_score?: number },
): Promise<string> {
  const id = crypto.randomUUID();
  await db.inspect(
    `INSERT INTO prompt_results (id, job_id, brand_id, prompt_id, platform, model, region, response, mentioned, visibility_score, competitor_mentions, citations, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${json(db)}, ${json(db)}, ?)`,
    id, row.job_id ?? crypto.randomUUID(), row.brand_id, row.prompt_id, row.platform, row.model, row.region ?? "", `answer ${id}`, sqlBool(db, !!row.mentioned), row.visibility_score ?? null, '[{"name":"Rival"}]', "[]", row.created_at,
  );
  return id;
}

/** A brand as the tracking suites seed it (domain acme.com, competitors Globex and Initech, a prompt set with `prompts` prompts), on either backend. */
export async function seedBrandIn(
  db: ServerDb,
  organizationId: string,
  options: { name?: string; prompts?: number } = {},
): Promise<{ brandId: string; promptIds: string[]; competitorIds: string[] }> {
  const id = async (sql: string, ...params: unknown[]) => (await db.inspect<{ id: string }>(`${sql} RETURNING id`, ...params))[0]!.id;
  const name = options.name ?? "Acme";
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${crypto.randomUUID().slice(0, 8)}`;
  const brandId = await id("INSERT INTO brands (organization_id, name, slug, industry, region, language) VALUES (?, ?, ?, 'software', 'US', 'en')", organizationId, name, slug);
  await id("INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, 'acme.com', ?)", brandId, sqlBool(db, true));
  const competitorIds = [
    await id("INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Globex', 'globex.com')", brandId),
    await id("INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Initech', 'initech.com')", brandId),
  ];
  const setId = await id("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'Core')", brandId);
  const promptIds: string[] = [];
  for (let i = 0; i < (options.prompts ?? 5); i++)
    promptIds.push(await id("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, ?)", setId, brandId, `What is the best project tool for a team of ${i + 2}?`));
  return { brandId, promptIds, competitorIds };
}

/**
 * Results written the way the tracking run writes them, on the server's backend (SQLite:
 * results/store.sqlite.ts in one transaction; Postgres: results/store.pg.ts, one transaction).
 */
export async function writeResults(server: Pick<RunningServer, "backend">, batch: { key: ResultKey; values: ResultValues }[]): Promise<void> {
  const backend: Backend = server.backend;
  if (backend.kind === "sqlite") {
    const store = createResultStore(backend.dbh.sqlite);
    backend.dbh.sqlite.transaction(() => {
      for (const { key, values } of batch) store.insert(key, values);
    })();
  } else {
    await backend.pg.sql.begin((tx) => insertResults(tx, batch));
    // Statistics as autovacuum leaves them within a minute of a bulk write: planned for empty
    // tables, a filtered citations read nests loops over every result (2 s for 2,000 citations).
    await backend.pg.sql`ANALYZE prompt_results, citations, citation_urls, prompts`;
  }
}
