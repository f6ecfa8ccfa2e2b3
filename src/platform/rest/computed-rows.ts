// Rows a function computes outside SQL (the insights RPCs) get what PostgREST applies to a
// set-returning function's rows: select (columns and aliases), filters on top-level columns
// (eq neq gt gte lt lte like ilike in is, not.), order, and the limit/offset range. Anything else
// (embeds, JSON paths, or=…) is refused with a PostgREST-style error rather than ignored.
import { AppError } from "../../http/errors";
import { checkLikePattern, limitExceeded, REST_LIMITS } from "./limits";
import type { Filter, QueryParams, Range, SelectItem } from "./parse";

type Row = Record<string, unknown>;

const unsupported = (what: string) => new AppError(400, "PGRST100", `${what} is not supported on this function's rows`, { hint: "Use select=col,alias:col, col=op.value filters, order and limit" });

function columnOf(field: { name: string; json: unknown[] }, known: Set<string>): string {
  if (field.json.length) throw unsupported("A JSON path");
  if (!known.has(field.name)) throw new AppError(400, "42703", `column ${field.name} does not exist`);
  return field.name;
}

function comparable(value: unknown, literal: string): [unknown, unknown] {
  if (typeof value === "number") return [value, Number(literal)];
  if (typeof value === "boolean") return [value, /^t(rue)?$/i.test(literal)];
  if (value !== null && typeof value === "object") return [JSON.stringify(value), literal];
  return [value, literal];
}

/**
 * SQL LIKE over one value (`%` or `*` any run of characters, `_` any one), without a regular
 * expression: wildcards turned into `.*` backtrack exponentially in their number (a pattern of thirty
 * `*` held a thread for minutes a row). This walks the value once, going back only to the last
 * wildcard: at most value length × pattern length steps, and the pattern is capped (limits.ts).
 */
export function likeMatches(value: string, pattern: string): boolean {
  const star = (i: number) => pattern[i] === "%" || pattern[i] === "*";
  let v = 0;
  let p = 0;
  let lastStar = -1;
  let resumeAt = 0;
  while (v < value.length) {
    if (p < pattern.length && !star(p) && (pattern[p] === "_" || pattern[p] === value[v])) {
      v++;
      p++;
    } else if (p < pattern.length && star(p)) {
      lastStar = p++;
      resumeAt = v;
    } else if (lastStar >= 0) {
      // The last wildcard takes one more character; the rest of the pattern is tried from there.
      p = lastStar + 1;
      v = ++resumeAt;
    } else return false;
  }
  while (p < pattern.length && star(p)) p++;
  return p === pattern.length;
}

function matches(row: Row, filter: Filter, known: Set<string>): boolean {
  const column = columnOf(filter.field, known);
  const value = row[column];
  const op = filter.operation;
  let result: boolean;
  if (op.kind === "is") result = op.value === "null" ? value === null || value === undefined : op.value === "unknown" ? value === null : value === (op.value === "true");
  else if (op.kind === "in") result = op.values.some((v) => comparable(value, v)[0] === comparable(value, v)[1]);
  else if (op.kind === "fts" || op.quantifier) throw unsupported(`The operator ${op.kind === "fts" ? op.op : `${op.op}(${op.quantifier})`}`);
  else {
    if (value === null || value === undefined) return false;
    const [a, b] = comparable(value, op.value) as [string | number | boolean, string | number | boolean];
    switch (op.op) {
      case "eq": result = a === b; break;
      case "neq": result = a !== b; break;
      case "gt": result = a > b; break;
      case "gte": result = a >= b; break;
      case "lt": result = a < b; break;
      case "lte": result = a <= b; break;
      // The patterns were checked against the limits once, before the rows (applyQuery).
      case "like": result = likeMatches(String(value), op.value); break;
      case "ilike": result = likeMatches(String(value).toLowerCase(), op.value.toLowerCase()); break;
      default: throw unsupported(`The operator ${op.op}`);
    }
  }
  return filter.negated ? !result : result;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const x = typeof a === "object" ? JSON.stringify(a) : String(a);
  const y = typeof b === "object" ? JSON.stringify(b) : String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The rows as the query asks for them, and how many there were before the range. */
export function applyQuery(rows: Row[], query: QueryParams, range: Range): { rows: Row[]; total: number } {
  // The columns are only needed to check names: a plain read (no select list, filter or order) skips collecting them.
  const named = query.filters.length > 0 || query.order.length > 0 || query.select.some((s) => s.kind !== "star");
  const known = named ? new Set(rows.flatMap((r) => Object.keys(r))) : new Set<string>();
  if (query.logic.length) throw unsupported("or=/and= logic");
  // The SQL path's limits (plan.ts), checked before any row is: a filter's cost is paid per row.
  if (query.filters.length > REST_LIMITS.filters) throw limitExceeded("54001", `too many filters (${query.filters.length})`, REST_LIMITS.filters);
  for (const { filter } of query.filters) {
    const op = filter.operation;
    if (op.kind === "in" && op.values.length > REST_LIMITS.inValues) throw limitExceeded("54023", `too many values in one in-list (${op.values.length})`, REST_LIMITS.inValues);
    if (op.kind === "op" && (op.op === "like" || op.op === "ilike")) checkLikePattern(op.value);
  }
  if (query.filters.some((f) => f.path.length) || query.order.some((o) => o.path.length) || query.ranges.some((r) => r.path.length)) throw unsupported("An embedded resource");
  // Unknown names are only detectable when there are rows to know the columns from.
  const check = known.size > 0;
  let out = rows.filter((row) => query.filters.every(({ filter }) => matches(row, filter, check ? known : new Set([filter.field.name]))));
  const terms = query.order.flatMap((o) => o.terms);
  if (terms.length) {
    for (const t of terms) if (t.relation) throw unsupported("Ordering by an embedded resource");
    const columns = terms.map((t) => (check ? columnOf(t.field, known) : t.field.name));
    out = [...out].sort((a, b) => {
      for (const [i, t] of terms.entries()) {
        const x = a[columns[i]!];
        const y = b[columns[i]!];
        const desc = t.direction === "desc";
        // Postgres: NULLS LAST for ascending, NULLS FIRST for descending, unless told.
        const nullsFirst = t.nulls ? t.nulls === "first" : desc;
        if ((x ?? null) === null || (y ?? null) === null) {
          if ((x ?? null) === (y ?? null)) continue;
          return (x ?? null) === null === nullsFirst ? -1 : 1;
        }
        const c = compare(x, y);
        if (c) return desc ? -c : c;
      }
      return 0;
    });
  }
  const total = out.length;
  out = out.slice(range.offset, range.limit === undefined ? undefined : range.offset + range.limit);
  return { rows: out.map((row) => project(row, query.select, check ? known : null)), total };
}

function project(row: Row, select: SelectItem[], known: Set<string> | null): Row {
  if (!select.length || select.some((s) => s.kind === "star")) {
    if (select.length > 1) throw unsupported("Mixing * with columns");
    return row;
  }
  const out: Row = {};
  for (const item of select) {
    if (item.kind !== "field") throw unsupported("An embedded resource");
    if (item.cast) throw unsupported("A cast");
    const column = known ? columnOf(item.field, known) : item.field.name;
    out[item.alias ?? column] = row[column] ?? null;
  }
  return out;
}
