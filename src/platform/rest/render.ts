// Step 5 of /rest/v1 (DESIGN §5): outcomes → HTTP as PostgREST answers them: JSON array, single
// object or CSV; Content-Range and 200/206/416 from the page and the count; 201/200/204 for writes;
// Preference-Applied for the preferences that were honoured.
import { neutralizeFormula } from "../../common/csv-cell";
import { AppError } from "../../http/errors";
import { rangeError, type ApiRequest } from "./parse";
import type { ReadOutcome, WriteOutcome } from "./query";

const CONTENT_TYPES = {
  json: "application/json; charset=utf-8",
  object: "application/vnd.pgrst.object+json; charset=utf-8",
  csv: "text/csv; charset=utf-8",
} as const;

function contentRange(offset: number, count: number, total: number | undefined): string {
  const upper = offset + count - 1;
  const range = total !== 0 && offset <= upper ? `${offset}-${upper}` : "*";
  return `${range}/${total ?? "*"}`;
}

function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, stripNulls(v)]));
  return value;
}

/** A field as Postgres writes it in a record's text form (what PostgREST's CSV is made of), formulas neutralized. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "boolean" ? (value ? "t" : "f") : typeof value === "number" ? String(value) : neutralizeFormula(typeof value === "object" ? JSON.stringify(value) : String(value));
  // `;` too: a spreadsheet set to a semicolon locale splits an unquoted cell there (a formula could follow).
  return text === "" || /[",;\\()\s]/.test(text) ? `"${text.replace(/["\\]/g, (m) => m + m)}"` : text;
}

function csv(rows: string[]): string {
  const objects = rows.map((r) => JSON.parse(r) as Record<string, unknown>);
  const header = objects.length ? Object.keys(objects[0]) : [];
  return [header.join(","), ...objects.map((o) => header.map((k) => csvField(o[k])).join(","))].join("\n");
}

function body(req: ApiRequest, rows: string[]): string {
  const { kind, stripNulls: strip } = req.media;
  if (kind === "csv") return csv(rows);
  const list = strip ? rows.map((r) => JSON.stringify(stripNulls(JSON.parse(r)))) : rows;
  return kind === "object" ? list[0] : `[${list.join(",")}]`;
}

function appliedPreferences(req: ApiRequest, names: (keyof ApiRequest["preferences"])[]): Record<string, string> {
  const applied = names.filter((n) => req.preferences[n] !== undefined).map((n) => `${n}=${req.preferences[n]}`);
  return applied.length ? { "preference-applied": applied.join(", ") } : {};
}

function respond(req: ApiRequest, status: number, headers: Record<string, string>, payload: string | null): Response {
  const withBody = payload !== null && req.method !== "HEAD";
  return new Response(withBody ? payload : null, { status, headers: withBody || req.method === "HEAD" ? { "content-type": CONTENT_TYPES[req.media.kind], ...headers } : headers });
}

export function renderRead(req: ApiRequest, outcome: ReadOutcome): Response {
  const { rows, total } = outcome;
  const offset = req.topRange.offset;
  if (total !== undefined && offset > total) throw rangeError(`An offset of ${offset} was requested, but there are only ${total} rows.`);
  if (req.media.kind === "object" && rows.length !== 1)
    throw new AppError(406, "PGRST116", "Cannot coerce the result to a single JSON object", { details: `The result contains ${rows.length} rows` });
  const status = total !== undefined && rows.length < total ? 206 : 200;
  const headers = { "content-range": contentRange(offset, rows.length, total), ...appliedPreferences(req, ["count"]) };
  return respond(req, status, headers, body(req, rows));
}

export function renderWrite(req: ApiRequest, outcome: WriteOutcome): Response {
  const total = req.preferences.count ? outcome.affected : undefined;
  const isInsert = req.method === "POST";
  const headers = {
    "content-range": isInsert ? `*/${total ?? "*"}` : contentRange(0, outcome.affected, total),
    ...appliedPreferences(req, ["return", "count", ...(isInsert ? (["resolution", "missing"] as const) : [])]),
  };
  const status = isInsert ? (req.preferences.resolution && outcome.inserted === 0 ? 200 : 201) : outcome.rows ? 200 : 204;
  return respond(req, status, headers, outcome.rows ? body(req, outcome.rows) : null);
}
