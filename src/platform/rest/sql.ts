// Step 4 of /rest/v1 (DESIGN §5): plans → parameterized statements. What differs by backend comes
// from the context's dialect (dialect.ts: lists, row id, deadline probe, upsert, the JSON building,
// the operators SQLite lacks).
// Identifiers come only from the schema cache (via ident/col); every value, JSON key and JSON path
// is a bound parameter. A read costs one statement per embed level: children are fetched for all
// parents at once (`fk IN <one bound list>`) and their JSON is built by the database itself.
import { viaApiKey } from "../../common/identity";
import type { Caller } from "../auth/caller";
import type { RestDialect } from "./dialect";
import type { Condition, OrderBy, ReadPlan, Test } from "./plan";
import type { ColumnRef } from "./plan";
import { organizationOf, scopePredicate, type Action, type Policies } from "./policies";
import type { ColumnInfo, ColumnType, ForeignKey, SchemaCache, TableInfo } from "./schema-cache";
import { ident, joinSql, raw, Sql, sql } from "./sql-fragment";
import type { SqlValue } from "./values";

export { ident, joinSql, Sql, sql } from "./sql-fragment";

const col = (alias: string, name: string) => sql`${ident(alias)}.${ident(name)}`;

/** a AND b AND … as a balanced tree, so hundreds of filters stay far below SQLite's depth limit. */
function balanced(d: RestDialect, parts: Sql[], op: "AND" | "OR"): Sql {
  if (parts.length === 0) return op === "AND" ? d.true : d.false;
  if (parts.length === 1) return parts[0];
  const mid = parts.length >> 1;
  return sql`(${balanced(d, parts.slice(0, mid), op)} ${raw(op)} ${balanced(d, parts.slice(mid), op)})`;
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

function refExpr(d: RestDialect, alias: string, ref: ColumnRef): Sql {
  let e = ref.column.readSql ? raw(ref.column.readSql.replaceAll("{t}", ident(alias).text)) : col(alias, ref.column.name);
  if (ref.json.length) e = d.jsonPath(e, ref.json);
  return ref.cast ? d.cast(e, ref.cast, ref) : e;
}

/** The value as it should appear in JSON: booleans as true/false, JSON columns as JSON. */
function outputExpr(ctx: SqlContext, alias: string, ref: ColumnRef): Sql {
  return ctx.dialect.jsonValue(refExpr(ctx.dialect, alias, ref), ref, ctx.trustJson !== false);
}

// json_object takes at most 127 arguments in some SQLite builds (json_build_object 100 in
// Postgres); longer selects are built in chunks.
const JSON_OBJECT_PAIRS = 50;

function jsonObject(ctx: SqlContext, node: ReadPlan): Sql {
  if (!node.columns.length) return raw("'{}'");
  const chunks: Sql[] = [];
  for (let i = 0; i < node.columns.length; i += JSON_OBJECT_PAIRS) {
    chunks.push(ctx.dialect.jsonObject(node.columns.slice(i, i + JSON_OBJECT_PAIRS).map((c) => [c.key, outputExpr(ctx, node.alias, c.ref)])));
  }
  if (chunks.length === 1) return chunks[0];
  // Each chunk's members without its braces, joined once: the expression grows linearly with the
  // number of columns (nesting one chunk inside the next doubled it at every step).
  const members = chunks.map((chunk) => sql`substr(${chunk}, 2, length(${chunk}) - 2)`);
  return sql`('{' || ${joinSql(members, " || ',' || ")} || '}')`;
}

function testSql(d: RestDialect, e: Sql, type: ColumnRef["type"], test: Test): Sql {
  switch (test.kind) {
    case "compare": {
      const one = (v: SqlValue) => sql`${e} ${raw(test.op)} ${d.bind(v, type)}`;
      if (!test.quantifier) return one(test.values[0]);
      return balanced(d, test.values.map(one), test.quantifier === "any" ? "OR" : "AND");
    }
    case "like": {
      const one = (p: string) => d.like(e, p, test.caseInsensitive);
      if (!test.quantifier) return one(test.patterns[0]);
      return balanced(d, test.patterns.map(one), test.quantifier === "any" ? "OR" : "AND");
    }
    case "in":
      return d.inList(e, test.values);
    case "is":
      return test.value === "null" ? sql`${e} IS NULL` : d.isBoolean(e, test.value === "true");
    case "distinct":
      return d.differs(e, sql`${test.value}`);
    case "json":
      return d.jsonTest(e, test.op, test.value);
  }
}

function conditionSql(ctx: SqlContext, node: ReadPlan, condition: Condition): Sql {
  let body: Sql;
  if (condition.kind === "embedded") {
    const exists = existsSql(ctx, condition.embed, node.alias);
    return condition.exists ? exists : sql`NOT ${exists}`;
  }
  if (condition.kind === "test") body = testSql(ctx.dialect, refExpr(ctx.dialect, node.alias, condition.ref), condition.ref.type, condition.test);
  else body = balanced(ctx.dialect, condition.children.map((c) => conditionSql(ctx, node, c)), condition.op === "and" ? "AND" : "OR");
  return condition.negated ? sql`NOT (${body})` : body;
}

function source(node: ReadPlan): Sql {
  return node.source ? sql`(${new Sql(node.source.text, node.source.params)})` : ident(node.table.name);
}

function rls(ctx: SqlContext, node: ReadPlan, action: Action): Sql | null {
  const scoped = scopePredicate(ctx.dialect, ctx.cache, ctx.policies, ctx.caller, node.table.name, action, col(node.alias, node.policy.scope));
  const own = node.policy.ownRows;
  // Own rows are a person's, in a session of their own: a key acts within its organization and role only.
  if (!scoped || !own?.actions.includes(action) || !ctx.caller.user || viaApiKey(ctx.caller.user)) return scoped;
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
  return sql`EXISTS (SELECT 1 FROM ${source(child)} AS ${ident(child.alias)} WHERE ${balanced(ctx.dialect, [link, ...levelConditions(ctx, child)], "AND")})`;
}

function orderSql(ctx: SqlContext, node: ReadPlan, order: OrderBy[]): Sql | null {
  if (!order.length) return null;
  const terms = order.map((o) => {
    let e = refExpr(ctx.dialect, o.via?.alias ?? node.alias, o.ref);
    if (o.via) {
      const link = sql`${col(o.via.alias, o.via.rel!.childColumn)} = ${col(node.alias, o.via.rel!.parentColumn)}`;
      const policy = rls(ctx, o.via, "read");
      e = sql`(SELECT ${e} FROM ${source(o.via)} AS ${ident(o.via.alias)} WHERE ${balanced(ctx.dialect, policy ? [link, policy] : [link], "AND")})`;
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
  if (options.rowids) conditions.push(ctx.dialect.inList(sql`${ident(root.alias)}.${raw(ctx.dialect.rowId)}`, options.rowids));
  return balanced(ctx.dialect, conditions, "AND");
}

function limitClause(d: RestDialect, range: ReadPlan["range"]): Sql {
  return sql` LIMIT ${range.limit ?? d.noLimit} OFFSET ${range.offset}`;
}

/** Root rows: [json, link values…] in the requested order and page. */
export function rootQuery(ctx: SqlContext, root: ReadPlan, options: RootOptions = {}): Sql {
  const where = rootConditions(ctx, root, options);
  const order = orderClause(orderSql(ctx, root, root.order));
  const alias = ident(root.alias);
  const output = sql`SELECT ${jsonObject(ctx, root)}${linkColumns(root)} FROM ${source(root)} AS ${alias}`;
  if (options.paginate === false) return sql`${output} WHERE ${where}${order}`;
  const page = limitClause(ctx.dialect, root.range);
  if (!ctx.dialect.pageBeforeOutput || root.source) return sql`${output} WHERE ${where}${order}${page}`;
  // The page's keys first, then the JSON of those rows only (ties may come back in another order,
  // as they may from one statement).
  const key = sql`${alias}.${raw(ctx.dialect.rowId)}`;
  return sql`${output} WHERE ${key} IN (SELECT ${key} FROM ${source(root)} AS ${alias} WHERE ${where}${order}${page})${order}`;
}

export function countQuery(ctx: SqlContext, root: ReadPlan): Sql {
  return sql`SELECT count(*) FROM ${source(root)} AS ${ident(root.alias)} WHERE ${rootConditions(ctx, root, {})}`;
}

/** count(*) that stops after `cap` + 1 rows. */
export function cappedCountQuery(ctx: SqlContext, root: ReadPlan, cap: number): Sql {
  return sql`SELECT count(*) FROM ${ctx.dialect.derivedTable(sql`SELECT 1 FROM ${source(root)} AS ${ident(root.alias)} WHERE ${rootConditions(ctx, root, {})} LIMIT ${cap + 1}`)}`;
}

/** An estimate of the matching rows of a table at a cost that does not follow its size (dialect.ts). */
export function estimatedCountQuery(ctx: SqlContext, root: ReadPlan, probes: number): ReturnType<RestDialect["estimatedCount"]> {
  return ctx.dialect.estimatedCount(ident(root.table.name), ident(root.alias), rootConditions(ctx, root, {}), probes);
}

/**
 * Rowids of the rows a PATCH/DELETE targets (its filters, RLS of the action, order and limit). An
 * update's targets are locked where the dialect locks them; a delete's are not (the DELETE by key
 * locks them, and on Postgres a row lock would also demand the UPDATE policy, which a member
 * leaving an organization — a delete of their own row — does not pass).
 */
export function targetQuery(ctx: SqlContext, root: ReadPlan, action: Action): Sql {
  const where = rootConditions(ctx, { ...root, embeds: root.embeds.filter((e) => e.inner) }, { action });
  const page = root.range.limit !== undefined || root.range.offset ? limitClause(ctx.dialect, root.range) : raw("");
  const lock = action === "update" ? (ctx.dialect.lockTargets ?? raw("")) : raw("");
  return sql`SELECT ${ident(root.alias)}.${raw(ctx.dialect.rowId)} FROM ${ident(root.table.name)} AS ${ident(root.alias)} WHERE ${where}${orderClause(orderSql(ctx, root, root.order))}${page}${lock}`;
}

/**
 * One embed level for all parent keys at once. A to-many level without embeds of its own comes
 * back aggregated, one row per parent: [key, '[…]']. Otherwise one row per child: [key, json, links…].
 */
export function childQuery(ctx: SqlContext, node: ReadPlan, parentKeys: SqlValue[]): Sql {
  const key = col(node.alias, node.rel!.childColumn);
  const where = balanced(ctx.dialect, [ctx.dialect.inList(key, parentKeys), ...levelConditions(ctx, node)], "AND");
  const from = sql`FROM ${source(node)} AS ${ident(node.alias)} WHERE ${where}`;
  const order = orderSql(ctx, node, node.order);
  if (node.rel!.toOne) return sql`SELECT ${key}, ${jsonObject(ctx, node)}${linkColumns(node)} ${from}`;
  const leaf = node.embeds.length === 0;
  const { offset, limit } = node.range;
  if (offset === 0 && limit === undefined) {
    if (leaf) return sql`SELECT ${key}, '[' || ${raw(ctx.dialect.stringAgg)}(${jsonObject(ctx, node)}, ','${orderClause(order)}) || ']' ${from} GROUP BY ${key}`;
    return sql`SELECT ${key}, ${jsonObject(ctx, node)}${linkColumns(node)} ${from}${orderClause(order)}`;
  }
  // A per-parent page: number the children of each parent, keep the window.
  const links = joinSql(node.embeds.map((_, i) => sql`, ${ident(`l${i}`)}`), "");
  const numbered = sql`SELECT ${key} AS k, ${jsonObject(ctx, node)} AS j${linkColumns(node)}, row_number() OVER (PARTITION BY ${key}${orderClause(order)}) AS n ${from}`;
  const window = sql`FROM ${ctx.dialect.derivedTable(numbered)} WHERE n > ${offset} AND n <= ${limit === undefined ? Number.MAX_SAFE_INTEGER : offset + limit}`;
  if (leaf) return sql`SELECT k, '[' || ${raw(ctx.dialect.stringAgg)}(j, ',' ORDER BY n) || ']' ${window} GROUP BY k`;
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

/** INSERT … SELECT over the rows' JSON (one parameter): one statement whatever the number of rows. */
export function insertQuery(s: InsertStatement): Sql {
  const d = s.dialect;
  const names = joinSql(s.columns.map((c) => ident(c.name)), ", ");
  const values = joinSql(
    s.columns.map((c) => d.insertValue(c, s.missingDefault && c.defaultSql ? new Sql(c.defaultSql.sql, c.defaultSql.params) : null)),
    ", ",
  );
  let conflict = raw("");
  if (s.onConflict) {
    const updates = s.columns.filter((c) => !s.onConflict!.columns.includes(c.name)).map((c) => c.name);
    conflict = d.onConflict(s.onConflict.columns, s.onConflict.merge ? updates : null, s.onConflict.updateGuard);
  }
  const returning = d.insertedFlag ? sql`${raw(d.rowId)}, ${d.insertedFlag}` : raw(d.rowId);
  // "WHERE true" keeps SQLite from reading ON CONFLICT as a join constraint of the SELECT.
  return sql`INSERT INTO ${ident(s.table.name)} (${names}) SELECT ${values} FROM ${d.insertSource(JSON.stringify(s.rows))} WHERE true${conflict} RETURNING ${returning}`;
}

export function updateQuery(ctx: SqlContext, root: ReadPlan, set: [ColumnInfo, SqlValue][]): Sql {
  const assignments = joinSql(set.map(([c, v]) => sql`${ident(c.name)} = ${ctx.dialect.bind(v, c.type)}`), ", ");
  const rowId = raw(ctx.dialect.rowId);
  return sql`UPDATE ${ident(root.table.name)} SET ${assignments} WHERE ${rowId} IN (${targetQuery(ctx, root, "update")}) RETURNING ${rowId}`;
}

/** An update of the rows `rowids` (targets locked beforehand, dialect.lockTargets). */
export function updateRowsQuery(ctx: SqlContext, table: TableInfo, set: [ColumnInfo, SqlValue][], rowids: number[]): Sql {
  const assignments = joinSql(set.map(([c, v]) => sql`${ident(c.name)} = ${ctx.dialect.bind(v, c.type)}`), ", ");
  return sql`UPDATE ${ident(table.name)} SET ${assignments} WHERE ${ctx.dialect.inList(raw(ctx.dialect.rowId), rowids)} RETURNING ${raw(ctx.dialect.rowId)}`;
}

export function deleteQuery(d: RestDialect, table: TableInfo, rowids: number[]): Sql {
  return sql`DELETE FROM ${ident(table.name)} WHERE ${d.inList(raw(d.rowId), rowids)}`;
}

/** Rows (as `value`) of a JSON list that fail the policy predicate: the WITH CHECK of a write. */
export function withCheckQuery(ctx: SqlContext, table: TableInfo, action: Action, scopeValues: SqlValue[]): Sql | null {
  const predicate = scopePredicate(ctx.dialect, ctx.cache, ctx.policies, ctx.caller, table.name, action, raw("v.value"));
  if (!predicate) return null;
  const type = table.columns.get(ctx.policies[table.name]!.scope)!.type;
  return sql`SELECT v.value FROM ${ctx.dialect.valueTable(scopeValues, type, "v")} WHERE NOT coalesce(${predicate}, ${ctx.dialect.false}) LIMIT 1`;
}

const rowidList = (ctx: SqlContext, rowids: number[]) => ctx.dialect.inList(raw(ctx.dialect.rowId), rowids);

/**
 * The WITH CHECK of a write on the rows as written (Postgres checks the final row, columns a
 * trigger derived from another row included): the first of `rowids` outside the caller's rights.
 */
export function finalRowCheckQuery(ctx: SqlContext, table: TableInfo, scope: string, action: Action, rowids: number[]): Sql | null {
  const predicate = scopePredicate(ctx.dialect, ctx.cache, ctx.policies, ctx.caller, table.name, action, col(table.name, scope));
  if (!predicate) return null;
  return sql`SELECT 1 FROM ${ident(table.name)} WHERE ${rowidList(ctx, rowids)} AND NOT coalesce(${predicate}, ${ctx.dialect.false}) LIMIT 1`;
}

/**
 * The first of `rowids` whose foreign key points at a row of another brand (when both tables carry
 * brand_id) or another organization — a reference never crosses the owner of the row holding it:
 * the key's value and the parent row's scope value (whether the caller may read it).
 */
export function crossOwnerReferenceQuery(ctx: SqlContext, table: TableInfo, fk: ForeignKey, rowids: number[]): Sql {
  const parent = ctx.cache.tables.get(fk.refTable)!;
  const sameBrand = table.columns.has("brand_id") && parent.columns.has("brand_id");
  const differs = sameBrand
    ? ctx.dialect.differs(raw(`p."brand_id"`), raw(`c."brand_id"`))
    : ctx.dialect.differs(organizationOf(ctx.cache, ctx.policies, parent.name, "p"), organizationOf(ctx.cache, ctx.policies, table.name, "c"));
  return sql`SELECT c.${ident(fk.column)}, p.${ident(ctx.policies[parent.name]!.scope)} FROM ${ident(table.name)} AS c JOIN ${ident(fk.refTable)} AS p ON p.${ident(fk.refColumn)} = c.${ident(fk.column)} WHERE c.${rowidList(ctx, rowids)} AND ${differs} LIMIT 1`;
}

/**
 * The first row of `child` that refers (through `fk`) to one of the parent rows `rowids` but sits in
 * another brand or organization: a parent moved away from rows that still point at it.
 */
export function crossOwnerReferrerQuery(ctx: SqlContext, child: TableInfo, fk: ForeignKey, parent: TableInfo, rowids: number[]): Sql {
  const sameBrand = child.columns.has("brand_id") && parent.columns.has("brand_id");
  const differs = sameBrand
    ? ctx.dialect.differs(raw(`p."brand_id"`), raw(`c."brand_id"`))
    : ctx.dialect.differs(organizationOf(ctx.cache, ctx.policies, parent.name, "p"), organizationOf(ctx.cache, ctx.policies, child.name, "c"));
  return sql`SELECT 1 FROM ${ident(parent.name)} AS p JOIN ${ident(child.name)} AS c ON c.${ident(fk.column)} = p.${ident(fk.refColumn)} WHERE p.${rowidList(ctx, rowids)} AND ${differs} LIMIT 1`;
}

/** Guard of an upsert's DO UPDATE: the existing row must be one the caller may update. */
export function upsertGuard(ctx: SqlContext, table: TableInfo, scope: string): Sql | null {
  return scopePredicate(ctx.dialect, ctx.cache, ctx.policies, ctx.caller, table.name, "update", col(table.name, scope));
}

export function maxRowidQuery(d: RestDialect, table: TableInfo): Sql {
  return sql`SELECT coalesce(max(${raw(d.rowId)}), 0) FROM ${ident(table.name)}`;
}

/** Fills an inherited column: `via` value → the parent's value of the column. */
export function inheritedLookupQuery(d: RestDialect, table: TableInfo, column: string, via: string, viaValues: SqlValue[]): Sql {
  const fk = table.foreignKeys.find((f) => f.column === via)!;
  return sql`SELECT ${ident(fk.refColumn)}, ${ident(column)} FROM ${ident(fk.refTable)} WHERE ${d.inList(ident(fk.refColumn), viaValues)}`;
}

/** Rows among `rowids` whose inherited column differs from their parent's (the check after a write). */
export function inheritedCheckQuery(d: RestDialect, table: TableInfo, column: string, via: string, rowids: number[]): Sql {
  const fk = table.foreignKeys.find((f) => f.column === via)!;
  return sql`SELECT 1 FROM ${ident(table.name)} AS c JOIN ${ident(fk.refTable)} AS p ON p.${ident(fk.refColumn)} = c.${ident(via)} WHERE ${d.inList(raw(`c.${d.rowId}`), rowids)} AND ${d.differs(sql`c.${ident(column)}`, sql`p.${ident(column)}`)} LIMIT 1`;
}

/** Children of the parent rows `rowids` take the parent's (new) value of an inherited column. */
export function inheritedPropagateQuery(d: RestDialect, child: TableInfo, column: string, via: string, parent: TableInfo, rowids: number[]): Sql {
  const fk = child.foreignKeys.find((f) => f.column === via)!;
  const parentValue = sql`(SELECT p.${ident(column)} FROM ${ident(parent.name)} AS p WHERE p.${ident(fk.refColumn)} = ${ident(child.name)}.${ident(via)})`;
  const parents = sql`SELECT ${ident(fk.refColumn)} FROM ${ident(parent.name)} WHERE ${d.inList(raw(d.rowId), rowids)}`;
  return sql`UPDATE ${ident(child.name)} SET ${ident(column)} = ${parentValue} WHERE ${ident(via)} IN (${parents}) AND ${d.differs(ident(column), parentValue)} RETURNING ${raw(d.rowId)}`;
}

/** The first of `values` (of the column type `type`) with no row in the referenced table (to word a 23503). */
export function missingReferenceQuery(d: RestDialect, fk: { refTable: string; refColumn: string }, type: ColumnType, values: SqlValue[]): Sql {
  return sql`SELECT value FROM ${d.valueTable(values, type)} WHERE value NOT IN (SELECT ${ident(fk.refColumn)} FROM ${ident(fk.refTable)}) LIMIT 1`;
}

/** The row holding these key values, if one exists: its `column` (its rowid by default). */
export function keyRowQuery(d: RestDialect, table: TableInfo, columns: string[], values: SqlValue[], column?: string): Sql {
  return sql`SELECT ${column ? ident(column) : raw(d.rowId)} FROM ${ident(table.name)} WHERE ${balanced(d, columns.map((c, i) => d.same(ident(c), sql`${values[i]}`)), "AND")} LIMIT 1`;
}
