// The scheduler's store contract (src/schedule/store.ts), for every backend.
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import type { ScheduleStore } from "../../src/schedule/store";
import type { Harness } from "./harness";

export function describeScheduleStoreContract(name: string, make: () => Promise<Harness & { store: ScheduleStore }>) {
  describe(`ScheduleStore contract (${name})`, () => {
    let h: Harness & { store: ScheduleStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    test("platformSchedules: every platform with its schedule and the brand's activity, brands oldest first, then by platform; one organization when given", async () => {
      const org = await h.fixtures.organization();
      const first = await h.fixtures.brand(org);
      await Bun.sleep(2);
      const second = await h.fixtures.brand(org);
      await h.fixtures.brandPlatform(second, "perplexity", { frequency: "weekly", lastCheckedAt: "2026-05-01T00:00:00.000Z" });
      await h.fixtures.brandPlatform(first, "perplexity");
      await h.fixtures.brandPlatform(first, "chatgpt", { frequency: "manual", enabled: false });
      await h.fixtures.deactivateBrand(second);
      const otherOrg = await h.fixtures.organization();
      const elsewhere = await h.fixtures.brand(otherOrg);
      await h.fixtures.brandPlatform(elsewhere, "gemini");

      const rows = await h.store.platformSchedules({ organizationId: org });
      expect(rows.map((r) => [r.brand_id, r.platform])).toEqual([
        [first, "chatgpt"],
        [first, "perplexity"],
        [second, "perplexity"],
      ]);
      expect(rows.map((r) => ({ enabled: !!r.is_enabled, active: !!r.brand_active, frequency: r.check_frequency, last: r.last_checked_at }))).toEqual([
        { enabled: false, active: true, frequency: "manual", last: null },
        { enabled: true, active: true, frequency: "daily", last: null },
        { enabled: true, active: false, frequency: "weekly", last: "2026-05-01T00:00:00.000Z" },
      ]);
      const all = await h.store.platformSchedules({ organizationId: null });
      expect(all.map((r) => r.brand_id)).toEqual(expect.arrayContaining([first, second, elsewhere]));
      expect(await h.store.platformSchedules({ organizationId: crypto.randomUUID() })).toEqual([]);
    });

    test("openTrackingJob: a waiting or active tracking job of the brand, else null", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      expect(await h.store.openTrackingJob(brand)).toBeNull();
      await h.fixtures.job(brand, "completed", []);
      await h.fixtures.job(brand, "failed", []);
      expect(await h.store.openTrackingJob(brand)).toBeNull();
      const waiting = await h.fixtures.job(brand, "waiting", []);
      expect(await h.store.openTrackingJob(brand)).toBe(waiting);
      const other = await h.fixtures.brand(org);
      const active = await h.fixtures.job(other, "active", []);
      expect(await h.store.openTrackingJob(other)).toBe(active);
      expect(await h.store.openTrackingJob(crypto.randomUUID())).toBeNull();
    });
  });
}
