// What differs between SQL backends in the statements /rest/v1 builds (sql.ts, query.ts, policies):
// quoting, how a list is bound, the row id, the deadline probe, the upsert clause, and how a
// violated constraint is reported. Implementations: dialect.sqlite.ts (and, with #29, a Postgres one).
import type { Sql } from "./sql-fragment";

/** A write refused by a constraint, in backend-neutral terms (constraints.ts words it as Postgres would). */
export type ConstraintViolation =
  | { kind: "unique"; /** The key's columns, when the backend names them. */ columns: string[] }
  | { kind: "foreign_key" }
  | { kind: "not_null"; column: string }
  | { kind: "check"; constraint: string | null };

export interface RestDialect {
  readonly name: string;
  /** A quoted identifier (names from the schema cache or generated aliases only). */
  ident(name: string): Sql;
  /** A subquery of the list's values bound as ONE parameter, for `x IN <list>`: statement text stays the same whatever the list's length. */
  valueList(values: readonly unknown[]): Sql;
  /** The physical row id column every table has (rows a write touched are tracked by it). */
  readonly rowId: string;
  /** A predicate true for every row that fails the statement once the request's time is up; null when the backend times statements out itself. */
  readonly deadlineProbe: Sql | null;
  /** `ON CONFLICT (target) DO UPDATE SET … [WHERE guard]` or `DO NOTHING`. */
  onConflict(target: string[], update: string[] | null, guard: Sql | null): Sql;
  /** The constraint a failed write violated, or null when the error is something else. */
  constraintViolation(error: unknown): ConstraintViolation | null;
}
