// Runs plans through the executor (PostgREST's Query step): reads level by level, writes inside one
// write transaction with the policy checks in Postgres' order — grants, row-level security
// WITH CHECK, then constraints — so a row aimed at another organization is a 42501 and never
// reveals a duplicate key there.
import { AppError } from "../../http/errors";
import { checkNotNull, constraintError, INHERITED_COLUMNS, inheritanceViolation, inheritedColumnsOf, missingReferenceError, notNullViolation } from "./constraints";
import { PLANNED_COUNT_CAP, rollupCountQuery, type CountMode } from "./counts";
import type { InsertPlan, ReadPlan } from "./plan";
import { assertGranted, rlsViolation, type Action, type TablePolicy, type WriteAction, type WriteGuard } from "./policies";
import {
  childQuery,
  cappedCountQuery,
  countQuery,
  crossOwnerReferenceQuery,
  crossOwnerReferrerQuery,
  deleteQuery,
  finalRowCheckQuery,
  inheritedCheckQuery,
  inheritedLookupQuery,
  inheritedPropagateQuery,
  insertQuery,
  keyRowQuery,
  maxRowidQuery,
  missingReferenceQuery,
  rootQuery,
  estimatedCountQuery,
  targetQuery,
  updateQuery,
  updateRowsQuery,
  upsertGuard,
  withCheckQuery,
  type Sql,
  type SqlContext,
} from "./sql";
import type { RestSession } from "./executor";
import type { ColumnInfo, TableInfo } from "./schema-cache";
import type { SqlValue } from "./values";

/** What the steps below run statements through: the request's session of the executor (executor.ts). */
export type Runner = RestSession;

// ---- reads ------------------------------------------------------------------------------------

function nullFields(node: ReadPlan): string {
  return node.columns.map((c) => `${JSON.stringify(c.key)}:null`).join(",");
}

/** Adds the embeds' JSON to a row's own JSON object text. */
function splice(json: string, parts: [ReadPlan, string | undefined][]): string {
  const pieces = parts
    .map(([embed, value]) => {
      if (embed.spread) return value ? value.slice(1, -1) : nullFields(embed);
      return `${JSON.stringify(embed.key)}:${value ?? (embed.rel!.toOne ? "null" : "[]")}`;
    })
    .filter(Boolean);
  if (!pieces.length) return json;
  return json === "{}" ? `{${pieces.join(",")}}` : `${json.slice(0, -1)},${pieces.join(",")}}`;
}

/** Rows [.., json at `at`, link values after it] → each row's complete JSON, embeds fetched per level. */
async function assemble(run: Runner, ctx: SqlContext, node: ReadPlan, rows: unknown[][], at: number): Promise<string[]> {
  if (!node.embeds.length) return rows.map((r) => r[at] as string);
  const children: Map<unknown, string>[] = [];
  for (const [i, embed] of node.embeds.entries()) {
    const keys = [...new Set(rows.map((r) => r[at + 1 + i]).filter((k) => k !== null && k !== undefined))] as SqlValue[];
    children.push(keys.length ? await fetchChildren(run, ctx, embed, keys) : new Map<unknown, string>());
  }
  return rows.map((r) => splice(r[at] as string, node.embeds.map((embed, i) => [embed, children[i].get(r[at + 1 + i])])));
}

/** One statement for this level (plus one per level below): parent key → JSON object or array. */
async function fetchChildren(run: Runner, ctx: SqlContext, node: ReadPlan, keys: SqlValue[]): Promise<Map<unknown, string>> {
  const rows = await run.values(childQuery(ctx, node, keys));
  if (!node.rel!.toOne && !node.embeds.length) return new Map(rows.map((r) => [r[0], r[1] as string]));
  const objects = await assemble(run, ctx, node, rows, 1);
  if (node.rel!.toOne) return new Map(rows.map((r, i) => [r[0], objects[i]]));
  const groups = new Map<unknown, string[]>();
  rows.forEach((r, i) => (groups.get(r[0]) ?? groups.set(r[0], []).get(r[0])!).push(objects[i]));
  return new Map([...groups].map(([key, list]) => [key, `[${list.join(",")}]`]));
}

export interface ReadOutcome {
  rows: string[];
  total?: number;
}

/** The total for Prefer: count=…: exact, or for planned/estimated exact up to a cap and estimated beyond it (sampled on SQLite, the planner's on Postgres). */
async function countRows(run: Runner, ctx: SqlContext, plan: ReadPlan, mode: CountMode): Promise<number> {
  const first = async (q: Sql) => Number((await run.values(q))[0]![0]);
  const fromRollup = rollupCountQuery(ctx, plan);
  if (fromRollup) return first(fromRollup);
  if (mode === "exact" || plan.source) return first(countQuery(ctx, plan));
  const capped = await first(cappedCountQuery(ctx, plan, PLANNED_COUNT_CAP));
  if (capped <= PLANNED_COUNT_CAP) return capped;
  const estimate = estimatedCountQuery(ctx, plan, SAMPLE_PROBES);
  return Math.max(capped, estimate.read(await run.values(estimate.query)));
}

const SAMPLE_PROBES = 2000;

export async function executeRead(run: Runner, ctx: SqlContext, plan: ReadPlan, count: CountMode | undefined, rowids?: number[]): Promise<ReadOutcome> {
  try {
    const rows = await run.values(rootQuery(ctx, plan, rowids ? { rowids, paginate: false } : {}));
    const total = count && !rowids ? await countRows(run, ctx, plan, count) : undefined;
    return { rows: await assemble(run, ctx, plan, rows, 0), total };
  } catch (error) {
    // A JSON column holding text that is not JSON: read again with every JSON value guarded.
    if (ctx.trustJson === false || !String((error as Error)?.message).includes("malformed JSON")) throw error;
    return await executeRead(run, { ...ctx, trustJson: false }, plan, count, rowids);
  }
}

// ---- writes -----------------------------------------------------------------------------------

export interface WriteOutcome {
  /** The written rows' JSON when a representation was asked for. */
  rows?: string[];
  affected: number;
  /** Rows that were new (an upsert may update instead). */
  inserted: number;
}

export interface WriteOptions {
  representation: boolean;
  /** Accept: vnd.pgrst.object — anything but one row rolls the write back (PGRST116). */
  singular: boolean;
  /** Prefer: max-affected with handling=strict — more rows roll the write back (PGRST124). */
  maxAffected?: number;
}

async function withCheck(run: Runner, ctx: SqlContext, table: TableInfo, action: Action, values: SqlValue[]): Promise<void> {
  const check = withCheckQuery(ctx, table, action, values);
  if (check && (await run.values(check)).length) throw rlsViolation(ctx.caller, table.name);
}

/**
 * The rows as written — every column, derived ones included — must still be the caller's to write
 * (WITH CHECK on the final row), and their references must stay inside their brand/organization.
 */
async function checkWrittenRows(run: Runner, ctx: SqlContext, table: TableInfo, policy: TablePolicy, action: Action, rowids: number[], ownerChanged: boolean): Promise<void> {
  if (!rowids.length) return;
  const check = finalRowCheckQuery(ctx, table, policy.scope, action, rowids);
  if (check && (await run.values(check)).length) throw rlsViolation(ctx.caller, table.name);
  await checkReferences(run, ctx, table, policy.scope, rowids);
  // Rows elsewhere that point at these (prompts at a topic moved to another brand) must follow too;
  // only a row whose owner changed can have left them behind.
  if (!ownerChanged) return;
  for (const child of ctx.cache.tables.values()) {
    if (!ctx.policies[child.name]) continue;
    for (const fk of child.foreignKeys) {
      if (fk.refTable !== table.name || fk.column === ctx.policies[child.name]!.scope) continue;
      if ((await run.values(crossOwnerReferrerQuery(ctx, child, fk, table, rowids))).length) throw crossOwner(ctx, child.name, fk);
    }
  }
}

/**
 * The rows' foreign keys (other than their scope) point at rows of the same brand or organization.
 * One the caller may not read reads as missing (23503), as on Postgres: whether another
 * organization's id exists is no caller's to learn.
 */
async function checkReferences(run: Runner, ctx: SqlContext, table: TableInfo, scope: string, rowids: number[]): Promise<void> {
  // Where the database enforces row security, a user's writes meet the same rule as triggers (policies.pg.ts), past their policies.
  if (ctx.dialect.enforcesRowSecurity && ctx.caller.role === "authenticated") return;
  for (const fk of table.foreignKeys) {
    if (fk.column === scope || !ctx.policies[fk.refTable]) continue;
    const [crossing] = await run.values(crossOwnerReferenceQuery(ctx, table, fk, rowids));
    if (!crossing) continue;
    if (!(await readable(run, ctx, ctx.cache.tables.get(fk.refTable)!, crossing[1] as SqlValue))) throw missingReferenceError(table.name, { fk, value: crossing[0] as SqlValue });
    throw crossOwner(ctx, table.name, fk);
  }
}

function crossOwner(ctx: SqlContext, table: string, fk: { column: string; refTable: string }): AppError {
  const sameBrand = ctx.cache.tables.get(table)!.columns.has("brand_id") && ctx.cache.tables.get(fk.refTable)!.columns.has("brand_id");
  return new AppError(400, "23514", `new row for relation "${table}" violates check constraint "${table}_${fk.column}_same_owner"`, {
    details: `${table}.${fk.column} must refer to a ${fk.refTable} row of the same ${sameBrand ? "brand" : "organization"}`,
  });
}

/** Rowids of existing rows holding the key (conflict columns) of any of `rows`. */
async function existingRowids(run: Runner, ctx: SqlContext, table: TableInfo, columns: string[], rows: Record<string, SqlValue>[]): Promise<number[]> {
  const found = new Set<number>();
  for (const row of rows) {
    if (!columns.every((c) => Object.hasOwn(row, c))) continue;
    for (const [rowid] of (await run.values(keyRowQuery(ctx.dialect, table, columns, columns.map((c) => row[c]!))))) found.add(rowid as number);
  }
  return [...found];
}

/**
 * The table's trigger-like guard for a write setting `columns`, if it has one that such a write
 * concerns (where the database enforces the rules itself, its triggers are the guards: policies.pg.ts).
 */
function guardOf(ctx: SqlContext, policy: TablePolicy, columns: string[]): WriteGuard | undefined {
  const guard = policy.guard;
  if (!guard || ctx.dialect.enforcesRowSecurity) return undefined;
  return !guard.columns || guard.columns.some((c) => columns.includes(c)) ? guard : undefined;
}

/**
 * ON UPDATE CASCADE for inherited columns: when a parent row's column changes (a prompt set moved to
 * another brand), its children's copy follows, so a prompt never sits in another brand than its set.
 */
async function propagateInherited(run: Runner, ctx: SqlContext, table: TableInfo, rowids: number[], touched: (column: string) => boolean): Promise<void> {
  for (const rule of INHERITED_COLUMNS) {
    const child = ctx.cache.tables.get(rule.table)!;
    const fk = child.foreignKeys.find((f) => f.column === rule.via)!;
    if (fk.refTable !== table.name || !touched(rule.column) || !rowids.length) continue;
    // A write too: on Postgres the children's own rule triggers may refuse the move (policies.pg.ts).
    const moved = (await runWrite(run, ctx, child, inheritedPropagateQuery(ctx.dialect, child, rule.column, rule.via, table, rowids), [])).map((r) => r[0] as number);
    // The children moved with their parent: their other references must still be theirs (a prompt's topic).
    if (moved.length) await checkReferences(run, ctx, child, ctx.policies[child.name]!.scope, moved);
  }
}

async function checkInherited(run: Runner, ctx: SqlContext, table: TableInfo, rowids: number[], touched: (column: string) => boolean): Promise<void> {
  for (const rule of inheritedColumnsOf(table.name))
    if ((touched(rule.column) || touched(rule.via)) && (await run.values(inheritedCheckQuery(ctx.dialect, table, rule.column, rule.via, rowids))).length) throw inheritanceViolation(rule);
}

function singularityError(count: number): AppError {
  return new AppError(406, "PGRST116", "Cannot coerce the result to a single JSON object", { details: `The result contains ${count} rows` });
}

/** Whether the caller may read a row with this scope value (the read policy, USING). */
async function readable(run: Runner, ctx: SqlContext, table: TableInfo, scopeValue: SqlValue): Promise<boolean> {
  const failing = withCheckQuery(ctx, table, "read", [scopeValue]);
  return !failing || (await run.values(failing)).length === 0;
}

/** Runs a write statement, re-wording constraint failures as the Postgres errors PostgREST relays; its RETURNING rows. */
async function runWrite(run: Runner, ctx: SqlContext, table: TableInfo, statement: Sql, rows: Record<string, SqlValue>[]): Promise<unknown[][]> {
  try {
    return await run.values(statement);
  } catch (error) {
    const mapped = await constraintError(table, ctx.dialect.constraintViolation(error), {
      async uniqueValues(columns) {
        const keyOf = (row: Record<string, SqlValue>) => (columns.every((c) => Object.hasOwn(row, c)) ? columns.map((c) => row[c]) : null);
        const scope = ctx.policies[table.name]?.scope;
        const seen = new Set<string>();
        for (const row of rows) {
          const key = keyOf(row);
          if (!key) continue;
          const text = JSON.stringify(key);
          if (seen.has(text)) return key;
          const existing = (await run.values(keyRowQuery(ctx.dialect, table, columns, key, scope)))[0];
          // A key held by a row the caller cannot read is not repeated back (no echo of others' data).
          if (existing) return scope && !(await readable(run, ctx, table, existing[0] as SqlValue)) ? "hidden" : key;
          seen.add(text);
        }
        return null;
      },
      async missingReference() {
        for (const fk of table.foreignKeys) {
          const values = [...new Set(rows.map((r) => r[fk.column]).filter((v) => v !== null && v !== undefined))];
          const missing = values.length ? (await run.values(missingReferenceQuery(ctx.dialect, fk, table.columns.get(fk.column)!.type, values)))[0] : undefined;
          if (missing) return { fk, value: missing[0] as SqlValue };
        }
        return null;
      },
    });
    throw mapped ?? error;
  }
}

async function finish(run: Runner, ctx: SqlContext, read: ReadPlan, rowids: number[], inserted: number, options: WriteOptions): Promise<WriteOutcome> {
  if (options.singular && rowids.length !== 1) throw singularityError(rowids.length);
  if (options.maxAffected !== undefined && rowids.length > options.maxAffected)
    throw new AppError(400, "PGRST124", "Query result exceeds max-affected preference constraint", { details: `The query affects ${rowids.length} rows` });
  const rows = options.representation && rowids.length ? (await executeRead(run, ctx, read, undefined, rowids)).rows : options.representation ? [] : undefined;
  return { rows, affected: rowids.length, inserted };
}

export async function executeInsert(run: Runner, ctx: SqlContext, plan: InsertPlan, read: ReadPlan, options: WriteOptions): Promise<WriteOutcome> {
  const { table, policy } = plan;
  assertGranted(ctx.caller, policy, table.name, "insert");
  const merge = plan.onConflict?.merge === true;
  if (merge) assertGranted(ctx.caller, policy, table.name, "update", plan.columns.map((c) => c.name));
  // An empty array (or a body that is not an object) inserts nothing, as in PostgREST: 201 with [].
  if (!plan.rows.length) return { rows: options.representation ? [] : undefined, affected: 0, inserted: 0 };
  return run.transaction(async (run) => {
    const columns = [...plan.columns];
    const rows = plan.rows.map((r) => ({ ...r }));
    // Like a BEFORE INSERT trigger: an inherited column left out is copied from the parent row
    // (where the database has that trigger itself, it does it, seeing parents the caller cannot).
    const inherited = inheritedColumnsOf(table.name);
    for (const rule of ctx.dialect.enforcesRowSecurity ? [] : inherited) {
      const needing = rows.filter((r) => (r[rule.column] ?? null) === null && (r[rule.via] ?? null) !== null);
      if (!needing.length) continue;
      const parents = new Map((await run.values(inheritedLookupQuery(ctx.dialect, table, rule.column, rule.via, needing.map((r) => r[rule.via])))).map((r) => [r[0], r[1] as SqlValue]));
      for (const row of needing) if (parents.has(row[rule.via])) row[rule.column] = parents.get(row[rule.via])!;
      if (!columns.some((c) => c.name === rule.column)) columns.push(table.columns.get(rule.column)!);
    }
    const scopes = rows.map((r) => r[policy.scope] ?? null);
    await withCheck(run, ctx, table, "insert", scopes);
    if (merge) await withCheck(run, ctx, table, "update", scopes);
    checkNotNull(table, columns, rows, plan.missingDefault, ctx.dialect.enforcesRowSecurity ? inherited : []);

    // New rows are told from upserted ones by the dialect's flag or, without one, by their rowids
    // above the previous maximum (upserted rows keep theirs).
    const flagged = ctx.dialect.insertedFlag !== null;
    const before = plan.onConflict && !flagged ? Number((await run.values(maxRowidQuery(ctx.dialect, table)))[0][0]) : 0;
    // The rows an upsert would overwrite are the guard's targets, as an update's are.
    const guarded = guardOf(ctx, policy, columns.map((c) => c.name));
    const overwritten = merge && guarded ? await existingRowids(run, ctx, table, plan.onConflict!.columns, rows) : [];
    const guard = await guarded?.begin(run, ctx.dialect, ctx.caller, merge ? "update" : "insert", overwritten);
    const onConflict = plan.onConflict && { ...plan.onConflict, updateGuard: merge ? upsertGuard(ctx, table, policy.scope) : null };
    const written = await runWrite(run, ctx, table, insertQuery({ table, columns, rows, missingDefault: plan.missingDefault, onConflict, dialect: ctx.dialect }), rows);
    const rowids = written.map((r) => r[0] as number);
    // An upsert that would overwrite a row the caller may not update: Postgres refuses it (USING).
    if (merge && rowids.length < rows.length) throw rlsViolation(ctx.caller, table.name);
    await checkInherited(run, ctx, table, rowids, (c) => columns.some((col) => col.name === c));
    if (merge) await propagateInherited(run, ctx, table, rowids, (c) => columns.some((col) => col.name === c));
    const isNew = written.map((r) => !plan.onConflict || (flagged ? r[1] === true : (r[0] as number) > before));
    const created = rowids.filter((_, i) => isNew[i]);
    const ownerWritten = columns.some((c) => c.name === policy.scope);
    await checkWrittenRows(run, ctx, table, policy, "insert", created, false);
    await checkWrittenRows(run, ctx, table, policy, "update", rowids.filter((_, i) => !isNew[i]), ownerWritten);
    await guard?.after(rowids);
    const inserted = created.length;
    return await finish(run, ctx, read, rowids, inserted, options);
  });
}

export async function executeUpdate(run: Runner, ctx: SqlContext, read: ReadPlan, set: [ColumnInfo, SqlValue][], now: string, options: WriteOptions): Promise<WriteOutcome> {
  const { table, policy } = read;
  assertGranted(ctx.caller, policy, table.name, "update", set.map(([c]) => c.name));
  if (!set.length) return { rows: options.representation ? [] : undefined, affected: 0, inserted: 0 };
  return run.transaction(async (run) => {
    const assignments = [...set];
    const value = (name: string) => assignments.find(([c]) => c.name === name)?.[1];
    const scope = value(policy.scope);
    if (scope !== undefined) await withCheck(run, ctx, table, "update", [scope]);
    for (const [column, v] of assignments) if (column.notNull && v === null) throw notNullViolation(table.name, column.name, null);
    for (const rule of inheritedColumnsOf(table.name)) {
      const via = value(rule.via);
      if (via === undefined || value(rule.column) !== undefined || via === null) continue;
      const parent = (await run.values(inheritedLookupQuery(ctx.dialect, table, rule.column, rule.via, [via])))[0];
      if (parent) assignments.push([table.columns.get(rule.column)!, parent[1] as SqlValue]);
    }
    const updatedAt = table.columns.get("updated_at");
    if (updatedAt && value("updated_at") === undefined) assignments.push([updatedAt, now]);
    const row = Object.fromEntries(assignments.map(([c, v]) => [c.name, v]));
    // Where targets are locked first (Postgres), the update goes by their row ids.
    const locked = ctx.dialect.lockTargets !== null;
    const guarded = guardOf(ctx, policy, set.map(([c]) => c.name));
    const targets = guarded || locked ? (await run.values(targetQuery(ctx, read, "update"))).map((r) => r[0] as number) : [];
    const guard = await guarded?.begin(run, ctx.dialect, ctx.caller, "update", targets);
    const statement = locked ? (targets.length ? updateRowsQuery(ctx, table, assignments, targets) : null) : updateQuery(ctx, read, assignments);
    const rowids = statement ? (await runWrite(run, ctx, table, statement, [row])).map((r) => r[0] as number) : [];
    await checkInherited(run, ctx, table, rowids, (c) => value(c) !== undefined);
    await propagateInherited(run, ctx, table, rowids, (c) => value(c) !== undefined);
    await checkWrittenRows(run, ctx, table, policy, "update", rowids, value(policy.scope) !== undefined);
    await guard?.after(rowids);
    return await finish(run, ctx, read, rowids, 0, options);
  });
}

export async function executeDelete(run: Runner, ctx: SqlContext, read: ReadPlan, options: WriteOptions): Promise<WriteOutcome> {
  assertGranted(ctx.caller, read.policy, read.table.name, "delete");
  return run.transaction(async (run) => {
    const rowids = (await run.values(targetQuery(ctx, read, "delete"))).map((r) => r[0] as number);
    const guard = await guardOf(ctx, read.policy, [])?.begin(run, ctx.dialect, ctx.caller, "delete", rowids);
    // The representation is read before the rows are gone.
    const outcome = await finish(run, ctx, read, rowids, 0, options);
    if (rowids.length) await run.values(deleteQuery(ctx.dialect, read.table, rowids));
    await guard?.after([]);
    return outcome;
  });
}
