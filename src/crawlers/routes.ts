// POST /api/brands/:brandId/crawler-logs: a batch of up to 1,000 JSON records from the brand's
// server or CDN (API key or access token; members and up). Good records are kept, bad ones are
// reported by index; a record sent again adds nothing.
import { Elysia } from "elysia";
import { forEachLineCapped } from "../http/body";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { CallerResolver } from "../platform/auth/caller";
import { createCallerShares, createGate } from "../platform/rest/gate";
import { MAX_BATCH, type CrawlerIngest } from "./ingest";
import type { CrawlerStore } from "./store";

const WRITERS = ["owner", "admin", "member"];

/**
 * What one Logpush request may become once inflated, how many records it may hold, and how many are
 * read at once per instance (more wait, unread; past `queued`, 503, which Logpush retries): each
 * holds up to its inflated cap until stored, so twenty at once could hold gigabytes (README: Security).
 */
export const LOGPUSH_LIMITS = { inflatedBytes: 64 * 1024 * 1024, records: 100_000, lineBytes: 64 * 1024, atOnce: 2, queued: 8, perOrganization: 1, bodyDeadlineMs: 60_000 } as const;

/** Cloudflare Logpush's field names (HTTP requests dataset) → the record's. */
export function fromLogpush(o: Record<string, unknown>): Record<string, unknown> {
  const ts = o.EdgeStartTimestamp;
  // Logpush sends RFC 3339, Unix seconds or Unix nanoseconds, as the job's timestamp_format says.
  const timestamp = typeof ts === "number" ? (ts > 1e15 ? ts / 1e9 : ts) : ts;
  return { timestamp, method: o.ClientRequestMethod, host: o.ClientRequestHost, path: o.ClientRequestURI, status: o.EdgeResponseStatus, ip: o.ClientIP, user_agent: o.ClientRequestUserAgent ?? "", referer: o.ClientRequestReferer || null, bytes: o.EdgeResponseBytes };
}

export function crawlerRoutes(deps: { store: CrawlerStore; ingest: CrawlerIngest; callers: CallerResolver }) {
  async function writableBrand(request: Request, id: string): Promise<{ brandId: string; organization: string }> {
    const user = await deps.callers.apiUser(request);
    const brandId = requireUuid(id, "brandId");
    const organization = await deps.store.brandOrganization(brandId);
    const role = organization ? user.orgRoles.get(organization) : undefined;
    if (!organization || !role) throw new AppError(404, "not_found", "Brand not found");
    if (!WRITERS.includes(role)) throw new AppError(403, "forbidden", "Viewers cannot send crawler logs");
    return { brandId, organization };
  }
  const gate = createGate(LOGPUSH_LIMITS.atOnce, LOGPUSH_LIMITS.queued);
  // The gate is the instance's, shared by every organization: each holds at most this many of its
  // places (waiting or running; the rest 429), so one account cannot queue out the others.
  const shares = createCallerShares<string>(LOGPUSH_LIMITS.perOrganization, (organization) => organization, () =>
    new AppError(429, "too_many_pushes", "This organization has a push being read already: send the next once it is answered", { headers: { "retry-after": "5" } }),
  );
  const logpushes = { run: <T>(organization: string, work: () => Promise<T>) => shares.run(organization, () => gate.run(work)) };
  return new Elysia()
    // Cloudflare Logpush's HTTP destination: gzip NDJSON in its field names; the API key in a header
    // (destination_conf "https://<server>/api/brands/<id>/crawler-logs/logpush?header_Authorization=Bearer%20aw_…").
    .post(
      "/api/brands/:brandId/crawler-logs/logpush",
      async ({ request, params }) => {
        const { brandId, organization } = await writableBrand(request, params.brandId);
        return logpushes.run(organization, () => logpush(request, brandId));
      },
      { parse: "none" },
    )
    .post("/api/brands/:brandId/crawler-logs", async ({ request, params, body }) => {
    const { brandId, organization } = await writableBrand(request, params.brandId);
    const records = Array.isArray(body) ? body : (body as { records?: unknown })?.records;
    if (!Array.isArray(records)) throw new AppError(400, "validation_failed", "The body must be a JSON array of records (or {records: [...]})");
    if (records.length > MAX_BATCH) throw new AppError(413, "batch_too_large", `At most ${MAX_BATCH} records a batch (got ${records.length})`);
    // Through the same gate as Logpush bodies: each request has its own reverse-DNS budget, so
    // requests side by side would multiply it (a hundred at once, 50,000 lookups).
    return logpushes.run(organization, async () => ({ success: true, ...(await deps.ingest.ingest(brandId, records)) }));
  });

  async function logpush(request: Request, brandId: string) {
    // Everything is read and parsed before anything is stored: past a limit, nothing is.
    const records: Record<string, unknown>[] = [];
    let malformed = 0;
    let overlong: number;
    try {
      ({ overlong } = await forEachLineCapped(request, { maxBytes: LOGPUSH_LIMITS.inflatedBytes, maxLines: LOGPUSH_LIMITS.records, maxLineBytes: LOGPUSH_LIMITS.lineBytes, deadlineMs: LOGPUSH_LIMITS.bodyDeadlineMs }, (line) => {
        try {
          records.push(fromLogpush(JSON.parse(line)));
        } catch {
          malformed++;
        }
      }));
    } catch (error) {
      // A refused body leaves up to a cap's worth of garbage: collect it now, not when the heap
      // next fills, so a client repeating the request cannot pile it up.
      records.length = 0;
      Bun.gc(true);
      throw error;
    }
    malformed += overlong;
    let accepted = 0;
    let duplicates = 0;
    // One reverse-DNS budget for the whole body (500 lookups, 5 s), not one per batch of it.
    const dns = deps.ingest.newDnsBudget();
    for (let i = 0; i < records.length; i += MAX_BATCH) {
      const r = await deps.ingest.ingest(brandId, records.slice(i, i + MAX_BATCH), undefined, dns);
      accepted += r.accepted;
      duplicates += r.duplicates;
      malformed += r.errors.length;
    }
    // Logpush's validation message ({"content":"test message"}) is a malformed record: still 200.
    return { success: true, accepted, duplicates, malformed };
  }
}
