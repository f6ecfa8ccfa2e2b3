// /rest/v1 runs on threads of its own, so that the serving thread only routes, authenticates and
// streams the answer: one heavy query cannot stall /healthz, the pixel or anyone else's request
// (DESIGN §13). Reads (table GET/HEAD and RPCs) go to reader threads, each with its own read-only
// SQLite connection (WAL lets them read beside the writer); writes go to one writer thread with a
// read-write connection, one at a time as SQLite writes anyway. The statement timeout is kept
// inside each thread's SQL (deadline.ts), never by ending a thread: a connection that dies in a
// statement keeps its locks for the life of the process.
import { AppError } from "../../http/errors";
import type { Caller } from "../auth/caller";

/** What crosses to a reader thread: the request as plain data and the caller already resolved. */
export interface ReadTask {
  method: string;
  url: string;
  headers: [string, string][];
  body: string | null;
  caller: { role: Caller["role"]; user?: Caller["user"]; orgRoles: [string, string][] };
}

export type ReaderCommand = { type: "init"; dbPath: string; writable: boolean; statementTimeoutMs: number } | ({ type: "read"; id: number } & ReadTask);

export type ReaderReply =
  | { type: "ready" }
  | { type: "done"; id: number; status: number; headers: [string, string][]; body: ArrayBuffer; internalError?: string; sqliteError?: unknown };

export interface ReaderPoolOptions {
  size: number;
  dbPath: string;
  workerUrl: URL | string;
  /** A writer pool: a read-write connection. */
  writable?: boolean;
  statementTimeoutMs: number;
  /** Requests waiting for a thread beyond this many are refused at once (503) instead of queued. */
  maxQueued?: number;
  onInternalError?: (detail: string) => void;
  /** A SQLite failure behind an answer (`{code, message}`), e.g. for /healthz to see a full disk. */
  onSqliteError?: (error: unknown) => void;
}

interface Pending {
  id: number;
  task: ReadTask;
  resolve(response: Response): void;
  reject(error: unknown): void;
}

interface Reader {
  worker: Worker;
  ready: boolean;
  busy?: Pending;
}

export function createReaderPool(options: ReaderPoolOptions) {
  const maxQueued = options.maxQueued ?? 256;
  const readers: Reader[] = [];
  const queue: Pending[] = [];
  let nextId = 1;
  let stopped = false;

  function spawn(index: number): void {
    const worker = new Worker(options.workerUrl);
    const reader: Reader = { worker, ready: false };
    readers[index] = reader;
    worker.onmessage = (event: MessageEvent<ReaderReply>) => {
      const message = event.data;
      if (message.type === "ready") {
        reader.ready = true;
        return dispatch();
      }
      const busy = reader.busy;
      if (!busy || busy.id !== message.id) return;
      reader.busy = undefined;
      if (message.internalError) options.onInternalError?.(message.internalError);
      if (message.sqliteError) options.onSqliteError?.(message.sqliteError);
      busy.resolve(new Response(message.status === 204 || message.status === 304 ? null : message.body, { status: message.status, headers: message.headers }));
      dispatch();
    };
    const onDeath = () => {
      if (readers[index] !== reader) return;
      // A thread that died mid-request fails that request; the next one gets a fresh thread.
      reader.busy?.reject(new AppError(503, "reader_failed", "The request could not be completed; try again"));
      if (!stopped) setTimeout(() => !stopped && readers[index] === reader && spawn(index), 50);
    };
    worker.addEventListener("error", onDeath);
    worker.addEventListener("close", onDeath);
    worker.postMessage({ type: "init", dbPath: options.dbPath, writable: options.writable === true, statementTimeoutMs: options.statementTimeoutMs } satisfies ReaderCommand);
  }

  function dispatch(): void {
    for (let index = 0; index < readers.length && queue.length; index++) {
      const reader = readers[index]!;
      if (!reader.ready || reader.busy) continue;
      const pending = queue.shift()!;
      reader.busy = pending;
      reader.worker.postMessage({ type: "read", id: pending.id, ...pending.task } satisfies ReaderCommand);
    }
  }

  return {
    /** The response of the REST service, computed on one of the pool's threads. */
    async run(request: Request, caller: Caller): Promise<Response> {
      if (stopped) throw new AppError(503, "shutting_down", "The server is shutting down");
      if (queue.length >= maxQueued) throw new AppError(503, "53300", "Too many requests are waiting for the database; try again", { headers: { "retry-after": "1" } });
      // Threads start with the first request: an idle server keeps neither their memory nor their start-up.
      if (!readers.length) for (let i = 0; i < options.size; i++) spawn(i);
      const body = request.method === "GET" || request.method === "HEAD" ? null : await request.text();
      const task: ReadTask = {
        method: request.method,
        url: request.url,
        headers: [...request.headers],
        body,
        caller: { role: caller.role, user: caller.user, orgRoles: [...caller.orgRoles] },
      };
      return new Promise<Response>((resolve, reject) => {
        queue.push({ id: nextId++, task, resolve, reject });
        dispatch();
      });
    },
    async stop(): Promise<void> {
      stopped = true;
      for (const pending of queue.splice(0)) pending.reject(new AppError(503, "shutting_down", "The server is shutting down"));
      // A request still running gets its answer first: ending a thread inside a statement would
      // leave that connection's locks held.
      for (let i = 0; i < 100 && readers.some((r) => r.busy); i++) await Bun.sleep(20);
      for (const reader of readers) reader.worker.terminate();
    },
  };
}

export type ReaderPool = ReturnType<typeof createReaderPool>;
