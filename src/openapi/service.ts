// What the OpenAPI documents are made of, gathered from the app's own definitions: the REST
// schema cache and policies, the RPC parameter lists, the route table.
import { INSIGHT_RPCS } from "../insights/rpc";
import type { Policies } from "../platform/rest/policies";
import { ROUTINES } from "../platform/rest/rpc";
import type { SchemaCache } from "../platform/rest/schema-cache";
import { openApiDocument, restPaths, routePaths, type RouteInfo, type RpcInfo, type RpcParam } from "./document";

/** The insights RPCs' parameters are checked in src/insights/args.ts; these are their wire types. */
const INSIGHT_PARAM_TYPES: Record<string, Omit<RpcParam, "name">> = {
  p_brand_id: { type: "uuid", required: true },
  p_competitor_id: { type: "uuid", required: true },
  p_from: { type: "date", required: false },
  p_to: { type: "date", required: false },
  p_branded: { type: "boolean", required: false },
  p_interval: { type: "text", required: false },
  p_group_by: { type: "text", required: false },
};

export function rpcInfos(): RpcInfo[] {
  const routines = Object.entries(ROUTINES).map(([name, r]) => ({ name, params: r.params.map((p) => ({ name: p.name, type: p.type, required: p.required })), returns: { table: r.returns } }));
  const insights = Object.entries(INSIGHT_RPCS).map(([name, r]) => ({
    name,
    params: r.params.map((p) => ({ name: p, ...(INSIGHT_PARAM_TYPES[p] ?? { type: "text[]" as const, required: false }) })),
    returns: { set: r.returns === "set" },
  }));
  return [...routines, ...insights];
}

/** GET /rest/v1/ with the service key: the tables and functions, PostgREST-style (paths relative to /rest/v1). */
export function restRootDocument(cache: SchemaCache, policies: Policies, version: string, server: string) {
  const { paths, schemas } = restPaths(cache, policies, rpcInfos(), "");
  return openApiDocument({ version, paths, schemas, server, description: "answerwatch's data platform (/rest/v1): PostgREST-compatible tables and functions under row-level security" });
}

/** GET /openapi.json: the REST part and every other route the app registers. */
export function fullDocument(cache: SchemaCache, policies: Policies, routes: RouteInfo[], version: string) {
  const rest = restPaths(cache, policies, rpcInfos());
  const others = routePaths(routes.filter((r) => !r.path.startsWith("/rest/v1")));
  return openApiDocument({ version, paths: { ...others, ...rest.paths }, schemas: rest.schemas, description: "answerwatch: /api (analytics server), /auth/v1 (GoTrue-compatible auth), /rest/v1 (PostgREST-compatible data platform and the insights functions), /cron, the pixel, /mcp and /metrics" });
}
