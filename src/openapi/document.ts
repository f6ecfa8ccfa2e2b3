// The OpenAPI 3.1 document (issue #20), generated, not written: /rest/v1 tables and their columns
// from the schema cache and the exposed tables of the row-level-security policies, the RPCs from
// their parameter lists, every other route from the app's route table (Elysia's and the native
// ones) — a route added to the app is in the document without anyone writing it there.
import type { ColumnInfo, ColumnType, SchemaCache } from "../platform/rest/schema-cache";

type Json = Record<string, unknown>;

const JSON_TYPES: Record<ColumnType, Json> = {
  uuid: { type: "string", format: "uuid" },
  text: { type: "string" },
  timestamp: { type: "string", format: "date-time" },
  integer: { type: "integer" },
  real: { type: "number" },
  boolean: { type: "boolean" },
  json: {},
};

function columnSchema(c: ColumnInfo): Json {
  const base: Json = c.enumValues ? { type: "string", enum: [...c.enumValues] } : { ...JSON_TYPES[c.type] };
  return c.notNull ? base : { anyOf: [base, { type: "null" }] };
}

export interface RpcParam {
  name: string;
  type: ColumnType | "text[]" | "date";
  required: boolean;
}

export interface RpcInfo {
  name: string;
  params: RpcParam[];
  /** The table whose rows it returns, or whether it returns one object or a set of objects. */
  returns: { table: string } | { set: boolean };
  description?: string;
}

export interface RouteInfo {
  method: string;
  path: string;
  /** The route's documented body (its `detail`, src/http/body-docs.ts). */
  requestBody?: unknown;
}

const json = (schema: Json) => ({ "application/json": { schema } });
const errorRef = { $ref: "#/components/schemas/PostgrestError" };
const failure = { description: "PostgREST error", content: json(errorRef) };

/** /rest/v1 tables (read, insert, update, delete) and RPCs, at `prefix`. */
export function restPaths(cache: SchemaCache, tables: Record<string, { unreadableColumns?: readonly string[] }>, rpcs: RpcInfo[], prefix = "/rest/v1") {
  const paths: Json = {};
  const schemas: Json = { PostgrestError: { type: "object", properties: { code: { type: "string" }, message: { type: "string" }, details: {}, hint: {} }, required: ["code", "message"] } };
  const filters = { name: "filters", in: "query", schema: { type: "object", additionalProperties: { type: "string" } }, style: "form", explode: true, description: "column=operator.value (eq, neq, gt, gte, lt, lte, like, ilike, in, is, cs, cd, ov), or=(…), and=(…)" };
  const read = ["select", "order"].map((name) => ({ name, in: "query", schema: { type: "string" } })).concat(["limit", "offset"].map((name) => ({ name, in: "query", schema: { type: "integer" } }) as never));
  for (const [table, policy] of Object.entries(tables)) {
    const info = cache.tables.get(table);
    if (!info) continue;
    const columns = info.columnList.filter((c) => !policy.unreadableColumns?.includes(c.name));
    const properties = Object.fromEntries(columns.map((c) => [c.name, columnSchema(c)]));
    schemas[table] = { type: "object", properties, required: columns.map((c) => c.name) };
    schemas[`${table}_insert`] = { type: "object", properties, required: columns.filter((c) => c.notNull && !c.hasDefault).map((c) => c.name) };
    const rows = { description: "The rows the caller may read (row-level security)", content: json({ type: "array", items: { $ref: `#/components/schemas/${table}` } }) };
    const insert = { $ref: `#/components/schemas/${table}_insert` };
    paths[`${prefix}/${table}`] = {
      get: { operationId: `read_${table}`, tags: ["tables"], parameters: [...read, filters], responses: { "200": rows, "206": rows, "400": failure } },
      post: { operationId: `insert_${table}`, tags: ["tables"], requestBody: { content: json({ anyOf: [insert, { type: "array", items: insert }] }) }, responses: { "201": rows, "400": failure } },
      patch: { operationId: `update_${table}`, tags: ["tables"], parameters: [filters], requestBody: { content: json({ type: "object", properties }) }, responses: { "200": rows, "204": { description: "Updated" }, "400": failure } },
      delete: { operationId: `delete_${table}`, tags: ["tables"], parameters: [filters], responses: { "200": rows, "204": { description: "Deleted" }, "400": failure } },
    };
  }
  for (const rpc of rpcs) {
    const param = (p: RpcParam): Json => {
      const base = p.type === "text[]" ? { type: "array", items: { type: "string" } } : p.type === "date" ? { type: "string", format: "date" } : JSON_TYPES[p.type];
      return p.required ? base : { anyOf: [base, { type: "null" }] };
    };
    const result = "table" in rpc.returns ? { type: "array", items: { $ref: `#/components/schemas/${rpc.returns.table}` } } : rpc.returns.set ? { type: "array", items: { type: "object" } } : { type: "object" };
    paths[`${prefix}/rpc/${rpc.name}`] = {
      post: {
        operationId: rpc.name,
        tags: [rpc.name.startsWith("insights_") ? "insights" : "rpc"],
        ...(rpc.description ? { description: rpc.description } : {}),
        requestBody: { required: true, content: json({ type: "object", properties: Object.fromEntries(rpc.params.map((p) => [p.name, param(p)])), required: rpc.params.filter((p) => p.required).map((p) => p.name), additionalProperties: false }) },
        responses: { "200": { description: "The function's result", content: json(result) }, "400": failure, "404": failure },
      },
    };
  }
  return { paths, schemas };
}

/** Every other route from the route table, with its path parameters. */
export function routePaths(routes: RouteInfo[]): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const method = r.method.toLowerCase();
    if (!["get", "post", "put", "patch", "delete", "head", "options"].includes(method)) continue;
    const path = openApiPath(r.path);
    const parameters = [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    paths[path] ??= {};
    paths[path][method] = {
      operationId: `${method}_${path.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_|_$/g, "") || "root"}`,
      tags: [path.split("/")[1] || "web"],
      ...(parameters.length ? { parameters } : {}),
      ...(r.requestBody ? { requestBody: r.requestBody } : {}),
      responses: { default: { description: path.startsWith("/api") ? "JSON {success: true, …}, or {success: false, error: {code, message, details?}}" : "See the README" } },
    };
  }
  return paths;
}

/** /a/:id, /b/* and /c/ in OpenAPI's form (a prefix's root route is the prefix itself). */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}").replace(/\/\*$/, "/{path}").replace(/(.)\/$/, "$1");

export function openApiDocument(parts: { version: string; paths: Json; schemas: Json; description: string; server?: string }): Json {
  return {
    openapi: "3.1.0",
    info: { title: "answerwatch", version: parts.version, description: parts.description },
    ...(parts.server ? { servers: [{ url: parts.server }] } : {}),
    components: {
      schemas: parts.schemas,
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "A user's access token or a personal API key (aw_…); for /rest/v1 also the anon or service_role key" }, apikey: { type: "apiKey", in: "header", name: "apikey" } },
    },
    security: [{ bearer: [] }],
    paths: parts.paths,
  };
}
