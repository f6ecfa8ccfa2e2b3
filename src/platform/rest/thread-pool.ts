// /rest/v1 runs on threads of its own, so that the serving thread only routes, authenticates and
// streams the answer: one heavy query cannot stall /healthz, the pixel or anyone else's request
// (DESIGN §13). Reads (table GET/HEAD, RPCs, reports) go to reader threads, each with its own read-only
// SQLite connection (WAL lets them read beside the writer); writes go to one writer thread with a
// read-write connection, one at a time as SQLite writes anyway. The statement timeout is kept
// inside each thread's SQL (deadline.ts), never by ending a thread: a connection that dies in a
// statement keeps its locks for the life of the process.
import type { CategoryList } from "../../analysis/source-categories";
import { AppError } from "../../http/errors";
import { tooManyWaiting } from "./gate";
import { isRpcUrl } from "./parse";
import type { ReportArgs, ReportName, ReportRunner } from "../../reports/registry";
import type { Caller } from "../auth/caller";

/** What crosses to a thread: the request as plain data and the caller already resolved. */
export interface ThreadTask {
  method: string;
  url: string;
  headers: [string, string][];
  body: string | null;
  caller: { role: Caller["role"]; user?: Caller["user"]; orgRoles: [string, string][]; shareBrandId?: string };
}

export type ThreadCommand =
  | { type: "init"; dbPath: string; writable: boolean; statementTimeoutMs: number; maxRows?: number; sourceCategories?: CategoryList }
  | ({ type: "request"; id: number } & ThreadTask)
  | { type: "report"; id: number; name: ReportName; args: unknown };

export type ThreadReply =
  | { type: "ready" }
  | { type: "done"; id: number; status: number; headers: [string, string][]; body: ArrayBuffer; internalError?: string; sqliteError?: unknown }
  | { type: "report-done"; id: number; value?: unknown; error?: { status: number; code: string; message: string; extra?: AppError["extra"]; stack?: string } };

export interface RestThreadPoolOptions {
  size: number;
  dbPath: string;
  workerUrl: URL | string;
  /** A writer pool: a read-write connection. */
  writable?: boolean;
  statementTimeoutMs: number;
  /** Most rows a table read returns at each level (REST_MAX_ROWS). */
  maxRows?: number;
  /** The user's source categories (SOURCE_CATEGORIES_FILE) for the insights RPCs. */
  sourceCategories?: CategoryList;
  /** Requests waiting for a thread beyond this many are refused at once (503) instead of queued. */
  maxQueued?: number;
  onInternalError?: (detail: string) => void;
  /** How long a request waited for a thread, in ms (metrics). */
  onWait?: (ms: number) => void;
  /** A SQLite failure behind an answer (`{code, message}`), e.g. for /healthz to see a full disk. */
  onSqliteError?: (error: unknown) => void;
}

interface Pending {
  id: number;
  command: Extract<ThreadCommand, { type: "request" | "report" }>;
  /** An RPC or a report: work that may read a brand's whole history. */
  heavy: boolean;
  queuedAt: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface PoolThread {
  worker: Worker;
  ready: boolean;
  busy?: Pending;
}

export function createRestThreadPool(options: RestThreadPoolOptions) {
  const maxQueued = options.maxQueued ?? 256;
  const threads: PoolThread[] = [];
  const queue: Pending[] = [];
  let nextId = 1;
  let stopped = false;

  function spawn(index: number): void {
    const worker = new Worker(options.workerUrl);
    const thread: PoolThread = { worker, ready: false };
    threads[index] = thread;
    worker.onmessage = (event: MessageEvent<ThreadReply>) => {
      const message = event.data;
      if (message.type === "ready") {
        thread.ready = true;
        return dispatch();
      }
      const busy = thread.busy;
      if (!busy || busy.id !== message.id) return;
      thread.busy = undefined;
      if (message.type === "report-done") {
        if (message.error?.status === 500) options.onInternalError?.(message.error.stack ?? message.error.message);
        if (message.error) busy.reject(new AppError(message.error.status, message.error.code, message.error.message, message.error.extra));
        else busy.resolve(message.value);
        return dispatch();
      }
      if (message.internalError) options.onInternalError?.(message.internalError);
      if (message.sqliteError) options.onSqliteError?.(message.sqliteError);
      busy.resolve(new Response(message.status === 204 || message.status === 304 ? null : message.body, { status: message.status, headers: message.headers }));
      dispatch();
    };
    const onDeath = () => {
      if (threads[index] !== thread) return;
      // A thread that died mid-request fails that request; the next one gets a fresh thread.
      thread.busy?.reject(new AppError(503, "thread_failed", "The request could not be completed; try again"));
      if (!stopped) setTimeout(() => !stopped && threads[index] === thread && spawn(index), 50);
    };
    worker.addEventListener("error", onDeath);
    worker.addEventListener("close", onDeath);
    worker.postMessage({ type: "init", dbPath: options.dbPath, writable: options.writable === true, statementTimeoutMs: options.statementTimeoutMs, maxRows: options.maxRows, sourceCategories: options.sourceCategories } satisfies ThreadCommand);
  }

  // RPCs and reports may take up all threads but one: a few dashboards looping a year-long report
  // must not queue everyone's small table reads behind them (bench/scale.ts, target 2). Requests
  // are otherwise taken in arrival order, so heavy ones are never starved.
  const heavyLimit = Math.max(1, options.size - 1);

  function dispatch(): void {
    for (const thread of threads) {
      if (!queue.length) return;
      if (!thread.ready || thread.busy) continue;
      const heavyBusy = threads.filter((t) => t.busy?.heavy).length;
      const next = heavyBusy < heavyLimit ? 0 : queue.findIndex((p) => !p.heavy);
      if (next < 0) return;
      const [pending] = queue.splice(next, 1);
      options.onWait?.(performance.now() - pending!.queuedAt);
      thread.busy = pending;
      thread.worker.postMessage(pending!.command);
    }
  }

  function submit(make: (id: number) => Pending["command"], heavy: boolean): Promise<unknown> {
    if (stopped) throw new AppError(503, "shutting_down", "The server is shutting down");
    if (queue.length >= maxQueued) throw tooManyWaiting();
    // Threads start with the first request: an idle server keeps neither their memory nor their start-up.
    if (!threads.length) for (let i = 0; i < options.size; i++) spawn(i);
    return new Promise((resolve, reject) => {
      const id = nextId++;
      queue.push({ id, command: make(id), heavy, resolve, reject, queuedAt: performance.now() });
      dispatch();
    });
  }

  return {
    /** The response of the REST service, computed on one of the pool's threads. */
    async run(request: Request, caller: Caller): Promise<Response> {
      const body = request.method === "GET" || request.method === "HEAD" ? null : await request.text();
      const task: ThreadTask = {
        method: request.method,
        url: request.url,
        headers: [...request.headers],
        body,
        caller: { role: caller.role, user: caller.user, orgRoles: [...caller.orgRoles], shareBrandId: caller.shareBrandId },
      };
      return submit((id) => ({ type: "request", id, ...task }), isRpcUrl(request.url)) as Promise<Response>;
    },
    /** A report (src/reports/registry.ts) computed on one of the pool's threads; the caller has checked access. */
    report: (<N extends ReportName>(name: N, args: ReportArgs<N>) => submit((id) => ({ type: "report", id, name, args }), true)) as ReportRunner,
    async stop(): Promise<void> {
      stopped = true;
      for (const pending of queue.splice(0)) pending.reject(new AppError(503, "shutting_down", "The server is shutting down"));
      // A request still running gets its answer first: ending a thread inside a statement would
      // leave that connection's locks held.
      for (let i = 0; i < 100 && threads.some((r) => r.busy); i++) await Bun.sleep(20);
      for (const thread of threads) thread.worker.terminate();
    },
  };
}

export type RestThreadPool = ReturnType<typeof createRestThreadPool>;
