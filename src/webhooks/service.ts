// Webhook endpoints of an organization, managed by its owners and admins: the signing secret is
// made here, shown once (on creation and on rotation), and never readable afterwards.
import type { Database } from "bun:sqlite";
import { AppError } from "../http/errors";
import type { ApiUser } from "../common/identity";
import { requireUuid } from "../http/validate";
import { checkDestination, DestinationError, type Resolver } from "./destination";
import { EVENT_TYPES, recordEvent } from "./events";
import { newSecret } from "./signing";

const MANAGERS = new Set(["owner", "admin"]);

interface EndpointRow {
  id: string;
  organization_id: string;
  brand_id: string | null;
  url: string;
  description: string | null;
  events: string;
  is_active: number;
  created_at: string;
  updated_at: string;
}

function endpointJson(row: EndpointRow) {
  return {
    id: row.id,
    organization_id: row.organization_id,
    brand_id: row.brand_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    is_active: !!row.is_active,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function createWebhookService(deps: {
  sqlite: Database;
  allowPrivate: boolean;
  wake: () => void;
  now?: () => Date;
  /** When given, a host name is resolved at creation too and refused if it points somewhere private (delivery checks again anyway). */
  resolve?: Resolver;
}) {
  const { sqlite } = deps;
  const now = deps.now ?? (() => new Date());
  const columns = "id, organization_id, brand_id, url, description, events, is_active, created_at, updated_at";

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

  function optionalText(raw: unknown, field: string): string | null {
    if (raw === undefined || raw === null) return null;
    if (typeof raw !== "string" || raw.length > 500) throw new AppError(400, "validation_failed", `${field} must be a string of at most 500 characters`);
    return raw;
  }

  /** The endpoint, if the caller manages its organization (404 otherwise, so nothing leaks). */
  function managed(user: ApiUser, id: unknown): EndpointRow {
    const row = sqlite.query(`SELECT ${columns} FROM webhook_endpoints WHERE id = ?`).get(requireUuid(id, "id")) as EndpointRow | null;
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
      const description = optionalText(body.description, "description");
      let brandId: string | null = null;
      if (body.brand_id !== undefined && body.brand_id !== null) {
        brandId = requireUuid(body.brand_id, "brand_id");
        if (!sqlite.query("SELECT 1 FROM brands WHERE id = ? AND organization_id = ?").get(brandId, organizationId))
          throw new AppError(404, "not_found", "Brand not found in that organization");
      }
      const secret = newSecret();
      const at = now().toISOString();
      const row = sqlite
        .query(
          `INSERT INTO webhook_endpoints (organization_id, brand_id, url, description, secret, events, is_active, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING ${columns}`,
        )
        .get(organizationId, brandId, url, description, secret, JSON.stringify(events), at, at) as EndpointRow;
      return { success: true, endpoint: endpointJson(row), secret };
    },

    list(user: ApiUser) {
      const orgs = [...user.orgRoles].filter(([, role]) => MANAGERS.has(role)).map(([id]) => id);
      if (!orgs.length) return { success: true, endpoints: [] };
      const rows = sqlite
        .query(`SELECT ${columns} FROM webhook_endpoints WHERE organization_id IN (${orgs.map(() => "?").join(",")}) ORDER BY created_at`)
        .all(...orgs) as EndpointRow[];
      return { success: true, endpoints: rows.map(endpointJson) };
    },

    get: (user: ApiUser, id: unknown) => ({ success: true, endpoint: endpointJson(managed(user, id)) }),

    async update(user: ApiUser, id: unknown, body: Record<string, unknown>) {
      managed(user, id);
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "validation_failed", "The body must be a JSON object");
      const newUrl = body.url === undefined ? undefined : await validUrl(body.url);
      // Read after the URL check, which may have waited on DNS, so the other fields are current.
      const row = managed(user, id);
      const url = newUrl ?? row.url;
      const events = body.events === undefined ? row.events : JSON.stringify(validEvents(body.events));
      const description = body.description === undefined ? row.description : optionalText(body.description, "description");
      if (body.is_active !== undefined && typeof body.is_active !== "boolean") throw new AppError(400, "validation_failed", "is_active must be a boolean");
      const active = body.is_active === undefined ? row.is_active : body.is_active ? 1 : 0;
      const updated = sqlite
        .query(`UPDATE webhook_endpoints SET url = ?, events = ?, description = ?, is_active = ?, updated_at = ? WHERE id = ? RETURNING ${columns}`)
        .get(url, events, description, active, now().toISOString(), row.id) as EndpointRow;
      return { success: true, endpoint: endpointJson(updated) };
    },

    remove(user: ApiUser, id: unknown) {
      const row = managed(user, id);
      sqlite.query("DELETE FROM webhook_endpoints WHERE id = ?").run(row.id);
      return { success: true };
    },

    rotateSecret(user: ApiUser, id: unknown) {
      const row = managed(user, id);
      const secret = newSecret();
      sqlite.query("UPDATE webhook_endpoints SET secret = ?, updated_at = ? WHERE id = ?").run(secret, now().toISOString(), row.id);
      return { success: true, endpoint: endpointJson(row), secret };
    },

    test(user: ApiUser, id: unknown) {
      const row = managed(user, id);
      if (!row.is_active) throw new AppError(409, "endpoint_disabled", "The endpoint is disabled; set is_active to true first");
      const eventId = sqlite
        .transaction(() =>
          recordEvent(sqlite, { organizationId: row.organization_id, brandId: row.brand_id, type: "webhook.test", data: { endpoint_id: row.id, message: "This is a test event from answerwatch." } }, now().toISOString(), row.id),
        )
        .immediate();
      deps.wake();
      const delivery = sqlite.query("SELECT id FROM webhook_deliveries WHERE event_id = ?").get(eventId) as { id: string };
      return { success: true, eventId, deliveryId: delivery.id };
    },

    deliveries(user: ApiUser, id: unknown, query: { limit?: string; status?: string }) {
      const row = managed(user, id);
      const limit = query.limit === undefined ? 50 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new AppError(400, "validation_failed", "limit must be a whole number from 1 to 500");
      if (query.status !== undefined && !["pending", "delivered", "failed"].includes(query.status))
        throw new AppError(400, "validation_failed", "status must be pending, delivered or failed");
      const rows = sqlite
        .query(
          `SELECT d.id, d.event_id, v.type AS event_type, d.status, d.attempts, d.last_status, d.last_error, d.duration_ms, d.next_at, d.created_at, d.updated_at
           FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id
           WHERE d.endpoint_id = ? AND (?2 IS NULL OR d.status = ?2) ORDER BY d.created_at DESC LIMIT ${limit}`,
        )
        .all(row.id, query.status ?? null);
      return { success: true, deliveries: rows };
    },

    retry(user: ApiUser, deliveryId: unknown) {
      const id = requireUuid(deliveryId, "deliveryId");
      const d = sqlite.query("SELECT endpoint_id, status FROM webhook_deliveries WHERE id = ?").get(id) as { endpoint_id: string; status: string } | null;
      if (!d) throw new AppError(404, "not_found", "Delivery not found");
      managed(user, d.endpoint_id);
      if (d.status === "pending") throw new AppError(409, "delivery_pending", "The delivery is still pending");
      sqlite.query("UPDATE webhook_deliveries SET status = 'pending', next_at = ?, updated_at = ? WHERE id = ?").run(now().toISOString(), now().toISOString(), id);
      deps.wake();
      return { success: true, deliveryId: id };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
