// Backend-neutral access to a running test server's own database, for the ingest-side suites
// (pixel, crawlers, members, share links, setup, MCP) that run on SQLite and on PostgreSQL from the
// same file (`// backends: sqlite, postgres`): the contract harness' fixtures and `inspect` over the
// server's database, and result rows written the way the backend's own writer writes them.
import type { Backend } from "../../src/stores";
import { createResultStore, type ResultKey } from "../../src/results/store.sqlite";
import { insertResults as insertPgResults } from "../../src/results/store.pg";
import type { ResultValues } from "../../src/tracking/unit";
import { sqliteHarnessOn, type Harness } from "../contracts/harness";
import { pgHarnessOn } from "../contracts/harness.pg";

/**
 * The harness over the server's own database. SQLite: its handle (close() leaves it open).
 * Postgres: a pool of its own on the server's database (close() it before or after server.stop()).
 */
export async function serverDb(server: { backend: Backend }): Promise<Harness> {
  return server.backend.kind === "sqlite" ? sqliteHarnessOn(server.backend.dbh) : await pgHarnessOn(server.backend.url);
}

/** Result rows (and their citation rows) in one transaction, through the backend's own result writer. */
export async function insertResults(server: { backend: Backend }, batch: { key: ResultKey; values: ResultValues }[]): Promise<void> {
  const backend = server.backend;
  if (backend.kind === "sqlite") {
    const store = createResultStore(backend.dbh.sqlite);
    backend.dbh.sqlite.transaction(() => {
      for (const { key, values } of batch) store.insert(key, values);
    })();
    return;
  }
  await backend.pg.sql.begin((tx) => insertPgResults(tx, batch));
}

