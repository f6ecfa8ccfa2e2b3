// What Postgres would enforce with constraints and triggers, for the REST write path: normalized and
// checked columns (domains, slugs), a column inherited from a parent row (prompts.brand_id from its
// prompt set), NOT NULL, and the backend's constraint errors re-worded as Postgres' 23502/23503/23505.
import { AppError } from "../../http/errors";
import type { ConstraintViolation } from "./dialect";
import { normalizeDomain } from "../../analysis/urls";
import { isLanguageTag, MAX_ALIAS_CHARS, MAX_ALIASES, MAX_NAME_CHARS, MAX_PROMPT_CHARS, TRACKING_CODE } from "../../common/limits";
import { isLogoDataUrl, LOGO_MAX_CHARS, LOGO_TYPES } from "../../common/logo";
import type { ColumnInfo, TableInfo } from "./schema-cache";
import type { SqlValue } from "./values";

function checkViolation(table: string, constraint: string, details: string): AppError {
  return new AppError(400, "23514", `new row for relation "${table}" violates check constraint "${constraint}"`, { details });
}

// Labels of letters, digits and inner hyphens; the last one starts with a letter (no IP addresses).
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const SLUG = /^[a-z0-9-]+$/;

type ColumnRule = (table: string, column: string, value: string) => string | null;

const hostRule: ColumnRule = (table, column, value) => {
  // Ansvisor's settings page sends '' for "no domain": a competitor's domain is then simply absent
  // (NOT NULL columns such as brand_domains.domain still refuse the null with 23502).
  if (value.trim() === "") return null;
  const host = normalizeDomain(value);
  if (!HOSTNAME.test(host)) throw checkViolation(table, `${table}_${column}_hostname`, `${column} must be a hostname such as example.com, got ${JSON.stringify(value)}`);
  return host;
};

// Ansvisor keeps a US state (two capital letters) for US brands.
const stateRule: ColumnRule = (table, column, value) => {
  if (!/^[A-Z]{2}$/.test(value)) throw checkViolation(table, `${table}_${column}_format`, `${column} must be two capital letters such as CA, got ${JSON.stringify(value)}`);
  return value;
};

const slugRule: ColumnRule = (table, column, value) => {
  if (!SLUG.test(value)) throw checkViolation(table, `${table}_${column}_format`, `${column} may contain only a-z, 0-9 and "-", got ${JSON.stringify(value)}`);
  return value;
};

/** Text up to `max` characters, as a varchar(max) column: longer is Postgres' 22001. */
const maxLength =
  (max: number): ColumnRule =>
  (table, column, value) => {
    if (value.length > max) throw new AppError(400, "22001", `value too long for type character varying(${max})`, { details: `${table}.${column} holds at most ${max} characters (got ${value.length}).` });
    return value;
  };

// A logo is an image inside the row (src/common/logo.ts): a client report shows it and requests nothing.
const logoRule: ColumnRule = (table, column, value) => {
  if (!isLogoDataUrl(value))
    throw checkViolation(table, `${table}_${column}_data_url`, `${column} must be null or a base64 data: URL of ${LOGO_TYPES.join(", ")} of at most ${LOGO_MAX_CHARS} characters (got ${value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}…` : JSON.stringify(value)}, ${value.length} characters)`);
  return value;
};

// A tracking code is pasted into a customer's every page inside an HTML attribute.
const trackingCodeRule: ColumnRule = (table, column, value) => {
  if (!TRACKING_CODE.test(value)) throw checkViolation(table, `${table}_${column}_format`, `${column} may contain only A-Z, a-z, 0-9, "_" and "-" (1 to 64 characters), got ${JSON.stringify(value.slice(0, 80))}`);
  return value;
};

// Sent to every engine on every unit and read by the analysis: a value Intl cannot take (en_US) failed each unit after its paid call.
const languageRule: ColumnRule = (table, column, value) => {
  if (!isLanguageTag(value)) throw checkViolation(table, `${table}_${column}_format`, `${column} must be a language code such as en, de or pt-BR, got ${JSON.stringify(value.slice(0, 80))}`);
  return value;
};

const COLUMN_RULES: Record<string, Record<string, ColumnRule>> = {
  organizations: { slug: slugRule, logo: logoRule },
  prompts: { text: maxLength(MAX_PROMPT_CHARS) },
  brands: { slug: slugRule, state: stateRule, tracking_code: trackingCodeRule, name: maxLength(MAX_NAME_CHARS), language: languageRule },
  brand_domains: { domain: hostRule },
  competitors: { domain: hostRule, name: maxLength(MAX_NAME_CHARS) },
};

// ---- JSON columns: their declared element types, and how much one row may hold ---------------

/** Longest list a JSON array column takes, and longest string inside one (bounded work per row). */
export const MAX_JSON_ITEMS = MAX_ALIASES;
export const MAX_JSON_STRING = MAX_ALIAS_CHARS;
/** Largest value of a JSON column with a declared shape, serialized. */
export const MAX_JSON_BYTES = 16_384;

function invalidJson(table: string, column: string, expected: string, value: string): AppError {
  return new AppError(400, "22P02", `invalid input value for column "${column}" of relation "${table}": expected ${expected}`, {
    details: `Got ${value.length > 80 ? `${value.slice(0, 80)}…` : value}`,
  });
}

type JsonShape = (value: unknown) => boolean;

const boundedString = (v: unknown): v is string => typeof v === "string" && v.length <= MAX_JSON_STRING;
const listOf = (item: JsonShape): JsonShape => (v) => Array.isArray(v) && v.length <= MAX_JSON_ITEMS && v.every(item);
const alias: JsonShape = (v) =>
  boundedString(v) ||
  (!!v && typeof v === "object" && !Array.isArray(v) && boundedString((v as Record<string, unknown>).text) &&
    Object.keys(v).every((k) => k === "text" || (k === "caseSensitive" && typeof (v as Record<string, unknown>).caseSensitive === "boolean")));
const object: JsonShape = (v) => !!v && typeof v === "object" && !Array.isArray(v);

const JSON_SHAPES: Record<string, Record<string, { shape: JsonShape; expected: string }>> = {
  brands: { aliases: { shape: listOf(alias), expected: `an array of at most ${MAX_JSON_ITEMS} names (strings or {"text", "caseSensitive"})` } },
  competitors: { aliases: { shape: listOf(alias), expected: `an array of at most ${MAX_JSON_ITEMS} names (strings or {"text", "caseSensitive"})` } },
  prompts: {
    platforms: { shape: listOf(boundedString), expected: `an array of at most ${MAX_JSON_ITEMS} strings` },
    models: { shape: listOf(boundedString), expected: `an array of at most ${MAX_JSON_ITEMS} strings` },
    regions: { shape: listOf(boundedString), expected: `an array of at most ${MAX_JSON_ITEMS} strings` },
  },
  webhook_endpoints: { events: { shape: listOf(boundedString), expected: `an array of at most ${MAX_JSON_ITEMS} strings` } },
  suggestions: { evidence: { shape: object, expected: "a JSON object" } },
};

/** A JSON column's value must have its declared shape and stay within the size bounds. */
function checkJsonShape(table: string, column: string, json: string): void {
  const rule = JSON_SHAPES[table]?.[column];
  if (!rule) return;
  if (json.length > MAX_JSON_BYTES) throw new AppError(400, "22001", `value too long for column "${column}" of relation "${table}" (at most ${MAX_JSON_BYTES} bytes of JSON)`);
  if (!rule.shape(JSON.parse(json))) throw invalidJson(table, column, rule.expected, json);
}

/** The value as stored: domains reduced to their host, slugs checked, JSON checked against its shape. */
export function applyColumnRule(table: string, column: ColumnInfo, value: SqlValue): SqlValue {
  if (typeof value !== "string") return value;
  if (column.type === "json") {
    checkJsonShape(table, column.name, value);
    return value;
  }
  const rule: ColumnRule | undefined = COLUMN_RULES[table]?.[column.name];
  return rule !== undefined ? rule(table, column.name, value) : value;
}

/**
 * Ansvisor's names for answerwatch columns (generated columns in the schema, so reads and filters
 * see them): a write to the alias is a write to the column it names.
 */
export const COLUMN_ALIASES: Record<string, Record<string, string>> = {
  brand_platforms: { api_model: "model" },
  prompt_results: { model_used: "model" },
  citations: { prompt_result_id: "result_id" },
};

/** The column a written name means: an alias's base column, else the name itself. */
export function writtenColumn(table: string, name: string): string {
  return COLUMN_ALIASES[table]?.[name] ?? name;
}

/** `column` of `table` must equal the same column of the row its foreign key `via` points to. */
export interface InheritedColumn {
  table: string;
  column: string;
  via: string;
  /** The table `via` refers to (by its id). */
  parent: string;
}

export const INHERITED_COLUMNS: InheritedColumn[] = [{ table: "prompts", column: "brand_id", via: "prompt_set_id", parent: "prompt_sets" }];

export function inheritedColumnsOf(table: string): InheritedColumn[] {
  return INHERITED_COLUMNS.filter((r) => r.table === table);
}

export function inheritanceViolation(rule: InheritedColumn): AppError {
  return checkViolation(rule.table, `${rule.table}_${rule.column}_matches_${rule.via}`, `${rule.table}.${rule.column} must equal the ${rule.column} of the row ${rule.via} refers to`);
}

function failingRow(columns: ColumnInfo[], row: Record<string, SqlValue>): string {
  return `Failing row contains (${columns.map((c) => (row[c.name] === undefined || row[c.name] === null ? "null" : String(row[c.name]))).join(", ")}).`;
}

export function notNullViolation(table: string, column: string, details: string | null): AppError {
  return new AppError(400, "23502", `null value in column "${column}" of relation "${table}" violates not-null constraint`, { details });
}

/** NOT NULL, checked before the insert so the error can name the row (SQLite's message cannot). */
export function checkNotNull(table: TableInfo, columns: ColumnInfo[], rows: Record<string, SqlValue>[], missingDefault: boolean, filledByDatabase: InheritedColumn[] = []): void {
  for (const row of rows)
    for (const column of table.columnList) {
      if (!column.notNull) continue;
      // An inherited column the database's trigger fills from the row's parent.
      if (filledByDatabase.some((r) => r.column === column.name && (row[r.via] ?? null) !== null)) continue;
      const given = Object.hasOwn(row, column.name);
      const listed = columns.includes(column);
      const defaulted = column.hasDefault && (!listed || (!given && missingDefault));
      if (!defaulted && (row[column.name] === null || row[column.name] === undefined)) throw notNullViolation(table.name, column.name, failingRow(columns, row));
    }
}

/** What each named CHECK constraint allows, said in its error's details. */
const CHECK_DETAILS: Record<string, string> = {
  brand_platforms_samples_range: "samples must be a whole number from 1 to 10",
};

/**
 * A row's reference to a row that is not there — or that the caller may not read, which must read
 * the same (whether another organization's id exists is no caller's to learn): Postgres' 23503.
 */
export function missingReferenceError(table: string, missing: { fk: { name: string; column: string; refTable: string }; value: SqlValue } | null): AppError {
  return new AppError(409, "23503", `insert or update on table "${table}" violates foreign key constraint "${missing?.fk.name ?? `${table}_fkey`}"`, {
    details: missing ? `Key (${missing.fk.column})=(${missing.value}) is not present in table "${missing.fk.refTable}".` : null,
  });
}

/**
 * A constraint violation (as the dialect read it from the backend's error) as the Postgres error
 * PostgREST would relay. `describe` finds the offending key values (SQLite's messages carry none).
 */
export async function constraintError(
  table: TableInfo,
  violation: ConstraintViolation | null,
  describe: { uniqueValues(columns: string[]): Promise<SqlValue[] | "hidden" | null>; missingReference(): Promise<{ fk: { name: string; column: string; refTable: string }; value: SqlValue } | null> },
): Promise<AppError | null> {
  if (!violation) return null;
  if (violation.kind === "unique") {
    const { columns } = violation;
    const key =
      table.uniqueKeys.find((k) => violation.constraint && k.name === violation.constraint) ??
      table.uniqueKeys.find((k) => k.columns.length === columns.length && k.columns.every((c) => columns.includes(c)));
    const values = await describe.uniqueValues(key?.columns ?? columns);
    const names = (key?.columns ?? columns).join(", ");
    return new AppError(409, "23505", `duplicate key value violates unique constraint "${key?.name ?? `${table.name}_key`}"`, {
      details: values === "hidden" ? `Key (${names}) already exists.` : values ? `Key (${names})=(${values.map(String).join(", ")}) already exists.` : null,
    });
  }
  if (violation.kind === "foreign_key") return missingReferenceError(table.name, await describe.missingReference());
  if (violation.kind === "not_null") return notNullViolation(table.name, violation.column, null);
  // Postgres names the constraint too.
  const name = violation.constraint ?? `${table.name}_check`;
  return new AppError(400, "23514", `new row for relation "${table.name}" violates check constraint "${name}"`, { details: CHECK_DETAILS[name] ?? violation.detail ?? null });
}
