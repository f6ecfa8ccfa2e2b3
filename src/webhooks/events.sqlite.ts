// Recording an event: the event row and one pending delivery per subscribed, active endpoint of
// its organization, in the caller's transaction — an event is never recorded without its deliveries.
// Synchronous and given the caller's handle, so the SQLite implementations of other features
// (tracking's finalizer, crawler ingest) call it inside their own write transactions.
import type { Database } from "bun:sqlite";
import type { WebhookEvent } from "./events";

export function recordEvent(sqlite: Database, event: WebhookEvent, at: string, onlyEndpointId?: string): string {
  const id = crypto.randomUUID();
  sqlite.query("INSERT INTO webhook_events (id, organization_id, brand_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
    id,
    event.organizationId,
    event.brandId,
    event.type,
    JSON.stringify(event.data),
    at,
  );
  // An endpoint with no event list gets every event but the digests (a summary is asked for by name);
  // one scoped to a brand gets only that brand's.
  sqlite
    .query(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_at, created_at, updated_at)
       SELECT e.id, ?1, 'pending', ?2, ?2, ?2 FROM webhook_endpoints e
       WHERE e.organization_id = ?3 AND e.is_active = 1
         AND (?5 IS NOT NULL AND e.id = ?5
              OR ?5 IS NULL AND (e.brand_id IS NULL OR e.brand_id = ?4)
                 AND (json_array_length(e.events) = 0 AND ?6 NOT LIKE 'digest.%' OR EXISTS (SELECT 1 FROM json_each(e.events) WHERE value = ?6)))`,
    )
    .run(id, at, event.organizationId, event.brandId, onlyEndpointId ?? null, event.type);
  return id;
}
