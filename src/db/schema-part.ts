// What a feature hands down to the database layer so src/db/ never imports a feature: the SQL
// functions its triggers call (registered on every connection) and the triggers and derived tables
// it keeps in step (made to match on the migrating connection). The composition (src/database.ts)
// lists the parts; src/db/open.ts applies whatever it is given.
import type { Database } from "bun:sqlite";

export interface SchemaPart {
  name: string;
  /** Registers the part's SQL functions on a connection (every connection: triggers call them). */
  functions?(sqlite: Database): void;
  /** After the migrations, on the migrating connection: creates or replaces what is missing or stale. */
  ensure?(sqlite: Database): unknown;
}

/**
 * Makes a part's triggers (name → what follows `CREATE TRIGGER name`) match: creates the missing
 * ones and replaces the changed ones, then runs `after` in the same transaction; true when any
 * had to be (a table rebuilt by a migration drops its triggers).
 */
export function ensureTriggers(sqlite: Database, triggers: Record<string, string>, after?: () => void): boolean {
  const present = new Map((sqlite.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all() as { name: string; sql: string }[]).map((r) => [r.name, r.sql]));
  const stale = Object.entries(triggers).filter(([name, body]) => present.get(name) !== `CREATE TRIGGER ${name} ${body}`);
  if (!stale.length) return false;
  sqlite.transaction(() => {
    for (const [name, body] of stale) {
      sqlite.run(`DROP TRIGGER IF EXISTS ${name}`);
      sqlite.run(`CREATE TRIGGER ${name} ${body}`);
    }
    after?.();
  }).immediate();
  return true;
}
