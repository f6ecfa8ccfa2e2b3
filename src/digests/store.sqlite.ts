// Digests and mailed alerts on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import { recordEvent } from "../webhooks/events.sqlite";
import type { DigestSuggestion } from "./model";
import type { AlertMail, DigestAddress, DigestBrand, DigestStore, Recipient, SubscriptionRow } from "./store";

// Subscribers who are still members of the brand's organization.
const MEMBER = "JOIN brands b ON b.id = s.brand_id JOIN organization_members m ON m.organization_id = b.organization_id AND m.user_id = s.user_id";

export function createSqliteDigestStore(sqlite: Database): DigestStore {
  const q = {
    subscriptions: sqlite.prepare(
      `SELECT b.id AS brand_id, b.name AS brand_name, o.id AS organization_id, o.name AS organization_name,
              coalesce(s.frequency, 'none') AS frequency, coalesce(s.alerts, 0) AS alerts
         FROM brands b JOIN organizations o ON o.id = b.organization_id
         LEFT JOIN digest_subscriptions s ON s.brand_id = b.id AND s.user_id = ?1
        WHERE b.organization_id IN (SELECT value FROM json_each(?2))
        ORDER BY o.name, o.id, b.name, b.id LIMIT ?3`,
    ),
    brandOrganization: sqlite.prepare("SELECT organization_id FROM brands WHERE id = ?"),
    upsert: sqlite.prepare(
      `INSERT INTO digest_subscriptions (brand_id, user_id, frequency, alerts, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)
       ON CONFLICT (user_id, brand_id) DO UPDATE SET frequency = excluded.frequency, alerts = excluded.alerts, updated_at = excluded.updated_at`,
    ),
    remove: sqlite.prepare("DELETE FROM digest_subscriptions WHERE user_id = ? AND brand_id = ?"),
    unsubscribe: sqlite.prepare(
      `UPDATE digest_subscriptions SET frequency = 'none', alerts = 0, updated_at = ?2 WHERE id = ?1
       RETURNING (SELECT name FROM brands WHERE id = brand_id) AS brand_name, (SELECT email FROM users WHERE id = user_id) AS email`,
    ),
    brandsDue: sqlite.prepare(
      `SELECT b.id AS brand_id, b.name AS brand_name, o.id AS organization_id, o.name AS organization_name
         FROM brands b JOIN organizations o ON o.id = b.organization_id
        WHERE NOT EXISTS (SELECT 1 FROM digest_runs r WHERE r.brand_id = b.id AND r.period = ?2)
          AND (EXISTS (SELECT 1 FROM digest_subscriptions s ${MEMBER} WHERE s.brand_id = b.id AND s.frequency = ?1)
               OR EXISTS (SELECT 1 FROM webhook_endpoints e
                           WHERE e.organization_id = b.organization_id AND e.is_active = 1 AND (e.brand_id IS NULL OR e.brand_id = b.id)
                             AND EXISTS (SELECT 1 FROM json_each(e.events) WHERE value = 'digest.' || ?1)))
        ORDER BY b.created_at, b.id LIMIT ?3`,
    ),
    recipients: sqlite.prepare(
      `SELECT s.id AS subscription_id, s.user_id, u.email, a.confirmed_at IS NOT NULL AS confirmed
         FROM digest_subscriptions s ${MEMBER} JOIN users u ON u.id = s.user_id LEFT JOIN digest_addresses a ON a.user_id = s.user_id AND a.email = u.email
        WHERE s.brand_id = ?1 AND s.frequency = ?2 ORDER BY u.email`,
    ),
    suggestions: sqlite.prepare(
      `SELECT id, title, priority, type FROM suggestions WHERE brand_id = ?1 AND status IN ('new', 'accepted', 'in_progress')
        ORDER BY CASE priority WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, created_at DESC, id LIMIT ?2`,
    ),
    topics: sqlite.prepare("SELECT id, name FROM topics WHERE brand_id = ? ORDER BY name"),
    claimRun: sqlite.prepare("INSERT INTO digest_runs (brand_id, period, created_at) VALUES (?, ?, ?) ON CONFLICT (brand_id, period) DO NOTHING"),
    alertMails: sqlite.prepare(
      `SELECT v.id AS event_id, v.brand_id, b.name AS brand_name, v.payload, v.created_at, s.id AS subscription_id, u.email
         FROM webhook_events v JOIN digest_subscriptions s ON s.brand_id = v.brand_id AND s.alerts = 1 ${MEMBER.replace("JOIN brands b ON b.id = s.brand_id", "JOIN brands b ON b.id = v.brand_id")}
         JOIN users u ON u.id = s.user_id JOIN digest_addresses a ON a.user_id = s.user_id AND a.email = u.email AND a.confirmed_at IS NOT NULL
        WHERE v.type = 'visibility.changed' AND v.created_at >= ?1 AND v.created_at >= s.updated_at
          AND NOT EXISTS (SELECT 1 FROM mail_outbox AS o WHERE o.dedupe_key = 'alert:' || v.id || ':' || s.id)
        ORDER BY v.created_at, v.id, u.email LIMIT ?2`,
    ),
    address: sqlite.prepare(
      `SELECT u.email, a.confirmed_at IS NOT NULL AS confirmed, a.requested_at FROM users u LEFT JOIN digest_addresses a ON a.user_id = u.id AND a.email = u.email WHERE u.id = ?`,
    ),
    request: sqlite.prepare(
      `INSERT INTO digest_addresses (user_id, email, requested_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (user_id, email) DO UPDATE SET requested_at = excluded.requested_at
        WHERE digest_addresses.confirmed_at IS NULL AND (digest_addresses.requested_at IS NULL OR digest_addresses.requested_at < ?4)
       RETURNING 1 AS due`,
    ),
    unasked: sqlite.prepare(
      `SELECT DISTINCT s.user_id, u.email FROM digest_subscriptions s ${MEMBER} JOIN users u ON u.id = s.user_id
        WHERE (s.frequency <> 'none' OR s.alerts = 1) AND NOT EXISTS (SELECT 1 FROM digest_addresses a WHERE a.user_id = s.user_id AND a.email = u.email)
        ORDER BY s.user_id LIMIT ?`,
    ),
    confirm: sqlite.prepare(
      `UPDATE digest_addresses SET confirmed_at = coalesce(confirmed_at, ?3)
        WHERE user_id = ?1 AND email = ?2 AND email = (SELECT email FROM users WHERE id = ?1) RETURNING 1 AS done`,
    ),
  };
  const record = sqlite.transaction((brandId: string, period: string, event: Parameters<typeof recordEvent>[1], at: string) => {
    if (q.claimRun.run(brandId, period, at).changes === 0) return false;
    recordEvent(sqlite, event, at);
    return true;
  });
  return {
    async subscriptionsOf({ userId, organizationIds, limit }) {
      return (q.subscriptions.all(userId, JSON.stringify(organizationIds), limit) as (Omit<SubscriptionRow, "alerts"> & { alerts: number })[]).map((r) => ({ ...r, alerts: !!r.alerts }));
    },
    async brandOrganization(brandId) {
      return (q.brandOrganization.get(brandId) as { organization_id: string } | null)?.organization_id ?? null;
    },
    async setSubscription({ userId, brandId, frequency, alerts, at }) {
      if (frequency === "none" && !alerts) q.remove.run(userId, brandId);
      else q.upsert.run(brandId, userId, frequency, alerts ? 1 : 0, at);
    },
    async unsubscribe({ id, at }) {
      return (q.unsubscribe.get(id, at) as { brand_name: string; email: string } | null) ?? null;
    },
    async brandsDue({ kind, period, limit }) {
      return q.brandsDue.all(kind, period, limit) as DigestBrand[];
    },
    async recipients({ brandId, kind }) {
      return (q.recipients.all(brandId, kind) as (Omit<Recipient, "confirmed"> & { confirmed: number })[]).map((r) => ({ ...r, confirmed: !!r.confirmed }));
    },
    async address(userId) {
      const row = q.address.get(userId) as (Omit<DigestAddress, "confirmed"> & { confirmed: number }) | null;
      return row && { ...row, confirmed: !!row.confirmed };
    },
    async requestConfirmation({ userId, email, at, resendAfter }) {
      return q.request.get(userId, email, at, resendAfter) !== null;
    },
    async unaskedSubscribers({ limit }) {
      return q.unasked.all(limit) as { user_id: string; email: string }[];
    },
    async confirmAddress({ userId, email, at }) {
      return q.confirm.get(userId, email, at) !== null;
    },
    async openSuggestions({ brandId, limit }) {
      return q.suggestions.all(brandId, limit) as DigestSuggestion[];
    },
    async topics(brandId) {
      return q.topics.all(brandId) as { id: string; name: string }[];
    },
    async recordDigest({ brandId, period, event, at }) {
      return record.immediate(brandId, period, event, at);
    },
    async alertMails({ since, limit }) {
      return q.alertMails.all(since, limit) as AlertMail[];
    },
  };
}
