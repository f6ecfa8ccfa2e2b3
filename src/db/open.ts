// Opens the SQLite file with the pragmas every connection needs (WAL, foreign keys,
// busy_timeout) and, for the server's main connection, applies the embedded migrations.
// Also the start-up side of DATA_DIR: made ready (created, writable), held by one server at a time
// (answerwatch.lock), and failures turned into one-line StartupErrors naming DATA_DIR and the file.
import { Database } from "bun:sqlite";
import { mkdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorCode, StartupError } from "../config";
import { applyMigrations } from "./migrations";
import { embeddedMigrations } from "./migrations.generated";
import { registerSqlFunctions } from "./functions";
import type { SchemaPart } from "./schema-part";

export interface DbHandle {
  sqlite: Database;
  close(): void;
}

export const DB_FILE = "answerwatch.db";
export const LOCK_FILE = "answerwatch.lock";

/**
 * The embedded migrations, then what the features' schema parts keep from code (rollups, latest
 * results, branded prompts), in the order given: a changed definition or a missing trigger rebuilds
 * what it keeps. Returns the migrations applied.
 */
export function prepareSchema(sqlite: Database, parts: readonly SchemaPart[]): number {
  const applied = applyMigrations(sqlite, embeddedMigrations);
  for (const part of parts) part.ensure?.(sqlite);
  return applied;
}

export interface OpenOptions {
  /** The features' triggers and SQL functions (src/database.ts lists them). */
  parts: readonly SchemaPart[];
  migrate?: boolean;
  busyTimeoutMs?: number;
}

/** How long a server's connection waits for the write lock: a busy database answers 503 after it. */
export const SERVER_BUSY_TIMEOUT_MS = 5_000;
/**
 * How long a CLI command waits for the write lock. It runs beside a server whose longest writes (a
 * bulk insert through /rest/v1, a rollup rebuild) hold the lock for many seconds; nobody is waiting
 * on a socket, so waiting is better than failing half-way.
 */
export const CLI_BUSY_TIMEOUT_MS = 300_000;

export function openDatabase(path: string, options: OpenOptions): DbHandle {
  const sqlite = new Database(path, { create: true, strict: true });
  try {
    // busy_timeout first: switching to WAL needs a lock that another process may hold.
    sqlite.run(`PRAGMA busy_timeout = ${Math.round(options.busyTimeoutMs ?? SERVER_BUSY_TIMEOUT_MS)}`);
    // A new file frees pages as it goes (answerwatch vacuum / retention); set before the first table.
    if (options.migrate !== false && (sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count === 0) sqlite.run("PRAGMA auto_vacuum = INCREMENTAL");
    sqlite.run("PRAGMA journal_mode = WAL");
    // NORMAL is durable against process crashes in WAL mode (only an OS crash can lose the last commits).
    sqlite.run("PRAGMA synchronous = NORMAL");
    sqlite.run("PRAGMA foreign_keys = ON");
    registerSqlFunctions(sqlite, options.parts);
    if (options.migrate !== false) prepareSchema(sqlite, options.parts);
  } catch (error) {
    sqlite.close();
    throw error;
  }
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

/** DATA_DIR's database, with SQLite's failures to open it said in one line (describeDatabaseFailure). */
export function openDataDirDatabase(dataDir: string, options: OpenOptions): DbHandle {
  const path = join(dataDir, DB_FILE);
  try {
    return openDatabase(path, options);
  } catch (error) {
    throw describeDatabaseFailure(path, error) ?? error;
  }
}

/**
 * A damaged database is damaged data, not configuration: exit 1, so a supervisor reports a failure
 * rather than a setting to fix. A file SQLite may not open or write is a DATA_DIR problem: exit 2.
 * Anything else is left as it is (undefined).
 */
export function describeDatabaseFailure(path: string, error: unknown): StartupError | undefined {
  const code = errorCode(error);
  if (code === "SQLITE_NOTADB") return new StartupError(`DATA_DIR/${DB_FILE} is not a SQLite database (corrupt?): ${path}`, 1);
  if (code.startsWith("SQLITE_CORRUPT")) return new StartupError(`DATA_DIR/${DB_FILE} is damaged (${code}): ${path}`, 1);
  if (code === "SQLITE_BUSY") return new StartupError(`DATA_DIR/${DB_FILE} stayed locked by another process (SQLITE_BUSY): ${path}`, 1);
  if (/^SQLITE_(CANTOPEN|READONLY|PERM|AUTH)/.test(code)) return new StartupError(`DATA_DIR/${DB_FILE} cannot be opened for writing (${code}): ${path}`, 2);
  return undefined;
}

/** Creates DATA_DIR when missing and checks it is a directory this process can write to. */
export function prepareDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new StartupError(dataDirCreationProblem(dataDir, errorCode(error)));
  }
  if (!statSync(dataDir).isDirectory()) throw new StartupError(`DATA_DIR=${dataDir} is a file, not a directory`);
  // Root passes every permission check, so only a real write shows a place that refuses one
  // (a read-only mount, /sys). Its own name: opening and closing the lock file here would drop a
  // lock this process may hold on it (POSIX locks belong to the process, not the descriptor).
  const probe = join(dataDir, `.answerwatch-write-test-${process.pid}`);
  try {
    writeFileSync(probe, "");
    unlinkSync(probe);
  } catch (error) {
    throw new StartupError(`DATA_DIR=${dataDir} is not writable (${errorCode(error)})`);
  }
}

function dataDirCreationProblem(dataDir: string, code: string): string {
  if (code === "EEXIST") return `DATA_DIR=${dataDir} is a file, not a directory`;
  if (code === "ENOTDIR") return `DATA_DIR=${dataDir} cannot be created: a part of its path is a file (ENOTDIR)`;
  return `DATA_DIR=${dataDir} cannot be created (${code})`;
}

export interface DataDirLock {
  release(): void;
}

/**
 * Holds DATA_DIR for this process, so a second server on it refuses to start instead of running
 * two schedulers and dispatchers on one database. The lock is SQLite's own file lock on
 * answerwatch.lock (a write transaction kept open): the OS drops it when the process ends in any
 * way, kill -9 included, so a stale lock cannot block a restart and no PID has to be guessed alive.
 * The holder's PID is written in the file for the refusal message only.
 *
 * The returned handle must stay reachable while the lock is wanted: a collected connection is
 * closed, and its lock with it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  const db = openLockFile(path);
  try {
    take(db, dataDir, path);
    db.run("CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since TEXT NOT NULL)");
    db.run("DELETE FROM holder");
    db.run("INSERT INTO holder (pid, since) VALUES (?, ?)", [process.pid, new Date().toISOString()]);
    db.run("COMMIT");
    // Held from here on. Another process may slip in between COMMIT and this BEGIN: then it holds
    // DATA_DIR and this one refuses, as it should.
    take(db, dataDir, path);
  } catch (error) {
    db.close();
    throw error;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.run("ROLLBACK");
      db.close();
    },
  };
}

/** Whether another process (a server) holds DATA_DIR now: a lock this process can take is free. */
export function dataDirHeld(dataDir: string): boolean {
  try {
    lockDataDir(dataDir).release();
    return false;
  } catch (error) {
    if (error instanceof StartupError && error.message.includes("is in use by another answerwatch process")) return true;
    throw error;
  }
}

function openLockFile(path: string): Database {
  try {
    const db = new Database(path, { create: true });
    // Short: a holder keeps its lock for its lifetime, so waiting longer only delays the refusal.
    db.run("PRAGMA busy_timeout = 200");
    // No fsync: the PID row is a hint for the refusal message, the rollback journal still keeps
    // the file whole when a process dies mid-write, and the start stays ~2 ms faster.
    db.run("PRAGMA synchronous = OFF");
    return db;
  } catch (error) {
    throw new StartupError(`DATA_DIR/${LOCK_FILE} cannot be opened (${errorCode(error)}): ${path}`);
  }
}

/** BEGIN IMMEDIATE takes SQLite's write lock; a holder in another process (or this one) makes it fail. */
function take(db: Database, dataDir: string, path: string): void {
  try {
    db.run("BEGIN IMMEDIATE");
  } catch (error) {
    const code = errorCode(error);
    if (code === "SQLITE_BUSY") throw new StartupError(`DATA_DIR=${dataDir} is in use by another answerwatch process (${holderOf(db)}); stop it or choose another DATA_DIR`);
    if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT"))
      throw new StartupError(`DATA_DIR/${LOCK_FILE} is not a lock file answerwatch wrote (${code}); remove it when no answerwatch runs on DATA_DIR=${dataDir}`);
    throw new StartupError(`DATA_DIR/${LOCK_FILE} cannot be locked (${code}): ${path}`);
  }
}

function holderOf(db: Database): string {
  try {
    const row = db.query("SELECT pid FROM holder").get() as { pid: number } | null;
    return row ? `PID ${row.pid}` : "PID unknown";
  } catch {
    // The holder is still writing its first row.
    return "PID unknown";
  }
}
