// The SQLite dialect of /rest/v1's statements (dialect.ts says what each member is for).
import { DEADLINE_FUNCTION } from "./deadline";
import type { ColumnRef, ConstraintViolation, JsonTestOp, RestDialect } from "./dialect";
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

const valueList = (values: readonly unknown[]) => sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;

function jsonPathText(step: ColumnRef["json"][number]): string {
  if (!step.index) return `$."${step.key.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  const n = Math.max(-1e9, Math.min(1e9, Number(step.key)));
  return n < 0 ? `$[#${n}]` : `$[${n}]`;
}

/** Postgres LIKE pattern (with PostgREST's `*` for `%`) → case-sensitive GLOB pattern. */
function likeToGlob(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\" && i + 1 < pattern.length) {
      const next = pattern[++i];
      out += next === "*" || next === "?" || next === "[" ? `[${next}]` : next;
    } else if (ch === "%" || ch === "*") out += "*";
    else if (ch === "_") out += "?";
    else if (ch === "?" || ch === "[") out += `[${ch}]`;
    else out += ch;
  }
  return out;
}

function jsonTest(e: Sql, op: JsonTestOp, value: string): Sql {
  const parsed: unknown = JSON.parse(value);
  const kind = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? "object" : "array";
  // A scalar operand is a one-element array, as jsonb's `array @> scalar`.
  const rhs = kind === "array" && !Array.isArray(parsed) ? JSON.stringify([parsed]) : value;
  // Elements compare by type and value (and key, in objects). The operand's keys form an
  // uncorrelated IN list, which SQLite builds into an index once per statement: a row costs
  // O(n log m), not the O(n × m) of comparing every pair.
  const keyOf = (a: string) => raw(kind === "object" ? `(${a}.key || char(0) || ${a}.type || char(0) || coalesce(${a}.value, ''))` : `(${a}.type || char(0) || coalesce(${a}.value, ''))`);
  const operandKeys = sql`(SELECT ${keyOf("r")} FROM json_each(${rhs}) AS r)`;
  const body =
    op === "overlaps"
      ? sql`EXISTS (SELECT 1 FROM json_each(${e}) AS l WHERE ${keyOf("l")} IN ${operandKeys})`
      : op === "contains"
        ? sql`(SELECT count(DISTINCT ${keyOf("l")}) FROM json_each(${e}) AS l WHERE ${keyOf("l")} IN ${operandKeys}) = (SELECT count(DISTINCT ${keyOf("r")}) FROM json_each(${rhs}) AS r)`
        : sql`NOT EXISTS (SELECT 1 FROM json_each(${e}) AS l WHERE ${keyOf("l")} NOT IN ${operandKeys})`;
  // CASE evaluates lazily, so text that is not JSON never reaches json_each (which would throw).
  return sql`(CASE WHEN json_valid(${e}) AND json_type(${e}) = ${kind} THEN ${body} ELSE 0 END)`;
}

export const SQLITE_DIALECT: RestDialect = {
  name: "sqlite",
  ident,
  true: raw("1"),
  false: raw("0"),
  inList: (expr, values, negated) => sql`${expr} ${raw(negated ? "NOT IN" : "IN")} ${valueList(values)}`,
  valueTable: (values, _type, alias) => sql`json_each(${JSON.stringify(values)})${raw(alias ? ` AS ${alias}` : "")}`,
  bind: (value) => sql`${value}`,
  same: (a, b) => sql`${a} IS ${b}`,
  differs: (a, b) => sql`${a} IS NOT ${b}`,
  rowId: "rowid",
  pageBeforeOutput: false,
  lockTargets: null,
  enforcesRowSecurity: false,
  insertedFlag: null,
  deadlineProbe: raw(`${DEADLINE_FUNCTION}()`),
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
      const path = jsonPathText(step);
      chain =
        step.arrow === "->"
          ? sql`(${chain} -> ${path})`
          : // ->> yields text, as in Postgres ('true', '5'), not SQLite's native 1 / 5.
            sql`(CASE json_type(${chain}, ${path}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(${chain} ->> ${path} AS TEXT) END)`;
    }
    return sql`(CASE WHEN json_valid(${column}) THEN ${chain} END)`;
  },
  cast(e, to) {
    if (to === "text") return sql`CAST(${e} AS TEXT)`;
    if (to === "integer") return sql`CAST(${e} AS INTEGER)`;
    if (to === "real") return sql`CAST(${e} AS REAL)`;
    return e;
  },
  jsonObject: (pairs) => sql`json_object(${joinSql(pairs.map(([key, value]) => sql`${key}, ${value}`), ", ")})`,
  jsonValue(e, ref, trustJson) {
    if (ref.type === "boolean") return sql`json(CASE ${e} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END)`;
    if (ref.type === "json") return trustJson && !ref.json.length ? sql`json(${e})` : sql`(CASE WHEN json_valid(${e}) THEN json(${e}) ELSE ${e} END)`;
    return e;
  },
  stringAgg: "group_concat",
  derivedTable: (inner) => sql`(${inner})`,
  noLimit: -1,
  like: (e, p, caseInsensitive) => (caseInsensitive ? sql`${e} LIKE ${p.replaceAll("*", "%")} ESCAPE '\\'` : sql`${e} GLOB ${likeToGlob(p)}`),
  isBoolean: (e, value) => sql`${e} IS ${value ? 1 : 0}`,
  jsonTest,
  estimatedCount(table, alias, where, probes) {
    // The share of `probes` random rowids in 1..max(rowid) that hit a matching row, times
    // max(rowid) (probes that land on deleted rows miss, as they should): unbiased, and `probes`
    // point lookups whatever the table's size.
    const query = sql`WITH RECURSIVE probe(n, id) AS (SELECT 0, NULL UNION ALL SELECT n + 1, 1 + abs(random()) % (SELECT max(rowid) FROM ${table}) FROM probe WHERE n < ${probes})
    SELECT CAST(round((SELECT count(*) FROM probe AS pr JOIN ${table} AS ${alias} ON ${alias}.rowid = pr.id WHERE ${where}) * 1.0 / ${probes} * coalesce((SELECT max(rowid) FROM ${table}), 0)) AS INTEGER)`;
    return { query, read: (rows) => Number(rows[0]![0]) };
  },
  insertSource: (rowsJson) => sql`json_each(${rowsJson}) AS r`,
  insertValue(column, fallback) {
    const path = `$."${column.name}"`;
    const given = sql`(r.value ->> ${path})`;
    return fallback ? sql`(CASE WHEN json_type(r.value, ${path}) IS NULL THEN ${fallback} ELSE ${given} END)` : given;
  },
};
