// Server logs → records (issue #21): nginx/Apache "combined" lines and JSON lines, plain or gzip,
// read as a stream (a multi-gigabyte file needs constant memory) and handed on in batches.
import type { CrawlerRecord } from "./ingest";
import { cappedLines, OVERLONG } from "../common/lines";

const MONTHS: Record<string, string> = { Jan: "01", Feb: "02", Mar: "03", Apr: "04", May: "05", Jun: "06", Jul: "07", Aug: "08", Sep: "09", Oct: "10", Nov: "11", Dec: "12" };
// 203.0.113.9 - - [25/Nov/2026:10:00:00 +0000] "GET /pricing HTTP/1.1" 200 5120 "https://ref/" "UA"
const COMBINED = /^(\S+) \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})\] "(\S+) (\S+)(?: [^"]*)?" (\d{3}) (\d+|-)(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?/;

/** One log line as a record (unchecked), or null when it is neither format. */
export function parseLogLine(line: string): Record<string, unknown> | null {
  const text = line.trim();
  if (!text) return null;
  if (text.startsWith("{")) {
    try {
      const o = JSON.parse(text) as Record<string, unknown>;
      const pick = (...names: string[]) => names.map((n) => o[n]).find((v) => v !== undefined && v !== null);
      const request = typeof o.request === "string" ? o.request.split(" ") : [];
      return {
        timestamp: pick("timestamp", "time", "time_iso8601", "@timestamp", "ts"),
        method: pick("method", "request_method") ?? request[0],
        host: pick("host", "server_name", "vhost"),
        path: pick("path", "uri", "request_uri") ?? request[1],
        status: Number(pick("status", "status_code")),
        ip: pick("ip", "remote_addr", "client_ip", "clientip"),
        user_agent: pick("user_agent", "http_user_agent", "ua") ?? "",
        referer: pick("referer", "http_referer", "referrer") ?? null,
        bytes: pick("bytes", "body_bytes_sent", "bytes_sent") !== undefined ? Number(pick("bytes", "body_bytes_sent", "bytes_sent")) : undefined,
      };
    } catch {
      return null;
    }
  }
  const m = COMBINED.exec(text);
  if (!m) return null;
  const [, ip, dd, mon, yyyy, hh, mi, ss, zone, method, path, status, bytes, referer, ua] = m;
  const month = MONTHS[mon!];
  if (!month) return null;
  const unescape = (s: string | undefined) => (s === undefined || s === "-" ? null : s.replace(/\\(.)/g, "$1"));
  return {
    timestamp: `${yyyy}-${month}-${dd}T${hh}:${mi}:${ss}${zone!.slice(0, 3)}:${zone!.slice(3)}`,
    method,
    path,
    status: Number(status),
    ip,
    user_agent: unescape(ua) ?? "",
    referer: unescape(referer),
    bytes: bytes === "-" ? undefined : Number(bytes),
  };
}

/** Longest log line read (README: Security); a longer one is yielded as OVERLONG and never held whole. */
export const MAX_LOG_LINE_CHARS = 64 * 1024;
export { OVERLONG };

/** The lines of a log file, gzip or not (told by its first bytes), streamed; a line past `maxChars` comes as OVERLONG. */
export async function* fileLines(path: string, maxChars = MAX_LOG_LINE_CHARS): AsyncGenerator<string | typeof OVERLONG> {
  const file = Bun.file(path);
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  let stream: ReadableStream<Uint8Array> = file.stream();
  if (head[0] === 0x1f && head[1] === 0x8b) stream = stream.pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
  yield* cappedLines(stream, maxChars);
}

export type { CrawlerRecord };
