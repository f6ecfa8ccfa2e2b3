import { describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { createPgQueueStore } from "../../src/queue/store.pg";
import { describeQueueStoreContract } from "./queue.contract";
import { pgHarness } from "./harness.pg";
import { testPostgres } from "../helpers/postgres";

// A database per case: a claim takes any due job, so cases must not see each other's.
if (await testPostgres())
  describeQueueStoreContract("postgres", async (now) => {
    const h = (await pgHarness())!;
    const second = async () => {
      // Another pool on the same database: a second instance of the server.
      const sql = new SQL(h.url, { max: 2 });
      return { store: createPgQueueStore(sql, now), close: () => sql.close() };
    };
    return { ...h, store: createPgQueueStore(h.pg.sql, now), second };
  });

// Postgres only (SQLite's listen never calls: one process owns the file).
if (await testPostgres())
  describe("QueueStore on Postgres: what other instances hear, what is stored", () => {
    test("an enqueue, a hand-back and a cancel made through one instance are heard by another; data and progress are jsonb objects", async () => {
      const h = (await pgHarness())!;
      const other = new SQL(h.url, { max: 1 });
      try {
        const store = createPgQueueStore(h.pg.sql);
        const heard: string[] = [];
        const stop = await createPgQueueStore(other).listen({ work: () => heard.push("work"), cancelled: (id) => heard.push(`cancelled ${id}`) });
        const org = await h.fixtures.organization();
        const brand = await h.fixtures.brand(org);
        const promptId = await h.fixtures.prompt(brand);
        const id = await store.enqueue({ type: "tracking", brandId: brand, organizationId: org, data: { platforms: ["perplexity"] }, units: [{ promptId, platform: "perplexity", model: "sonar", region: "" }] });
        const until = async (n: number) => {
          for (let i = 0; i < 200 && heard.length < n; i++) await Bun.sleep(10);
        };
        await until(1);
        await store.claim({ owner: "a", leaseMs: 60_000 });
        await store.releaseOwned("a");
        await until(2);
        await store.cancel(id);
        await until(3);
        expect(heard).toEqual(["work", "work", `cancelled ${id}`]);
        await stop();
        const [row] = await h.inspect<{ data: string; progress: string }>("SELECT jsonb_typeof(data) AS data, jsonb_typeof(progress) AS progress FROM jobs WHERE id = ?", id);
        expect(row).toEqual({ data: "object", progress: "object" });
      } finally {
        await other.close();
        await h.close();
      }
    });

    test("a cancel committed by another instance before the dispatcher's summary keeps its phase: setProgress leaves a cancelled job alone", async () => {
      const h = (await pgHarness())!;
      const other = new SQL(h.url, { max: 1 });
      try {
        const store = createPgQueueStore(h.pg.sql);
        const org = await h.fixtures.organization();
        const brand = await h.fixtures.brand(org);
        const promptId = await h.fixtures.prompt(brand);
        const id = await store.enqueue({ type: "tracking", brandId: brand, organizationId: org, data: {}, units: [{ promptId, platform: "perplexity", model: "sonar", region: "" }] });
        await store.claim({ owner: "a", leaseMs: 60_000 });
        await store.setProgress({ jobId: id, progress: { phase: "querying", completed: 0, total: 1 } });
        expect(await createPgQueueStore(other).cancel(id)).toBe(true);
        // The dispatcher had not heard of the cancel yet: its last unit settled and it writes the summary phase.
        await store.setProgress({ jobId: id, progress: { phase: "summarizing", completed: 1, total: 1 } });
        const job = (await store.get(id))!;
        expect(job.status).toBe("cancelled");
        expect(JSON.parse(job.progress)).toEqual({ phase: "cancelled", completed: 0, total: 1 });
      } finally {
        await other.close();
        await h.close();
      }
    });
  });
