// STATEMENT_TIMEOUT_MS for /rest/v1: past a request's deadline its statement fails with 57014 (as
// Postgres' statement_timeout does) and a write's transaction rolls back. How a backend enforces
// it is its executor's business (deadline.sqlite.ts on SQLite); the error and the SQL probe's name
// live here, below both.
import { AppError } from "../../http/errors";

export { DEADLINE_FUNCTION } from "../../db/statement-deadline";

export const statementTimeout = (ms: number) =>
  new AppError(503, "57014", "canceling statement due to statement timeout", {
    details: `The request ran longer than STATEMENT_TIMEOUT_MS (${ms} ms) and was stopped.`,
    hint: "Narrow the request with filters or a smaller limit.",
    headers: { "retry-after": "1" },
    // The words Postgres' own statement_timeout gets on each surface (http/errors.ts), so a
    // deadline is one error whichever fired first: this check or the database's timeout.
    surfaceCodes: { auth: "request_timeout", api: "statement_timeout" },
  });
