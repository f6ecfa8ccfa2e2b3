// A bounded loopback load generator for the pixel's load test and bench/collect.ts: a fixed number
// of keep-alive HTTP/1.1 connections, each with one request in flight, over raw sockets. Raw sockets
// rather than fetch because the generator must outrun a bare Bun.serve, or the ratio would measure it.

export interface LoadOptions {
  /** Base URL; only loopback hosts are accepted. */
  url: string;
  /** Requests to send in all (bounded). */
  total: number;
  /** Concurrent connections (bounded). */
  connections: number;
  /** The raw request bytes for request number `i` (see rawRequest). */
  request: (i: number) => Uint8Array;
}

export interface LoadResult {
  total: number;
  /** status code → count */
  statuses: Record<number, number>;
  /** requests that got no complete response (connection closed or failed) */
  errors: number;
  elapsedMs: number;
  perSecond: number;
}

export const MAX_REQUESTS = 1_000_000;
export const MAX_CONNECTIONS = 256;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const encoder = new TextEncoder();
const HEAD_END = Buffer.from("\r\n\r\n");

/** Builds the bytes of one HTTP/1.1 request with a Content-Length. */
export function rawRequest(method: string, url: string, headers: Record<string, string>, body = ""): Uint8Array {
  const target = new URL(url);
  const bytes = encoder.encode(body);
  let head = `${method} ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  if (method !== "GET" || bytes.length) head += `content-length: ${bytes.length}\r\n`;
  const headBytes = encoder.encode(head + "\r\n");
  const out = new Uint8Array(headBytes.length + bytes.length);
  out.set(headBytes);
  out.set(bytes, headBytes.length);
  return out;
}

/** Length of the first complete response in `buf` and its status, or null when incomplete. */
function parseResponse(buf: Buffer): { length: number; status: number; close: boolean } | null {
  const headEnd = buf.indexOf(HEAD_END);
  if (headEnd < 0) return null;
  const head = buf.toString("latin1", 0, headEnd);
  const status = Number(head.slice(9, 12));
  const close = /\r\nconnection:\s*close/i.test(head);
  let bodyStart = headEnd + 4;
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) return { length: bodyStart, status, close };
  const contentLength = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (contentLength) {
    const length = bodyStart + Number(contentLength[1]);
    return buf.length >= length ? { length, status, close } : null;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    for (;;) {
      const lineEnd = buf.indexOf("\r\n", bodyStart);
      if (lineEnd < 0) return null;
      const size = parseInt(buf.toString("latin1", bodyStart, lineEnd), 16);
      bodyStart = lineEnd + 2 + size + 2;
      if (buf.length < bodyStart) return null;
      if (size === 0) return { length: bodyStart, status, close };
    }
  }
  return { length: bodyStart, status, close: true };
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  if (!LOOPBACK.has(target.hostname)) throw new Error(`load generator targets loopback only, not ${target.hostname}`);
  if (!(options.total > 0 && options.total <= MAX_REQUESTS)) throw new Error(`total must be 1..${MAX_REQUESTS}`);
  if (!(options.connections > 0 && options.connections <= MAX_CONNECTIONS)) throw new Error(`connections must be 1..${MAX_CONNECTIONS}`);
  const hostname = target.hostname === "[::1]" ? "::1" : target.hostname;
  const port = Number(target.port || 80);

  const statuses: Record<number, number> = {};
  let next = 0;
  let done = 0;
  let errors = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const settle = () => {
    if (done + errors === options.total) finish();
  };

  // One connection: send a request, wait for its response, repeat; reconnect when the server closes.
  const connect = async (): Promise<void> => {
    if (next >= options.total) return;
    let buf = Buffer.alloc(0);
    let inFlight = false;
    let pending: Uint8Array | null = null;
    const send = (socket: Bun.Socket) => {
      if (next >= options.total) {
        socket.end();
        return;
      }
      const bytes = options.request(next++);
      inFlight = true;
      const written = socket.write(bytes);
      pending = written < bytes.length ? bytes.subarray(Math.max(written, 0)) : null;
    };
    try {
      await Bun.connect({
        hostname,
        port,
        socket: {
          open: send,
          drain(socket) {
            if (!pending) return;
            const written = socket.write(pending);
            pending = written < pending.length ? pending.subarray(Math.max(written, 0)) : null;
          },
          data(socket, chunk) {
            buf = buf.length ? Buffer.concat([buf, chunk]) : Buffer.from(chunk);
            for (;;) {
              const response = parseResponse(buf);
              if (!response) return;
              buf = buf.subarray(response.length);
              inFlight = false;
              statuses[response.status] = (statuses[response.status] ?? 0) + 1;
              done++;
              settle();
              if (response.close) {
                socket.end();
                return;
              }
              send(socket);
            }
          },
          close() {
            if (inFlight) {
              inFlight = false;
              errors++;
              settle();
            }
            void connect();
          },
          error() {},
        },
      });
    } catch {
      // Refused: count the request this connection would have sent, so the run still ends.
      if (next < options.total) {
        next++;
        errors++;
        settle();
        void connect();
      }
    }
  };

  const started = performance.now();
  for (let c = 0; c < Math.min(options.connections, options.total); c++) void connect();
  await finished;
  const elapsedMs = performance.now() - started;
  return { total: options.total, statuses, errors, elapsedMs, perSecond: (options.total / elapsedMs) * 1000 };
}
