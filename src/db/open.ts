// Opens the SQLite file with the pragmas every connection needs (WAL, foreign keys,
// busy_timeout) and, for the server's main connection, applies the embedded migrations.
import { Database } from "bun:sqlite";
import { applyMigrations } from "./migrations";
import { embeddedMigrations } from "./migrations.generated";

export interface DbHandle {
  sqlite: Database;
  close(): void;
}

export const DB_FILE = "answerwatch.db";

export function openDatabase(path: string, options: { migrate?: boolean } = {}): DbHandle {
  const sqlite = new Database(path, { create: true, strict: true });
  // busy_timeout first: switching to WAL needs a lock that another process may hold.
  sqlite.run("PRAGMA busy_timeout = 5000");
  sqlite.run("PRAGMA journal_mode = WAL");
  // NORMAL is durable against process crashes in WAL mode (only an OS crash can lose the last commits).
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  if (options.migrate !== false) applyMigrations(sqlite, embeddedMigrations);
  return {
    sqlite,
    close() {
      try {
        sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
      } finally {
        sqlite.close();
      }
    },
  };
}
