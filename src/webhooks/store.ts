// What webhooks keep (webhook_endpoints, webhook_events, webhook_deliveries) and how the endpoint
// service and the deliverer ask for it. Backend implementations: store.sqlite.ts (and, with #29,
// store.pg.ts); the contract both must keep is tests/contracts/webhooks.contract.ts. Other features
// record events inside their own transactions with the writer in events.sqlite.ts.
import type { WebhookEvent } from "./events";

/** An endpoint as its managers see it: never its secret. */
export interface WebhookEndpoint {
  id: string;
  organization_id: string;
  brand_id: string | null;
  url: string;
  description: string | null;
  /** Event types it receives; empty: all but the digests (which go only where they are named). */
  events: string[];
  /** `standard`: the signed event JSON; `slack`: `{"text": …}` for chat incoming webhooks (Slack, Teams, Mattermost). */
  format: WebhookFormat;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

export const WEBHOOK_FORMATS = ["standard", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** One line of an endpoint's delivery log. */
export interface DeliveryLogEntry {
  id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  duration_ms: number | null;
  next_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  secret: string;
  format: WebhookFormat;
  is_active: boolean;
  type: string;
  organization_id: string;
  brand_id: string | null;
  /** The event's data, as JSON text. */
  payload: string;
  event_created_at: string;
}

/** A claim ranks organizations' shares among this many of the oldest due deliveries: each poll's work is bounded whatever the backlog. */
export const CLAIM_WINDOW = 10_000;

export interface ClaimInput {
  now: string;
  leaseUntil: string;
  limit: number;
  /**
   * At most this many of one organization's deliveries in flight (its `busy` ones counted): the
   * deliverer's slots are every organization's, and one whose endpoints never answer (each attempt
   * holds a slot for the whole timeout) would otherwise hold them all. Unset: no such share.
   */
  perOrganization?: number;
  /** Deliveries in flight now, by organization id. */
  busy?: Record<string, number>;
}

export interface WebhookStore {
  endpointById(id: string): Promise<WebhookEndpoint | null>;
  /** The endpoints of the given organizations, oldest first. */
  endpointsOf(organizationIds: string[]): Promise<WebhookEndpoint[]>;
  brandInOrganization(input: { brandId: string; organizationId: string }): Promise<boolean>;
  /** A new active endpoint, created_at and updated_at `at`. */
  createEndpoint(input: { organizationId: string; brandId: string | null; url: string; description: string | null; secret: string; events: string[]; format: WebhookFormat; at: string }): Promise<WebhookEndpoint>;
  /** Sets every given field; the endpoint afterwards (null when unknown). */
  updateEndpoint(input: { id: string; url: string; events: string[]; format: WebhookFormat; description: string | null; isActive: boolean; at: string }): Promise<WebhookEndpoint | null>;
  /** Deletes the endpoint with its deliveries. */
  deleteEndpoint(id: string): Promise<void>;
  setSecret(input: { id: string; secret: string; at: string }): Promise<void>;
  /**
   * Records the event and one pending delivery (due `at`) per subscribed, active endpoint of its
   * organization — only to `onlyEndpointId` when given — in one transaction.
   */
  recordEvent(input: { event: WebhookEvent; at: string; onlyEndpointId?: string }): Promise<{ eventId: string; deliveryIds: string[] }>;
  /** The endpoint's deliveries, newest first, at most `limit`, of one status when given. */
  deliveriesOf(input: { endpointId: string; status: DeliveryStatus | null; limit: number }): Promise<DeliveryLogEntry[]>;
  /** Whose delivery it is and where it stands (null when unknown). */
  delivery(id: string): Promise<{ endpoint_id: string; status: DeliveryStatus } | null>;
  /** Makes the delivery pending again, due `at`. */
  requeueDelivery(input: { id: string; at: string }): Promise<void>;
  /**
   * Deletes up to `limit` events made before `before` with none of their deliveries pending, and
   * those deliveries with them (the delivery log keeps WEBHOOK_KEEP_DAYS). How many events went.
   */
  pruneEvents(input: { before: string; limit: number }): Promise<number>;

  /**
   * Claims up to `limit` pending deliveries due at `now` (oldest due first) by moving their next_at
   * to `leaseUntil`, so no other claimer takes them until then; with what sending needs. Writes
   * nothing when none is due.
   */
  claimDue(input: ClaimInput): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt's outcome, only if the delivery is still pending under the lease it was
   * claimed with (`leaseUntil`); with `disableEndpoint`, the endpoint is disabled in the same
   * transaction. False when the delivery was no longer ours (nothing written).
   */
  finishDelivery(input: {
    id: string;
    leaseUntil: string;
    status: DeliveryStatus;
    attempts: number;
    nextAt: string | null;
    lastStatus: number | null;
    lastError: string | null;
    durationMs: number;
    at: string;
    disableEndpoint?: string;
  }): Promise<boolean>;
}
