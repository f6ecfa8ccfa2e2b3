// /mcp: an MCP server over Streamable HTTP (the official SDK's web-standard transport), stateless —
// each POST gets a server holding the caller's tools. The bearer is the user's access token; every
// tool calls the app's own public interfaces as that user (tools.ts), so the MCP door shows exactly
// what the RPCs, /rest/v1 and /api show.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AppError } from "../http/errors";
import type { ApiUser } from "../platform/auth/caller";
import { VERSION } from "../version";
import { TOOLS, type ToolContext } from "./tools";

export interface McpDeps {
  /** Resolves the bearer (401 in the /api shape when missing or invalid). */
  apiUser(request: Request): Promise<ApiUser>;
  /** The app's request handling: tools call the server as the caller would. */
  handle(request: Request): Promise<Response>;
  anonKey: string;
}

function toolContext(deps: McpDeps, user: ApiUser, authorization: string): ToolContext {
  async function call(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<unknown> {
    const res = await deps.handle(
      new Request(`http://mcp.internal${path}`, { method, headers: { authorization, ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
    const text = await res.text();
    const json = text ? JSON.parse(text) : null;
    if (!res.ok) throw new Error(json?.error?.message ?? json?.message ?? `${res.status}`);
    return json;
  }
  return {
    user: { id: user.user.id, email: user.user.email },
    rpc: (name, args) => call("POST", `/rest/v1/rpc/${name}`, args, { apikey: deps.anonKey }),
    rest: (method, path, body, headers = {}) => call(method, `/rest/v1${path}`, body, { apikey: deps.anonKey, ...headers }),
    api: (method, path, body) => call(method, path, body, {}),
  };
}

/** Messages in one JSON-RPC batch: the SDK runs a batch's tool calls all at once. */
export const MAX_MCP_BATCH = 20;

const invalidRequest = (message: string) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32600, message }, id: null }), { status: 400, headers: { "content-type": "application/json" } });

/**
 * A batch past MAX_MCP_BATCH, or one naming a request id twice (both calls ran, one answer came
 * back), refused whole as JSON-RPC's Invalid Request; anything else goes on to the SDK unchanged.
 */
function refusedBatch(body: string): Response | null {
  let messages: unknown;
  try {
    messages = JSON.parse(body);
  } catch {
    return null; // the SDK answers its own parse error
  }
  if (!Array.isArray(messages)) return null;
  if (messages.length > MAX_MCP_BATCH) return invalidRequest(`A batch holds at most ${MAX_MCP_BATCH} messages (got ${messages.length})`);
  const ids = messages.filter((m) => m && typeof m === "object" && "method" in m && "id" in m && m.id !== null).map((m) => JSON.stringify((m as { id: unknown }).id));
  if (new Set(ids).size !== ids.length) return invalidRequest("Each request of a batch needs its own id");
  return null;
}

export function createMcpHandler(deps: McpDeps) {
  return async (request: Request): Promise<Response> => {
    if (request.method !== "POST") throw new AppError(405, "method_not_allowed", "POST JSON-RPC messages to /mcp (stateless Streamable HTTP: no sessions, no server-sent stream)");
    const user = await deps.apiUser(request);
    // Read once (the app caps bodies at MAX_BODY_BYTES), checked, then handed on as it came.
    const body = await request.text();
    const refused = refusedBatch(body);
    if (refused) return refused;
    request = new Request(request.url, { method: request.method, headers: request.headers, body });
    const ctx = toolContext(deps, user, request.headers.get("authorization")!);
    const server = new McpServer({ name: "answerwatch", version: VERSION });
    for (const tool of TOOLS)
      server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input, annotations: { readOnlyHint: !tool.write } }, async (args: Record<string, unknown>) => {
        try {
          const result = await tool.run(ctx, args);
          return { content: [{ type: "text" as const, text: JSON.stringify(result) }] };
        } catch (error) {
          return { isError: true, content: [{ type: "text" as const, text: (error as Error).message }] };
        }
      });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request);
  };
}
