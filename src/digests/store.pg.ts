// Digests and mailed alerts on Postgres (store.ts says what each operation does).
import type { SQL } from "bun";
import { isUuid, plainRow } from "../db/pg/values";
import { recordEventPg } from "../webhooks/events.pg";
import type { DigestSuggestion } from "./model";
import type { AlertMail, DigestAddress, DigestBrand, DigestStore, Recipient, SubscriptionRow } from "./store";

const rowsOf = <T>(rows: Record<string, unknown>[]) => rows.map((r) => plainRow<T>(r));

export function createPgDigestStore(sql: SQL): DigestStore {
  return {
    async subscriptionsOf({ userId, organizationIds, limit }) {
      if (!isUuid(userId)) return [];
      const ids = organizationIds.filter(isUuid);
      return rowsOf<SubscriptionRow>(
        await sql`
          SELECT b.id AS brand_id, b.name AS brand_name, o.id AS organization_id, o.name AS organization_name,
                 coalesce(s.frequency, 'none') AS frequency, coalesce(s.alerts, false) AS alerts
            FROM brands b JOIN organizations o ON o.id = b.organization_id
            LEFT JOIN digest_subscriptions s ON s.brand_id = b.id AND s.user_id = ${userId}
           WHERE b.organization_id = ANY(${sql.array(ids, "UUID")}::uuid[])
           ORDER BY o.name, o.id, b.name, b.id LIMIT ${limit}`,
      );
    },
    async brandOrganization(brandId) {
      if (!isUuid(brandId)) return null;
      const [row] = await sql`SELECT organization_id FROM brands WHERE id = ${brandId}`;
      return row ? String(row.organization_id) : null;
    },
    async setSubscription({ userId, brandId, frequency, alerts, at }) {
      if (frequency === "none" && !alerts) await sql`DELETE FROM digest_subscriptions WHERE user_id = ${userId} AND brand_id = ${brandId}`;
      else
        await sql`
          INSERT INTO digest_subscriptions (brand_id, user_id, frequency, alerts, created_at, updated_at) VALUES (${brandId}, ${userId}, ${frequency}, ${alerts}, ${at}, ${at})
          ON CONFLICT (user_id, brand_id) DO UPDATE SET frequency = excluded.frequency, alerts = excluded.alerts, updated_at = excluded.updated_at`;
    },
    async unsubscribe({ id, at }) {
      if (!isUuid(id)) return null;
      const [row] = await sql`
        UPDATE digest_subscriptions s SET frequency = 'none', alerts = false, updated_at = ${at} WHERE s.id = ${id}
        RETURNING (SELECT name FROM brands WHERE id = s.brand_id) AS brand_name, (SELECT email FROM auth.users WHERE id = s.user_id) AS email`;
      return row ? plainRow<{ brand_name: string; email: string }>(row) : null;
    },
    async brandsDue({ kind, period, limit }) {
      return rowsOf<DigestBrand>(
        await sql`
          SELECT b.id AS brand_id, b.name AS brand_name, o.id AS organization_id, o.name AS organization_name
            FROM brands b JOIN organizations o ON o.id = b.organization_id
           WHERE NOT EXISTS (SELECT 1 FROM digest_runs r WHERE r.brand_id = b.id AND r.period = ${period})
             AND (EXISTS (SELECT 1 FROM digest_subscriptions s JOIN organization_members m ON m.organization_id = b.organization_id AND m.user_id = s.user_id
                           WHERE s.brand_id = b.id AND s.frequency = ${kind})
                  OR EXISTS (SELECT 1 FROM webhook_endpoints e
                              WHERE e.organization_id = b.organization_id AND e.is_active AND (e.brand_id IS NULL OR e.brand_id = b.id)
                                AND e.events @> jsonb_build_array(${`digest.${kind}`}::text)))
           ORDER BY b.created_at, b.id LIMIT ${limit}`,
      );
    },
    async recipients({ brandId, kind }) {
      if (!isUuid(brandId)) return [];
      return rowsOf<Recipient>(
        await sql`
          SELECT s.id AS subscription_id, s.user_id, u.email, a.confirmed_at IS NOT NULL AS confirmed
            FROM digest_subscriptions s JOIN brands b ON b.id = s.brand_id
            JOIN organization_members m ON m.organization_id = b.organization_id AND m.user_id = s.user_id
            JOIN auth.users u ON u.id = s.user_id
            LEFT JOIN digest_addresses a ON a.user_id = s.user_id AND a.email = u.email
           WHERE s.brand_id = ${brandId} AND s.frequency = ${kind} ORDER BY u.email COLLATE "C"`,
      );
    },
    async openSuggestions({ brandId, limit }) {
      if (!isUuid(brandId)) return [];
      return rowsOf<DigestSuggestion>(
        await sql`
          SELECT id, title, priority, type FROM suggestions WHERE brand_id = ${brandId} AND status IN ('new', 'accepted', 'in_progress')
           ORDER BY CASE priority WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, created_at DESC, id LIMIT ${limit}`,
      );
    },
    async topics(brandId) {
      if (!isUuid(brandId)) return [];
      return rowsOf<{ id: string; name: string }>(await sql`SELECT id, name FROM topics WHERE brand_id = ${brandId} ORDER BY name`);
    },
    async recordDigest({ brandId, period, event, at }) {
      return sql.begin(async (tx) => {
        const claimed = await tx`INSERT INTO digest_runs (brand_id, period, created_at) VALUES (${brandId}, ${period}, ${at}) ON CONFLICT (brand_id, period) DO NOTHING RETURNING id`;
        if (!claimed.length) return false;
        await recordEventPg(tx, event, at);
        return true;
      });
    },
    async address(userId) {
      if (!isUuid(userId)) return null;
      const [row] = await sql`
        SELECT u.email, a.confirmed_at IS NOT NULL AS confirmed, a.requested_at
          FROM auth.users u LEFT JOIN digest_addresses a ON a.user_id = u.id AND a.email = u.email WHERE u.id = ${userId}`;
      return row ? rowsOf<DigestAddress>([row])[0]! : null;
    },
    async requestConfirmation({ userId, email, at, resendAfter }) {
      if (!isUuid(userId)) return false;
      const rows = await sql`
        INSERT INTO digest_addresses (user_id, email, requested_at) VALUES (${userId}, ${email}, ${at})
        ON CONFLICT (user_id, email) DO UPDATE SET requested_at = excluded.requested_at
         WHERE digest_addresses.confirmed_at IS NULL AND (digest_addresses.requested_at IS NULL OR digest_addresses.requested_at < ${resendAfter})
        RETURNING 1`;
      return rows.length > 0;
    },
    async unaskedSubscribers({ limit }) {
      return rowsOf<{ user_id: string; email: string }>(
        await sql`
          SELECT DISTINCT s.user_id, u.email FROM digest_subscriptions s JOIN brands b ON b.id = s.brand_id
            JOIN organization_members m ON m.organization_id = b.organization_id AND m.user_id = s.user_id
            JOIN auth.users u ON u.id = s.user_id
           WHERE (s.frequency <> 'none' OR s.alerts) AND NOT EXISTS (SELECT 1 FROM digest_addresses a WHERE a.user_id = s.user_id AND a.email = u.email)
           ORDER BY s.user_id LIMIT ${limit}`,
      );
    },
    async confirmAddress({ userId, email, at }) {
      if (!isUuid(userId)) return false;
      const rows = await sql`
        UPDATE digest_addresses SET confirmed_at = coalesce(confirmed_at, ${at})
         WHERE user_id = ${userId} AND email = ${email} AND email = (SELECT email FROM auth.users WHERE id = ${userId}) RETURNING 1`;
      return rows.length > 0;
    },
    async alertMails({ since, limit }) {
      return rowsOf<AlertMail>(
        await sql`
          SELECT v.id AS event_id, v.brand_id, b.name AS brand_name, v.payload, v.created_at, s.id AS subscription_id, u.email
            FROM webhook_events v JOIN digest_subscriptions s ON s.brand_id = v.brand_id AND s.alerts
            JOIN brands b ON b.id = v.brand_id
            JOIN organization_members m ON m.organization_id = b.organization_id AND m.user_id = s.user_id
            JOIN auth.users u ON u.id = s.user_id
            JOIN digest_addresses a ON a.user_id = s.user_id AND a.email = u.email AND a.confirmed_at IS NOT NULL
           WHERE v.type = 'visibility.changed' AND v.created_at >= ${since} AND v.created_at >= s.updated_at
             AND NOT EXISTS (SELECT 1 FROM mail_outbox AS o WHERE o.dedupe_key = 'alert:' || v.id::text || ':' || s.id::text)
           ORDER BY v.created_at, v.id, u.email LIMIT ${limit}`,
      );
    },
  };
}
