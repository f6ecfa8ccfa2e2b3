// The statement deadline on SQLite. The driver cannot interrupt a statement (no interrupt or
// progress handler), and ending the thread that runs it would leave its WAL read lock held for the
// life of the process (checkpoints could never again reset the WAL). So every row a REST query
// looks at passes through a tiny SQL function, aw_within_deadline(), that throws once the request's
// time is up: SQLite abandons the statement cleanly and a write's transaction rolls back.
import type { Database } from "bun:sqlite";
import { DEADLINE_FUNCTION, statementTimeout } from "./deadline";

export interface SqliteDeadline {
  /** Runs `fn` (synchronous SQL) with the deadline `at` (a performance.now() time); past it the statement fails with 57014 naming `ms`. */
  under<T>(at: number, ms: number, fn: () => T): T;
}

const DEADLINES = Symbol("answerwatch.statementDeadline");

/** The connection's deadline; the SQL function is registered once per connection. */
export function sqliteDeadline(sqlite: Database): SqliteDeadline {
  const holder = sqlite as Database & { [DEADLINES]?: SqliteDeadline };
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
    under(at, ms, fn) {
      // Statements are synchronous: the deadline is set around each one, so requests that share
      // the connection (in-process, without threads) never see each other's.
      const outer = deadline;
      const outerMs = limitMs;
      deadline = Math.min(outer, at);
      limitMs = deadline === at ? ms : outerMs;
      try {
        return fn();
      } finally {
        deadline = outer;
        limitMs = outerMs;
      }
    },
  });
}
