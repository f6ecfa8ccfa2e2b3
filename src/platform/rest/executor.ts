// Where /rest/v1's planned statements run (PostgREST's Query step after the pure SQL builders):
// the executor owns the connection; parse, plan, policies and sql.ts never touch one. Backend
// implementations: executor.sqlite.ts and executor.pg.ts. The contract both keep is
// tests/contracts/rest-executor.contract.ts.
import type { CategoryList } from "../../analysis/source-categories";
import type { Caller } from "../auth/caller";
import type { RestDialect } from "./dialect";
import type { SchemaCache } from "./schema-cache";
import type { Sql } from "./sql-fragment";

/** One request's view of the database: its statements run under the request's statement deadline. */
export interface RestSession {
  /** The statement's result rows, each as its column values in select order. */
  values(query: Sql): Promise<unknown[][]>;
  /**
   * Runs `work` in one write transaction (on SQLite the write lock is taken when it begins; on
   * Postgres the rows are locked as they are written); rolled back when `work` throws, committed
   * when it resolves (on Postgres with the request's session, which is one database transaction).
   * `work` gets the transaction-bound session.
   */
  transaction<T>(work: (tx: RestSession) => Promise<T>): Promise<T>;
  /** Throws 57014 once the request's time is up: JavaScript steps between statements check it. */
  checkDeadline(): void;
  /** The rows or object of an insights RPC (src/insights/rpc.ts) for the caller, under this request's deadline. */
  insight(input: { name: string; args: Record<string, unknown>; today: Date; caller: Caller }): Promise<unknown>;
}

export interface RestExecutor {
  readonly dialect: RestDialect;
  /** The tables, columns and relationships of this backend's schema (built once, then shared). */
  schemaCache(): SchemaCache;
  /**
   * Runs one request's work with its statement deadline `timeoutMs` from now; past it a statement
   * fails with 57014 (and a write's transaction rolls back). On Postgres the statements run as the
   * `caller` (its role and claims, as PostgREST runs a request), so the database's row-level security
   * applies; without one, as the server's own user.
   */
  session<T>(timeoutMs: number, work: (session: RestSession) => Promise<T>, caller?: Caller): Promise<T>;
  /**
   * A token that changes whenever committed data may have changed, by this process or any other
   * (the response cache's validity). Called on every cached read: it must be cheap and synchronous.
   */
  dataVersion(): string;
}

export interface RestExecutorOptions {
  /** Called with the SQL text of every statement run (tests count them). */
  onStatement?: (sql: string) => void;
  /** The user's source categories for the insights RPCs (SOURCE_CATEGORIES_FILE). */
  sourceCategories?: CategoryList;
}
