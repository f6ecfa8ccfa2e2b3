// The Postgres dialect of /rest/v1's statements (dialect.ts says what each member is for). The
// executor binds every value as text of unknown type (executor.pg.ts), so Postgres reads it as the
// type of what it is compared with or assigned to; where nothing gives the type (json_build_object
// keys, arrays, JSON path keys) the statement casts. Rows are tracked by their primary key.
import { pgCode } from "../../db/pg/values";
import type { ColumnRef, ConstraintViolation, JsonTestOp, RestDialect } from "./dialect";
import { PG_TYPE_NAMES, type ColumnInfo, type ColumnType } from "./schema-cache";
import { ident, joinSql, raw, sql, type Sql } from "./sql-fragment";

/** A Postgres array literal of the values (one text parameter; `= ANY(…)` gives it its type). */
export function pgArray(values: readonly unknown[]): string {
  const items = values.map((v) => (v === null || v === undefined ? "NULL" : `"${String(typeof v === "object" ? JSON.stringify(v) : v).replace(/["\\]/g, "\\$&")}"`));
  return `{${items.join(",")}}`;
}

function constraintViolation(error: unknown): ConstraintViolation | null {
  const code = pgCode(error);
  const e = (error ?? {}) as { detail?: string; column?: string; constraint?: string };
  if (code === "23505") {
    // "Key (organization_id, slug)=(…, …) already exists."
    // Under row-level security Postgres leaves the key out of the detail; the constraint still names it.
    const key = /^Key \((.*?)\)=\(/.exec(e.detail ?? "")?.[1];
    return { kind: "unique", columns: key ? key.split(", ") : [], constraint: e.constraint ?? null };
  }
  if (code === "23503") return { kind: "foreign_key" };
  if (code === "23502") return { kind: "not_null", column: e.column ?? "?" };
  // A rule trigger's own detail (policies.pg.ts); PostgreSQL's for a CHECK lists the failing row, which SQLite's has no counterpart of.
  if (code === "23514") return { kind: "check", constraint: e.constraint ?? null, ...(e.detail && !e.detail.startsWith("Failing row contains") ? { detail: e.detail } : {}) };
  return null;
}

/**
 * JSON text as jsonb. Through text: a parameter Postgres types as jsonb is encoded by Bun's client
 * as JSON, which would store the JSON text as one JSON string.
 */
const jsonb = (text: unknown) => sql`CAST(CAST(${text} AS text) AS jsonb)`;

/** timestamptz as the ISO text SQLite keeps (milliseconds, Z). */
const isoText = (e: Sql) => sql`to_char(${e} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const isPlainTimestamp = (ref: ColumnRef) => ref.column.type === "timestamp" && !ref.json.length;

const castType = (column: ColumnInfo) => column.sqlType ?? PG_TYPE_NAMES[column.type];

/** PostgREST's `*` wildcard → `%`; a backslash-escaped character stays escaped (LIKE's default escape). */
const likePattern = (p: string) => p.replace(/\\.|\*/g, (m) => (m === "*" ? "%" : m));

function jsonTest(e: Sql, op: JsonTestOp, value: string): Sql {
  const parsed: unknown = JSON.parse(value);
  const kind = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? "object" : "array";
  // A scalar operand is a one-element array, as jsonb's `array @> scalar`.
  const operand = jsonb(kind === "array" && !Array.isArray(parsed) ? JSON.stringify([parsed]) : value);
  const body =
    op === "contains"
      ? sql`${e} @> ${operand}`
      : op === "containedBy"
        ? sql`${e} <@ ${operand}`
        : kind === "array"
          ? sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${e}) AS l(v) WHERE ${operand} @> jsonb_build_array(l.v))`
          : sql`EXISTS (SELECT 1 FROM jsonb_each(${e}) AS l(k, v) WHERE ${operand} @> jsonb_build_object(l.k, l.v))`;
  // As on SQLite, a value of another JSON type matches nothing (CASE keeps it from the functions).
  return sql`(CASE WHEN jsonb_typeof(${e}) = ${kind} THEN ${body} ELSE false END)`;
}

export const PG_DIALECT: RestDialect = {
  name: "postgres",
  ident,
  true: raw("true"),
  false: raw("false"),
  inList: (expr, values, negated) => (negated ? sql`NOT (${expr} = ANY(${pgArray(values)}))` : sql`${expr} = ANY(${pgArray(values)})`),
  valueTable: (values, type: ColumnType, alias) => sql`unnest(CAST(${pgArray(values)} AS ${raw(PG_TYPE_NAMES[type])}[])) AS ${raw(alias ?? "v")}(value)`,
  bind: (value, type) => (type === "json" ? jsonb(value) : sql`${value}`),
  same: (a, b) => sql`${a} IS NOT DISTINCT FROM ${b}`,
  differs: (a, b) => sql`${a} IS DISTINCT FROM ${b}`,
  // The primary key (every exposed table has an `id`): a system column (ctid) would need table-wide
  // SELECT, which a table with an unreadable column does not grant (policies.pg.ts).
  rowId: "id",
  pageBeforeOutput: true,
  // Another transaction updating a target meanwhile is waited for, and its new row version is the
  // one written (a row id taken without the lock could name a version gone by then).
  lockTargets: raw(" FOR UPDATE"),
  enforcesRowSecurity: true,
  // xmax is 0 on a row version this statement created, and set on one an upsert updated.
  insertedFlag: raw("(xmax = 0)"),
  // statement_timeout (executor.pg.ts) stops statements.
  deadlineProbe: null,
  onConflict(target, update, guard) {
    const columns = joinSql(target.map(ident), ", ");
    if (!update?.length) return sql` ON CONFLICT (${columns}) DO NOTHING`;
    const set = joinSql(update.map((c) => sql`${ident(c)} = excluded.${ident(c)}`), ", ");
    return sql` ON CONFLICT (${columns}) DO UPDATE SET ${set}${guard ? sql` WHERE ${guard}` : raw("")}`;
  },
  constraintViolation,

  jsonPath(column, steps) {
    let chain = column;
    for (const step of steps) {
      const key = step.index ? sql`CAST(${Math.max(-1e9, Math.min(1e9, Number(step.key)))} AS integer)` : sql`CAST(${step.key} AS text)`;
      chain = sql`(${chain} ${raw(step.arrow === "->" ? "->" : "->>")} ${key})`;
    }
    return chain;
  },
  cast(e, to, ref) {
    if (to === "text") return isPlainTimestamp(ref) ? isoText(e) : sql`CAST(${e} AS text)`;
    if (to === "integer") return sql`CAST(${e} AS integer)`;
    if (to === "real") return sql`CAST(${e} AS double precision)`;
    return ref.column.type === "json" ? e : sql`to_jsonb(${e})`;
  },
  // Keys are text parameters: json_build_object takes any type, so they need the cast.
  jsonObject: (pairs) => sql`CAST(json_build_object(${joinSql(pairs.map(([key, value]) => sql`CAST(${key} AS text), ${value}`), ", ")}) AS text)`,
  jsonValue(e, ref) {
    if (ref.type === "timestamp" && isPlainTimestamp(ref) && !ref.cast) return isoText(e);
    return e;
  },
  stringAgg: "string_agg",
  derivedTable: (inner) => sql`(${inner}) AS d`,
  noLimit: null,
  like: (e, p, caseInsensitive) => sql`CAST(${e} AS text) ${raw(caseInsensitive ? "ILIKE" : "LIKE")} ${likePattern(p)}`,
  isBoolean: (e, value) => sql`${e} IS ${raw(value ? "TRUE" : "FALSE")}`,
  jsonTest,
  // Exact: Postgres has no cheap random row access by id (TABLESAMPLE reads by pages); counts past
  // the cap cost a scan of the matching rows.
  // The planner's estimate, as PostgREST's count=planned reads it (the policies' quals included).
  estimatedCount: (table, alias, where) => ({
    query: sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${table} AS ${alias} WHERE ${where}`,
    read(rows) {
      const value = rows[0]![0];
      const plans = (typeof value === "string" ? JSON.parse(value) : value) as { Plan: { "Plan Rows": number } }[];
      return Math.round(plans[0]!.Plan["Plan Rows"]);
    },
  }),
  insertSource: (rowsJson) => sql`jsonb_array_elements(${jsonb(rowsJson)}) AS r(value)`,
  insertValue(column, fallback) {
    const given = sql`CAST(r.value ->> CAST(${column.name} AS text) AS ${raw(castType(column))})`;
    return fallback ? sql`(CASE WHEN (r.value -> CAST(${column.name} AS text)) IS NULL THEN ${fallback} ELSE ${given} END)` : given;
  },
};
