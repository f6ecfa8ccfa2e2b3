// The webhooks store's contract (src/webhooks/store.ts), for every backend.
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import type { WebhookEvent } from "../../src/webhooks/events";
import type { WebhookStore } from "../../src/webhooks/store";
import type { Harness } from "./harness";

const T0 = "2026-05-01T12:00:00.000Z";
const T1 = "2026-05-01T12:00:01.000Z";
const T2 = "2026-05-01T12:00:02.000Z";
const LEASE = "2026-05-01T12:01:00.000Z";
const FAR = "2100-01-01T00:00:00.000Z";

export function describeWebhookStoreContract(name: string, make: () => Promise<Harness & { store: WebhookStore }>) {
  describe(`WebhookStore contract (${name})`, () => {
    let h: Harness & { store: WebhookStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    const endpoint = (organizationId: string, extra: Partial<{ brandId: string | null; url: string; events: string[]; secret: string; at: string }> = {}) =>
      h.store.createEndpoint({ organizationId, brandId: extra.brandId ?? null, url: extra.url ?? "https://hooks.example.com/in", description: null, secret: extra.secret ?? "whsec_test", events: extra.events ?? [], format: "standard", at: extra.at ?? T0 });
    const event = (organizationId: string, extra: Partial<WebhookEvent> = {}): WebhookEvent => ({ organizationId, brandId: null, type: "tracking.completed", data: { n: 1 }, ...extra });
    /** Claims and fails every delivery due by FAR, so a case's claims see only its own deliveries. */
    async function drain() {
      for (const d of await h.store.claimDue({ now: FAR, leaseUntil: "2200-01-01T00:00:00.000Z", limit: 100_000 }))
        await h.store.finishDelivery({ id: d.id, leaseUntil: "2200-01-01T00:00:00.000Z", status: "failed", attempts: d.attempts + 1, nextAt: null, lastStatus: null, lastError: "drained", durationMs: 0, at: FAR });
    }

    test("createEndpoint returns the active endpoint without its secret; endpointById reads it back; unknown is null", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      const e = await h.store.createEndpoint({ organizationId: org, brandId: brand, url: "https://a.example.com/hook", description: "ops", secret: "whsec_secret", events: ["tracking.failed", "webhook.test"], format: "slack", at: T0 });
      expect(e).toEqual({ id: e.id, organization_id: org, brand_id: brand, url: "https://a.example.com/hook", description: "ops", events: ["tracking.failed", "webhook.test"], format: "slack", is_active: true, created_at: T0, updated_at: T0 });
      expect(JSON.stringify(e)).not.toContain("whsec_secret");
      expect(await h.store.endpointById(e.id)).toEqual(e);
      expect(await h.store.endpointById(crypto.randomUUID())).toBeNull();
    });

    test("endpointsOf: the given organizations' endpoints, oldest first; none for no organization", async () => {
      const a = await h.fixtures.organization();
      const b = await h.fixtures.organization();
      const c = await h.fixtures.organization();
      const second = await endpoint(b, { at: T1 });
      const first = await endpoint(a, { at: T0 });
      await endpoint(c);
      expect((await h.store.endpointsOf([a, b])).map((e) => e.id)).toEqual([first.id, second.id]);
      expect(await h.store.endpointsOf([])).toEqual([]);
    });

    test("brandInOrganization: only for a brand of that organization", async () => {
      const org = await h.fixtures.organization();
      const other = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      expect(await h.store.brandInOrganization({ brandId: brand, organizationId: org })).toBe(true);
      expect(await h.store.brandInOrganization({ brandId: brand, organizationId: other })).toBe(false);
      expect(await h.store.brandInOrganization({ brandId: crypto.randomUUID(), organizationId: org })).toBe(false);
    });

    test("updateEndpoint sets every field and updated_at; unknown is null", async () => {
      const org = await h.fixtures.organization();
      const e = await endpoint(org);
      const updated = await h.store.updateEndpoint({ id: e.id, url: "https://b.example.com/x", events: ["suggestion.created"], format: "slack", description: "new", isActive: false, at: T2 });
      expect(updated).toEqual({ ...e, url: "https://b.example.com/x", events: ["suggestion.created"], format: "slack", description: "new", is_active: false, updated_at: T2 });
      expect(await h.store.endpointById(e.id)).toEqual(updated);
      expect((await h.store.updateEndpoint({ id: e.id, url: e.url, events: [], format: "standard", description: null, isActive: true, at: T2 }))!.is_active).toBe(true);
      expect(await h.store.updateEndpoint({ id: crypto.randomUUID(), url: e.url, events: [], format: "standard", description: null, isActive: true, at: T2 })).toBeNull();
    });

    test("recordEvent: one pending delivery per subscribed, active endpoint of the organization, due at `at`", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      const otherBrand = await h.fixtures.brand(org);
      const all = await endpoint(org);
      const subscribed = await endpoint(org, { events: ["tracking.completed"] });
      const unsubscribed = await endpoint(org, { events: ["tracking.failed"] });
      const sameBrand = await endpoint(org, { brandId: brand });
      const otherBrandOnly = await endpoint(org, { brandId: otherBrand });
      const inactive = await endpoint(org);
      await h.store.updateEndpoint({ id: inactive.id, url: inactive.url, events: [], format: "standard", description: null, isActive: false, at: T0 });
      const elsewhere = await endpoint(await h.fixtures.organization());

      const { eventId, deliveryIds } = await h.store.recordEvent({ event: event(org, { brandId: brand }), at: T1 });
      expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
      expect(deliveryIds).toHaveLength(3);
      const got = async (e: { id: string }) => (await h.store.deliveriesOf({ endpointId: e.id, status: null, limit: 10 })).map((d) => d.event_id);
      for (const e of [all, subscribed, sameBrand]) expect(await got(e)).toEqual([eventId]);
      for (const e of [unsubscribed, otherBrandOnly, inactive, elsewhere]) expect(await got(e)).toEqual([]);
      const [d] = await h.store.deliveriesOf({ endpointId: all.id, status: null, limit: 10 });
      expect(d).toMatchObject({ event_type: "tracking.completed", status: "pending", attempts: 0, last_status: null, last_error: null, duration_ms: null, next_at: T1, created_at: T1, updated_at: T1 });
      expect(deliveryIds).toContain(d!.id);
      expect(await h.store.delivery(d!.id)).toEqual({ endpoint_id: all.id, status: "pending" });
    });

    test("a digest event goes only to endpoints that name it (an empty list is every event but the digests); the claim carries the endpoint's format", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      await drain();
      const all = await endpoint(org);
      const weekly = await h.store.createEndpoint({ organizationId: org, brandId: brand, url: "https://hooks.slack.example.com/T/B/x", description: null, secret: "whsec_x", events: ["digest.weekly"], format: "slack", at: T0 });
      const monthly = await endpoint(org, { events: ["digest.monthly"] });
      const { deliveryIds } = await h.store.recordEvent({ event: event(org, { brandId: brand, type: "digest.weekly" }), at: T1 });
      expect(deliveryIds).toHaveLength(1);
      expect(await h.store.delivery(deliveryIds[0]!)).toEqual({ endpoint_id: weekly.id, status: "pending" });
      for (const e of [all, monthly]) expect(await h.store.deliveriesOf({ endpointId: e.id, status: null, limit: 10 })).toEqual([]);
      const claimed = (await h.store.claimDue({ now: FAR, leaseUntil: "2200-01-01T00:00:00.000Z", limit: 100_000 })).find((d) => d.id === deliveryIds[0]);
      expect(claimed).toMatchObject({ endpoint_id: weekly.id, format: "slack", type: "digest.weekly", url: "https://hooks.slack.example.com/T/B/x" });
      await drain();
    });

    test("recordEvent with onlyEndpointId delivers to that endpoint alone, whatever it subscribes to", async () => {
      const org = await h.fixtures.organization();
      const target = await endpoint(org, { events: ["tracking.failed"] });
      await endpoint(org);
      const { deliveryIds } = await h.store.recordEvent({ event: event(org, { type: "webhook.test" }), at: T1, onlyEndpointId: target.id });
      expect(deliveryIds).toHaveLength(1);
      expect(await h.store.delivery(deliveryIds[0]!)).toEqual({ endpoint_id: target.id, status: "pending" });
    });

    test("recordEvent with no subscriber records the event and no delivery", async () => {
      const org = await h.fixtures.organization();
      const { eventId, deliveryIds } = await h.store.recordEvent({ event: event(org), at: T1 });
      expect(eventId).toBeString();
      expect(deliveryIds).toEqual([]);
    });

    test("deliveriesOf: newest first, of one status when given, at most limit; delivery and requeueDelivery", async () => {
      await drain();
      const org = await h.fixtures.organization();
      const e = await endpoint(org);
      const older = (await h.store.recordEvent({ event: event(org), at: T0 })).deliveryIds[0]!;
      const newer = (await h.store.recordEvent({ event: event(org, { type: "tracking.failed" }), at: T1 })).deliveryIds[0]!;
      expect((await h.store.deliveriesOf({ endpointId: e.id, status: null, limit: 10 })).map((d) => d.id)).toEqual([newer, older]);
      expect((await h.store.deliveriesOf({ endpointId: e.id, status: null, limit: 1 })).map((d) => d.id)).toEqual([newer]);
      const claimed = await h.store.claimDue({ now: T0, leaseUntil: LEASE, limit: 10 });
      expect(claimed.map((d) => d.id)).toEqual([older]);
      expect(await h.store.finishDelivery({ id: older, leaseUntil: LEASE, status: "delivered", attempts: 1, nextAt: null, lastStatus: 200, lastError: null, durationMs: 12, at: T2 })).toBe(true);
      expect((await h.store.deliveriesOf({ endpointId: e.id, status: "delivered", limit: 10 })).map((d) => d.id)).toEqual([older]);
      expect((await h.store.deliveriesOf({ endpointId: e.id, status: "pending", limit: 10 })).map((d) => d.id)).toEqual([newer]);
      expect(await h.store.deliveriesOf({ endpointId: e.id, status: "failed", limit: 10 })).toEqual([]);
      expect(await h.store.delivery(older)).toEqual({ endpoint_id: e.id, status: "delivered" });
      expect(await h.store.delivery(crypto.randomUUID())).toBeNull();

      await h.store.requeueDelivery({ id: older, at: "2026-05-02T00:00:00.000Z" });
      const [again] = (await h.store.deliveriesOf({ endpointId: e.id, status: "pending", limit: 10 })).filter((d) => d.id === older);
      expect(again).toMatchObject({ status: "pending", attempts: 1, last_status: 200, next_at: "2026-05-02T00:00:00.000Z", updated_at: "2026-05-02T00:00:00.000Z" });
    });

    test("claimDue: due deliveries only, oldest due first, at most limit, with what sending needs; leased ones are not claimed again until the lease ends", async () => {
      await drain();
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      const e = await endpoint(org, { url: "https://c.example.com/in", secret: "whsec_claim" });
      const second = (await h.store.recordEvent({ event: event(org, { brandId: brand, data: { order: 2 } }), at: T1 })).deliveryIds[0]!;
      const first = (await h.store.recordEvent({ event: event(org, { data: { order: 1 } }), at: T0 })).deliveryIds[0]!;
      const notYet = (await h.store.recordEvent({ event: event(org), at: "2026-05-01T13:00:00.000Z" })).deliveryIds[0]!;

      const one = await h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 1 });
      expect(one.map((d) => d.id)).toEqual([first]);
      expect(one[0]).toMatchObject({ endpoint_id: e.id, attempts: 0, url: "https://c.example.com/in", secret: "whsec_claim", is_active: true, type: "tracking.completed", organization_id: org, brand_id: null, event_created_at: T0 });
      expect(JSON.parse(one[0]!.payload)).toEqual({ order: 1 });
      const rest = await h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 10 });
      expect(rest.map((d) => d.id)).toEqual([second]);
      expect(rest[0]!.brand_id).toBe(brand);
      expect(await h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 10 })).toEqual([]);
      // The lease is the new due time: past it, both are claimable again (with the not-yet one now due).
      expect((await h.store.claimDue({ now: "2026-05-01T13:00:00.000Z", leaseUntil: "2026-05-01T13:01:00.000Z", limit: 10 })).map((d) => d.id).sort()).toEqual([first, second, notYet].sort());
    });

    test("claimDue gives each organization at most its share, counting its deliveries in flight: one whose endpoints never answer cannot take every slot", async () => {
      await drain();
      const noisy = await h.fixtures.organization();
      const quiet = await h.fixtures.organization();
      await endpoint(noisy);
      await endpoint(quiet);
      const noisyIds: string[] = [];
      for (let i = 0; i < 6; i++) noisyIds.push(...(await h.store.recordEvent({ event: event(noisy, { data: { i } }), at: `2026-05-01T11:00:0${i}.000Z` })).deliveryIds);
      const quietId = (await h.store.recordEvent({ event: event(quiet), at: T0 })).deliveryIds[0]!;
      // The noisy one's six are older, yet it gets two slots of eight and the quiet one's is claimed too.
      const first = await h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 8, perOrganization: 2, busy: {} });
      expect(first.map((d) => d.id)).toEqual([noisyIds[0], noisyIds[1], quietId]);
      // With two of its own in flight, the noisy one gets none; once they are done, its next two.
      expect(await h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 8, perOrganization: 2, busy: { [noisy]: 2 } })).toEqual([]);
      expect((await h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 8, perOrganization: 2, busy: { [noisy]: 1 } })).map((d) => d.id)).toEqual([noisyIds[2]]);
      expect((await h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 8, perOrganization: 2, busy: {} })).map((d) => d.id)).toEqual([noisyIds[3], noisyIds[4]]);
    });

    test("pruneEvents deletes events older than `before` whose deliveries are all done, with those deliveries; pending and newer ones stay; at most `limit`", async () => {
      await drain();
      const org = await h.fixtures.organization();
      const e = await endpoint(org);
      const old = async (at: string) => h.store.recordEvent({ event: event(org), at });
      const done = await old("2020-01-01T00:00:00.000Z");
      const alsoDone = await old("2020-01-02T00:00:00.000Z");
      const noDelivery = await h.store.recordEvent({ event: event(org), at: "2020-01-03T00:00:00.000Z", onlyEndpointId: crypto.randomUUID() });
      const stillPending = await old("2020-01-04T00:00:00.000Z");
      const recent = await old("2026-05-01T00:00:00.000Z");
      for (const d of await h.store.claimDue({ now: "2020-02-01T00:00:00.000Z", leaseUntil: "2020-02-01T00:01:00.000Z", limit: 2 }))
        await h.store.finishDelivery({ id: d.id, leaseUntil: "2020-02-01T00:01:00.000Z", status: "delivered", attempts: 1, nextAt: null, lastStatus: 200, lastError: null, durationMs: 1, at: "2020-02-01T00:00:01.000Z" });
      const events = async () => (await h.inspect<{ id: string }>("SELECT id FROM webhook_events WHERE organization_id = ?", org)).map((r) => r.id).sort();
      expect(await h.store.pruneEvents({ before: "2026-01-01T00:00:00.000Z", limit: 1 })).toBe(1);
      expect(await h.store.pruneEvents({ before: "2026-01-01T00:00:00.000Z", limit: 100 })).toBe(2);
      expect(await events()).toEqual([stillPending.eventId, recent.eventId].sort());
      expect((await h.store.deliveriesOf({ endpointId: e.id, status: null, limit: 10 })).map((d) => d.id).sort()).toEqual([stillPending.deliveryIds[0], recent.deliveryIds[0]].sort());
      expect(await events()).not.toContain(done.eventId);
      expect(await events()).not.toContain(alsoDone.eventId);
      expect(await events()).not.toContain(noDelivery.eventId);
      expect(await h.store.pruneEvents({ before: "2026-01-01T00:00:00.000Z", limit: 100 })).toBe(0);
    });

    test("claimDue called at once by several claimers hands each due delivery to one of them only", async () => {
      await drain();
      const org = await h.fixtures.organization();
      await endpoint(org);
      const ids: string[] = [];
      for (let i = 0; i < 24; i++) ids.push(...(await h.store.recordEvent({ event: event(org, { data: { i } }), at: T0 })).deliveryIds);
      const batches = await Promise.all(Array.from({ length: 8 }, () => h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 4 })));
      const claimed = batches.flat().map((d) => d.id);
      expect(claimed).toHaveLength(new Set(claimed).size);
      // What the first round left (if a claimer came too late) is claimed by the next; nothing twice.
      claimed.push(...(await h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 100 })).map((d) => d.id));
      expect(claimed.sort()).toEqual(ids.sort());
    });

    test("claimDue with nothing due writes nothing", async () => {
      await drain();
      const org = await h.fixtures.organization();
      const e = await endpoint(org);
      await h.store.recordEvent({ event: event(org), at: T1 });
      const before = await h.store.deliveriesOf({ endpointId: e.id, status: null, limit: 10 });
      expect(await h.store.claimDue({ now: T0, leaseUntil: LEASE, limit: 10 })).toEqual([]);
      expect(await h.store.deliveriesOf({ endpointId: e.id, status: null, limit: 10 })).toEqual(before);
    });

    test("claimDue reports an inactive endpoint as such (the deliverer fails it without sending)", async () => {
      await drain();
      const org = await h.fixtures.organization();
      const e = await endpoint(org);
      const id = (await h.store.recordEvent({ event: event(org), at: T0 })).deliveryIds[0]!;
      await h.store.updateEndpoint({ id: e.id, url: e.url, events: [], format: "standard", description: null, isActive: false, at: T1 });
      const claimed = await h.store.claimDue({ now: T2, leaseUntil: LEASE, limit: 10 });
      expect(claimed.map((d) => [d.id, d.is_active])).toEqual([[id, false]]);
    });

    test("finishDelivery records the attempt while the lease is ours; a stale lease writes nothing and says so", async () => {
      await drain();
      const org = await h.fixtures.organization();
      const e = await endpoint(org);
      const id = (await h.store.recordEvent({ event: event(org), at: T0 })).deliveryIds[0]!;
      await h.store.claimDue({ now: T0, leaseUntil: LEASE, limit: 10 });
      // The lease ran out and another claimer took it.
      const takeover = "2026-05-01T12:05:00.000Z";
      expect((await h.store.claimDue({ now: LEASE, leaseUntil: takeover, limit: 10 })).map((d) => d.id)).toEqual([id]);
      expect(await h.store.finishDelivery({ id, leaseUntil: LEASE, status: "delivered", attempts: 1, nextAt: null, lastStatus: 200, lastError: null, durationMs: 5, at: T2, disableEndpoint: e.id })).toBe(false);
      expect(await h.store.delivery(id)).toEqual({ endpoint_id: e.id, status: "pending" });
      expect((await h.store.endpointById(e.id))!.is_active).toBe(true);

      expect(await h.store.finishDelivery({ id, leaseUntil: takeover, status: "pending", attempts: 1, nextAt: "2026-05-01T12:10:00.000Z", lastStatus: 503, lastError: "answered 503", durationMs: 40, at: T2 })).toBe(true);
      const [d] = await h.store.deliveriesOf({ endpointId: e.id, status: null, limit: 10 });
      expect(d).toMatchObject({ status: "pending", attempts: 1, next_at: "2026-05-01T12:10:00.000Z", last_status: 503, last_error: "answered 503", duration_ms: 40, updated_at: T2 });
      // Finished: the same lease no longer holds.
      expect(await h.store.finishDelivery({ id, leaseUntil: takeover, status: "failed", attempts: 2, nextAt: null, lastStatus: null, lastError: "x", durationMs: 1, at: T2 })).toBe(false);
      expect(await h.store.finishDelivery({ id: crypto.randomUUID(), leaseUntil: takeover, status: "failed", attempts: 1, nextAt: null, lastStatus: null, lastError: "x", durationMs: 1, at: T2 })).toBe(false);
    });

    test("finishDelivery with disableEndpoint fails the delivery and disables the endpoint together", async () => {
      await drain();
      const org = await h.fixtures.organization();
      const e = await endpoint(org);
      const id = (await h.store.recordEvent({ event: event(org), at: T0 })).deliveryIds[0]!;
      await h.store.claimDue({ now: T0, leaseUntil: LEASE, limit: 10 });
      expect(await h.store.finishDelivery({ id, leaseUntil: LEASE, status: "failed", attempts: 1, nextAt: null, lastStatus: 410, lastError: "gone", durationMs: 3, at: T2, disableEndpoint: e.id })).toBe(true);
      expect(await h.store.delivery(id)).toEqual({ endpoint_id: e.id, status: "failed" });
      expect(await h.store.endpointById(e.id)).toMatchObject({ is_active: false, updated_at: T2 });
    });

    test("setSecret changes what a claimed delivery is signed with; deleteEndpoint removes the endpoint and its deliveries", async () => {
      await drain();
      const org = await h.fixtures.organization();
      const e = await endpoint(org, { secret: "whsec_old" });
      await h.store.setSecret({ id: e.id, secret: "whsec_new", at: T1 });
      expect((await h.store.endpointById(e.id))!.updated_at).toBe(T1);
      const id = (await h.store.recordEvent({ event: event(org), at: T0 })).deliveryIds[0]!;
      expect((await h.store.claimDue({ now: T0, leaseUntil: LEASE, limit: 10 })).map((d) => [d.id, d.secret])).toEqual([[id, "whsec_new"]]);
      await h.store.deleteEndpoint(e.id);
      expect(await h.store.endpointById(e.id)).toBeNull();
      expect(await h.store.delivery(id)).toBeNull();
      await h.store.deleteEndpoint(e.id);
    });
  });
}
