// What /rest/v1 knows about tables, columns and relationships — PostgREST's SchemaCache — derived
// once per app from the Drizzle schema, the single source of truth. Every SQL identifier the REST
// layer emits comes from here; which tables are exposed, and to whom, is policies.ts's business.
import { getTableName, is, SQL } from "drizzle-orm";
import { getTableConfig, SQLiteSyncDialect, SQLiteTable } from "drizzle-orm/sqlite-core";
import { STORED_READS } from "../../db/stored-columns";

/** SQLite storage is loose; these are the Postgres types the wire behaviour is modelled on. */
export type ColumnType = "uuid" | "text" | "timestamp" | "integer" | "real" | "boolean" | "json";

/** Postgres type names, for error messages that match what PostgREST would relay. */
export const PG_TYPE_NAMES: Record<ColumnType, string> = {
  uuid: "uuid",
  text: "text",
  timestamp: "timestamp with time zone",
  integer: "integer",
  real: "double precision",
  boolean: "boolean",
  json: "jsonb",
};

export interface ColumnInfo {
  name: string;
  type: ColumnType;
  notNull: boolean;
  hasDefault: boolean;
  /** The default as SQL text plus parameters (used for Prefer: missing=default in bulk inserts). */
  defaultSql?: { sql: string; params: unknown[] };
  enumValues?: readonly string[];
  /** Stored otherwise than shown (src/db/stored-columns.ts): the SQL that reads it, `{t}` for the row's alias. */
  readSql?: string;
  /** The backend's own type name, where statements must name it (Postgres casts); unset on SQLite. */
  sqlType?: string;
}

export interface ForeignKey {
  name: string;
  table: string;
  column: string;
  refTable: string;
  refColumn: string;
}

export interface UniqueKey {
  name: string;
  columns: string[];
}

export interface TableInfo {
  name: string;
  columns: Map<string, ColumnInfo>;
  /** Columns in declaration order (what `*` expands to). */
  columnList: ColumnInfo[];
  primaryKey: string[];
  uniqueKeys: UniqueKey[];
  foreignKeys: ForeignKey[];
}

/** How an embedded table hangs off its parent: `child.childColumn = parent.parentColumn`. */
export interface Relationship {
  fk: ForeignKey;
  /** The embedded table. */
  table: string;
  parentColumn: string;
  childColumn: string;
  /** Many-to-one (the parent holds the foreign key): embeds as an object, not an array. */
  toOne: boolean;
}

export interface SchemaCache {
  /** Every table of the schema, exposed or not (exposure is decided by the policy table). */
  tables: Map<string, TableInfo>;
  relationshipsOf(parent: string): Relationship[];
}

function columnTypeOf(columnType: string, name: string, primary: boolean): ColumnType {
  switch (columnType) {
    case "SQLiteTextJson":
      return "json";
    case "SQLiteBoolean":
      return "boolean";
    case "SQLiteInteger":
    case "SQLiteTimestamp":
      return "integer";
    case "SQLiteReal":
      return "real";
    default:
      // ids are UUID text (DESIGN §3); *_at columns hold ISO-8601 timestamps.
      if (name === "id" && primary) return "uuid";
      if (name.endsWith("_at")) return "timestamp";
      return "text";
  }
}

function defaultSqlOf(value: unknown, dialect: SQLiteSyncDialect): ColumnInfo["defaultSql"] {
  if (value === undefined) return undefined;
  if (is(value, SQL)) {
    const query = dialect.sqlToQuery(value);
    return { sql: query.sql, params: query.params };
  }
  return { sql: "?", params: [typeof value === "boolean" ? Number(value) : value] };
}

export function buildSchemaCache(schema: Record<string, unknown>): SchemaCache {
  const dialect = new SQLiteSyncDialect();
  const tables = new Map<string, TableInfo>();
  for (const value of Object.values(schema)) {
    if (!is(value, SQLiteTable)) continue;
    const config = getTableConfig(value);
    const columnList: ColumnInfo[] = config.columns.map((c) => ({
      name: c.name,
      type: columnTypeOf(c.columnType, c.name, c.primary),
      notNull: c.notNull,
      hasDefault: c.hasDefault,
      defaultSql: defaultSqlOf(c.default, dialect),
      enumValues: c.enumValues,
      readSql: STORED_READS[config.name]?.[c.name],
    }));
    const uniqueKeys: UniqueKey[] = [
      ...config.columns.filter((c) => c.primary).map((c) => ({ name: `${config.name}_pkey`, columns: [c.name] })),
      ...config.columns.filter((c) => c.isUnique && !c.primary).map((c) => ({ name: c.uniqueName ?? `${config.name}_${c.name}_unique`, columns: [c.name] })),
      ...config.indexes
        .filter((ix) => ix.config.unique && ix.config.columns.every((c) => typeof (c as { name?: unknown }).name === "string"))
        .map((ix) => ({ name: ix.config.name, columns: ix.config.columns.map((c) => (c as { name: string }).name) })),
    ];
    const foreignKeys: ForeignKey[] = config.foreignKeys.map((fk) => {
      const ref = fk.reference();
      // Every foreign key of this schema is single-column; embedding relies on that.
      return { name: fk.getName(), table: config.name, column: ref.columns[0].name, refTable: getTableName(ref.foreignTable), refColumn: ref.foreignColumns[0].name };
    });
    tables.set(config.name, {
      name: config.name,
      columns: new Map(columnList.map((c) => [c.name, c])),
      columnList,
      primaryKey: config.columns.filter((c) => c.primary).map((c) => c.name),
      uniqueKeys,
      foreignKeys,
    });
  }
  // A foreign key to a uuid column is a uuid column too (second pass: needs every table's ids typed).
  for (const table of tables.values())
    for (const fk of table.foreignKeys) {
      const column = table.columns.get(fk.column)!;
      if (tables.get(fk.refTable)?.columns.get(fk.refColumn)?.type === "uuid") column.type = "uuid";
    }

  const relationships = new Map<string, Relationship[]>();
  const add = (parent: string, rel: Relationship) => relationships.set(parent, [...(relationships.get(parent) ?? []), rel]);
  for (const table of tables.values())
    for (const fk of table.foreignKeys) {
      add(fk.refTable, { fk, table: table.name, parentColumn: fk.refColumn, childColumn: fk.column, toOne: false });
      add(table.name, { fk, table: fk.refTable, parentColumn: fk.column, childColumn: fk.refColumn, toOne: true });
    }
  return { tables, relationshipsOf: (parent) => relationships.get(parent) ?? [] };
}

/**
 * The candidate most similar to `name` (1 − edit distance / length), if at least `minScore`:
 * PostgREST's "Perhaps you meant …" hints.
 */
export function closestName(candidates: Iterable<string>, name: string, minScore: number): string | undefined {
  if (name.length > 128) return undefined; // a hint is not worth quadratic work on garbage input
  let best: string | undefined;
  let bestScore = minScore;
  for (const candidate of candidates) {
    const score = 1 - editDistance(candidate, name) / Math.max(candidate.length, name.length, 1);
    if (score >= bestScore && candidate !== name) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 64) return Math.max(a.length, b.length);
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}
