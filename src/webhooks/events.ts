// The webhook event vocabulary and the body every endpoint receives. Recording an event is
// events.sqlite.ts (inside a caller's transaction) or WebhookStore.recordEvent (its own).

export const EVENT_TYPES = ["tracking.completed", "tracking.failed", "suggestion.created", "visibility.changed", "crawler.first_seen", "webhook.test", "digest.weekly", "digest.monthly"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface WebhookEvent {
  organizationId: string;
  brandId: string | null;
  type: EventType;
  data: unknown;
}

/** The JSON body every endpoint receives. */
export function eventPayload(event: { id: string; type: string; created_at: string; organization_id: string; brand_id: string | null; data: unknown }) {
  return { type: event.type, id: event.id, created_at: event.created_at, organization_id: event.organization_id, brand_id: event.brand_id, data: event.data };
}
