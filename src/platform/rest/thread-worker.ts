// Entry of a /rest/v1 thread (thread-pool.ts): a read-only connection (a reader) or a read-write one
// (the writer), opened from the init message (thread-connection.sqlite.ts), and the REST service
// over it. Each request arrives as plain data with its caller resolved on the serving thread, and goes back as bytes.
import { errorResponse, sqliteCode, toAppError } from "../../http/errors";
import type { Caller } from "../auth/caller";
import type { OrgRole } from "../auth/service";
import type { ThreadCommand, ThreadReply } from "./thread-pool";
import { createRestService, type RestService } from "./service";
import { openRestThreadConnection, type RestThreadConnection } from "./thread-connection.sqlite";

declare const self: Worker;

let rest: RestService | undefined;
let connection: RestThreadConnection | undefined;

async function answer(command: Extract<ThreadCommand, { type: "request" }>): Promise<ThreadReply> {
  const caller: Caller = { role: command.caller.role, user: command.caller.user, orgRoles: new Map(command.caller.orgRoles as [string, OrgRole][]), shareBrandId: command.caller.shareBrandId };
  const request = new Request(command.url, { method: command.method, headers: command.headers, body: command.body });
  let response: Response;
  let internalError: string | undefined;
  let sqliteError: { code: string; message: string } | undefined;
  try {
    response = await rest!.handle(request, caller);
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status === 500) internalError = String((error as Error)?.stack ?? error);
    const code = sqliteCode(error);
    if (code) sqliteError = { code, message: String((error as Error).message) };
    response = errorResponse(appError, "rest", request);
  }
  return { type: "done", id: command.id, status: response.status, headers: [...response.headers], body: await response.arrayBuffer(), internalError, sqliteError };
}

async function runReport(command: Extract<ThreadCommand, { type: "report" }>): Promise<ThreadReply> {
  try {
    return { type: "report-done", id: command.id, value: await connection!.report(command.name, command.args) };
  } catch (error) {
    const appError = toAppError(error);
    // Its extra parts too (plain data: a timeout's Retry-After, each surface's code).
    return { type: "report-done", id: command.id, error: { status: appError.status, code: appError.code, message: appError.message, extra: appError.extra, stack: String((error as Error)?.stack ?? error) } };
  }
}

self.onmessage = async (event: MessageEvent<ThreadCommand>) => {
  const command = event.data;
  if (command.type === "init") {
    connection = openRestThreadConnection(command, { sourceCategories: command.sourceCategories });
    rest = createRestService({ executor: connection.executor, responseCache: false, statementTimeoutMs: command.statementTimeoutMs, maxRows: command.maxRows });
    self.postMessage({ type: "ready" } satisfies ThreadReply);
  } else if (command.type === "report") {
    self.postMessage(await runReport(command));
  } else {
    const reply = await answer(command);
    self.postMessage(reply, reply.type === "done" ? [reply.body] : []);
  }
};
