// The Drizzle view of a connection, made where it is used: the server's first moments (open the
// file, migrate, answer /healthz) need neither drizzle nor the schema objects.
import type { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema>;

export function drizzleDb(sqlite: Database): Db {
  return drizzle(sqlite, { schema });
}
