// What differs between SQL backends in the statements /rest/v1 builds (sql.ts, query.ts, policies,
// membership): quoting, lists, the row id, the deadline probe, the upsert clause, the JSON building,
// the operators SQLite lacks, and how a violated constraint is reported. Implementations:
// dialect.sqlite.ts and dialect.pg.ts.
import type { JsonStep } from "./parse";
import type { ColumnInfo, ColumnType } from "./schema-cache";
import type { Sql } from "./sql-fragment";

/** A write refused by a constraint, in backend-neutral terms (constraints.ts words it as Postgres would). */
export type ConstraintViolation =
  | {
      kind: "unique";
      /** The key's columns, when the backend names them. */
      columns: string[];
      /** The key's name, when the backend gives it (Postgres does, also where row-level security hides the values). */
      constraint?: string | null;
    }
  | { kind: "foreign_key" }
  | { kind: "not_null"; column: string }
  | { kind: "check"; constraint: string | null; /** The backend's own detail (a trigger's, on Postgres). */ detail?: string };

export type JsonTestOp = "contains" | "containedBy" | "overlaps";

/** A planned column reference, as plan.ts's ColumnRef (restated here: the planner sits above the dialect). */
export interface ColumnRef {
  column: ColumnInfo;
  json: JsonStep[];
  cast?: "text" | "integer" | "real" | "json";
  /** The type of the expression after the JSON path and cast. */
  type: ColumnType;
}

export interface RestDialect {
  readonly name: string;
  /** A quoted identifier (names from the schema cache or generated aliases only). */
  ident(name: string): Sql;
  /** The boolean constants, for empty AND/OR lists and fallbacks. */
  readonly true: Sql;
  readonly false: Sql;
  /**
   * `expr [NOT] IN <values>` with the list bound as ONE parameter: the statement text stays the
   * same whatever the list's length.
   */
  inList(expr: Sql, values: readonly unknown[], negated?: boolean): Sql;
  /** A row source of the list's values (one parameter), its column named `value`; `alias` names it when given. */
  valueTable(values: readonly unknown[], type: ColumnType, alias?: string): Sql;
  /** A value compared with or assigned to an expression of `type` (JSON values arrive as JSON text). */
  bind(value: unknown, type: ColumnType): Sql;
  /** `a IS b` / `a IS NOT b`: equality where NULL equals NULL. */
  same(a: Sql, b: Sql): Sql;
  differs(a: Sql, b: Sql): Sql;
  /**
   * The row id every table has (rows a write touched are tracked by it). Its values are opaque to
   * the planner: SQLite's rowid, the primary key `id` on Postgres.
   */
  readonly rowId: string;
  /**
   * A page of a read is found before its JSON is built (by row id), so the JSON is built for the
   * page's rows only: Postgres evaluates a SELECT's output for every row that reaches its sort,
   * before the LIMIT (1,000 brands ordered by name for a page of 50: 2.5 ms against 1.0 ms).
   */
  readonly pageBeforeOutput: boolean;
  /**
   * Appended to the query of the rows an update or delete targets, to lock them (then the write
   * goes by their row ids); null when the write lock is the whole database's (SQLite), and an
   * update finds its rows in the statement itself.
   */
  readonly lockTargets: Sql | null;
  /**
   * The database enforces row-level security itself (Postgres: the request runs under the caller's
   * role and claims, policies.pg.ts): the planner adds no organization predicate to reads (a planner
   * bug cannot leak a row) nor checks to inserts, runs no membership guard of its own, and leaves
   * inherited columns to the database's trigger. An update's or a delete's targets are still
   * narrowed to what the caller may write, as the policies do, so that its answer names the rows
   * written; the database refuses the rest anyway.
   */
  readonly enforcesRowSecurity: boolean;
  /** Added to an insert's RETURNING after the row id: true for a new row, false for one an upsert updated; null when the backend cannot tell (then new rows are told by rowids above the previous maximum). */
  readonly insertedFlag: Sql | null;
  /** A predicate true for every row that fails the statement once the request's time is up; null when the backend times statements out itself. */
  readonly deadlineProbe: Sql | null;
  /** `ON CONFLICT (target) DO UPDATE SET … [WHERE guard]` or `DO NOTHING`. */
  onConflict(target: string[], update: string[] | null, guard: Sql | null): Sql;
  /** The constraint a failed write violated, or null when the error is something else. */
  constraintViolation(error: unknown): ConstraintViolation | null;

  // ---- expressions and JSON building ----
  /** A column's value followed along a JSON path (`->` / `->>` steps; `->>` yields text, as in Postgres). */
  jsonPath(column: Sql, steps: ColumnRef["json"]): Sql;
  /** `CAST(e AS …)` for PostgREST's casts. */
  cast(e: Sql, to: NonNullable<ColumnRef["cast"]>, ref: ColumnRef): Sql;
  /** A JSON object (as text) of key → value pairs, at most 50 pairs (longer ones are built in chunks). */
  jsonObject(pairs: [string, Sql][]): Sql;
  /** The value as it appears inside jsonObject: booleans as true/false, JSON as JSON, timestamps as ISO text. */
  jsonValue(e: Sql, ref: ColumnRef, trustJson: boolean): Sql;
  /** Aggregate function joining JSON texts with a separator (`name(x, ',' ORDER BY …)`). */
  readonly stringAgg: string;
  /** A subquery in FROM (Postgres wants it named). */
  derivedTable(inner: Sql): Sql;
  /** The LIMIT value meaning "no limit". */
  readonly noLimit: number | null;
  /** PostgREST's like/ilike (`*` for `%`). */
  like(e: Sql, pattern: string, caseInsensitive: boolean): Sql;
  /** `is.true` / `is.false`. */
  isBoolean(e: Sql, value: boolean): Sql;
  /** cs / cd / ov on a JSON value (`value` is the operand's JSON text). */
  jsonTest(e: Sql, op: JsonTestOp, value: string): Sql;
  /**
   * An estimate of the rows of `table` (aliased `alias`) matching `where`, at a cost that does not
   * follow the table's size: the statement, and how its rows read as the number.
   */
  estimatedCount(table: Sql, alias: Sql, where: Sql, probes: number): { query: Sql; read(rows: unknown[][]): number };
  /** An insert's row source over the rows' JSON (one parameter), each row as `r.value`. */
  insertSource(rowsJson: string): Sql;
  /** A column's value in an insert row `r.value`; with `fallback`, the default when the key is missing. */
  insertValue(column: ColumnInfo, fallback: Sql | null): Sql;
}
