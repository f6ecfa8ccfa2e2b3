// The webhooks store on Postgres (store.ts says what each operation does). Several instances
// deliver from one outbox: a claim locks the due rows it takes with FOR UPDATE SKIP LOCKED and
// moves their due time to the lease's end, and an attempt is recorded only while that lease is
// still the one it was claimed with — so each due delivery is attempted once per schedule.
import type { SQL } from "bun";
import { isUuid, plainRow } from "../db/pg/values";
import { recordEventPg } from "./events.pg";
import { CLAIM_WINDOW, type ClaimedDelivery, type DeliveryLogEntry, type DeliveryStatus, type WebhookEndpoint, type WebhookStore } from "./store";

const COLUMNS = "id, organization_id, brand_id, url, description, events, format, is_active, created_at, updated_at";

const endpointOf = (row: Record<string, unknown>): WebhookEndpoint => plainRow<WebhookEndpoint>(row);

export function createPgWebhookStore(sql: SQL): WebhookStore {
  const endpointById = async (id: string) => {
    if (!isUuid(id)) return null;
    const [row] = await sql.unsafe(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id]);
    return row ? endpointOf(row) : null;
  };
  type Finish = Parameters<WebhookStore["finishDelivery"]>[0];
  const record = async (tx: SQL, f: Finish) => {
    const rows = await tx`
      UPDATE webhook_deliveries SET status = ${f.status}, attempts = ${f.attempts}, next_at = ${f.nextAt}, last_status = ${f.lastStatus},
             last_error = ${f.lastError}, duration_ms = ${f.durationMs}, updated_at = ${f.at}
       WHERE id = ${f.id} AND status = 'pending' AND next_at = ${f.leaseUntil} RETURNING id`;
    return rows.length > 0;
  };

  return {
    endpointById,
    async endpointsOf(organizationIds) {
      const orgs = organizationIds.filter(isUuid);
      if (!orgs.length) return [];
      const rows = await sql.unsafe(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE organization_id = ANY($1::uuid[]) ORDER BY created_at`, [sql.array(orgs, "UUID")]);
      return rows.map(endpointOf);
    },
    async brandInOrganization({ brandId, organizationId }) {
      if (!isUuid(brandId) || !isUuid(organizationId)) return false;
      const rows = await sql`SELECT 1 FROM brands WHERE id = ${brandId} AND organization_id = ${organizationId}`;
      return rows.length > 0;
    },
    async createEndpoint(e) {
      const [row] = await sql.unsafe(
        `INSERT INTO webhook_endpoints (organization_id, brand_id, url, description, secret, events, format, is_active, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $8, true, $7, $7) RETURNING ${COLUMNS}`,
        [e.organizationId, e.brandId, e.url, e.description, e.secret, e.events, e.at, e.format],
      );
      return endpointOf(row);
    },
    async updateEndpoint(e) {
      if (!isUuid(e.id)) return null;
      const [row] = await sql.unsafe(
        `UPDATE webhook_endpoints SET url = $1, events = $2, description = $3, is_active = $4, updated_at = $5, format = $7 WHERE id = $6 RETURNING ${COLUMNS}`,
        [e.url, e.events, e.description, e.isActive, e.at, e.id, e.format],
      );
      return row ? endpointOf(row) : null;
    },
    async deleteEndpoint(id) {
      if (!isUuid(id)) return;
      await sql`DELETE FROM webhook_endpoints WHERE id = ${id}`;
    },
    async setSecret({ id, secret, at }) {
      if (!isUuid(id)) return;
      await sql`UPDATE webhook_endpoints SET secret = ${secret}, updated_at = ${at} WHERE id = ${id}`;
    },
    async recordEvent(input) {
      return sql.begin((tx) => recordEventPg(tx, input.event, input.at, input.onlyEndpointId));
    },
    async deliveriesOf({ endpointId, status, limit }) {
      if (!isUuid(endpointId)) return [];
      const rows = await sql`
        SELECT d.id, d.event_id, v.type AS event_type, d.status, d.attempts, d.last_status, d.last_error, d.duration_ms, d.next_at, d.created_at, d.updated_at
          FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id
         WHERE d.endpoint_id = ${endpointId} AND (${status}::text IS NULL OR d.status = ${status}::text)
         ORDER BY d.created_at DESC LIMIT ${limit}`;
      return rows.map((r: Record<string, unknown>) => plainRow<DeliveryLogEntry>(r));
    },
    async delivery(id) {
      if (!isUuid(id)) return null;
      const [row] = await sql`SELECT endpoint_id, status FROM webhook_deliveries WHERE id = ${id}`;
      return row ? { endpoint_id: row.endpoint_id as string, status: row.status as DeliveryStatus } : null;
    },
    async requeueDelivery({ id, at }) {
      if (!isUuid(id)) return;
      await sql`UPDATE webhook_deliveries SET status = 'pending', next_at = ${at}, updated_at = ${at} WHERE id = ${id}`;
    },
    async pruneEvents({ before, limit }) {
      // Deliveries go with their event (ON DELETE CASCADE).
      const rows = await sql`
        DELETE FROM webhook_events WHERE id IN (
          SELECT v.id FROM webhook_events v WHERE v.created_at < ${before}::timestamptz
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = v.id AND d.status = 'pending') LIMIT ${limit})
        RETURNING id`;
      return rows.length;
    },
    async claimDue({ now, leaseUntil, limit, perOrganization, busy }) {
      // SKIP LOCKED: rows another instance is claiming are left to it; the ones taken here get the
      // lease as their due time, so nobody else sees them due before it ends. Each organization's
      // due ones are counted from its deliveries in flight here, up to its share.
      const rows = await sql`
        WITH ranked AS (
          SELECT d.id, row_number() OVER (PARTITION BY v.organization_id ORDER BY d.next_at, d.id)
                   + coalesce((${JSON.stringify(busy ?? {})}::text::jsonb ->> v.organization_id::text)::int, 0) AS nth
            FROM (SELECT id, next_at, event_id FROM webhook_deliveries WHERE status = 'pending' AND next_at <= ${now} ORDER BY next_at LIMIT ${CLAIM_WINDOW}) AS d
            JOIN webhook_events v ON v.id = d.event_id
        ), due AS (
          SELECT d.id, d.next_at FROM webhook_deliveries d JOIN ranked r ON r.id = d.id
           WHERE r.nth <= ${perOrganization ?? limit} AND d.status = 'pending' AND d.next_at <= ${now}
           ORDER BY d.next_at LIMIT ${limit} FOR UPDATE OF d SKIP LOCKED
        ), claimed AS (
          UPDATE webhook_deliveries d SET next_at = ${leaseUntil}, updated_at = ${now} FROM due WHERE d.id = due.id
          RETURNING d.id, d.endpoint_id, d.event_id, d.attempts, due.next_at AS due_at
        )
        SELECT c.id, c.endpoint_id, c.event_id, c.attempts, e.url, e.secret, e.format, e.is_active, v.type, v.organization_id, v.brand_id,
               v.payload, v.created_at AS event_created_at
          FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id JOIN webhook_events v ON v.id = c.event_id
         ORDER BY c.due_at, c.id`;
      return rows.map((r: Record<string, unknown>) => plainRow<ClaimedDelivery>(r));
    },
    async finishDelivery(f) {
      if (!isUuid(f.id)) return false;
      if (!f.disableEndpoint) return record(sql, f);
      return sql.begin(async (tx) => {
        const ours = await record(tx, f);
        if (ours && isUuid(f.disableEndpoint)) await tx`UPDATE webhook_endpoints SET is_active = false, updated_at = ${f.at} WHERE id = ${f.disableEndpoint}`;
        return ours;
      });
    },
  };
}
