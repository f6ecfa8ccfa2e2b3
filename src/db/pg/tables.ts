// Which of some tables the current schema holds (a rollup's former tables, retired ones): one
// catalog read, for the rollups' start, the insights' reads and the lazy start's check.
import type { SQL } from "bun";

export const existingTables = async (sql: SQL, names: string[]): Promise<string[]> =>
  ((await sql`SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') AND relname = ANY(${sql.array(names, "text")}::text[])`) as { name: string }[]).map((r) => r.name);
