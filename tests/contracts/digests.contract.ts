// The digest store's contract (src/digests/store.ts), run on SQLite and Postgres: who is due, who
// receives, a period recorded once with its event, alerts to the members who asked for them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { alertMailKey, type DigestStore } from "../../src/digests/store";
import type { Harness } from "./harness";

const T0 = "2026-01-05T10:00:00.000Z";

export function describeDigestStoreContract(name: string, make: () => Promise<Harness & { store: DigestStore }>) {
  describe(`DigestStore (${name})`, () => {
    let h: Harness & { store: DigestStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    async function world() {
      const orgName = `Org ${crypto.randomUUID().slice(0, 8)}`;
      const org = await h.fixtures.organization(orgName);
      const brand = await h.fixtures.brand(org, "Alpha");
      const owner = await h.fixtures.user(`${crypto.randomUUID().slice(0, 8)}@a.example`);
      const left = await h.fixtures.user(`${crypto.randomUUID().slice(0, 8)}@b.example`);
      await h.fixtures.member(org, owner, "owner");
      return { org, orgName, brand, owner, left };
    }

    test("a brand is due when a current member subscribed to that kind, until its period is recorded (once: a second record writes nothing)", async () => {
      const { org, orgName, brand, owner, left } = await world();
      const due = async (kind: "weekly" | "monthly", period: string) => (await h.store.brandsDue({ kind, period, limit: 10_000 })).filter((b) => b.brand_id === brand);
      expect(await due("weekly", "2026-W01")).toEqual([]);
      // Someone who is not a member (any more) makes nothing due.
      await h.store.setSubscription({ userId: left, brandId: brand, frequency: "weekly", alerts: false, at: T0 });
      expect(await due("weekly", "2026-W01")).toEqual([]);
      expect(await h.store.recipients({ brandId: brand, kind: "weekly" })).toEqual([]);
      await h.store.setSubscription({ userId: owner, brandId: brand, frequency: "weekly", alerts: false, at: T0 });
      expect(await due("weekly", "2026-W01")).toEqual([{ brand_id: brand, brand_name: "Alpha", organization_id: org, organization_name: orgName }]);
      expect(await due("monthly", "2026-01")).toEqual([]);
      expect((await h.store.recipients({ brandId: brand, kind: "weekly" })).map((r) => r.user_id)).toEqual([owner]);
      const event = { organizationId: org, brandId: brand, type: "digest.weekly" as const, data: { n: 1 } };
      expect(await h.store.recordDigest({ brandId: brand, period: "2026-W01", event, at: T0 })).toBe(true);
      expect(await h.store.recordDigest({ brandId: brand, period: "2026-W01", event, at: T0 })).toBe(false);
      expect(await h.inspect("SELECT count(*) AS n FROM webhook_events WHERE brand_id = ? AND type = 'digest.weekly'", brand)).toEqual([{ n: h.backend === "postgres" ? "1" : 1 }]);
      expect(await due("weekly", "2026-W01")).toEqual([]);
      expect(await due("weekly", "2026-W02")).toHaveLength(1);
    });

    test("an active endpoint naming digest.<kind> makes its organization's brands due (or its one brand)", async () => {
      const { org, brand } = await world();
      const other = await h.fixtures.brand(org, "Beta");
      await h.inspect(`INSERT INTO webhook_endpoints (organization_id, brand_id, url, secret, events) VALUES (?, ?, 'https://x.example', 's', ${h.backend === "postgres" ? "CAST(? AS text)::jsonb" : "?"})`, org, other, '["digest.monthly"]');
      const due = (await h.store.brandsDue({ kind: "monthly", period: "2026-01", limit: 10_000 })).map((b) => b.brand_id);
      expect(due).toContain(other);
      expect(due).not.toContain(brand);
    });

    test("subscriptionsOf lists every brand of the organizations with the user's choice; none and no alerts removes the row", async () => {
      const { org, orgName, brand, owner } = await world();
      await h.store.setSubscription({ userId: owner, brandId: brand, frequency: "monthly", alerts: true, at: T0 });
      expect(await h.store.subscriptionsOf({ userId: owner, organizationIds: [org], limit: 10 })).toEqual([{ brand_id: brand, brand_name: "Alpha", organization_id: org, organization_name: orgName, frequency: "monthly", alerts: true }]);
      await h.store.setSubscription({ userId: owner, brandId: brand, frequency: "none", alerts: false, at: T0 });
      expect(await h.inspect("SELECT count(*) AS n FROM digest_subscriptions WHERE brand_id = ?", brand)).toEqual([{ n: h.backend === "postgres" ? "0" : 0 }]);
      expect((await h.store.subscriptionsOf({ userId: owner, organizationIds: [org], limit: 10 }))[0]).toMatchObject({ frequency: "none", alerts: false });
      expect(await h.store.subscriptionsOf({ userId: owner, organizationIds: [], limit: 10 })).toEqual([]);
    });

    /** The account's address confirmed for digests, as following its link does. */
    async function confirmed(userId: string) {
      const { email } = (await h.store.address(userId))!;
      expect(await h.store.requestConfirmation({ userId, email, at: T0, resendAfter: T0 })).toBe(true);
      expect(await h.store.confirmAddress({ userId, email, at: T0 })).toBe(true);
      return email;
    }

    test("addresses: a confirmation is asked once until resendAfter passes, never once confirmed; only the account's current address confirms; recipients and alertMails say and heed it", async () => {
      const { org, brand, owner } = await world();
      const email = (await h.store.address(owner))!.email;
      expect(await h.store.address(owner)).toEqual({ email, confirmed: false, requested_at: null });
      expect(await h.store.address(crypto.randomUUID())).toBeNull();
      await h.store.setSubscription({ userId: owner, brandId: brand, frequency: "weekly", alerts: true, at: T0 });
      expect((await h.store.recipients({ brandId: brand, kind: "weekly" })).map((r) => [r.user_id, r.confirmed])).toEqual([[owner, false]]);
      expect((await h.store.unaskedSubscribers({ limit: 10_000 })).filter((r) => r.user_id === owner)).toEqual([{ user_id: owner, email }]);
      const at1 = "2026-01-05T10:00:00.000Z";
      expect(await h.store.requestConfirmation({ userId: owner, email, at: at1, resendAfter: "2026-01-05T09:00:00.000Z" })).toBe(true);
      // Within the hour: not again; after it: again.
      expect(await h.store.requestConfirmation({ userId: owner, email, at: "2026-01-05T10:30:00.000Z", resendAfter: "2026-01-05T09:30:00.000Z" })).toBe(false);
      expect(new Date((await h.store.address(owner))!.requested_at!).toISOString()).toBe(at1);
      expect((await h.store.recipients({ brandId: brand, kind: "weekly" })).map((r) => r.confirmed)).toEqual([false]);
      expect((await h.store.unaskedSubscribers({ limit: 10_000 })).filter((r) => r.user_id === owner)).toEqual([]);
      // An event while unconfirmed is mailed to nobody.
      await h.inspect("INSERT INTO webhook_events (organization_id, brand_id, type, payload, created_at) VALUES (?, ?, 'visibility.changed', '{}', ?)", org, brand, "2026-01-05T12:00:00.000Z");
      expect((await h.store.alertMails({ since: "2026-01-01T00:00:00.000Z", limit: 10_000 })).filter((m) => m.brand_id === brand)).toEqual([]);
      // Another address (not the account's) confirms nothing.
      expect(await h.store.confirmAddress({ userId: owner, email: "someone-else@example.com", at: T0 })).toBe(false);
      expect(await h.store.confirmAddress({ userId: owner, email, at: "2026-01-05T11:00:00.000Z" })).toBe(true);
      expect((await h.store.address(owner))!.confirmed).toBe(true);
      expect(await h.store.requestConfirmation({ userId: owner, email, at: "2026-01-06T10:00:00.000Z", resendAfter: "2026-01-06T09:00:00.000Z" })).toBe(false);
      expect((await h.store.recipients({ brandId: brand, kind: "weekly" })).map((r) => r.confirmed)).toEqual([true]);
      expect((await h.store.alertMails({ since: "2026-01-01T00:00:00.000Z", limit: 10_000 })).filter((m) => m.brand_id === brand)).toHaveLength(1);
      // A new address on the account is unconfirmed again.
      await h.inspect(`UPDATE ${h.backend === "postgres" ? "auth.users" : "users"} SET email = ? WHERE id = ?`, `new-${email}`, owner);
      expect(await h.store.address(owner)).toEqual({ email: `new-${email}`, confirmed: false, requested_at: null });
      expect((await h.store.recipients({ brandId: brand, kind: "weekly" })).map((r) => r.confirmed)).toEqual([false]);
    });

    test("alertMails: visibility.changed events after a member asked for alerts, to that member only", async () => {
      const { org, brand, owner } = await world();
      await confirmed(owner);
      const quiet = await h.fixtures.user(`${crypto.randomUUID().slice(0, 8)}@c.example`);
      await h.fixtures.member(org, quiet, "member");
      await h.store.setSubscription({ userId: quiet, brandId: brand, frequency: "weekly", alerts: false, at: T0 });
      const insert = (at: string) => h.inspect("INSERT INTO webhook_events (organization_id, brand_id, type, payload, created_at) VALUES (?, ?, 'visibility.changed', '{}', ?) RETURNING id", org, brand, at);
      await insert("2026-01-05T09:00:00.000Z"); // before the owner asked
      await h.store.setSubscription({ userId: owner, brandId: brand, frequency: "none", alerts: true, at: T0 });
      const [after] = await insert("2026-01-05T11:00:00.000Z");
      const mails = (await h.store.alertMails({ since: "2026-01-01T00:00:00.000Z", limit: 10_000 })).filter((m) => m.brand_id === brand);
      expect(mails.map((m) => [m.event_id, m.brand_name])).toEqual([[(after as { id: string }).id, "Alpha"]]);
      const sub = mails[0]!.subscription_id;
      expect(await h.store.unsubscribe({ id: sub, at: T0 })).toMatchObject({ brand_name: "Alpha" });
      expect((await h.store.alertMails({ since: "2026-01-01T00:00:00.000Z", limit: 10_000 })).filter((m) => m.brand_id === brand)).toEqual([]);
      expect(await h.store.unsubscribe({ id: crypto.randomUUID(), at: T0 })).toBeNull();
    });

    test("alertMails leaves out the pairs already queued: a full page of old pairs never hides a newer event", async () => {
      const { org, brand, owner } = await world();
      await confirmed(owner);
      await h.store.setSubscription({ userId: owner, brandId: brand, frequency: "none", alerts: true, at: T0 });
      const events: string[] = [];
      for (const at of ["2026-01-06T11:00:00.000Z", "2026-01-06T12:00:00.000Z", "2026-01-06T13:00:00.000Z"])
        events.push(((await h.inspect("INSERT INTO webhook_events (organization_id, brand_id, type, payload, created_at) VALUES (?, ?, 'visibility.changed', '{}', ?) RETURNING id", org, brand, at))[0] as { id: string }).id);
      const page = async () => (await h.store.alertMails({ since: "2026-01-06T00:00:00.000Z", limit: 2 })).filter((m) => m.brand_id === brand);
      const first = await page();
      expect(first.map((m) => m.event_id)).toEqual(events.slice(0, 2));
      // Queued as the service queues them (their dedupe keys): the next page is the third event.
      for (const m of first)
        await h.inspect("INSERT INTO mail_outbox (kind, to_address, subject, text_body, dedupe_key) VALUES ('alert', ?, 's', 't', ?)", m.email, alertMailKey(m.event_id, m.subscription_id));
      expect((await page()).map((m) => m.event_id)).toEqual([events[2]]);
    });

    test("open suggestions, high priority first; topics by name", async () => {
      const { brand } = await world();
      await h.inspect("INSERT INTO suggestions (brand_id, title, priority, status) VALUES (?, 'low one', 'low', 'new'), (?, 'high one', 'high', 'accepted'), (?, 'gone', 'high', 'dismissed')", brand, brand, brand);
      expect((await h.store.openSuggestions({ brandId: brand, limit: 10 })).map((s) => s.title)).toEqual(["high one", "low one"]);
      await h.fixtures.topic(brand, "Pricing");
      expect((await h.store.topics(brand)).map((t) => t.name)).toEqual(["Pricing"]);
    });
  });
}
