// STATEMENT_TIMEOUT_MS for /rest/v1. bun:sqlite cannot interrupt a statement (no interrupt or
// progress handler), and ending the thread that runs it would leave its WAL read lock held for the
// life of the process (checkpoints could never again reset the WAL). So every row a REST query
// looks at passes through a tiny SQL function, aw_within_deadline(), that throws once the request's
// time is up: SQLite abandons the statement cleanly and a write's transaction rolls back.
import type { Database } from "bun:sqlite";
import { AppError } from "../../http/errors";

export const DEADLINE_FUNCTION = "aw_within_deadline";

export const statementTimeout = (ms: number) =>
  new AppError(503, "57014", "canceling statement due to statement timeout", {
    details: `The request ran longer than STATEMENT_TIMEOUT_MS (${ms} ms) and was stopped.`,
    hint: "Narrow the request with filters or a smaller limit.",
    headers: { "retry-after": "1" },
  });

export interface StatementDeadline {
  /** Runs `fn` (synchronous SQL) with the deadline `ms` from now; past it the statement fails with 57014. */
  within<T>(ms: number, fn: () => T): T;
  /** Throws 57014 when the current request's time is up: JavaScript work (periods, rows, CSV) checks it between steps. */
  check(): void;
}

const DEADLINES = Symbol("answerwatch.statementDeadline");

/** The connection's deadline; the SQL function is registered once per connection. */
export function statementDeadline(sqlite: Database): StatementDeadline {
  const holder = sqlite as Database & { [DEADLINES]?: StatementDeadline };
  if (holder[DEADLINES]) return holder[DEADLINES];
  let deadline = Infinity;
  let limitMs = 0;
  let calls = 0;
  sqlite.function(DEADLINE_FUNCTION, { deterministic: false } as never, () => {
    // The clock is read every 256 rows: a row costs microseconds, a clock read ~30 ns.
    if ((++calls & 255) === 0 && performance.now() > deadline) throw statementTimeout(limitMs);
    return 1;
  });
  return (holder[DEADLINES] = {
    check() {
      if (performance.now() > deadline) throw statementTimeout(limitMs);
    },
    within(ms, fn) {
      const outer = deadline;
      deadline = Math.min(outer, performance.now() + ms);
      limitMs = ms;
      try {
        return fn();
      } finally {
        deadline = outer;
      }
    },
  });
}
