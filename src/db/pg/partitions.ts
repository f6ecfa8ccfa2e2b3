// The monthly partitions of the raw log tables (drizzle-pg/0005_log_partitions.sql says why and
// how): the months around now are made at every start (a schema part, under the migration lock)
// and should be made again at least monthly by a long-running server; retention drops whole months.
import type { SQL } from "bun";
import type { PgSchemaPart } from "./open";
import { REST_ROLES } from "./roles";

/** The partitioned tables and the time column each is partitioned by. */
export const LOG_PARTITIONED = [
  { table: "ai_traffic_logs", column: "created_at" },
  { table: "crawler_hits", column: "at" },
] as const;

export type LogTable = (typeof LOG_PARTITIONED)[number]["table"];

/** Whether a table is a month (`<table>_yYYYYmMM`, as aw_log_partitions names them) or the default partition of a log table. */
export const isLogPartition = (name: string) => LOG_PARTITIONED.some(({ table }) => name.startsWith(`${table}_`) && /^(y\d{4}m\d{2}|default)$/.test(name.slice(table.length + 1)));

const monthsFrom = (now: Date, months: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));

/**
 * Makes the partitions missing from the previous month through `monthsAhead` months after now's
 * (a month already holding rows in the default partition is left there); the names made.
 */
export async function ensureLogPartitions(sql: SQL, options: { now?: Date; monthsAhead?: number } = {}): Promise<string[]> {
  const now = options.now ?? new Date();
  const made: string[] = [];
  for (const { table, column } of LOG_PARTITIONED) {
    const rows = await sql`SELECT p AS name FROM aw_log_partitions(${table}, ${column}, ${monthsFrom(now, -1).toISOString()}, ${monthsFrom(now, options.monthsAhead ?? 2).toISOString()}) AS p`;
    made.push(...rows.map((r: { name: string }) => r.name));
  }
  // A month read directly answers to its own privileges, not its table's: where the database's
  // default privileges grant new tables to the REST roles (a Supabase project's do), take them back.
  const roles = made.length ? ((await sql`SELECT rolname FROM pg_roles WHERE rolname IN ${sql([...REST_ROLES])}`) as { rolname: string }[]) : [];
  for (const name of roles.length ? made : []) await sql.unsafe(`REVOKE ALL ON "${name}" FROM ${roles.map((r) => `"${r.rolname}"`).join(", ")}`);
  return made;
}

/** Retention: drops the table's months that end on or before `before` (rows and all); the names dropped. */
export async function dropLogPartitionsBefore(sql: SQL, table: LogTable, before: Date): Promise<string[]> {
  const rows = await sql`SELECT p AS name FROM aw_drop_log_partitions(${table}, ${before.toISOString()}) AS p`;
  return rows.map((r: { name: string }) => r.name);
}

export const logPartitionsPart: PgSchemaPart = { name: "log partitions", ensure: (tx) => ensureLogPartitions(tx) };
