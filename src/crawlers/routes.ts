// POST /api/brands/:brandId/crawler-logs: a batch of up to 1,000 JSON records from the brand's
// server or CDN (API key or access token; members and up). Good records are kept, bad ones are
// reported by index; a record sent again adds nothing.
import { Elysia } from "elysia";
import type { Database } from "bun:sqlite";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { CallerResolver } from "../platform/auth/caller";
import { MAX_BATCH, type CrawlerIngest } from "./ingest";

const WRITERS = ["owner", "admin", "member"];

export function crawlerRoutes(deps: { sqlite: Database; ingest: CrawlerIngest; callers: CallerResolver }) {
  return new Elysia().post("/api/brands/:brandId/crawler-logs", async ({ request, params, body }) => {
    const user = await deps.callers.apiUser(request);
    const brandId = requireUuid(params.brandId, "brandId");
    const brand = deps.sqlite.query("SELECT organization_id FROM brands WHERE id = ?").get(brandId) as { organization_id: string } | null;
    const role = brand ? user.orgRoles.get(brand.organization_id) : undefined;
    if (!brand || !role) throw new AppError(404, "not_found", "Brand not found");
    if (!WRITERS.includes(role)) throw new AppError(403, "forbidden", "Viewers cannot send crawler logs");
    const records = Array.isArray(body) ? body : (body as { records?: unknown })?.records;
    if (!Array.isArray(records)) throw new AppError(400, "validation_failed", "The body must be a JSON array of records (or {records: [...]})");
    if (records.length > MAX_BATCH) throw new AppError(413, "batch_too_large", `At most ${MAX_BATCH} records a batch (got ${records.length})`);
    return { success: true, ...(await deps.ingest.ingest(brandId, records)) };
  });
}
