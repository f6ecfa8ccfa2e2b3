// The vocabulary of /rest/v1's row-level security, below the policies and the rules they run
// (membership.ts), so neither imports the other for it.
import type { Caller } from "../auth/caller";
import type { RestDialect } from "./dialect";
import type { Sql } from "./sql-fragment";

export type WriteAction = "insert" | "update" | "delete";
export type Action = "read" | WriteAction;

/**
 * A trigger-like rule on writes: `begin` sees the rows an update or delete targets (none for an
 * insert) before the statement, `after` the rows as written, both inside the transaction.
 */
export interface WriteGuard {
  /** When set, the guard runs only for writes that set one of these columns. */
  columns?: readonly string[];
  begin(run: { values(query: Sql): Promise<unknown[][]> }, dialect: RestDialect, caller: Caller, action: WriteAction, targets: number[]): Promise<{ after(written: number[]): Promise<void> }>;
}
