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
