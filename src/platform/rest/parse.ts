// Step 1 of /rest/v1 (DESIGN §5): query string, headers and body → ApiRequest, with PostgREST's
// grammar (PostgREST.ApiRequest.QueryParams) and its PGRST100/102/103/106/107/122 errors. Nothing here
// knows the schema; names stay names until plan.ts resolves them.
import { AppError } from "../../http/errors";
import { limitExceeded, REST_LIMITS } from "./limits";

export interface JsonStep {
  /** `->` keeps JSON, `->>` yields text. */
  arrow: "->" | "->>";
  key: string;
  /** The key was an integer (an array index, negative counts from the end). */
  index: boolean;
}

export interface Field {
  name: string;
  json: JsonStep[];
}

export type SelectItem =
  | { kind: "star" }
  | { kind: "field"; field: Field; alias?: string; cast?: string }
  | { kind: "embed"; relation: string; alias?: string; hint?: string; inner: boolean; spread: boolean; items: SelectItem[] };

export const SIMPLE_OPERATORS = ["eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj", "isdistinct"] as const;
export type SimpleOperator = (typeof SIMPLE_OPERATORS)[number];
const FTS_OPERATORS = ["fts", "plfts", "phfts", "wfts"];
const QUANTIFIABLE = new Set(["eq", "like", "ilike", "gt", "gte", "lt", "lte", "match", "imatch"]);

export type Operation =
  | { kind: "op"; op: SimpleOperator; value: string; quantifier?: "any" | "all" }
  | { kind: "in"; values: string[] }
  | { kind: "is"; value: "null" | "true" | "false" | "unknown" }
  | { kind: "fts"; op: string; value: string };

export interface Filter {
  field: Field;
  negated: boolean;
  operation: Operation;
}

export type LogicTree = { kind: "filter"; filter: Filter } | { kind: "logic"; op: "and" | "or"; negated: boolean; children: LogicTree[] };

export interface OrderTerm {
  field: Field;
  /** `order=rel(col)`: order by a column of an embedded to-one resource. */
  relation?: string;
  direction?: "asc" | "desc";
  nulls?: "first" | "last";
}

export interface Range {
  offset: number;
  limit?: number;
}

/** An embed path (aliases or relation names from the root); [] is the root. */
export type EmbedPath = string[];

export interface QueryParams {
  select: SelectItem[];
  filters: { path: EmbedPath; filter: Filter }[];
  logic: { path: EmbedPath; tree: LogicTree }[];
  order: { path: EmbedPath; terms: OrderTerm[] }[];
  ranges: { path: EmbedPath; range: Range }[];
  columns?: string[];
  onConflict?: string[];
  /** Parameters that are neither reserved nor filters: the arguments of a GET /rpc call. */
  params: [string, string][];
}

export interface Preferences {
  return?: "minimal" | "representation" | "headers-only";
  count?: "exact" | "planned" | "estimated";
  resolution?: "merge-duplicates" | "ignore-duplicates";
  missing?: "default" | "null";
  handling?: "strict" | "lenient";
  /** `max-affected=n` with handling=strict: an update or delete of more rows is rolled back (PGRST124); ignored when lenient, as PostgREST does. */
  maxAffected?: number;
}

export type MediaKind = "json" | "object" | "csv";

export interface ApiRequest {
  method: "GET" | "HEAD" | "POST" | "PATCH" | "DELETE";
  resource: { kind: "table" | "rpc"; name: string };
  query: QueryParams;
  preferences: Preferences;
  media: { kind: MediaKind; stripNulls: boolean };
  /** limit/offset of the root intersected with the Range header. */
  topRange: Range;
  /** The parsed body of POST/PATCH (an object or an array of objects), undefined otherwise. */
  payload?: unknown;
}

const MAX_NESTING = 32; // parentheses deeper than this are refused rather than risking the stack

function parseError(what: string, input: string, position: number, details: string): AppError {
  return new AppError(400, "PGRST100", `"failed to parse ${what} (${input})" (line 1, column ${position + 1})`, { details });
}

/** A small Parsec-like cursor: PGRST100 messages name the column and what was expected. */
class Cursor {
  pos = 0;
  depth = 0;
  constructor(
    readonly input: string,
    readonly what: string,
  ) {}

  fail(expecting: string[] = [], message?: string): never {
    const ch = this.input[this.pos];
    const unexpected = ch === undefined ? "unexpected end of input" : `unexpected ${JSON.stringify(ch)}`;
    const details = message ?? (expecting.length ? `${unexpected} expecting ${expecting.join(", ")}` : unexpected);
    throw parseError(this.what, this.input, this.pos, details);
  }
  peek(s: string): boolean {
    return this.input.startsWith(s, this.pos);
  }
  eat(s: string): boolean {
    if (!this.peek(s)) return false;
    this.pos += s.length;
    return true;
  }
  expect(s: string): void {
    if (!this.eat(s)) this.fail([JSON.stringify(s)]);
  }
  atEnd(): boolean {
    return this.pos >= this.input.length;
  }
  ws(): void {
    while (this.input[this.pos] === " " || this.input[this.pos] === "\t") this.pos++;
  }
  /** ws, s, ws */
  lexeme(s: string): boolean {
    const start = this.pos;
    this.ws();
    if (this.eat(s)) {
      this.ws();
      return true;
    }
    this.pos = start;
    return false;
  }
  nest<T>(fn: () => T): T {
    if (++this.depth > MAX_NESTING) this.fail([], `nesting deeper than ${MAX_NESTING} levels`);
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }
}

const IDENTIFIER_CHAR = /[\p{L}0-9_ $]/u;

function identifier(c: Cursor): string | null {
  const start = c.pos;
  // By code point: letters outside the BMP (𝔘) are letters too.
  for (let ch = String.fromCodePoint(c.input.codePointAt(c.pos) ?? 0); c.pos < c.input.length && IDENTIFIER_CHAR.test(ch); ch = String.fromCodePoint(c.input.codePointAt(c.pos) ?? 0))
    c.pos += ch.length;
  return c.pos > start ? c.input.slice(start, c.pos).trim() : null;
}

function quotedValue(c: Cursor): string | null {
  if (!c.peek('"')) return null;
  const start = c.pos;
  c.pos++;
  let out = "";
  while (c.pos < c.input.length && c.input[c.pos] !== '"') {
    if (c.input[c.pos] === "\\" && c.pos + 1 < c.input.length) c.pos++;
    out += c.input[c.pos++];
  }
  if (!c.eat('"')) {
    c.pos = start;
    return null;
  }
  return out;
}

/** PostgREST's pFieldName: a quoted name, or identifiers joined by dashes that do not start an arrow. */
function fieldName(c: Cursor): string {
  const quoted = quotedValue(c);
  if (quoted !== null) return quoted;
  const parts: string[] = [];
  for (;;) {
    const part = identifier(c);
    if (part === null) {
      if (parts.length === 0) c.fail(["field name (* or [a..z0..9_$])"]);
      c.pos--; // give the dash back
      break;
    }
    parts.push(part);
    if (!(c.peek("-") && !c.peek("->"))) break;
    c.pos++;
  }
  return parts.join("-");
}

function jsonPath(c: Cursor): JsonStep[] {
  const steps: JsonStep[] = [];
  for (;;) {
    const arrow = c.eat("->>") ? "->>" : c.eat("->") ? "->" : null;
    if (!arrow) return steps;
    if (steps.length >= REST_LIMITS.jsonSteps) throw limitExceeded("54001", `a JSON path of more than ${REST_LIMITS.jsonSteps} steps`, REST_LIMITS.jsonSteps);
    const index = /^-?[0-9]+(?=->|::|\.|,|\)|$)/.exec(c.input.slice(c.pos));
    if (index) {
      c.pos += index[0].length;
      steps.push({ arrow, key: index[0], index: true });
    } else steps.push({ arrow, key: fieldName(c), index: false });
  }
}

function field(c: Cursor): Field {
  c.ws();
  const name = fieldName(c);
  const json = jsonPath(c);
  c.ws();
  return { name, json };
}

function tryAlias(c: Cursor): string | undefined {
  const start = c.pos;
  try {
    const alias = fieldName(c);
    if (c.peek(":") && !c.peek("::")) {
      c.pos++;
      return alias;
    }
  } catch {
    // not an alias
  }
  c.pos = start;
  return undefined;
}

function embedParams(c: Cursor): { hint?: string; inner: boolean } {
  let hint: string | undefined;
  let inner = false;
  for (let i = 0; i < 2 && c.eat("!"); i++) {
    if (c.eat("inner")) inner = true;
    else if (c.eat("left")) inner = false;
    else hint = fieldName(c);
  }
  return { hint, inner };
}

function selectEnd(c: Cursor, expecting: string[]): void {
  if (!(c.atEnd() || c.peek(")") || c.peek(","))) c.fail([...expecting, '")"', '","', "end of input"]);
}

function selectItem(c: Cursor): SelectItem {
  c.ws();
  if (c.eat("...")) {
    const relation = fieldName(c);
    const { hint, inner } = embedParams(c);
    return { kind: "embed", relation, hint, inner, spread: true, items: embedded(c) };
  }
  if (c.eat("*")) {
    c.ws();
    selectEnd(c, []);
    return { kind: "star" };
  }
  const start = c.pos;
  const alias = tryAlias(c);
  const name = fieldName(c);
  const afterName = c.pos;
  const { hint, inner } = embedParams(c);
  if (c.peek("(")) return { kind: "embed", relation: name, alias, hint, inner, spread: false, items: embedded(c) };
  c.pos = afterName;
  if (c.peek("!")) c.fail(['"("']);
  const json = jsonPath(c);
  let cast: string | undefined;
  if (c.eat("::")) cast = identifier(c) ?? c.fail(["letter or digit"]);
  c.ws();
  selectEnd(c, ['"->>"', '"->"', '"::"']);
  if (start === c.pos) c.fail(["field name (* or [a..z0..9_$])"]);
  return { kind: "field", field: { name, json }, alias, cast };
}

function embedded(c: Cursor): SelectItem[] {
  c.expect("(");
  const items = c.nest(() => selectList(c));
  c.expect(")");
  c.ws();
  return items;
}

function selectList(c: Cursor): SelectItem[] {
  const items = [selectItem(c)];
  while (c.lexeme(",")) items.push(selectItem(c));
  return items;
}

export function parseSelect(input: string): SelectItem[] {
  const c = new Cursor(input, "select parameter");
  const items = selectList(c);
  if (!c.atEnd()) c.fail(['","', "end of input"]);
  return items;
}

function columnList(input: string, what: string): string[] {
  const c = new Cursor(input, what);
  const names = [fieldName(c)];
  while (c.lexeme(",")) names.push(fieldName(c));
  if (!c.atEnd()) c.fail(['","', "end of input"]);
  return names;
}

/** Key of a filter, order, limit or logic parameter: `a.b.col->x` → path [a, b], field col->x. */
function treePath(input: string): { path: EmbedPath; field: Field } {
  const c = new Cursor(input, "tree path");
  const names = [fieldName(c)];
  while (c.eat(".")) names.push(fieldName(c));
  const json = jsonPath(c);
  if (!c.atEnd()) c.fail(['"."', "end of input"]);
  return { path: names.slice(0, -1), field: { name: names.at(-1)!, json } };
}

function listValue(c: Cursor): string[] {
  if (!c.lexeme("(")) c.fail(['"("']);
  const values: string[] = [];
  do {
    const start = c.pos;
    const quoted = quotedValue(c);
    if (quoted !== null && (c.atEnd() || c.peek(",") || c.peek(")"))) values.push(quoted);
    else {
      c.pos = start;
      while (!c.atEnd() && c.input[c.pos] !== "," && c.input[c.pos] !== ")") c.pos++;
      values.push(c.input.slice(start, c.pos));
    }
  } while (c.eat(","));
  if (!c.lexeme(")")) c.fail(['")"', '","']);
  return values;
}

const TRI_VALUES = ["null", "unknown", "true", "false"] as const;

/** `[not.]op.value` — `single` reads the value (the rest of the input, or up to `,`/`)` inside logic trees). */
function operation(c: Cursor, single: (c: Cursor) => string): { negated: boolean; operation: Operation } {
  const negated = c.eat("not.");
  if (c.eat("in.")) return { negated, operation: { kind: "in", values: listValue(c) } };
  if (c.eat("is.")) {
    const rest = c.input.slice(c.pos, c.pos + 7).toLowerCase();
    const value = TRI_VALUES.find((v) => rest.startsWith(v)) ?? c.fail(["null or trilean value (unknown, true, false)"]);
    c.pos += value.length;
    return { negated, operation: { kind: "is", value } };
  }
  const dot = c.input.indexOf(".", c.pos);
  if (dot < 0) {
    c.pos = c.input.length;
    c.fail(["delimiter (.)"]);
  }
  const opText = c.input.slice(c.pos, dot);
  const fts = /^([a-z]+)(?:\(([\p{L}0-9_ $]+)\))?$/u.exec(opText);
  if (fts && FTS_OPERATORS.includes(fts[1])) {
    c.pos = dot + 1;
    return { negated, operation: { kind: "fts", op: fts[1], value: single(c) } };
  }
  const quantified = /^([a-z]+)\((any|all)\)$/.exec(opText);
  const opName = quantified && QUANTIFIABLE.has(quantified[1]) ? quantified[1] : opText;
  c.pos = dot + 1; // Parsec reports the position after the operator it read
  if (!(SIMPLE_OPERATORS as readonly string[]).includes(opName)) c.fail([], `unknown single value operator ${opText}`);
  return { negated, operation: { kind: "op", op: opName as SimpleOperator, value: single(c), quantifier: quantified ? (quantified[2] as "any" | "all") : undefined } };
}

const restOfInput = (c: Cursor) => {
  const value = c.input.slice(c.pos);
  c.pos = c.input.length;
  return value;
};

export function parseFilterValue(value: string): { negated: boolean; operation: Operation } {
  return operation(new Cursor(value, "filter"), restOfInput);
}

/** A value inside or=(…): quoted, a {…} array literal, or everything up to `,` or `)`. */
function logicValue(c: Cursor): string {
  const start = c.pos;
  const quoted = quotedValue(c);
  if (quoted !== null && (c.atEnd() || c.peek(",") || c.peek(")"))) return quoted;
  c.pos = start;
  if (c.peek("{")) {
    const close = c.input.indexOf("}", c.pos);
    const inner = close < 0 ? "" : c.input.slice(c.pos + 1, close);
    if (close >= 0 && !inner.includes("{")) {
      c.pos = close + 1;
      return `{${inner}}`;
    }
  }
  while (!c.atEnd() && c.input[c.pos] !== "," && c.input[c.pos] !== ")") c.pos++;
  return c.input.slice(start, c.pos);
}

function logicTree(c: Cursor): LogicTree {
  // `and(`, `or(` and `not.` followed by one of them start a sub-tree; anything else is `col.op.value`.
  if (!/^(not\.)?(and|or)\s*\(/.test(c.input.slice(c.pos))) {
    const f = field(c);
    c.expect(".");
    const { negated, operation: op } = operation(c, logicValue);
    return { kind: "filter", filter: { field: f, negated, operation: op } };
  }
  const negated = c.eat("not.");
  const op = c.eat("and") ? "and" : c.eat("or") ? "or" : c.fail(["logic operator (and, or)"]);
  if (!c.lexeme("(")) c.fail(['"("']);
  const children = c.nest(() => {
    const list = [logicTree(c)];
    while (c.lexeme(",")) list.push(logicTree(c));
    return list;
  });
  if (!c.lexeme(")")) c.fail(['")"', '","']);
  return { kind: "logic", op, negated, children };
}

export function parseLogic(key: string, value: string): { path: EmbedPath; tree: LogicTree } {
  const parsed = treePath(key);
  const segments = [...parsed.path, parsed.field.name];
  const negated = segments.includes("not");
  const path = segments.slice(0, -1).filter((s) => s !== "not");
  const op = segments.at(-1)!;
  const c = new Cursor(`${negated ? "not." : ""}${op}${value}`, "logic tree");
  return { path, tree: logicTree(c) };
}

function orderTerms(input: string): OrderTerm[] {
  const c = new Cursor(input, "order");
  const terms: OrderTerm[] = [];
  do {
    c.ws();
    let relation: string | undefined;
    let f: Field;
    const start = c.pos;
    const name = fieldName(c);
    if (c.eat("(")) {
      relation = name;
      f = field(c);
      c.expect(")");
    } else {
      c.pos = start;
      f = field(c);
    }
    const direction = c.eat(".asc") ? "asc" : c.eat(".desc") ? "desc" : undefined;
    const nulls = c.eat(".nullsfirst") ? "first" : c.eat(".nullslast") ? "last" : undefined;
    c.ws();
    if (!(c.atEnd() || c.peek(","))) c.fail(['"asc"', '"desc"', '"nullsfirst"', '"nullslast"', '","', "end of input"]);
    terms.push({ field: f, relation, direction, nulls });
    if (terms.length > REST_LIMITS.orderTerms) throw limitExceeded("54001", `more than ${REST_LIMITS.orderTerms} order terms`, REST_LIMITS.orderTerms);
  } while (c.eat(","));
  return terms;
}

const RESERVED = new Set(["select", "columns", "on_conflict", "apikey"]);
const EMBEDDABLE_RESERVED = new Set(["order", "limit", "offset", "and", "or"]);

function lastSegment(key: string): string {
  return key.slice(key.lastIndexOf(".") + 1);
}

/** PostgREST tells filters from RPC arguments by whether the value starts with an operator. */
function hasOperator(value: string): boolean {
  const parts = value.split(".");
  if (parts[0] === "not" && parts.length > 2) return true;
  if (parts[0] === "is" || parts[0] === "in") return true;
  const head = parts.length > 1 ? parts[0] : "";
  const quantified = /^([a-z]+)\((any|all)\)$/.exec(head);
  return (SIMPLE_OPERATORS as readonly string[]).includes(head) || (quantified !== null && QUANTIFIABLE.has(quantified[1])) || FTS_OPERATORS.includes(head.split("(")[0]);
}

function integer(value: string): number | undefined {
  return /^-?[0-9]{1,15}$/.test(value) ? Number(value) : undefined;
}

export function parseQuery(search: URLSearchParams): QueryParams {
  const query: QueryParams = { select: [{ kind: "star" }], filters: [], logic: [], order: [], ranges: [], params: [] };
  const limits = new Map<string, number>();
  const offsets = new Map<string, number>();
  for (const [key, value] of search) {
    // Postgres text cannot hold NUL; it would reach SQLite's JSON paths and LIKE as a truncation.
    if (key.includes("\u0000") || value.includes("\u0000")) throw new AppError(400, "22021", 'invalid byte sequence for encoding "UTF8": 0x00');
    if (key === "select") query.select = parseSelect(value);
    else if (key === "columns") query.columns = columnList(value, "columns parameter");
    else if (key === "on_conflict") query.onConflict = columnList(value, "on_conflict parameter");
    else if (RESERVED.has(key)) continue;
    else if (EMBEDDABLE_RESERVED.has(lastSegment(key))) {
      const kind = lastSegment(key);
      if (kind === "and" || kind === "or") query.logic.push(parseLogic(key, value));
      else {
        const path = key.includes(".") ? treePath(key.slice(0, key.lastIndexOf("."))) : null;
        const embedPath = path ? [...path.path, path.field.name] : [];
        if (kind === "order") query.order.push({ path: embedPath, terms: orderTerms(value) });
        else {
          const n = integer(value);
          if (n !== undefined) (kind === "limit" ? limits : offsets).set(embedPath.join("\u0000"), n);
        }
      }
    } else if (key.includes(".") || hasOperator(value)) {
      const { path, field: f } = treePath(key);
      const { negated, operation: op } = parseFilterValue(value);
      query.filters.push({ path, filter: { field: f, negated, operation: op } });
    } else query.params.push([key, value]);
  }
  for (const key of new Set([...limits.keys(), ...offsets.keys()])) {
    const limit = limits.get(key);
    if (limit !== undefined && limit < 0) throw rangeError("Limit should be greater than or equal to zero.");
    query.ranges.push({ path: key === "" ? [] : key.split("\u0000"), range: { offset: Math.max(0, offsets.get(key) ?? 0), limit } });
  }
  return query;
}

export function rangeError(details: string): AppError {
  return new AppError(416, "PGRST103", "Requested range not satisfiable", { details });
}

/** The Range header (`items=0-9` or `0-9`), as PostgREST reads it; an unreadable one means "all". */
function headerRange(header: string | null): Range | null {
  if (!header) return null;
  const m = /^(?:items=)?([0-9]+)-([0-9]*)$/.exec(header.trim());
  if (!m) return null;
  // Beyond 2^53 a number is no longer exact (and SQLite would get a float): clamp, which keeps the meaning.
  const offset = Math.min(Number(m[1]), Number.MAX_SAFE_INTEGER);
  if (m[2] === "") return { offset };
  const upper = Math.min(Number(m[2]), Number.MAX_SAFE_INTEGER);
  if (upper < offset) throw rangeError("The lower boundary must be lower than or equal to the upper boundary in the Range header.");
  return { offset, limit: upper - offset + 1 };
}

function intersect(a: Range, b: Range | null): Range {
  if (!b) return a;
  const offset = Math.max(a.offset, b.offset);
  const endA = a.limit === undefined ? Infinity : a.offset + a.limit;
  const endB = b.limit === undefined ? Infinity : b.offset + b.limit;
  const end = Math.min(endA, endB);
  return { offset, limit: end === Infinity ? undefined : Math.max(0, end - offset) };
}

export function parsePreferences(headers: Headers): Preferences {
  const prefs: Preferences = {};
  const invalid: string[] = [];
  const raw = headers.get("prefer");
  if (!raw) return prefs;
  const allowed: Record<string, readonly string[]> = {
    return: ["minimal", "representation", "headers-only"],
    count: ["exact", "planned", "estimated"],
    resolution: ["merge-duplicates", "ignore-duplicates"],
    missing: ["default", "null"],
    handling: ["strict", "lenient"],
  };
  for (const token of raw.split(",").map((t) => t.trim()).filter(Boolean)) {
    const [name, value] = token.split("=").map((s) => s.trim());
    if (allowed[name]?.includes(value)) (prefs as Record<string, string>)[name] = value;
    else if (name === "max-affected" && /^\d{1,15}$/.test(value ?? "")) prefs.maxAffected = Number(value);
    else if (!["tx", "timezone", "params"].includes(name)) invalid.push(token);
  }
  if (prefs.handling !== "strict") delete prefs.maxAffected;
  if (prefs.handling === "strict" && invalid.length)
    throw new AppError(400, "PGRST122", "Invalid preferences given with handling=strict", { details: `Invalid preferences: ${invalid.join(", ")}` });
  return prefs;
}

/** Accept → the representation to produce (406 PGRST107 when none is available). */
export function parseAccept(header: string | null): ApiRequest["media"] {
  if (!header || !header.trim()) return { kind: "json", stripNulls: false };
  const offered = header.split(",").map((s) => s.trim()).filter(Boolean);
  for (const item of offered) {
    const [type, ...params] = item.split(";").map((s) => s.trim().toLowerCase());
    const stripNulls = params.includes("nulls=stripped");
    if (type === "application/json" || type === "*/*" || type === "application/*" || type === "application/vnd.pgrst.array+json" || type === "application/vnd.pgrst.array")
      return { kind: "json", stripNulls: stripNulls && type.startsWith("application/vnd.pgrst.array") };
    if (type === "application/vnd.pgrst.object+json" || type === "application/vnd.pgrst.object") return { kind: "object", stripNulls };
    if (type === "text/csv" || type === "text/*") return { kind: "csv", stripNulls: false };
  }
  throw new AppError(406, "PGRST107", `None of these media types are available: ${offered.map((o) => o.split(";")[0].trim()).join(", ")}`);
}

function checkProfile(headers: Headers, method: string): void {
  const profile = headers.get(method === "GET" || method === "HEAD" ? "accept-profile" : "content-profile");
  if (profile && profile !== "public")
    throw new AppError(406, "PGRST106", `Invalid schema: ${profile}`, { hint: "Only the following schemas are exposed: public" });
}

const invalidBody = (message: string) => new AppError(400, "PGRST102", message);

function parseCsv(text: string): Record<string, string | null>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') cell += text[++i];
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") (row.push(cell), (cell = ""));
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      (row = []), (cell = "");
    } else cell += ch;
  }
  if (cell !== "" || row.length) rows.push([...row, cell]);
  const [header, ...data] = rows.filter((r) => !(r.length === 1 && r[0] === ""));
  if (!header) return [];
  if (data.some((r) => r.length !== header.length)) throw invalidBody("All lines must have same number of fields");
  return data.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] === "NULL" ? null : r[i]])));
}

/** Request body → JSON payload (PostgREST's Payload: JSON, CSV or a url-encoded form). */
function parsePayload(text: string, contentType: string | null, isRpc: boolean, hasColumns: boolean): unknown {
  const type = (contentType ?? "application/json").split(";")[0].trim().toLowerCase();
  if (type === "text/csv") return parseCsv(text);
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text));
  if (type !== "application/json" && type !== "") throw invalidBody(`Content-Type not acceptable: ${type}`);
  if (text === "" && isRpc) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidBody("Empty or invalid json");
  }
  if (Array.isArray(json)) {
    if (json.length === 0 || hasColumns) return json;
    const keys = (o: unknown) => (o && typeof o === "object" && !Array.isArray(o) ? Object.keys(o).sort().join("\u0000") : null);
    const first = keys(json[0]);
    if (first === null || json.some((o) => keys(o) !== first)) throw invalidBody("All object keys must match");
    return json;
  }
  // Anything but an object or an array is an empty insert, as in PostgREST.
  return json && typeof json === "object" ? json : [];
}

/** The segments of a path under /rest/v1, each percent-decoded as PostgREST decodes them. */
export function restSegments(path: string): string[] {
  return path.split("/").filter(Boolean).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
}

/**
 * Whether a /rest/v1 URL names an RPC (`rpc/<name>`, decoded): what the routing to readers or the
 * writer and the parser both go by — a substring test of the raw URL let `%72pc/…` run an RPC as
 * a table write, and a query string holding `/rest/v1/rpc/` send a write to a read-only reader.
 */
export function isRpcUrl(url: string): boolean {
  const segments = restSegments(new URL(url).pathname.replace(/^\/rest\/v1/, ""));
  return segments[0] === "rpc" && segments.length === 2;
}

export async function parseRequest(request: Request, path: string): Promise<ApiRequest> {
  const method = request.method.toUpperCase();
  if (!["GET", "HEAD", "POST", "PATCH", "DELETE"].includes(method))
    throw new AppError(405, "PGRST117", `Unsupported HTTP method: ${method}`);
  const segments = restSegments(path);
  const isRpc = segments[0] === "rpc" && segments.length === 2;
  if (segments.length !== 1 && !isRpc) throw new AppError(404, "PGRST125", "Invalid path specified in request URL");
  if (isRpc && !["GET", "HEAD", "POST"].includes(method)) throw new AppError(405, "PGRST101", `Cannot use the ${method} method on RPC`);

  checkProfile(request.headers, method);
  const url = new URL(request.url);
  const query = parseQuery(url.searchParams);
  const preferences = parsePreferences(request.headers);
  const media = parseAccept(request.headers.get("accept"));
  const root = query.ranges.find((r) => r.path.length === 0)?.range ?? { offset: 0 };
  const topRange = method === "GET" || method === "HEAD" ? intersect(root, headerRange(request.headers.get("range"))) : root;

  let payload: unknown;
  if (method === "POST" || method === "PATCH") payload = parsePayload(await request.text(), request.headers.get("content-type"), isRpc, query.columns !== undefined);
  return {
    method: method as ApiRequest["method"],
    resource: { kind: isRpc ? "rpc" : "table", name: isRpc ? segments[1] : segments[0] },
    query,
    preferences,
    media,
    topRange,
    payload,
  };
}
