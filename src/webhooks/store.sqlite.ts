// The webhooks store on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import { recordEvent } from "./events.sqlite";
import { CLAIM_WINDOW, type ClaimedDelivery, type ClaimInput, type DeliveryLogEntry, type DeliveryStatus, type WebhookEndpoint, type WebhookStore } from "./store";

const COLUMNS = "id, organization_id, brand_id, url, description, events, format, is_active, created_at, updated_at";

interface EndpointRow extends Omit<WebhookEndpoint, "events" | "is_active"> {
  events: string;
  is_active: number;
}

const endpointOf = (row: EndpointRow): WebhookEndpoint => ({ ...row, events: JSON.parse(row.events) as string[], is_active: !!row.is_active });

/**
 * The deliveries to claim at ?2: the oldest due first, each organization's counted from its
 * deliveries in flight (?4, a JSON object by organization) up to its share (?5), at most ?3. Ranked
 * among the CLAIM_WINDOW oldest due (a bound on each poll's work whatever the backlog).
 */
const CLAIMABLE = `
  SELECT id FROM (
    SELECT d.id, d.next_at, row_number() OVER (PARTITION BY v.organization_id ORDER BY d.next_at, d.id) + coalesce(json_extract(?4, '$."' || v.organization_id || '"'), 0) AS nth
      FROM (SELECT id, next_at, event_id FROM webhook_deliveries WHERE status = 'pending' AND next_at <= ?2 ORDER BY next_at LIMIT ${CLAIM_WINDOW}) AS d
      JOIN webhook_events v ON v.id = d.event_id)
   WHERE nth <= ?5 ORDER BY next_at LIMIT ?3`;

export function createSqliteWebhookStore(sqlite: Database): WebhookStore {
  const q = {
    endpoint: sqlite.prepare(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ?`),
    brandInOrg: sqlite.prepare("SELECT 1 FROM brands WHERE id = ? AND organization_id = ?"),
    insertEndpoint: sqlite.prepare(
      `INSERT INTO webhook_endpoints (organization_id, brand_id, url, description, secret, events, format, is_active, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING ${COLUMNS}`,
    ),
    updateEndpoint: sqlite.prepare(`UPDATE webhook_endpoints SET url = ?, events = ?, format = ?, description = ?, is_active = ?, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`),
    deleteEndpoint: sqlite.prepare("DELETE FROM webhook_endpoints WHERE id = ?"),
    setSecret: sqlite.prepare("UPDATE webhook_endpoints SET secret = ?, updated_at = ? WHERE id = ?"),
    deliveriesOfEvent: sqlite.prepare("SELECT id FROM webhook_deliveries WHERE event_id = ?"),
    log: sqlite.prepare(
      `SELECT d.id, d.event_id, v.type AS event_type, d.status, d.attempts, d.last_status, d.last_error, d.duration_ms, d.next_at, d.created_at, d.updated_at
       FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id
       WHERE d.endpoint_id = ?1 AND (?2 IS NULL OR d.status = ?2) ORDER BY d.created_at DESC LIMIT ?3`,
    ),
    delivery: sqlite.prepare("SELECT endpoint_id, status FROM webhook_deliveries WHERE id = ?"),
    requeue: sqlite.prepare("UPDATE webhook_deliveries SET status = 'pending', next_at = ?, updated_at = ? WHERE id = ?"),
    // A read first: an UPDATE takes the database's write lock even when it matches nothing, and
    // the deliverer polls every second (also when what is due belongs to organizations at their share).
    due: sqlite.prepare(`SELECT EXISTS (${CLAIMABLE}) AS due`),
    claim: sqlite.prepare(`UPDATE webhook_deliveries SET next_at = ?1, updated_at = ?2 WHERE id IN (${CLAIMABLE}) RETURNING id`),
    details: sqlite.prepare(
      `SELECT d.id, d.endpoint_id, d.event_id, d.attempts, e.url, e.secret, e.format, e.is_active, v.type, v.organization_id, v.brand_id,
              v.payload, v.created_at AS event_created_at
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events v ON v.id = d.event_id
       WHERE d.id = ?`,
    ),
    // Only while the lease it was claimed with still holds: a delivery re-claimed by someone else is theirs to record.
    record: sqlite.prepare(
      `UPDATE webhook_deliveries SET status = ?2, attempts = ?3, next_at = ?4, last_status = ?5, last_error = ?6, duration_ms = ?7, updated_at = ?8
       WHERE id = ?1 AND status = 'pending' AND next_at = ?9`,
    ),
    disable: sqlite.prepare("UPDATE webhook_endpoints SET is_active = 0, updated_at = ? WHERE id = ?"),
    // Deliveries go with their event (ON DELETE CASCADE).
    prune: sqlite.prepare(
      `DELETE FROM webhook_events WHERE id IN (
         SELECT v.id FROM webhook_events v WHERE v.created_at < ?1
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = v.id AND d.status = 'pending') LIMIT ?2)`,
    ),
  };

  const recordTx = sqlite.transaction((input: Parameters<WebhookStore["recordEvent"]>[0]) => {
    const eventId = recordEvent(sqlite, input.event, input.at, input.onlyEndpointId);
    return { eventId, deliveryIds: (q.deliveriesOfEvent.all(eventId) as { id: string }[]).map((d) => d.id) };
  });

  const claimTx = sqlite.transaction(({ now, leaseUntil, limit, perOrganization, busy }: ClaimInput): ClaimedDelivery[] => {
    const claimed: ClaimedDelivery[] = [];
    for (const { id } of q.claim.all(leaseUntil, now, limit, JSON.stringify(busy ?? {}), perOrganization ?? limit) as { id: string }[]) {
      const d = q.details.get(id) as (Omit<ClaimedDelivery, "is_active"> & { is_active: number }) | null;
      if (d) claimed.push({ ...d, is_active: !!d.is_active });
    }
    return claimed;
  });

  type Finish = Parameters<WebhookStore["finishDelivery"]>[0];
  const record = (f: Finish) => q.record.run(f.id, f.status, f.attempts, f.nextAt, f.lastStatus, f.lastError, f.durationMs, f.at, f.leaseUntil).changes > 0;
  const finishAndDisableTx = sqlite.transaction((f: Finish) => {
    const ours = record(f);
    if (ours) q.disable.run(f.at, f.disableEndpoint!);
    return ours;
  });

  return {
    async endpointById(id) {
      const row = q.endpoint.get(id) as EndpointRow | null;
      return row && endpointOf(row);
    },
    async endpointsOf(organizationIds) {
      if (!organizationIds.length) return [];
      const rows = sqlite
        .query(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE organization_id IN (${organizationIds.map(() => "?").join(",")}) ORDER BY created_at`)
        .all(...organizationIds) as EndpointRow[];
      return rows.map(endpointOf);
    },
    async brandInOrganization({ brandId, organizationId }) {
      return q.brandInOrg.get(brandId, organizationId) !== null;
    },
    async createEndpoint(e) {
      return endpointOf(q.insertEndpoint.get(e.organizationId, e.brandId, e.url, e.description, e.secret, JSON.stringify(e.events), e.format, e.at, e.at) as EndpointRow);
    },
    async updateEndpoint(e) {
      const row = q.updateEndpoint.get(e.url, JSON.stringify(e.events), e.format, e.description, e.isActive ? 1 : 0, e.at, e.id) as EndpointRow | null;
      return row && endpointOf(row);
    },
    async deleteEndpoint(id) {
      q.deleteEndpoint.run(id);
    },
    async setSecret({ id, secret, at }) {
      q.setSecret.run(secret, at, id);
    },
    async recordEvent(input) {
      return recordTx.immediate(input);
    },
    async deliveriesOf({ endpointId, status, limit }) {
      return q.log.all(endpointId, status, limit) as DeliveryLogEntry[];
    },
    async delivery(id) {
      return q.delivery.get(id) as { endpoint_id: string; status: DeliveryStatus } | null;
    },
    async requeueDelivery({ id, at }) {
      q.requeue.run(at, at, id);
    },
    async pruneEvents({ before, limit }) {
      return sqlite.transaction(() => q.prune.run(before, limit).changes).immediate();
    },
    async claimDue(input) {
      const args = [input.leaseUntil, input.now, input.limit, JSON.stringify(input.busy ?? {}), input.perOrganization ?? input.limit] as const;
      if ((q.due.get(...args) as { due: number }).due === 0) return [];
      return claimTx.immediate(input);
    },
    async finishDelivery(f) {
      // One statement needs no transaction of its own; disabling the endpoint goes with it.
      return f.disableEndpoint ? finishAndDisableTx.immediate(f) : record(f);
    },
  };
}
