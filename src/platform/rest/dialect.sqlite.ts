// The SQLite dialect of /rest/v1's statements (dialect.ts says what each member is for).
import { DEADLINE_FUNCTION } from "./deadline";
import type { ConstraintViolation, RestDialect } from "./dialect";
import { ident, joinSql, raw, sql, type Sql } from "./sql-fragment";

function constraintViolation(error: unknown): ConstraintViolation | null {
  const { code = "", message = "" } = (error ?? {}) as { code?: string; message?: string };
  if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    // "UNIQUE constraint failed: brands.organization_id, brands.slug"
    const columns = (/constraint failed: (.*)$/.exec(message)?.[1] ?? "").split(", ").map((c) => c.slice(c.indexOf(".") + 1));
    return { kind: "unique", columns };
  }
  if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") return { kind: "foreign_key" };
  if (code === "SQLITE_CONSTRAINT_NOTNULL") return { kind: "not_null", column: /constraint failed: [^.]*\.(.*)$/.exec(message)?.[1] ?? "?" };
  // "CHECK constraint failed: brand_platforms_samples_range"
  if (code === "SQLITE_CONSTRAINT_CHECK") return { kind: "check", constraint: /CHECK constraint failed: (.*)$/.exec(message)?.[1]?.trim() ?? null };
  return null;
}

export const SQLITE_DIALECT: RestDialect = {
  name: "sqlite",
  ident,
  valueList: (values) => sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`,
  rowId: "rowid",
  deadlineProbe: raw(`${DEADLINE_FUNCTION}()`),
  onConflict(target, update, guard) {
    const columns = joinSql(target.map(ident), ", ");
    if (!update?.length) return sql` ON CONFLICT (${columns}) DO NOTHING`;
    const set = joinSql(update.map((c) => sql`${ident(c)} = excluded.${ident(c)}`), ", ");
    return sql` ON CONFLICT (${columns}) DO UPDATE SET ${set}${guard ? sql` WHERE ${guard}` : raw("")}`;
  },
  constraintViolation,
};
