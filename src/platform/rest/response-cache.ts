// GET responses of /rest/v1, kept until the database changes. Dashboards ask the same question
// again and again (every page load, every tab, every poll); while nothing was written, the answer
// is byte for byte the one computed before. Validity is exact, not a TTL: the entry remembers the
// database's version as the executor tells it (executor.ts `dataVersion`: on SQLite this
// connection's total_changes() and PRAGMA data_version, so commits by worker threads, the pixel's
// writer or another process count too) and any difference drops the whole cache.
// The key holds everything a response depends on besides the data: the caller's role, user and
// memberships as resolved for this request (resolved just before the version is read, so they are
// part of the key rather than trusted to match it), the method, the path and query string, and the
// headers the request parser reads. Memory counts keys, headers and a fixed overhead as well as
// bodies, so many tiny answers (an anonymous caller's `[]`s) are bounded as surely as big ones.
import type { Caller } from "../auth/caller";
import type { RestExecutor } from "./executor";

export interface ResponseCacheOptions {
  /** Bytes of bodies kept in all (oldest dropped first). */
  maxBytes: number;
  /** Larger bodies are not kept. */
  maxEntryBytes: number;
}

// What an entry costs besides its body and its key: the Map slot, the entry and its header pairs.
const ENTRY_OVERHEAD_BYTES = 256;
// Requests with longer keys (huge query strings or headers) are answered but never kept.
const MAX_KEY_CHARS = 8192;

export const DEFAULT_RESPONSE_CACHE: ResponseCacheOptions = { maxBytes: 32 * 1024 * 1024, maxEntryBytes: 2 * 1024 * 1024 };

// The headers parse.ts reads for a GET/HEAD; a new one there must be added here.
const KEY_HEADERS = ["accept", "prefer", "range", "range-unit", "accept-profile"] as const;

interface Entry {
  status: number;
  headers: [string, string][];
  body: Uint8Array<ArrayBuffer> | null;
}

function sizeOf(key: string, headers: [string, string][], body: Uint8Array | null): number {
  let size = ENTRY_OVERHEAD_BYTES + key.length * 2 + (body?.byteLength ?? 0);
  for (const [name, value] of headers) size += (name.length + value.length) * 2;
  return size;
}

export function createResponseCache(database: Pick<RestExecutor, "dataVersion">, options: ResponseCacheOptions = DEFAULT_RESPONSE_CACHE) {
  const entries = new Map<string, Entry>();
  let version = "";
  let bytes = 0;

  /** The database's version now; a change since the last call empties the cache. */
  function current(): string {
    const now = database.dataVersion();
    if (now !== version) {
      version = now;
      entries.clear();
      bytes = 0;
    }
    return now;
  }

  function keyOf(request: Request, caller: Caller): string {
    let memberships = "";
    for (const [org, role] of caller.orgRoles) memberships += `${org}=${role},`;
    let key = `${caller.role}\u0000${caller.user?.id ?? ""}\u0000${memberships}\u0000${request.method}\u0000${request.url}`;
    for (const name of KEY_HEADERS) key += `\u0000${request.headers.get(name) ?? ""}`;
    return key;
  }

  return {
    /** A cached response for this request, or a function that stores the one computed now. */
    lookup(request: Request, caller: Caller): { hit: Response } | { store(response: Response): Promise<Response> } {
      const at = current();
      const key = keyOf(request, caller);
      const entry = entries.get(key);
      if (entry) {
        // Map order is insertion order: re-inserting marks it most recently used.
        entries.delete(key);
        entries.set(key, entry);
        return { hit: new Response(entry.body, { status: entry.status, headers: entry.headers }) };
      }
      return {
        async store(response: Response): Promise<Response> {
          if (response.status !== 200 && response.status !== 206) return response;
          const body = response.body ? new Uint8Array(await response.arrayBuffer()) : null;
          const headers = [...response.headers];
          const size = sizeOf(key, headers, body);
          // Stored only while the version it was computed at still holds.
          if (size <= options.maxEntryBytes && key.length <= MAX_KEY_CHARS && version === at) {
            // Two identical requests computed side by side: the second replaces the first.
            const previous = entries.get(key);
            if (previous) {
              entries.delete(key);
              bytes -= sizeOf(key, previous.headers, previous.body);
            }
            entries.set(key, { status: response.status, headers, body });
            bytes += size;
            for (const [oldest, old] of entries) {
              if (bytes <= options.maxBytes) break;
              entries.delete(oldest);
              bytes -= sizeOf(oldest, old.headers, old.body);
            }
          }
          return new Response(body, { status: response.status, headers });
        },
      };
    },
    get size(): number {
      return entries.size;
    },
    /** Memory the entries are counted at (keys, headers, bodies, overhead). */
    get bytes(): number {
      return bytes;
    },
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
