// Entry of a /rest/v1 thread (thread-pool.ts): a read-only connection (a reader) or a read-write one
// (the writer) and the REST service over it. Each request arrives as plain data with its caller
// resolved on the serving thread, and goes back as bytes.
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../database";
import { REPORTS } from "../../reports/registry";
import type { ReportsStore } from "../../reports/store";
import { createSqliteReportsStore } from "../../reports/store.sqlite";
import { AppError, errorResponse, sqliteCode, toAppError } from "../../http/errors";
import type { Caller } from "../auth/caller";
import type { OrgRole } from "../auth/service";
import type { ThreadCommand, ThreadReply } from "./thread-pool";
import { createRestService, type RestService } from "./service";

declare const self: Worker;

let rest: RestService | undefined;
let reports: ReportsStore | undefined;

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
    const report = REPORTS[command.name] as (store: ReportsStore, args: unknown) => Promise<unknown>;
    return { type: "report-done", id: command.id, value: await report(reports!, command.args) };
  } catch (error) {
    const appError = toAppError(error);
    return { type: "report-done", id: command.id, error: { status: appError.status, code: appError.code, message: appError.message, stack: String((error as Error)?.stack ?? error) } };
  }
}

self.onmessage = async (event: MessageEvent<ThreadCommand>) => {
  const command = event.data;
  if (command.type === "init") {
    const sqlite = new Database(command.dbPath, { readonly: !command.writable, strict: true });
    sqlite.run("PRAGMA busy_timeout = 5000");
    registerSqlFunctions(sqlite);
    if (command.writable) sqlite.run("PRAGMA foreign_keys = ON");
    reports = createSqliteReportsStore(sqlite);
    rest = createRestService({ sqlite, responseCache: false, statementTimeoutMs: command.statementTimeoutMs, sourceCategories: command.sourceCategories });
    self.postMessage({ type: "ready" } satisfies ThreadReply);
  } else if (command.type === "report") {
    self.postMessage(await runReport(command));
  } else {
    const reply = await answer(command);
    self.postMessage(reply, reply.type === "done" ? [reply.body] : []);
  }
};
