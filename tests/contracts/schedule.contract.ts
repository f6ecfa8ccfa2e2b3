// The scheduler's store contract (src/schedule/store.ts), for every backend.
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import type { ScheduleStore } from "../../src/schedule/store";
import type { Harness } from "./harness";

/** Another store on its own connection to the same database (another process, another instance). */
export type SecondScheduleStore = () => Promise<{ store: ScheduleStore; close(): Promise<void> }>;

export function describeScheduleStoreContract(name: string, make: () => Promise<Harness & { store: ScheduleStore; second: SecondScheduleStore }>) {
  describe(`ScheduleStore contract (${name})`, () => {
    let h: Harness & { store: ScheduleStore; second: SecondScheduleStore };
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
      await h.inspect("UPDATE brand_platforms SET retry_at = '2026-05-02T01:00:00.000Z' WHERE brand_id = ?", second);
      const rows2 = await h.store.platformSchedules({ organizationId: org });
      expect(rows2.map((r) => ({ enabled: !!r.is_enabled, active: !!r.brand_active, frequency: r.check_frequency, last: r.last_checked_at, retry: r.retry_at }))).toEqual([
        { enabled: false, active: true, frequency: "manual", last: null, retry: null },
        { enabled: true, active: true, frequency: "daily", last: null, retry: null },
        { enabled: true, active: false, frequency: "weekly", last: "2026-05-01T00:00:00.000Z", retry: "2026-05-02T01:00:00.000Z" },
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

    test("exclusive: runs called at once, through two stores on two connections, take turns; each gets its result, a failure its error, and the lock is let go either way", async () => {
      const other = await h.second();
      try {
        let inside = 0;
        let most = 0;
        const work = (label: string, fail = false) => async () => {
          most = Math.max(most, ++inside);
          await Bun.sleep(15);
          inside--;
          if (fail) throw new Error(`${label} failed`);
          return [label];
        };
        const runs = [h.store, other.store, h.store, other.store, h.store, other.store].map((store, i) => store.exclusive(work(`run ${i}`, i === 2)));
        const settled = await Promise.allSettled(runs);
        expect(most).toBe(1);
        expect(settled.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([["run 0"], ["run 1"], "run 2 failed", ["run 3"], ["run 4"], ["run 5"]]);
        expect(await other.store.exclusive(async () => "free")).toBe("free");
      } finally {
        await other.close();
      }
    });
  });
}
