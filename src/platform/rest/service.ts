// /rest/v1 request handling: parse → plan → (policies inside sql) → query → render. Built once per
// app with its dependencies; the schema cache is the executor's (derived from the Drizzle schema on SQLite).
// Statements run through the executor (executor.ts), never on a connection of this module's own.
import { AppError } from "../../http/errors";
import { VERSION } from "../../version";
import type { Caller } from "../auth/caller";
import { isRpcUrl, parseRequest, type ApiRequest } from "./parse";
import { capRows, planInsert, planRead, planUpdate, type Planner } from "./plan";
import { REST_POLICIES, type Policies } from "./policies";
import { executeDelete, executeInsert, executeRead, executeUpdate } from "./query";
import { renderRead, renderWrite } from "./render";
import { INSIGHT_RPCS } from "../../insights/rpc";
import { applyQuery } from "./computed-rows";
import { noFunction, planRpc } from "./rpc";
import type { RestThreadPool } from "./thread-pool";
import { createCallerShares, createGate } from "./gate";
import { createResponseCache, type ResponseCacheOptions } from "./response-cache";
import type { RestExecutor, RestSession } from "./executor";

export interface RestServiceDeps {
  executor: RestExecutor;
  now?: () => Date;
  policies?: Policies;
  /** GET responses kept until the database changes; `false` turns the cache off. */
  responseCache?: ResponseCacheOptions | false;
  /** Longest a request's SQL may run (STATEMENT_TIMEOUT_MS); past it the request answers 57014. */
  statementTimeoutMs?: number;
  /** Threads for reads and for writes; without them requests run on the calling thread. */
  readers?: Pick<RestThreadPool, "run">;
  writer?: Pick<RestThreadPool, "run">;
  /** Without reader threads: reads and RPCs run this many at a time on the calling thread (gate.ts). */
  readConcurrency?: number;
  /** How long a read waited for its turn (the readers' wait metric). */
  onReadWait?: (ms: number) => void;
  /** Most rows a table read returns at each level (REST_MAX_ROWS); unset: all. */
  maxRows?: number;
  /** Without a writer thread: writes run this many at a time (gate.ts), so they never hold every pooled connection. */
  writeConcurrency?: number;
  /** Requests one caller may have waiting or running at once (REST_PER_CALLER); the service role is not counted. */
  perCaller?: number;
}

/** Whose share a request counts against: a person (their session and keys alike), a share link's brand, or every anonymous caller together. */
const callerKey = (caller: Caller): string | null =>
  caller.role === "service_role" ? null : caller.user ? `user:${caller.user.id}` : caller.shareBrandId ? `share:${caller.shareBrandId}` : "anon";

const PREFIX = "/rest/v1";

export function createRestService(deps: RestServiceDeps) {
  const { executor } = deps;
  const planner: Planner = { cache: executor.schemaCache(), policies: deps.policies ?? REST_POLICIES };
  const dialect = executor.dialect;
  const now = deps.now ?? (() => new Date());
  const responses = deps.responseCache === false ? null : createResponseCache(executor, deps.responseCache);
  const timeoutMs = deps.statementTimeoutMs ?? 10_000;
  /** Requests computed on this thread, `size` at a time (without threads: Postgres). */
  const gated = (size: number | undefined, onWait?: (ms: number) => void) => {
    if (!size) return null;
    const gate = createGate(size, 256, onWait);
    return { run: (request: Request, caller: Caller) => gate.run(() => compute(request, caller)) };
  };
  const gatedReads = deps.readers ? null : gated(deps.readConcurrency, deps.onReadWait);
  const gatedWrites = deps.writer ? null : gated(deps.writeConcurrency);
  const shares = createCallerShares(deps.perCaller ?? 32, callerKey);

  async function handle(request: Request, caller: Caller): Promise<Response> {
    const isRpc = isRpcUrl(request.url);
    const isTableRead = (request.method === "GET" || request.method === "HEAD") && !isRpc;
    const isWrite = !isRpc && (request.method === "POST" || request.method === "PATCH" || request.method === "DELETE");
    const pool = isTableRead || (isRpc && request.method !== "OPTIONS") ? (deps.readers ?? gatedReads ?? undefined) : isWrite ? (deps.writer ?? gatedWrites ?? undefined) : undefined;
    // Every request that reaches the database counts against its caller's share (writes on Postgres run here, without a pool).
    const respond = (r: Request, c: Caller) => shares.run(c, () => (pool ? pool.run(r, c) : compute(r, c)));
    // Table reads only: RPC functions may one day depend on more than the data.
    if (responses && isTableRead) {
      const cached = responses.lookup(request, caller);
      if ("hit" in cached) return cached.hit;
      return cached.store(await respond(request, caller));
    }
    return respond(request, caller);
  }

  async function compute(request: Request, caller: Caller): Promise<Response> {
    const path = new URL(request.url).pathname.slice(PREFIX.length);
    if (path === "" || path === "/") {
      // The OpenAPI root, PostgREST-style, for the service role (type generators); nobody else.
      if (caller.role !== "service_role" || (request.method !== "GET" && request.method !== "HEAD")) throw new AppError(404, "PGRST126", "Root endpoint metadata is disabled");
      const { restRootDocument } = await import("../../openapi/service");
      const url = new URL(request.url);
      return Response.json(restRootDocument(planner.cache, planner.policies, VERSION, `${url.origin}${PREFIX}`), { headers: { "content-type": "application/openapi+json; charset=utf-8" } });
    }
    if (request.method === "OPTIONS") {
      const allow = path.startsWith("/rpc/") ? "OPTIONS,GET,HEAD,POST" : "OPTIONS,GET,HEAD,POST,PATCH,DELETE";
      return new Response(null, { status: 200, headers: { allow } });
    }
    const req = await parseRequest(request, path);
    // The deadline covers exactly this request's SQL and the JavaScript steps between statements.
    return executor.session(timeoutMs, (run) => execute(run, req, caller), caller);
  }

  async function execute(run: RestSession, req: ApiRequest, caller: Caller): Promise<Response> {
    const ctx = { cache: planner.cache, policies: planner.policies, caller, dialect };
    const { name } = req.resource;
    const count = req.preferences.count;

    // A share link reads its brand's insights and nothing else.
    const shareOnly = () => new AppError(403, "42501", "A share link reads its brand's insights only", { hint: "Call /rest/v1/rpc/insights_* with p_brand_id set to the shared brand" });
    if (caller.shareBrandId && req.resource.kind !== "rpc") throw shareOnly();
    if (req.resource.kind === "rpc") {
      const isPost = req.method === "POST";
      const args = isPost ? req.payload : Object.fromEntries(req.query.params);
      if (!args || typeof args !== "object" || Array.isArray(args)) throw new AppError(400, "PGRST102", "The RPC arguments must be one JSON object");
      if (caller.shareBrandId && (!Object.hasOwn(INSIGHT_RPCS, name) || String((args as Record<string, unknown>).p_brand_id ?? "").toLowerCase() !== caller.shareBrandId)) throw shareOnly();
      if (Object.hasOwn(INSIGHT_RPCS, name)) return insight(run, req, name, args as Record<string, unknown>, caller, isPost);
      const plan = planRpc(planner, name, args as Record<string, unknown>, isPost, req.query, req.topRange);
      return renderRead(req, await executeRead(run, ctx, plan, count));
    }

    const options = { representation: req.preferences.return === "representation", singular: req.media.kind === "object" };
    switch (req.method) {
      case "GET":
      case "HEAD":
        {
          const plan = planRead(planner, name, req.query, req.topRange);
          return renderRead(req, await executeRead(run, ctx, deps.maxRows ? capRows(plan, deps.maxRows) : plan, count));
        }
      case "POST": {
        const insert = planInsert(planner, name, req.query, req.preferences, req.payload);
        return renderWrite(req, await executeInsert(run, ctx, insert, planRead(planner, name, req.query, { offset: 0 }), options));
      }
      case "PATCH": {
        const set = planUpdate(planner, name, req.query, req.payload);
        return renderWrite(req, await executeUpdate(run, ctx, planRead(planner, name, req.query, req.topRange), set, now().toISOString(), { ...options, maxAffected: req.preferences.maxAffected }));
      }
      case "DELETE":
        return renderWrite(req, await executeDelete(run, ctx, planRead(planner, name, req.query, req.topRange), { ...options, maxAffected: req.preferences.maxAffected }));
    }
  }

  /** An insights RPC (src/insights): computed rows, then select/filters/order/range as PostgREST applies them to a function's rows. */
  async function insight(run: RestSession, req: ApiRequest, name: string, args: Record<string, unknown>, caller: Caller, jsonBody: boolean): Promise<Response> {
    const rpc = INSIGHT_RPCS[name]!;
    const argNames = Object.keys(args).sort();
    if (argNames.some((a) => !rpc.params.includes(a)) || !argNames.includes("p_brand_id")) throw noFunction(name, argNames, jsonBody, rpc.params);
    if (rpc.returns === "object" && req.media.kind === "csv") throw new AppError(406, "PGRST107", "None of these media types are available: text/csv", { details: `${name} returns one object; text/csv is offered by the functions that return rows` });
    // Row-level security as for results: another organization's brand reads as a brand with no rows.
    const value = await run.insight({ name, args, today: now(), caller });
    // The deadline covers the JavaScript steps too: computing, then filtering and rendering the rows.
    run.checkDeadline();
    // A function returning json answers the value itself, as PostgREST does for a scalar result.
    if (rpc.returns === "object") return new Response(req.method === "HEAD" ? null : JSON.stringify(value), { headers: { "content-type": "application/json; charset=utf-8" } });
    const { rows, total } = applyQuery(value as Record<string, unknown>[], req.query, req.topRange);
    run.checkDeadline();
    const response = renderRead(req, { rows: rows.map((r) => JSON.stringify(r)), total: req.preferences.count ? total : undefined });
    run.checkDeadline();
    return response;
  }

  return { handle, schemaCache: planner.cache };
}

export type RestService = ReturnType<typeof createRestService>;
