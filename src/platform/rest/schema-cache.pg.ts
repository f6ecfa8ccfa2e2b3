// The schema cache of /rest/v1 in Postgres mode: the same tables, columns, keys and relationships as
// on SQLite (built from src/db/schema.ts, which the Postgres schema mirrors — the organization_id
// columns Postgres adds stay out of /rest/v1, so `*` reads the same columns on both), with each
// column's Postgres type and default taken from src/db/pg/schema.ts, and no SQLite read wrappers
// for answers (plain text on Postgres; TOAST compresses them). Citation URLs are kept once in
// citation_urls on both backends (src/results/store.pg.ts), so citations' url, normalized_url and
// title keep reading through from it (src/db/stored-columns.ts).
import { is, SQL } from "drizzle-orm";
import { getTableConfig, PgDialect, PgTable } from "drizzle-orm/pg-core";
import * as pgSchema from "../../db/pg/schema";
import * as schema from "../../db/schema";
import { PRIVATE_SCHEMA } from "./policies.pg";
import { buildSchemaCache, type ColumnInfo, type ColumnType, type SchemaCache } from "./schema-cache";

const TYPES: Record<string, ColumnType> = {
  uuid: "uuid",
  "timestamp with time zone": "timestamp",
  jsonb: "json",
  boolean: "boolean",
  integer: "integer",
  bigint: "integer",
  "double precision": "real",
  text: "text",
};

function defaultSqlOf(value: unknown, dialect: PgDialect): ColumnInfo["defaultSql"] {
  if (value === undefined) return undefined;
  if (is(value, SQL)) {
    const query = dialect.sqlToQuery(value);
    // The fragment builder binds `?`; drizzle numbers its parameters.
    return { sql: query.sql.replace(/\$\d+/g, "?"), params: query.params };
  }
  return { sql: "?", params: [value] };
}

export function buildPgSchemaCache(): SchemaCache {
  const cache = buildSchemaCache(schema);
  const dialect = new PgDialect();
  for (const value of Object.values(pgSchema)) {
    if (!is(value, PgTable)) continue;
    const config = getTableConfig(value);
    const table = cache.tables.get(config.name);
    if (!table) continue;
    for (const column of config.columns) {
      const info = table.columns.get(column.name);
      if (!info) continue;
      const sqlType = column.getSQLType();
      info.sqlType = sqlType;
      info.type = TYPES[sqlType] ?? info.type;
      info.defaultSql = defaultSqlOf(column.default, dialect);
      if (config.name !== "citations") delete info.readSql;
      // citations' URL fields read through citation_urls by a function that checks the caller may
      // read the citation (policies.pg.ts): the REST roles cannot read url_id or citation_urls.
      else if (info.readSql) info.readSql = `coalesce({t}.${column.name}, ${PRIVATE_SCHEMA}.citation_link({t}.id, '${column.name}'))`;
    }
  }
  return cache;
}
