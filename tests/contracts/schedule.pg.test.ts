import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { createPgQueueStore } from "../../src/queue/store.pg";
import { createPgScheduleStore } from "../../src/schedule/store.pg";
import { describeScheduleStoreContract } from "./schedule.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) {
  describeScheduleStoreContract("postgres", async () => ({
    ...h,
    store: createPgScheduleStore(h.pg.sql),
    second: async () => {
      // Another pool on the same database: a second instance of the server.
      const sql = new SQL(h.url, { max: 2 });
      return { store: createPgScheduleStore(sql), close: () => sql.close() };
    },
  }));

  describe("ScheduleStore on Postgres: several instances", () => {
    test("three instances ticking at once, each checking for an open job and enqueueing under exclusive, enqueue a due brand once", async () => {
      // A harness of its own: the contract's is closed after its cases.
      const h = (await pgHarness())!;
      const pools = [h.pg.sql, new SQL(h.url, { max: 3 }), new SQL(h.url, { max: 3 })];
      try {
        const org = await h.fixtures.organization();
        const brands = [await h.fixtures.brand(org), await h.fixtures.brand(org)];
        const prompts = new Map<string, string>();
        for (const b of brands) prompts.set(b, await h.fixtures.prompt(b));
        // runDue's shape (src/schedule/service.ts), the queue and the schedule on each instance's own pool.
        const tick = (sql: SQL) => {
          const schedule = createPgScheduleStore(sql);
          const queue = createPgQueueStore(sql);
          return schedule.exclusive(async () => {
            for (const brand of brands) {
              if (await schedule.openTrackingJob(brand)) continue;
              await Bun.sleep(5); // the window two unlocked instances would both enqueue in
              await queue.enqueue({ type: "tracking", brandId: brand, organizationId: org, data: {}, units: [{ promptId: prompts.get(brand)!, platform: "perplexity", model: "sonar", region: "" }] });
            }
          });
        };
        for (let round = 0; round < 3; round++) await Promise.all(pools.flatMap((sql) => [tick(sql), tick(sql)]));
        const rows = await h.inspect<{ brand_id: string; n: number }>("SELECT brand_id, count(*)::int AS n FROM jobs WHERE organization_id = ? GROUP BY brand_id", org);
        expect(Object.fromEntries(rows.map((r) => [r.brand_id, r.n]))).toEqual(Object.fromEntries(brands.map((b) => [b, 1])));
      } finally {
        await Promise.all(pools.slice(1).map((p) => p.close()));
        await h.close();
      }
    });
  });
}
