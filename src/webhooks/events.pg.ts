// Recording an event on Postgres: the event row and one pending delivery per subscribed, active
// endpoint of its organization, on the caller's handle — a transaction of the feature recording it
// (tracking's finalizer, crawler ingest) or the webhook store's own — so an event is never recorded
// without its deliveries. events.sqlite.ts is the SQLite twin.
import type { SQL } from "bun";
import { isUuid } from "../db/pg/values";
import type { WebhookEvent } from "./events";

/** The event's id and the ids of the deliveries made for it. */
export async function recordEventPg(tx: SQL, event: WebhookEvent, at: string, onlyEndpointId?: string): Promise<{ eventId: string; deliveryIds: string[] }> {
  // The payload is text: signed and sent exactly as written (jsonb would reorder its keys).
  const [{ id }] = await tx`
    INSERT INTO webhook_events (organization_id, brand_id, type, payload, created_at)
    VALUES (${event.organizationId}, ${event.brandId}, ${event.type}, ${JSON.stringify(event.data)}, ${at}) RETURNING id`;
  // An endpoint with no event list gets every event but the digests (a summary is asked for by
  // name); one scoped to a brand gets only that brand's.
  // A malformed onlyEndpointId matches no endpoint, as on SQLite.
  const only = onlyEndpointId === undefined ? null : isUuid(onlyEndpointId) ? onlyEndpointId : "00000000-0000-0000-0000-000000000000";
  const deliveries = await tx`
    INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_at, created_at, updated_at)
    SELECT e.id, ${id}, 'pending', ${at}, ${at}, ${at} FROM webhook_endpoints e
     WHERE e.organization_id = ${event.organizationId} AND e.is_active
       AND (${only}::uuid IS NOT NULL AND e.id = ${only}::uuid
            OR ${only}::uuid IS NULL AND (e.brand_id IS NULL OR e.brand_id = ${event.brandId}::uuid)
               AND (jsonb_array_length(e.events) = 0 AND ${event.type}::text NOT LIKE 'digest.%' OR e.events @> jsonb_build_array(${event.type}::text)))
    RETURNING id`;
  return { eventId: id as string, deliveryIds: deliveries.map((d: { id: string }) => d.id) };
}
