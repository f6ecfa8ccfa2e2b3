// The status store's contract (src/http/status-store.ts): what /healthz and the /metrics gauges read.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { StatusStore } from "../../src/http/status-store";
import type { Harness } from "./harness";

export function describeStatusStoreContract(name: string, make: () => Promise<Harness & { store: StatusStore }>) {
  describe(`StatusStore contract (${name})`, () => {
    let h: Harness & { store: StatusStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    test("an empty database answers, has no pending work and counts nothing", async () => {
      await h.store.ping();
      expect(await h.store.pendingWork()).toBe(false);
      const c = await h.store.counts();
      expect(c).toMatchObject({ jobs: [], activeUnits: [], queueDepth: 0, deliveries: [] });
      expect(c.databaseBytes).toBeGreaterThan(0);
    });

    test("counts jobs by state, and units and queue depth of waiting and running jobs only", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      await h.fixtures.job(brand, "active", ["pending", "pending", "done", "running"]);
      await h.fixtures.job(brand, "waiting", ["pending"]);
      await h.fixtures.job(brand, "completed", ["done", "done", "pending"]);
      const c = await h.store.counts();
      const byStatus = (rows: { status: string; n: number }[]) => Object.fromEntries(rows.map((r) => [r.status, r.n]));
      expect(byStatus(c.jobs)).toEqual({ active: 1, waiting: 1, completed: 1 });
      expect(byStatus(c.activeUnits)).toEqual({ pending: 3, done: 1, running: 1 });
      expect(c.queueDepth).toBe(3);
      expect(await h.store.pendingWork()).toBe(true);
    });
  });
}
