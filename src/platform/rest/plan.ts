// Step 2 of /rest/v1 (DESIGN §5): ApiRequest + schema cache → a plan. Names become tables, columns
// and relationships here (PGRST200/108/118/120/204/205, 42703), and filter values become typed
// values (22P02, 22007). Nothing after this step sees a name the schema cache did not vouch for.
import { AppError } from "../../http/errors";
import { exposedPolicy, type Policies, type TablePolicy } from "./policies";
import { applyColumnRule, COLUMN_ALIASES, writtenColumn } from "./constraints";
import type { EmbedPath, Field, Filter, LogicTree, OrderTerm, Preferences, QueryParams, Range, SelectItem } from "./parse";
import { closestName, PG_TYPE_NAMES, type ColumnInfo, type ColumnType, type Relationship, type SchemaCache, type TableInfo } from "./schema-cache";
import { checkLikePattern, limitExceeded, REST_LIMITS } from "./limits";
import { checkEnum, fromJson, fromText, pgArrayLiteral, type SqlValue } from "./values";

export interface ColumnRef {
  column: ColumnInfo;
  json: Field["json"];
  cast?: "text" | "integer" | "real" | "json";
  /** The type of the expression after the JSON path and cast. */
  type: ColumnType;
}

export interface OutputColumn {
  key: string;
  ref: ColumnRef;
}

export type Test =
  | { kind: "compare"; op: "=" | "<>" | ">" | ">=" | "<" | "<="; values: SqlValue[]; quantifier?: "any" | "all" }
  | { kind: "like"; patterns: string[]; caseInsensitive: boolean; quantifier?: "any" | "all" }
  | { kind: "in"; values: SqlValue[] }
  | { kind: "is"; value: "null" | "true" | "false" }
  | { kind: "distinct"; value: SqlValue }
  | { kind: "json"; op: "contains" | "containedBy" | "overlaps"; value: string };

export type Condition =
  | { kind: "test"; ref: ColumnRef; negated: boolean; test: Test }
  | { kind: "logic"; op: "and" | "or"; negated: boolean; children: Condition[] }
  /** `rel=is.null` / `rel=not.is.null` on an embedded resource. */
  | { kind: "embedded"; embed: ReadPlan; exists: boolean };

export interface OrderBy {
  ref: ColumnRef;
  /** Set for `order=rel(col)`: the column belongs to this to-one embed. */
  via?: ReadPlan;
  descending: boolean;
  nullsFirst: boolean;
}

export interface ReadPlan {
  table: TableInfo;
  policy: TablePolicy;
  /** SQL alias of this level (t0, t1, …). */
  alias: string;
  /** JSON key in the parent (alias or relation name); "" for the root. */
  key: string;
  rel?: Relationship;
  inner: boolean;
  spread: boolean;
  columns: OutputColumn[];
  where: Condition[];
  order: OrderBy[];
  range: Range;
  embeds: ReadPlan[];
  /** Rows come from this SQL instead of the table (RPC results). */
  source?: { text: string; params: unknown[] };
}

export interface Planner {
  cache: SchemaCache;
  policies: Policies;
}

// ---- tables and columns -------------------------------------------------------------------------

export function resolveTable(p: Planner, name: string): { table: TableInfo; policy: TablePolicy } {
  const policy = exposedPolicy(p.policies, name);
  const table = policy && p.cache.tables.get(name);
  if (!policy || !table) {
    const exposed = [...p.cache.tables.keys()].filter((t) => exposedPolicy(p.policies, t));
    const near = closestName(exposed, name, 0.55);
    throw new AppError(404, "PGRST205", `Could not find the table 'public.${name}' in the schema cache`, { hint: near ? `Perhaps you meant the table 'public.${near}'` : null });
  }
  return { table, policy };
}

/** Columns a caller may read: `*` skips the unreadable ones, naming one is refused. */
function readableColumns(table: TableInfo, policy: TablePolicy): ColumnInfo[] {
  return table.columnList.filter((c) => !policy.unreadableColumns?.includes(c.name));
}

export function columnOf(table: TableInfo, policy: TablePolicy, name: string): ColumnInfo {
  const column = table.columns.get(name);
  if (!column) {
    const near = closestName(table.columns.keys(), name, 0.5);
    throw new AppError(400, "42703", `column ${table.name}.${name} does not exist`, { hint: near ? `Perhaps you meant to reference the column "${table.name}.${near}".` : null });
  }
  if (policy.unreadableColumns?.includes(name)) throw new AppError(403, "42501", `permission denied for table ${table.name}`);
  return column;
}

const CASTS: Record<string, ColumnRef["cast"]> = {
  text: "text", varchar: "text", "character varying": "text",
  int: "integer", int2: "integer", int4: "integer", int8: "integer", integer: "integer", bigint: "integer", smallint: "integer",
  numeric: "real", decimal: "real", real: "real", float: "real", float4: "real", float8: "real", "double precision": "real",
  json: "json", jsonb: "json",
};

function operatorMissing(left: ColumnType, op: string): AppError {
  // Postgres reports a missing operator as 42883, which PostgREST answers with 404.
  return new AppError(404, "42883", `operator does not exist: ${PG_TYPE_NAMES[left]} ${op} unknown`, {
    hint: "No operator matches the given name and argument types. You might need to add explicit type casts.",
  });
}

function columnRef(table: TableInfo, policy: TablePolicy, field: Field, cast?: string): ColumnRef {
  const column = columnOf(table, policy, field.name);
  if (field.json.length && column.type !== "json") throw operatorMissing(column.type, field.json[0].arrow);
  const textStep = field.json.findIndex((s) => s.arrow === "->>");
  if (textStep >= 0 && textStep < field.json.length - 1) throw operatorMissing("text", field.json[textStep + 1].arrow);
  let type: ColumnType = field.json.length ? (field.json.at(-1)!.arrow === "->>" ? "text" : "json") : column.type;
  let castTo: ColumnRef["cast"];
  if (cast !== undefined) {
    castTo = CASTS[cast.toLowerCase()];
    if (!castTo) throw new AppError(400, "PGRST127", "Feature not implemented", { details: `casting to '${cast}' is not supported` });
    type = castTo;
  }
  return { column, json: field.json, cast: castTo, type };
}

// ---- filters ----------------------------------------------------------------------------------

const COMPARISONS = { eq: "=", neq: "<>", gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;
const RANGE_OPERATORS: Record<string, string> = { sl: "<<", sr: ">>", nxr: "&<", nxl: "&>", adj: "-|-" };

function typedValue(table: TableInfo, ref: ColumnRef, text: string): SqlValue {
  const value = fromText(ref.type, text);
  return ref.json.length || ref.cast ? value : checkEnum(table.name, ref.column, value);
}

function checkOperandSize(count: number): void {
  if (count > REST_LIMITS.operandItems) throw limitExceeded("54023", `too many elements in one operand (${count})`, REST_LIMITS.operandItems);
}

/** cs/cd/ov operands: JSON, or a Postgres array literal `{a,b}` read as an array of strings. */
function jsonOperand(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const list = pgArrayLiteral(text);
    if (!list) throw new AppError(400, "22P02", "invalid input syntax for type json", { details: `Token "${text.slice(0, 40)}" is invalid.` });
    value = list;
  }
  checkOperandSize(value && typeof value === "object" ? Object.keys(value).length : 1);
  return JSON.stringify(value);
}

function quantifiedItems(text: string): string[] {
  const list = pgArrayLiteral(text);
  if (!list) throw new AppError(400, "22P02", `malformed array literal: ${JSON.stringify(text)}`, { details: 'Array value must start with "{" or dimension information.' });
  checkOperandSize(list.length);
  return list.map((v) => v ?? "");
}

function planFilter(node: ReadPlan, filter: Filter): Condition {
  const embed = !filter.field.json.length && node.embeds.find((e) => e.key === filter.field.name);
  if (embed) {
    const op = filter.operation;
    if (op.kind !== "is" || op.value !== "null")
      throw new AppError(400, "PGRST120", `Bad operator on the '${embed.key}' embedded resource`, { details: "Only is null or not is null filters are allowed on embedded resources" });
    return { kind: "embedded", embed, exists: filter.negated };
  }
  const ref = columnRef(node.table, node.policy, filter.field);
  const op = filter.operation;
  const test = ((): Test => {
    switch (op.kind) {
      case "in":
        if (op.values.length > REST_LIMITS.inValues) throw limitExceeded("54023", `too many values in one in-list (${op.values.length})`, REST_LIMITS.inValues);
        return { kind: "in", values: op.values.map((v) => typedValue(node.table, ref, v)) };
      case "is":
        if (op.value === "null" || (op.value === "unknown" && ref.type === "boolean")) return { kind: "is", value: "null" };
        if (ref.type !== "boolean") throw new AppError(400, "42804", `argument of IS ${op.value.toUpperCase()} must be type boolean, not type ${PG_TYPE_NAMES[ref.type]}`);
        return { kind: "is", value: op.value === "unknown" ? "null" : op.value };
      case "fts":
        throw new AppError(400, "PGRST127", "Feature not implemented", { details: `full-text search (${op.op}) is not supported` });
      case "op":
        break;
    }
    const items = op.quantifier ? quantifiedItems(op.value) : [op.value];
    switch (op.op) {
      case "eq": case "neq": case "gt": case "gte": case "lt": case "lte":
        return { kind: "compare", op: COMPARISONS[op.op], values: items.map((v) => typedValue(node.table, ref, v)), quantifier: op.quantifier };
      case "like": case "ilike":
        if (ref.type !== "text") throw operatorMissing(ref.type, op.op === "like" ? "~~" : "~~*");
        return { kind: "like", patterns: items.map(checkLikePattern), caseInsensitive: op.op === "ilike", quantifier: op.quantifier };
      case "isdistinct":
        return { kind: "distinct", value: typedValue(node.table, ref, op.value) };
      case "cs": case "cd": case "ov":
        if (ref.type !== "json") throw operatorMissing(ref.type, op.op === "cs" ? "@>" : op.op === "cd" ? "<@" : "&&");
        return { kind: "json", op: op.op === "cs" ? "contains" : op.op === "cd" ? "containedBy" : "overlaps", value: jsonOperand(op.value) };
      case "match": case "imatch":
        throw new AppError(400, "PGRST127", "Feature not implemented", { details: "regular-expression filters (match, imatch) are not supported" });
      default:
        throw operatorMissing(ref.type, RANGE_OPERATORS[op.op]);
    }
  })();
  return { kind: "test", ref, negated: filter.negated, test };
}

function planLogic(node: ReadPlan, tree: LogicTree): Condition {
  if (tree.kind === "filter") return planFilter(node, tree.filter);
  return { kind: "logic", op: tree.op, negated: tree.negated, children: tree.children.map((c) => planLogic(node, c)) };
}

// ---- select and embeds ------------------------------------------------------------------------

function notEmbedded(name: string): AppError {
  return new AppError(400, "PGRST108", `'${name}' is not an embedded resource in this request`, { hint: `Verify that '${name}' is included in the 'select' query parameter.` });
}

function relationshipFor(p: Planner, parent: TableInfo, name: string, hint: string | undefined): Relationship {
  const visible = p.cache.relationshipsOf(parent.name).filter((r) => exposedPolicy(p.policies, r.table));
  let found = visible.filter((r) => r.table === name);
  // PostgREST also embeds through a foreign-key column: `select=*,brand_id(*)`.
  if (!found.length) found = visible.filter((r) => r.toOne && r.parentColumn === name);
  if (hint !== undefined) found = found.filter((r) => r.fk.name === hint || r.parentColumn === hint || r.childColumn === hint);
  if (found.length === 1) return found[0];
  if (found.length > 1)
    throw new AppError(300, "PGRST201", `Could not embed because more than one relationship was found for '${parent.name}' and '${name}'`, {
      details: found.map((r) => ({ cardinality: r.toOne ? "many-to-one" : "one-to-many", embedding: `${parent.name} with ${r.table}`, relationship: `${r.fk.name} using ${r.fk.table}(${r.fk.column}) and ${r.fk.refTable}(${r.fk.refColumn})` })),
      hint: `Try changing '${name}' to one of the following: ${found.map((r) => `'${r.table}!${r.fk.name}'`).join(", ")}. Find the desired relationship in the 'details' key.`,
    });
  const near = closestName(new Set(visible.map((r) => r.table)), name, 0.33);
  throw new AppError(400, "PGRST200", `Could not find a relationship between '${parent.name}' and '${name}' in the schema cache`, {
    details: `Searched for a foreign key relationship between '${parent.name}' and '${name}'${hint !== undefined ? ` using the hint '${hint}'` : ""} in the schema 'public', but no matches were found.`,
    hint: near ? `Perhaps you meant '${near}' instead of '${name}'.` : null,
  });
}

function outputKey(item: Extract<SelectItem, { kind: "field" }>): string {
  if (item.alias !== undefined) return item.alias;
  const last = item.field.json.at(-1);
  return last && !last.index ? last.key : item.field.name;
}

function planSelect(p: Planner, node: ReadPlan, items: SelectItem[], nextAlias: () => string, depth = 0): void {
  if (depth > REST_LIMITS.embedDepth) throw limitExceeded("54001", `embeds nested deeper than ${REST_LIMITS.embedDepth} levels`, REST_LIMITS.embedDepth);
  for (const item of items) {
    if (item.kind === "star") {
      for (const column of readableColumns(node.table, node.policy)) node.columns.push({ key: column.name, ref: { column, json: [], type: column.type } });
    } else if (item.kind === "field") {
      node.columns.push({ key: outputKey(item), ref: columnRef(node.table, node.policy, item.field, item.cast) });
    } else {
      const rel = relationshipFor(p, node.table, item.relation, item.hint);
      const { table, policy } = resolveTable(p, rel.table);
      if (item.spread && !rel.toOne)
        throw new AppError(400, "PGRST127", "Feature not implemented", { details: `spreading the to-many relationship '${item.relation}' is not supported` });
      const child = emptyNode(table, policy, nextAlias(), item.alias ?? item.relation);
      Object.assign(child, { rel, inner: item.inner, spread: item.spread });
      planSelect(p, child, item.items, nextAlias, depth + 1);
      node.embeds.push(child);
    }
  }
  if (node.columns.length > REST_LIMITS.columns) throw limitExceeded("54011", `too many columns selected (${node.columns.length})`, REST_LIMITS.columns);
}

function countConditions(tree: LogicTree): number {
  return tree.kind === "filter" ? 1 : tree.children.reduce((n, c) => n + countConditions(c), 0);
}

function checkRequestSize(query: QueryParams, aliases: number): void {
  const filters = query.filters.length + query.logic.reduce((n, l) => n + countConditions(l.tree), 0);
  if (filters > REST_LIMITS.filters) throw limitExceeded("54001", `too many filters (${filters})`, REST_LIMITS.filters);
  if (aliases - 1 > REST_LIMITS.embeds) throw limitExceeded("54001", `too many embedded resources (${aliases - 1})`, REST_LIMITS.embeds);
}

function emptyNode(table: TableInfo, policy: TablePolicy, alias: string, key: string): ReadPlan {
  return { table, policy, alias, key, inner: false, spread: false, columns: [], where: [], order: [], range: { offset: 0 }, embeds: [] };
}

function nodeAt(root: ReadPlan, path: EmbedPath): ReadPlan {
  let node = root;
  for (const name of path) node = node.embeds.find((e) => e.key === name) ?? (() => { throw notEmbedded(name); })();
  return node;
}

function planOrder(node: ReadPlan, term: OrderTerm): OrderBy {
  let target = node;
  if (term.relation !== undefined) {
    target = node.embeds.find((e) => e.key === term.relation) ?? (() => { throw notEmbedded(term.relation!); })();
    if (!target.rel?.toOne)
      throw new AppError(400, "PGRST118", `A related order on '${term.relation}' is not possible`, { details: `'${node.table.name}' and '${term.relation}' do not form a many-to-one or one-to-one relationship` });
  }
  const descending = term.direction === "desc";
  // Postgres' defaults: NULLS LAST ascending, NULLS FIRST descending.
  const nullsFirst = term.nulls ? term.nulls === "first" : descending;
  return { ref: columnRef(target.table, target.policy, term.field), via: target === node ? undefined : target, descending, nullsFirst };
}

/**
 * Caps every level of a read at `maxRows` (REST_MAX_ROWS, as PostgREST's db-max-rows): the root's
 * rows, and each embed's rows per parent row; a smaller limit asked for stays.
 */
export function capRows(node: ReadPlan, maxRows: number): ReadPlan {
  node.range = { ...node.range, limit: Math.min(node.range.limit ?? maxRows, maxRows) };
  for (const embed of node.embeds) capRows(embed, maxRows);
  return node;
}

/** The read plan of `table` for this query string; `topRange` is the root's limit/offset with the Range header. */
export function planRead(p: Planner, tableName: string, query: QueryParams, topRange: Range): ReadPlan {
  const { table, policy } = resolveTable(p, tableName);
  let aliases = 0;
  const nextAlias = () => `t${aliases++}`;
  const root = emptyNode(table, policy, nextAlias(), "");
  planSelect(p, root, query.select, nextAlias);
  checkRequestSize(query, aliases);
  for (const { path, filter } of query.filters) {
    const node = nodeAt(root, path);
    node.where.push(planFilter(node, filter));
  }
  for (const { path, tree } of query.logic) {
    const node = nodeAt(root, path);
    node.where.push(planLogic(node, tree));
  }
  for (const { path, terms } of query.order) {
    const node = nodeAt(root, path);
    node.order.push(...terms.map((t) => planOrder(node, t)));
  }
  for (const { path, range } of query.ranges) if (path.length) nodeAt(root, path).range = range;
  root.range = topRange;
  return root;
}

// ---- writes -----------------------------------------------------------------------------------

export interface InsertPlan {
  table: TableInfo;
  policy: TablePolicy;
  columns: ColumnInfo[];
  /** Typed rows keyed by column name; a listed column missing from a row is absent. */
  rows: Record<string, SqlValue>[];
  missingDefault: boolean;
  onConflict?: { columns: string[]; merge: boolean };
}

function unknownPayloadColumn(table: TableInfo, name: string): AppError {
  return new AppError(400, "PGRST204", `Could not find the '${name}' column of '${table.name}' in the schema cache`);
}

function payloadColumns(table: TableInfo, names: string[]): ColumnInfo[] {
  return [...new Set(names)].map((name) => table.columns.get(name) ?? (() => { throw unknownPayloadColumn(table, name); })());
}

function typedRow(table: TableInfo, columns: ColumnInfo[], row: Record<string, unknown>): Record<string, SqlValue> {
  const typed: Record<string, SqlValue> = {};
  for (const column of columns)
    if (Object.hasOwn(row, column.name)) typed[column.name] = applyColumnRule(table.name, column, fromJson(table.name, column, row[column.name]));
  return typed;
}

/**
 * A payload in answerwatch's own column names: an alias (api_model) becomes the column it names
 * (model); giving both with different values is refused.
 */
function unaliased(table: TableInfo, row: Record<string, unknown>): Record<string, unknown> {
  const aliases = COLUMN_ALIASES[table.name];
  if (!aliases || !Object.keys(row).some((k) => Object.hasOwn(aliases, k))) return row;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    const name = writtenColumn(table.name, key);
    if (Object.hasOwn(out, name) && JSON.stringify(out[name]) !== JSON.stringify(value))
      throw new AppError(400, "22023", `${key} and ${name} name the same column of ${table.name} and were given different values`);
    out[name] = value;
  }
  return out;
}

function payloadObjects(payload: unknown): Record<string, unknown>[] {
  const list = Array.isArray(payload) ? payload : [payload];
  if (list.some((o) => !o || typeof o !== "object" || Array.isArray(o))) throw new AppError(400, "PGRST102", "All object keys must match");
  return list as Record<string, unknown>[];
}

export function planInsert(p: Planner, tableName: string, query: QueryParams, prefs: Preferences, payload: unknown): InsertPlan {
  const { table, policy } = resolveTable(p, tableName);
  const objects = payloadObjects(payload).map((o) => unaliased(table, o));
  const columns = payloadColumns(table, (query.columns ?? Object.keys(objects[0] ?? {})).map((c) => writtenColumn(table.name, c)));
  let onConflict: InsertPlan["onConflict"];
  if (prefs.resolution) {
    const names = query.onConflict ?? table.primaryKey;
    for (const name of names) columnOf(table, policy, name);
    const key = table.uniqueKeys.find((k) => k.columns.length === names.length && k.columns.every((c) => names.includes(c)));
    if (!key) throw new AppError(400, "42P10", "there is no unique or exclusion constraint matching the ON CONFLICT specification");
    onConflict = { columns: key.columns, merge: prefs.resolution === "merge-duplicates" };
  }
  return { table, policy, columns, rows: objects.map((o) => typedRow(table, columns, o)), missingDefault: prefs.missing === "default", onConflict };
}

/** PATCH: the columns to set (typed and checked); the rows come from the read plan's filters. */
export function planUpdate(p: Planner, tableName: string, query: QueryParams, payload: unknown): [ColumnInfo, SqlValue][] {
  const { table } = resolveTable(p, tableName);
  const objects = payloadObjects(payload).map((o) => unaliased(table, o));
  if (objects.length !== 1) throw new AppError(400, "PGRST102", "A PATCH body must be one JSON object");
  const columns = payloadColumns(table, (query.columns ?? Object.keys(objects[0])).map((c) => writtenColumn(table.name, c)));
  const row = typedRow(table, columns, objects[0]);
  return columns.filter((c) => Object.hasOwn(row, c.name)).map((c) => [c, row[c.name]]);
}
