// Recording an event on Postgres: the event row and one pending delivery per subscribed, active
// endpoint of its organization, in the caller's transaction (events.sqlite.ts is the SQLite twin) —
// so other features' Postgres stores (crawler ingest, tracking's finalizer) record events inside
// their own write transactions.
import type { SQL } from "bun";
import type { WebhookEvent } from "./events";

export async function recordEventPg(tx: SQL, event: WebhookEvent, at: string, onlyEndpointId?: string): Promise<string> {
  const id = crypto.randomUUID();
  // payload is text: the body as signed, with the key order JSON.stringify gives.
  await tx`INSERT INTO webhook_events (id, organization_id, brand_id, type, payload, created_at)
           VALUES (${id}, ${event.organizationId}, ${event.brandId}, ${event.type}, ${JSON.stringify(event.data)}, ${at})`;
  // An endpoint with no event list gets every event; one scoped to a brand gets only that brand's.
  await tx`
    INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_at, created_at, updated_at)
    SELECT e.id, ${id}, 'pending', ${at}, ${at}, ${at} FROM webhook_endpoints e
     WHERE e.organization_id = ${event.organizationId} AND e.is_active
       AND (${onlyEndpointId ?? null}::uuid IS NOT NULL AND e.id = ${onlyEndpointId ?? null}::uuid
            OR ${onlyEndpointId ?? null}::uuid IS NULL AND (e.brand_id IS NULL OR e.brand_id = ${event.brandId}::uuid)
               AND (jsonb_array_length(e.events) = 0 OR e.events @> jsonb_build_array(${event.type}::text)))`;
  return id;
}
