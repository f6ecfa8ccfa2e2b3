// Webhook endpoints of an organization, managed by its owners and admins: the signing secret is
// made here, shown once (on creation and on rotation), and never readable afterwards.
import { AppError } from "../http/errors";
import type { RateLimitStore } from "../http/rate-limit";
import type { ApiUser } from "../common/identity";
import { requireUuid } from "../http/validate";
import { checkDestination, DestinationError, type Resolver } from "./destination";
import { EVENT_TYPES } from "./events";
import { newSecret } from "./signing";
import { WEBHOOK_FORMATS, type DeliveryStatus, type WebhookEndpoint, type WebhookFormat, type WebhookStore } from "./store";

const MANAGERS = new Set(["owner", "admin"]);

function endpointJson(row: WebhookEndpoint) {
  return {
    id: row.id,
    organization_id: row.organization_id,
    brand_id: row.brand_id,
    url: row.url,
    description: row.description,
    events: row.events,
    format: row.format,
    is_active: row.is_active,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Deliveries one organization may ask for by hand (tests, retries) a minute. */
const TESTS_PER_MINUTE = 10;
/** Endpoints of one organization: each event is delivered to each, on delivery slots every organization shares. */
export const MAX_ENDPOINTS = 25;

export function createWebhookService(deps: {
  store: WebhookStore;
  allowPrivate: boolean;
  wake: () => void;
  now?: () => Date;
  /** When given, a host name is resolved at creation too and refused if it points somewhere private (delivery checks again anyway). */
  resolve?: Resolver;
  /** Shared by instances on Postgres: deliveries an organization may ask for by hand (tests, retries) a minute. */
  limits?: RateLimitStore;
}) {
  const { store } = deps;
  // By organization: endpoints are as many as it makes, and a retry re-sends as a test does.
  const byHand = deps.limits?.limiter("webhooks.by-hand", { limit: TESTS_PER_MINUTE, windowMs: 60_000 });
  async function sendsByHand(organizationId: string) {
    if (byHand && !(await byHand.hit(organizationId)))
      throw new AppError(429, "rate_limited", `At most ${TESTS_PER_MINUTE} test deliveries and retries a minute per organization`, { headers: { "retry-after": "60" } });
  }
  const now = deps.now ?? (() => new Date());

  async function validUrl(raw: unknown): Promise<string> {
    try {
      return (await checkDestination(raw, { allowPrivate: deps.allowPrivate, resolve: deps.resolve })).toString();
    } catch (error) {
      if (error instanceof DestinationError) throw new AppError(400, "invalid_url", error.message);
      throw error;
    }
  }

  function validEvents(raw: unknown): string[] {
    if (raw === undefined) return [];
    if (!Array.isArray(raw) || raw.some((e) => typeof e !== "string" || !(EVENT_TYPES as readonly string[]).includes(e)))
      throw new AppError(400, "invalid_events", `events must be a list of ${EVENT_TYPES.join(", ")} (empty: all)`, { details: { allowed: EVENT_TYPES } });
    return [...new Set(raw as string[])];
  }

  function validFormat(raw: unknown, fallback: WebhookFormat): WebhookFormat {
    if (raw === undefined) return fallback;
    if (!(WEBHOOK_FORMATS as readonly unknown[]).includes(raw)) throw new AppError(400, "validation_failed", `format must be one of ${WEBHOOK_FORMATS.join(", ")}`, { details: { allowed: WEBHOOK_FORMATS } });
    return raw as WebhookFormat;
  }

  function optionalText(raw: unknown, field: string): string | null {
    if (raw === undefined || raw === null) return null;
    if (typeof raw !== "string" || raw.length > 500) throw new AppError(400, "validation_failed", `${field} must be a string of at most 500 characters`);
    return raw;
  }

  /** The endpoint, if the caller manages its organization (404 otherwise, so nothing leaks). */
  async function managed(user: ApiUser, id: unknown): Promise<WebhookEndpoint> {
    const row = await store.endpointById(requireUuid(id, "id"));
    if (!row || !user.orgRoles.has(row.organization_id)) throw new AppError(404, "not_found", "Webhook endpoint not found");
    if (!MANAGERS.has(user.orgRoles.get(row.organization_id)!)) throw new AppError(403, "forbidden", "Only owners and admins manage webhooks");
    return row;
  }

  function targetOrganization(user: ApiUser, raw: unknown): string {
    if (raw !== undefined) {
      const id = requireUuid(raw, "organization_id");
      const role = user.orgRoles.get(id);
      if (!role) throw new AppError(404, "not_found", "Organization not found");
      if (!MANAGERS.has(role)) throw new AppError(403, "forbidden", "Only owners and admins manage webhooks");
      return id;
    }
    const managedOrgs = [...user.orgRoles].filter(([, role]) => MANAGERS.has(role)).map(([id]) => id);
    if (managedOrgs.length === 1) return managedOrgs[0]!;
    if (!managedOrgs.length) throw new AppError(403, "forbidden", "Only owners and admins manage webhooks");
    throw new AppError(400, "validation_failed", "organization_id is required: you manage more than one organization");
  }

  return {
    async create(user: ApiUser, body: Record<string, unknown>) {
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "validation_failed", "The body must be a JSON object");
      const organizationId = targetOrganization(user, body.organization_id);
      const url = await validUrl(body.url);
      const events = validEvents(body.events);
      const format = validFormat(body.format, "standard");
      const description = optionalText(body.description, "description");
      let brandId: string | null = null;
      if (body.brand_id !== undefined && body.brand_id !== null) {
        brandId = requireUuid(body.brand_id, "brand_id");
        if (!(await store.brandInOrganization({ brandId, organizationId })))
          throw new AppError(404, "not_found", "Brand not found in that organization");
      }
      if ((await store.endpointsOf([organizationId])).length >= MAX_ENDPOINTS)
        throw new AppError(429, "too_many_endpoints", `An organization has at most ${MAX_ENDPOINTS} webhook endpoints: delete one first`, { details: { max: MAX_ENDPOINTS } });
      const secret = newSecret();
      const at = now().toISOString();
      const row = await store.createEndpoint({ organizationId, brandId, url, description, secret, events, format, at });
      return { success: true, endpoint: endpointJson(row), secret };
    },

    async list(user: ApiUser) {
      const orgs = [...user.orgRoles].filter(([, role]) => MANAGERS.has(role)).map(([id]) => id);
      if (!orgs.length) return { success: true, endpoints: [] };
      const rows = await store.endpointsOf(orgs);
      return { success: true, endpoints: rows.map(endpointJson) };
    },

    get: async (user: ApiUser, id: unknown) => ({ success: true, endpoint: endpointJson(await managed(user, id)) }),

    async update(user: ApiUser, id: unknown, body: Record<string, unknown>) {
      await managed(user, id);
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "validation_failed", "The body must be a JSON object");
      const newUrl = body.url === undefined ? undefined : await validUrl(body.url);
      // Read after the URL check, which may have waited on DNS, so the other fields are current.
      const row = await managed(user, id);
      const url = newUrl ?? row.url;
      const events = body.events === undefined ? row.events : validEvents(body.events);
      const format = validFormat(body.format, row.format);
      const description = body.description === undefined ? row.description : optionalText(body.description, "description");
      if (body.is_active !== undefined && typeof body.is_active !== "boolean") throw new AppError(400, "validation_failed", "is_active must be a boolean");
      const isActive = body.is_active === undefined ? row.is_active : body.is_active;
      const updated = await store.updateEndpoint({ id: row.id, url, events, format, description, isActive, at: now().toISOString() });
      // Deleted between the read and the write (a DELETE at the same moment).
      if (!updated) throw new AppError(404, "not_found", "Webhook endpoint not found");
      return { success: true, endpoint: endpointJson(updated) };
    },

    async remove(user: ApiUser, id: unknown) {
      const row = await managed(user, id);
      await store.deleteEndpoint(row.id);
      return { success: true };
    },

    async rotateSecret(user: ApiUser, id: unknown) {
      const row = await managed(user, id);
      const secret = newSecret();
      await store.setSecret({ id: row.id, secret, at: now().toISOString() });
      return { success: true, endpoint: endpointJson(row), secret };
    },

    async test(user: ApiUser, id: unknown) {
      const row = await managed(user, id);
      if (!row.is_active) throw new AppError(409, "endpoint_disabled", "The endpoint is disabled; set is_active to true first");
      // A test is a POST to an address the caller chose: not a way to send requests at will.
      await sendsByHand(row.organization_id);
      const { eventId, deliveryIds } = await store.recordEvent({
        event: { organizationId: row.organization_id, brandId: row.brand_id, type: "webhook.test", data: { endpoint_id: row.id, message: "This is a test event from answerwatch." } },
        at: now().toISOString(),
        onlyEndpointId: row.id,
      });
      // Disabled or deleted between the check and the event: nothing was queued for it.
      if (!deliveryIds.length) throw new AppError(409, "endpoint_disabled", "The endpoint was disabled or deleted meanwhile: nothing was sent");
      deps.wake();
      return { success: true, eventId, deliveryId: deliveryIds[0]! };
    },

    async deliveries(user: ApiUser, id: unknown, query: { limit?: string; status?: string }) {
      const row = await managed(user, id);
      const limit = query.limit === undefined ? 50 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new AppError(400, "validation_failed", "limit must be a whole number from 1 to 500");
      if (query.status !== undefined && !["pending", "delivered", "failed"].includes(query.status))
        throw new AppError(400, "validation_failed", "status must be pending, delivered or failed");
      const rows = await store.deliveriesOf({ endpointId: row.id, status: (query.status ?? null) as DeliveryStatus | null, limit });
      return { success: true, deliveries: rows };
    },

    async retry(user: ApiUser, deliveryId: unknown) {
      const id = requireUuid(deliveryId, "deliveryId");
      const d = await store.delivery(id);
      if (!d) throw new AppError(404, "not_found", "Delivery not found");
      const endpoint = await managed(user, d.endpoint_id);
      if (d.status === "pending") throw new AppError(409, "delivery_pending", "The delivery is still pending");
      await sendsByHand(endpoint.organization_id);
      await store.requeueDelivery({ id, at: now().toISOString() });
      deps.wake();
      return { success: true, deliveryId: id };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
