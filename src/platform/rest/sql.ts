// Step 4 of /rest/v1 (DESIGN §5): plans → parameterized statements. What differs by backend comes
// from the context's dialect (dialect.ts: lists, row id, deadline probe, upsert); the JSON
// building and operators below are still SQLite's and move behind it with the Postgres dialect.
// Identifiers come only from the schema cache (via ident/col); every value, JSON key and JSON path
// is a bound parameter. A read costs one statement per embed level: children are fetched for all
// parents at once (`fk IN <one bound list>`) and their JSON is built by the database itself.
import type { Caller } from "../auth/caller";
import type { RestDialect } from "./dialect";
import type { Condition, OrderBy, ReadPlan, Test } from "./plan";
import type { ColumnRef } from "./plan";
import { organizationOf, scopePredicate, type Action, type Policies } from "./policies";
import type { ColumnInfo, ForeignKey, SchemaCache, TableInfo } from "./schema-cache";
import { ident, joinSql, raw, Sql, sql } from "./sql-fragment";
import type { SqlValue } from "./values";

export { ident, joinSql, Sql, sql } from "./sql-fragment";

const col = (alias: string, name: string) => sql`${ident(alias)}.${ident(name)}`;

/** a AND b AND … as a balanced tree, so hundreds of filters stay far below SQLite's depth limit. */
function balanced(parts: Sql[], op: "AND" | "OR"): Sql {
  if (parts.length === 0) return raw(op === "AND" ? "1" : "0");
  if (parts.length === 1) return parts[0];
  const mid = parts.length >> 1;
  return sql`(${balanced(parts.slice(0, mid), op)} ${raw(op)} ${balanced(parts.slice(mid), op)})`;
}

export interface SqlContext {
  /** The backend's SQL (dialect.ts). */
  dialect: RestDialect;
  cache: SchemaCache;
  policies: Policies;
  caller: Caller;
  /**
   * Render JSON columns with a bare json(): stored JSON is trusted, which is the fast path. When
   * some row holds text that is not JSON, the read is re-run with this off (guarded by json_valid).
   */
  trustJson?: boolean;
}

// ---- expressions ------------------------------------------------------------------------------

function jsonPathText(step: ColumnRef["json"][number]): string {
  if (!step.index) return `$."${step.key.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  const n = Math.max(-1e9, Math.min(1e9, Number(step.key)));
  return n < 0 ? `$[#${n}]` : `$[${n}]`;
}

function refExpr(alias: string, ref: ColumnRef): Sql {
  let e = ref.column.readSql ? raw(ref.column.readSql.replaceAll("{t}", ident(alias).text)) : col(alias, ref.column.name);
  if (ref.json.length) {
    let chain = e;
    for (const step of ref.json) {
      const path = jsonPathText(step);
      chain =
        step.arrow === "->"
          ? sql`(${chain} -> ${path})`
          : // ->> yields text, as in Postgres ('true', '5'), not SQLite's native 1 / 5.
            sql`(CASE json_type(${chain}, ${path}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(${chain} ->> ${path} AS TEXT) END)`;
    }
    e = sql`(CASE WHEN json_valid(${e}) THEN ${chain} END)`;
  }
  if (ref.cast === "text") e = sql`CAST(${e} AS TEXT)`;
  else if (ref.cast === "integer") e = sql`CAST(${e} AS INTEGER)`;
  else if (ref.cast === "real") e = sql`CAST(${e} AS REAL)`;
  return e;
}

/** The value as it should appear in JSON: booleans as true/false, JSON columns as JSON. */
function outputExpr(ctx: SqlContext, alias: string, ref: ColumnRef): Sql {
  const e = refExpr(alias, ref);
  if (ref.type === "boolean") return sql`json(CASE ${e} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END)`;
  if (ref.type === "json") return ctx.trustJson !== false && !ref.json.length ? sql`json(${e})` : sql`(CASE WHEN json_valid(${e}) THEN json(${e}) ELSE ${e} END)`;
  return e;
}

// json_object takes at most 127 arguments in some SQLite builds; longer selects are built in chunks.
const JSON_OBJECT_PAIRS = 50;

function jsonObject(ctx: SqlContext, node: ReadPlan): Sql {
  if (!node.columns.length) return raw("'{}'");
  const chunks: Sql[] = [];
  for (let i = 0; i < node.columns.length; i += JSON_OBJECT_PAIRS) {
    const pairs = node.columns.slice(i, i + JSON_OBJECT_PAIRS).map((c) => sql`${c.key}, ${outputExpr(ctx, node.alias, c.ref)}`);
    chunks.push(sql`json_object(${joinSql(pairs, ", ")})`);
  }
  if (chunks.length === 1) return chunks[0];
  // Each chunk's members without its braces, joined once: the expression grows linearly with the
  // number of columns (nesting one chunk inside the next doubled it at every step).
  const members = chunks.map((chunk) => sql`substr(${chunk}, 2, length(${chunk}) - 2)`);
  return sql`('{' || ${joinSql(members, " || ',' || ")} || '}')`;
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

function jsonTest(e: Sql, op: "contains" | "containedBy" | "overlaps", value: string): Sql {
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

function testSql(e: Sql, test: Test): Sql {
  switch (test.kind) {
    case "compare": {
      const one = (v: SqlValue) => sql`${e} ${raw(test.op)} ${v}`;
      if (!test.quantifier) return one(test.values[0]);
      return balanced(test.values.map(one), test.quantifier === "any" ? "OR" : "AND");
    }
    case "like": {
      const one = (p: string) => (test.caseInsensitive ? sql`${e} LIKE ${p.replaceAll("*", "%")} ESCAPE '\\'` : sql`${e} GLOB ${likeToGlob(p)}`);
      if (!test.quantifier) return one(test.patterns[0]);
      return balanced(test.patterns.map(one), test.quantifier === "any" ? "OR" : "AND");
    }
    case "in":
      return sql`${e} IN (SELECT value FROM json_each(${JSON.stringify(test.values)}))`;
    case "is":
      return test.value === "null" ? sql`${e} IS NULL` : sql`${e} IS ${test.value === "true" ? 1 : 0}`;
    case "distinct":
      return sql`${e} IS NOT ${test.value}`;
    case "json":
      return jsonTest(e, test.op, test.value);
  }
}

function conditionSql(ctx: SqlContext, node: ReadPlan, condition: Condition): Sql {
  let body: Sql;
  if (condition.kind === "embedded") {
    const exists = existsSql(ctx, condition.embed, node.alias);
    return condition.exists ? exists : sql`NOT ${exists}`;
  }
  if (condition.kind === "test") body = testSql(refExpr(node.alias, condition.ref), condition.test);
  else body = balanced(condition.children.map((c) => conditionSql(ctx, node, c)), condition.op === "and" ? "AND" : "OR");
  return condition.negated ? sql`NOT (${body})` : body;
}

function source(node: ReadPlan): Sql {
  return node.source ? sql`(${new Sql(node.source.text, node.source.params)})` : ident(node.table.name);
}

function rls(ctx: SqlContext, node: ReadPlan, action: Action): Sql | null {
  const scoped = scopePredicate(ctx.cache, ctx.policies, ctx.caller, node.table.name, action, col(node.alias, node.policy.scope));
  const own = node.policy.ownRows;
  if (!scoped || !own?.actions.includes(action) || !ctx.caller.user) return scoped;
  return sql`(${scoped} OR ${col(node.alias, own.column)} = ${ctx.caller.user.id})`;
}

/**
 * A to-many embed whose scope column is its link to the parent (brand_domains.brand_id → brands.id)
 * is visible exactly when its parent is, under the same read roles: the parent level already
 * applied the policy, so the child level need not repeat it.
 */
function policyImpliedByParent(ctx: SqlContext, node: ReadPlan): boolean {
  const rel = node.rel;
  if (!rel || rel.toOne || node.policy.scope !== rel.childColumn) return false;
  const parent = ctx.policies[rel.fk.refTable];
  return (node.policy.read ?? null) === (parent?.read ?? null);
}

/**
 * Everything a row of this level must satisfy: RLS, its filters, and its !inner embeds — and the
 * request's deadline, checked on every row looked at (deadline.ts).
 */
function levelConditions(ctx: SqlContext, node: ReadPlan, action: Action = "read"): Sql[] {
  const conditions = node.where.map((c) => conditionSql(ctx, node, c));
  for (const embed of node.embeds) if (embed.inner) conditions.push(existsSql(ctx, embed, node.alias));
  const policy = policyImpliedByParent(ctx, node) ? null : rls(ctx, node, action);
  const probe = ctx.dialect.deadlineProbe;
  return [...(probe ? [probe] : []), ...(policy ? [policy] : []), ...conditions];
}

function existsSql(ctx: SqlContext, child: ReadPlan, parentAlias: string): Sql {
  const link = sql`${col(child.alias, child.rel!.childColumn)} = ${col(parentAlias, child.rel!.parentColumn)}`;
  return sql`EXISTS (SELECT 1 FROM ${source(child)} AS ${ident(child.alias)} WHERE ${balanced([link, ...levelConditions(ctx, child)], "AND")})`;
}

function orderSql(ctx: SqlContext, node: ReadPlan, order: OrderBy[]): Sql | null {
  if (!order.length) return null;
  const terms = order.map((o) => {
    let e = refExpr(o.via?.alias ?? node.alias, o.ref);
    if (o.via) {
      const link = sql`${col(o.via.alias, o.via.rel!.childColumn)} = ${col(node.alias, o.via.rel!.parentColumn)}`;
      const policy = rls(ctx, o.via, "read");
      e = sql`(SELECT ${e} FROM ${source(o.via)} AS ${ident(o.via.alias)} WHERE ${balanced(policy ? [link, policy] : [link], "AND")})`;
    }
    return sql`${e} ${raw(o.descending ? "DESC" : "ASC")} ${raw(o.nullsFirst ? "NULLS FIRST" : "NULLS LAST")}`;
  });
  return joinSql(terms, ", ");
}

const orderClause = (order: Sql | null) => (order ? sql` ORDER BY ${order}` : raw(""));

// ---- reads ------------------------------------------------------------------------------------

/** Hidden result columns: the values children link to (one per embed, in embed order). */
function linkColumns(node: ReadPlan): Sql {
  return joinSql(node.embeds.map((e, i) => sql`, ${col(node.alias, e.rel!.parentColumn)} AS ${ident(`l${i}`)}`), "");
}

export interface RootOptions {
  action?: Action;
  /** Restrict the root to these rowids (the rows a mutation touched) instead of its filters. */
  rowids?: number[];
  paginate?: boolean;
}

function rootConditions(ctx: SqlContext, root: ReadPlan, options: RootOptions): Sql {
  const conditions = levelConditions(ctx, options.rowids ? { ...root, where: [] } : root, options.action);
  if (options.rowids) conditions.push(sql`${ident(root.alias)}.${raw(ctx.dialect.rowId)} IN ${ctx.dialect.valueList(options.rowids)}`);
  return balanced(conditions, "AND");
}

function limitClause(range: ReadPlan["range"]): Sql {
  return sql` LIMIT ${range.limit ?? -1} OFFSET ${range.offset}`;
}

/** Root rows: [json, link values…] in the requested order and page. */
export function rootQuery(ctx: SqlContext, root: ReadPlan, options: RootOptions = {}): Sql {
  const where = rootConditions(ctx, root, options);
  const page = options.paginate === false ? raw("") : limitClause(root.range);
  return sql`SELECT ${jsonObject(ctx, root)}${linkColumns(root)} FROM ${source(root)} AS ${ident(root.alias)} WHERE ${where}${orderClause(orderSql(ctx, root, root.order))}${page}`;
}

export function countQuery(ctx: SqlContext, root: ReadPlan): Sql {
  return sql`SELECT count(*) FROM ${source(root)} AS ${ident(root.alias)} WHERE ${rootConditions(ctx, root, {})}`;
}

/** count(*) that stops after `cap` + 1 rows. */
export function cappedCountQuery(ctx: SqlContext, root: ReadPlan, cap: number): Sql {
  return sql`SELECT count(*) FROM (SELECT 1 FROM ${source(root)} AS ${ident(root.alias)} WHERE ${rootConditions(ctx, root, {})} LIMIT ${cap + 1})`;
}

/**
 * An unbiased estimate of the matching rows of a table: the share of `probes` random rowids in
 * 1..max(rowid) that hit a matching row, times max(rowid) (probes that land on deleted rows miss,
 * as they should). Costs `probes` point lookups whatever the table's size.
 */
export function sampledCountQuery(ctx: SqlContext, root: ReadPlan, probes: number): Sql {
  const alias = ident(root.alias);
  const table = ident(root.table.name);
  return sql`WITH RECURSIVE probe(n, id) AS (SELECT 0, NULL UNION ALL SELECT n + 1, 1 + abs(random()) % (SELECT max(rowid) FROM ${table}) FROM probe WHERE n < ${probes})
    SELECT CAST(round((SELECT count(*) FROM probe AS pr JOIN ${table} AS ${alias} ON ${alias}.rowid = pr.id WHERE ${rootConditions(ctx, root, {})}) * 1.0 / ${probes} * coalesce((SELECT max(rowid) FROM ${table}), 0)) AS INTEGER)`;
}

/** Rowids of the rows a PATCH/DELETE targets (its filters, RLS of the action, order and limit). */
export function targetQuery(ctx: SqlContext, root: ReadPlan, action: Action): Sql {
  const where = rootConditions(ctx, { ...root, embeds: root.embeds.filter((e) => e.inner) }, { action });
  const page = root.range.limit !== undefined || root.range.offset ? limitClause(root.range) : raw("");
  return sql`SELECT ${ident(root.alias)}.rowid FROM ${ident(root.table.name)} AS ${ident(root.alias)} WHERE ${where}${orderClause(orderSql(ctx, root, root.order))}${page}`;
}

/**
 * One embed level for all parent keys at once. A to-many level without embeds of its own comes
 * back aggregated, one row per parent: [key, '[…]']. Otherwise one row per child: [key, json, links…].
 */
export function childQuery(ctx: SqlContext, node: ReadPlan, parentKeys: SqlValue[]): Sql {
  const key = col(node.alias, node.rel!.childColumn);
  const where = balanced([sql`${key} IN ${ctx.dialect.valueList(parentKeys)}`, ...levelConditions(ctx, node)], "AND");
  const from = sql`FROM ${source(node)} AS ${ident(node.alias)} WHERE ${where}`;
  const order = orderSql(ctx, node, node.order);
  if (node.rel!.toOne) return sql`SELECT ${key}, ${jsonObject(ctx, node)}${linkColumns(node)} ${from}`;
  const leaf = node.embeds.length === 0;
  const { offset, limit } = node.range;
  if (offset === 0 && limit === undefined) {
    if (leaf) return sql`SELECT ${key}, '[' || group_concat(${jsonObject(ctx, node)}, ','${orderClause(order)}) || ']' ${from} GROUP BY ${key}`;
    return sql`SELECT ${key}, ${jsonObject(ctx, node)}${linkColumns(node)} ${from}${orderClause(order)}`;
  }
  // A per-parent page: number the children of each parent, keep the window.
  const links = joinSql(node.embeds.map((_, i) => sql`, ${ident(`l${i}`)}`), "");
  const numbered = sql`SELECT ${key} AS k, ${jsonObject(ctx, node)} AS j${linkColumns(node)}, row_number() OVER (PARTITION BY ${key}${orderClause(order)}) AS n ${from}`;
  const window = sql`FROM (${numbered}) WHERE n > ${offset} AND n <= ${limit === undefined ? Number.MAX_SAFE_INTEGER : offset + limit}`;
  if (leaf) return sql`SELECT k, '[' || group_concat(j, ',' ORDER BY n) || ']' ${window} GROUP BY k`;
  return sql`SELECT k, j${links} ${window} ORDER BY n`;
}

// ---- writes -----------------------------------------------------------------------------------

export interface InsertStatement {
  table: TableInfo;
  columns: ColumnInfo[];
  /** One JSON object per row, keyed by column name; a missing key means "not given". */
  rows: Record<string, SqlValue>[];
  missingDefault: boolean;
  onConflict?: { columns: string[]; merge: boolean; updateGuard: Sql | null };
  dialect: RestDialect;
}

/** INSERT … SELECT over json_each(one parameter): one statement whatever the number of rows. */
export function insertQuery(s: InsertStatement): Sql {
  const names = joinSql(s.columns.map((c) => ident(c.name)), ", ");
  const values = joinSql(
    s.columns.map((c) => {
      const path = `$."${c.name}"`;
      const given = sql`(r.value ->> ${path})`;
      if (!s.missingDefault || !c.defaultSql) return given;
      const fallback = new Sql(c.defaultSql.sql, c.defaultSql.params);
      return sql`(CASE WHEN json_type(r.value, ${path}) IS NULL THEN ${fallback} ELSE ${given} END)`;
    }),
    ", ",
  );
  let conflict = raw("");
  if (s.onConflict) {
    const updates = s.columns.filter((c) => !s.onConflict!.columns.includes(c.name)).map((c) => c.name);
    conflict = s.dialect.onConflict(s.onConflict.columns, s.onConflict.merge ? updates : null, s.onConflict.updateGuard);
  }
  // "WHERE true" keeps SQLite from reading ON CONFLICT as a join constraint of the SELECT.
  return sql`INSERT INTO ${ident(s.table.name)} (${names}) SELECT ${values} FROM json_each(${JSON.stringify(s.rows)}) AS r WHERE true${conflict} RETURNING rowid`;
}

export function updateQuery(ctx: SqlContext, root: ReadPlan, set: [ColumnInfo, SqlValue][]): Sql {
  const assignments = joinSql(set.map(([c, v]) => sql`${ident(c.name)} = ${v}`), ", ");
  return sql`UPDATE ${ident(root.table.name)} SET ${assignments} WHERE rowid IN (${targetQuery(ctx, root, "update")}) RETURNING rowid`;
}

export function deleteQuery(table: TableInfo, rowids: number[]): Sql {
  return sql`DELETE FROM ${ident(table.name)} WHERE rowid IN (SELECT value FROM json_each(${JSON.stringify(rowids)}))`;
}

/** Rows (as `value`) of a JSON list that fail the policy predicate: the WITH CHECK of a write. */
export function withCheckQuery(ctx: SqlContext, table: TableInfo, action: Action, scopeValues: SqlValue[]): Sql | null {
  const predicate = scopePredicate(ctx.cache, ctx.policies, ctx.caller, table.name, action, raw("v.value"));
  if (!predicate) return null;
  return sql`SELECT v.value FROM json_each(${JSON.stringify(scopeValues)}) AS v WHERE NOT coalesce(${predicate}, 0) LIMIT 1`;
}

const rowidList = (ctx: SqlContext, rowids: number[]) => sql`${raw(ctx.dialect.rowId)} IN ${ctx.dialect.valueList(rowids)}`;

/**
 * The WITH CHECK of a write on the rows as written (Postgres checks the final row, columns a
 * trigger derived from another row included): the first of `rowids` outside the caller's rights.
 */
export function finalRowCheckQuery(ctx: SqlContext, table: TableInfo, scope: string, action: Action, rowids: number[]): Sql | null {
  const predicate = scopePredicate(ctx.cache, ctx.policies, ctx.caller, table.name, action, col(table.name, scope));
  if (!predicate) return null;
  return sql`SELECT 1 FROM ${ident(table.name)} WHERE ${rowidList(ctx, rowids)} AND NOT coalesce(${predicate}, 0) LIMIT 1`;
}

/**
 * The first of `rowids` whose foreign key points at a row of another brand (when both tables carry
 * brand_id) or another organization: a reference never crosses the owner of the row holding it.
 */
export function crossOwnerReferenceQuery(ctx: SqlContext, table: TableInfo, fk: ForeignKey, rowids: number[]): Sql {
  const parent = ctx.cache.tables.get(fk.refTable)!;
  const sameBrand = table.columns.has("brand_id") && parent.columns.has("brand_id");
  const differs = sameBrand
    ? sql`p."brand_id" IS NOT c."brand_id"`
    : sql`${organizationOf(ctx.cache, ctx.policies, parent.name, "p")} IS NOT ${organizationOf(ctx.cache, ctx.policies, table.name, "c")}`;
  return sql`SELECT 1 FROM ${ident(table.name)} AS c JOIN ${ident(fk.refTable)} AS p ON p.${ident(fk.refColumn)} = c.${ident(fk.column)} WHERE c.${rowidList(ctx, rowids)} AND ${differs} LIMIT 1`;
}

/**
 * The first row of `child` that refers (through `fk`) to one of the parent rows `rowids` but sits in
 * another brand or organization: a parent moved away from rows that still point at it.
 */
export function crossOwnerReferrerQuery(ctx: SqlContext, child: TableInfo, fk: ForeignKey, parent: TableInfo, rowids: number[]): Sql {
  const sameBrand = child.columns.has("brand_id") && parent.columns.has("brand_id");
  const differs = sameBrand
    ? sql`p."brand_id" IS NOT c."brand_id"`
    : sql`${organizationOf(ctx.cache, ctx.policies, parent.name, "p")} IS NOT ${organizationOf(ctx.cache, ctx.policies, child.name, "c")}`;
  return sql`SELECT 1 FROM ${ident(parent.name)} AS p JOIN ${ident(child.name)} AS c ON c.${ident(fk.column)} = p.${ident(fk.refColumn)} WHERE p.${rowidList(ctx, rowids)} AND ${differs} LIMIT 1`;
}

/** Guard of an upsert's DO UPDATE: the existing row must be one the caller may update. */
export function upsertGuard(ctx: SqlContext, table: TableInfo, scope: string): Sql | null {
  return scopePredicate(ctx.cache, ctx.policies, ctx.caller, table.name, "update", col(table.name, scope));
}

export function maxRowidQuery(table: TableInfo): Sql {
  return sql`SELECT coalesce(max(rowid), 0) FROM ${ident(table.name)}`;
}

/** Fills an inherited column: `via` value → the parent's value of the column. */
export function inheritedLookupQuery(table: TableInfo, column: string, via: string, viaValues: SqlValue[]): Sql {
  const fk = table.foreignKeys.find((f) => f.column === via)!;
  return sql`SELECT ${ident(fk.refColumn)}, ${ident(column)} FROM ${ident(fk.refTable)} WHERE ${ident(fk.refColumn)} IN (SELECT value FROM json_each(${JSON.stringify(viaValues)}))`;
}

/** Rows among `rowids` whose inherited column differs from their parent's (the check after a write). */
export function inheritedCheckQuery(table: TableInfo, column: string, via: string, rowids: number[]): Sql {
  const fk = table.foreignKeys.find((f) => f.column === via)!;
  return sql`SELECT 1 FROM ${ident(table.name)} AS c JOIN ${ident(fk.refTable)} AS p ON p.${ident(fk.refColumn)} = c.${ident(via)} WHERE c.rowid IN (SELECT value FROM json_each(${JSON.stringify(rowids)})) AND c.${ident(column)} IS NOT p.${ident(column)} LIMIT 1`;
}

/** Children of the parent rows `rowids` take the parent's (new) value of an inherited column. */
export function inheritedPropagateQuery(child: TableInfo, column: string, via: string, parent: TableInfo, rowids: number[]): Sql {
  const fk = child.foreignKeys.find((f) => f.column === via)!;
  const parentValue = sql`(SELECT p.${ident(column)} FROM ${ident(parent.name)} AS p WHERE p.${ident(fk.refColumn)} = ${ident(child.name)}.${ident(via)})`;
  const parents = sql`SELECT ${ident(fk.refColumn)} FROM ${ident(parent.name)} WHERE rowid IN (SELECT value FROM json_each(${JSON.stringify(rowids)}))`;
  return sql`UPDATE ${ident(child.name)} SET ${ident(column)} = ${parentValue} WHERE ${ident(via)} IN (${parents}) AND ${ident(column)} IS NOT ${parentValue} RETURNING rowid`;
}

/** The first of `values` with no row in the referenced table (to word a 23503). */
export function missingReferenceQuery(fk: { refTable: string; refColumn: string }, values: SqlValue[]): Sql {
  return sql`SELECT value FROM json_each(${JSON.stringify(values)}) WHERE value NOT IN (SELECT ${ident(fk.refColumn)} FROM ${ident(fk.refTable)}) LIMIT 1`;
}

/** The row holding these key values, if one exists: its `column` (its rowid by default). */
export function keyRowQuery(table: TableInfo, columns: string[], values: SqlValue[], column?: string): Sql {
  return sql`SELECT ${column ? ident(column) : raw("rowid")} FROM ${ident(table.name)} WHERE ${balanced(columns.map((c, i) => sql`${ident(c)} IS ${values[i]}`), "AND")} LIMIT 1`;
}
