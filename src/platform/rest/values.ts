// Text from the URL and JSON from the body → values SQLite can store and compare, with the input
// errors Postgres would raise for its column types (22P02, 22003, 22007) — so a bad uuid is a 400,
// never a silent non-match and never a 5xx.
import { AppError } from "../../http/errors";
import { PG_TYPE_NAMES, type ColumnInfo, type ColumnType } from "./schema-cache";

export type SqlValue = string | number | null;

const badInput = (type: ColumnType, value: string, code = "22P02") =>
  new AppError(400, code, `invalid input syntax for type ${PG_TYPE_NAMES[type]}: ${JSON.stringify(value.length > MAX_SCALAR_CHARS ? `${value.slice(0, 100)}…` : value)}`);

/**
 * Longest text read as a uuid, number, boolean or timestamp: none of them is longer, and a pattern
 * run over a megabyte of digits or spaces cost minutes of a thread (review finding).
 */
const MAX_SCALAR_CHARS = 1000;

const UUID = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;
const INTEGER = /^\s*[+-]?[0-9]+\s*$/;
// Matched against trimmed text: no two runs of one class side by side, so no backtracking.
const REAL = /^([+-]?([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(e[+-]?[0-9]+)?|[+-]?infinity|nan)$/i;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(?:\s*(Z|[+-]\d{2}(?::?\d{2})?))?)?$/i;
const BOOLEAN_WORDS: [string, number][] = [["true", 1], ["false", 0], ["yes", 1], ["no", 0], ["on", 1], ["off", 0], ["1", 1], ["0", 0]];

/** Postgres' boolin: true/false/yes/no/on/off/1/0 and their unambiguous prefixes, any case. */
function parseBoolean(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (!t) return undefined;
  const matches = BOOLEAN_WORDS.filter(([word]) => word.startsWith(t) && (t.length > 1 || !"o".includes(t)));
  const values = new Set(matches.map(([, v]) => v));
  return values.size === 1 ? matches[0][1] : undefined;
}

function parseTimestamp(text: string): string | undefined {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return undefined;
  const zone = m[3] ? (m[3].toUpperCase() === "Z" ? "Z" : m[3].length === 3 ? `${m[3]}:00` : m[3].replace(/^([+-]\d{2})(\d{2})$/, "$1:$2")) : "Z";
  const time = m[2] ? (m[2].length === 5 ? `${m[2]}:00` : m[2].replace(/(\.\d{3})\d+$/, "$1")) : "00:00:00";
  const date = new Date(`${m[1]}T${time}${zone}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A textual value (query string, CSV, form) as a value of `type`. */
export function fromText(type: ColumnType, text: string): SqlValue {
  if (text.length > MAX_SCALAR_CHARS && type !== "text" && type !== "json") throw badInput(type, text, type === "timestamp" ? "22007" : "22P02");
  switch (type) {
    case "uuid": {
      const m = UUID.exec(text);
      if (!m) throw badInput(type, text);
      return m.slice(1).join("-").toLowerCase();
    }
    case "integer": {
      if (!INTEGER.test(text)) throw badInput(type, text);
      const n = Number(text);
      if (!Number.isSafeInteger(n)) throw new AppError(400, "22003", `value "${text.trim()}" is out of range for type integer`);
      return n;
    }
    case "real": {
      if (!REAL.test(text.trim())) throw badInput(type, text);
      return Number(text.trim().replace(/^([+-]?)infinity$/i, "$1Infinity"));
    }
    case "boolean": {
      const b = parseBoolean(text);
      if (b === undefined) throw badInput(type, text);
      return b;
    }
    case "timestamp": {
      const ts = parseTimestamp(text);
      if (ts === undefined) throw badInput(type, text, "22007");
      return ts;
    }
    case "json":
      try {
        return JSON.stringify(JSON.parse(text));
      } catch {
        throw new AppError(400, "22P02", "invalid input syntax for type json", { details: `Token "${text.slice(0, 40)}" is invalid.` });
      }
    case "text":
      return text;
  }
}

export function checkEnum(table: string, column: ColumnInfo, value: SqlValue): SqlValue {
  if (column.enumValues && value !== null && !column.enumValues.includes(String(value)))
    throw new AppError(400, "22P02", `invalid input value for enum ${table}_${column.name}: ${JSON.stringify(String(value))}`);
  return value;
}

/** A JSON body value for a column (json_populate_record's conversions). */
export function fromJson(table: string, column: ColumnInfo, value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  if (column.type === "json") return JSON.stringify(value);
  if (typeof value === "object") {
    if (column.type === "text") return JSON.stringify(value);
    throw badInput(column.type, JSON.stringify(value));
  }
  if (column.type === "boolean" && typeof value === "boolean") return Number(value);
  if (column.type === "integer" && typeof value === "number" && !Number.isInteger(value)) throw badInput(column.type, String(value));
  return checkEnum(table, column, fromText(column.type, String(value)));
}

/**
 * A Postgres array literal `{a,"b c",NULL}` (what supabase-js sends for cs/cd/ov and quantified
 * operators) as a list; null when the text is not one.
 */
export function pgArrayLiteral(text: string): (string | null)[] | null {
  const t = text.trim();
  if (!t.startsWith("{") || !t.endsWith("}")) return null;
  const body = t.slice(1, -1);
  if (body.trim() === "") return [];
  const items: (string | null)[] = [];
  let i = 0;
  while (i <= body.length) {
    while (body[i] === " ") i++;
    if (body[i] === '"') {
      let item = "";
      i++;
      while (i < body.length && body[i] !== '"') {
        if (body[i] === "\\") i++;
        item += body[i++] ?? "";
      }
      i++;
      items.push(item);
      while (body[i] === " ") i++;
    } else {
      const end = body.indexOf(",", i);
      const raw = body.slice(i, end < 0 ? body.length : end).trim();
      items.push(raw.toUpperCase() === "NULL" ? null : raw);
      i = end < 0 ? body.length : end;
    }
    if (body[i] !== ",") break;
    i++;
  }
  return items;
}
