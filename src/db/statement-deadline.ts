// A statement's deadline, as SQL: the function every row a /rest/v1 statement looks at passes
// through — its own rows (platform/rest/dialect.sqlite.ts) and, through the rollups' delete
// triggers, the rows a cascade removes. Every connection has it, answering 1; a /rest/v1
// connection replaces it with one that throws once the request's time is up
// (platform/rest/deadline.sqlite.ts), so a brand's or prompt's cascade stops at
// STATEMENT_TIMEOUT_MS and rolls back, as Postgres' statement_timeout stops it.
import type { Database } from "bun:sqlite";

export const DEADLINE_FUNCTION = "aw_within_deadline";

/** The function with no deadline: for every connection (registerSqlFunctions). */
export function registerNoDeadline(sqlite: Database): void {
  sqlite.function(DEADLINE_FUNCTION, { deterministic: false } as never, () => 1);
}
