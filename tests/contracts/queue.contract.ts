// The job queue's contract (src/queue/store.ts), for every backend. `make` is handed the clock the
// store must use as "now"; each case gets a fresh database (a claim takes any due job).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { NewUnit, QueueStore } from "../../src/queue/store";
import type { Harness } from "./harness";

/** A second store on its own connection to the same database (another process, another instance). */
export type SecondQueueStore = () => Promise<{ store: QueueStore; close(): Promise<void> }>;

export function describeQueueStoreContract(name: string, make: (now: () => Date) => Promise<Harness & { store: QueueStore; second: SecondQueueStore }>) {
  describe(`QueueStore contract (${name})`, () => {
    const START = Date.parse("2026-03-01T10:00:00.000Z");
    let time = START;
    const at = (offsetMs = 0) => new Date(time + offsetMs).toISOString();
    let h: Harness & { store: QueueStore; second: SecondQueueStore };
    beforeEach(async () => {
      time = START;
      h = await make(() => new Date(time));
    });
    afterEach(() => h.close());

    async function seed(prompts = 2) {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      const promptIds: string[] = [];
      for (let i = 0; i < prompts; i++) promptIds.push(await h.fixtures.prompt(brand));
      return { org, brand, promptIds };
    }
    const unitsOf = (promptIds: string[]): NewUnit[] => promptIds.map((promptId) => ({ promptId, platform: "perplexity", model: "sonar", region: "US" }));
    async function job(s: { org: string; brand: string; promptIds: string[] }, extra: { type?: string; maxAttempts?: number } = {}) {
      return h.store.enqueue({ type: extra.type ?? "tracking", brandId: s.brand, organizationId: s.org, data: { platforms: ["perplexity"] }, units: unitsOf(s.promptIds), createdBy: null, maxAttempts: extra.maxAttempts });
    }

    test("enqueue makes a waiting job with its units; get, counts and pendingUnits read them back; unknown ids read as null / zero", async () => {
      const s = await seed(3);
      const id = await h.store.enqueue({
        type: "tracking",
        brandId: s.brand,
        organizationId: s.org,
        data: { platforms: ["perplexity"] },
        units: [...unitsOf(s.promptIds.slice(0, 2)), { promptId: s.promptIds[2]!, platform: "chatgpt", model: "gpt", region: "", sample: 2 }],
      });
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const row = (await h.store.get(id))!;
      expect(row).toMatchObject({ id, type: "tracking", brand_id: s.brand, organization_id: s.org, status: "waiting", attempts: 0, max_attempts: 5, run_at: at(), created_at: at(), lease_owner: null, lease_until: null, created_by: null, started_at: null, finished_at: null, result: null });
      expect(JSON.parse(row.data)).toEqual({ platforms: ["perplexity"] });
      expect(JSON.parse(row.progress)).toEqual({ phase: "waiting", completed: 0, total: 3 });
      expect(await h.store.counts(id)).toEqual({ total: 3, done: 0, failed: 0, pending: 3 });
      const units = await h.store.pendingUnits(id);
      expect(units.map((u) => [u.seq, u.prompt_id, u.platform, u.model, u.region, u.sample, u.status, u.attempts, u.brand_id])).toEqual([
        [0, s.promptIds[0], "perplexity", "sonar", "US", 0, "pending", 0, s.brand],
        [1, s.promptIds[1], "perplexity", "sonar", "US", 0, "pending", 0, s.brand],
        [2, s.promptIds[2], "chatgpt", "gpt", "", 2, "pending", 0, s.brand],
      ]);
      expect(await h.store.get(crypto.randomUUID())).toBeNull();
      expect(await h.store.counts(crypto.randomUUID())).toEqual({ total: 0, done: 0, failed: 0, pending: 0 });
      expect(await h.store.pendingUnits(crypto.randomUUID())).toEqual([]);
    });

    test("claim takes a due job with a lease (null when none is due); a held lease is not taken; an expired one is, by anyone", async () => {
      expect(await h.store.claim({ owner: "a", leaseMs: 1000 })).toBeNull();
      const id = await job(await seed());
      const claimed = (await h.store.claim({ owner: "a", leaseMs: 1000 }))!;
      expect(claimed).toMatchObject({ id, status: "active", lease_owner: "a", lease_until: at(1000), attempts: 1, started_at: at() });
      expect(await h.store.claim({ owner: "b", leaseMs: 1000 })).toBeNull();
      time += 1001;
      const taken = (await h.store.claim({ owner: "b", leaseMs: 1000 }))!;
      // Taken over: a second attempt, started_at kept from the first.
      expect(taken).toMatchObject({ id, lease_owner: "b", attempts: 2, started_at: new Date(START).toISOString() });
      expect(await h.store.heartbeat({ jobId: id, owner: "a", leaseMs: 1000 })).toBe(false);
    });

    test("claim takes the job that has waited longest first", async () => {
      const s = await seed();
      const first = await job(s);
      time += 10;
      const second = await job(s);
      expect((await h.store.claim({ owner: "a", leaseMs: 60_000 }))!.id).toBe(first);
      expect((await h.store.claim({ owner: "a", leaseMs: 60_000 }))!.id).toBe(second);
    });

    test("two claimers never get the same job", async () => {
      const s = await seed(1);
      const ids = new Set<string>();
      for (let i = 0; i < 6; i++) ids.add(await job(s));
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => h.store.claim({ owner: `owner-${i % 2}`, leaseMs: 60_000 })));
      const got = claims.filter((c) => c !== null).map((c) => c!.id);
      expect(got).toHaveLength(6);
      expect(new Set(got)).toEqual(ids);
    });

    test("two stores on two connections, claiming and finishing in a loop at once, never claim a job twice and leave none behind", async () => {
      const s = await seed(1);
      const ids = new Set<string>();
      for (let i = 0; i < 40; i++) ids.add(await job(s));
      const other = await h.second();
      try {
        const claimed: string[] = [];
        const worker = async (store: QueueStore, owner: string) => {
          for (let job = await store.claim({ owner, leaseMs: 60_000 }); job; job = await store.claim({ owner, leaseMs: 60_000 })) {
            claimed.push(job.id);
            expect(await store.finish({ jobId: job.id, owner, status: "completed", result: {}, failedReason: null, progress: {} })).toBe(true);
          }
        };
        await Promise.all([worker(h.store, "a1"), worker(h.store, "a2"), worker(other.store, "b1"), worker(other.store, "b2")]);
        expect(claimed).toHaveLength(40);
        expect(new Set(claimed)).toEqual(ids);
        for (const id of ids) expect((await h.store.get(id))!).toMatchObject({ status: "completed", attempts: 1 });
      } finally {
        await other.close();
      }
    });

    test("heartbeat extends only the owner's live lease", async () => {
      const id = await job(await seed());
      await h.store.claim({ owner: "a", leaseMs: 1000 });
      time += 900;
      expect(await h.store.heartbeat({ jobId: id, owner: "a", leaseMs: 1000 })).toBe(true);
      expect((await h.store.get(id))!.lease_until).toBe(at(1000));
      expect(await h.store.heartbeat({ jobId: id, owner: "b", leaseMs: 1000 })).toBe(false);
      // Past the first lease, within the extended one: nobody else can take it.
      time += 500;
      expect(await h.store.claim({ owner: "b", leaseMs: 1000 })).toBeNull();
      expect(await h.store.heartbeat({ jobId: crypto.randomUUID(), owner: "a", leaseMs: 1000 })).toBe(false);
    });

    test("finish ends the job only if the lease is still ours, once", async () => {
      const id = await job(await seed());
      await h.store.claim({ owner: "a", leaseMs: 60_000 });
      expect(await h.store.finish({ jobId: id, owner: "b", status: "completed", result: { x: 1 }, failedReason: null, progress: { phase: "done" } })).toBe(false);
      expect((await h.store.get(id))!).toMatchObject({ status: "active", lease_owner: "a", result: null });
      time += 5;
      expect(await h.store.finish({ jobId: id, owner: "a", status: "completed", result: { x: 1 }, failedReason: "some units failed", progress: { phase: "done", completed: 2, total: 2 } })).toBe(true);
      const row = (await h.store.get(id))!;
      expect(row).toMatchObject({ status: "completed", failed_reason: "some units failed", finished_at: at(), lease_owner: null, lease_until: null });
      expect(JSON.parse(row.result!)).toEqual({ x: 1 });
      expect(JSON.parse(row.progress)).toEqual({ phase: "done", completed: 2, total: 2 });
      expect(await h.store.finish({ jobId: id, owner: "a", status: "failed", result: null, failedReason: "again", progress: {} })).toBe(false);
      expect((await h.store.get(id))!.status).toBe("completed");
      // A finished job is never claimed again, nor is its lease renewed.
      time += 120_000;
      expect(await h.store.claim({ owner: "a", leaseMs: 1000 })).toBeNull();
      expect(await h.store.heartbeat({ jobId: id, owner: "a", leaseMs: 1000 })).toBe(false);
    });

    test("finish takes an explicit finished_at, and a failed job keeps its reason", async () => {
      const id = await job(await seed());
      await h.store.claim({ owner: "a", leaseMs: 60_000 });
      expect(await h.store.finish({ jobId: id, owner: "a", status: "failed", result: null, failedReason: "no unit succeeded", progress: { phase: "failed" }, at: "2026-03-01T11:00:00.000Z" })).toBe(true);
      expect((await h.store.get(id))!).toMatchObject({ status: "failed", failed_reason: "no unit succeeded", finished_at: "2026-03-01T11:00:00.000Z", result: "null" });
    });

    test("cancel ends a waiting or active job once; it cannot be claimed or renewed afterwards", async () => {
      const s = await seed();
      const waiting = await job(s);
      expect(await h.store.cancel(waiting)).toBe(true);
      const row = (await h.store.get(waiting))!;
      expect(row).toMatchObject({ status: "cancelled", finished_at: at(), lease_owner: null });
      expect(JSON.parse(row.progress).phase).toBe("cancelled");
      expect(await h.store.cancel(waiting)).toBe(false);
      expect(await h.store.claim({ owner: "a", leaseMs: 1000 })).toBeNull();

      const active = await job(s);
      await h.store.claim({ owner: "a", leaseMs: 60_000 });
      expect(await h.store.cancel(active)).toBe(true);
      expect(await h.store.heartbeat({ jobId: active, owner: "a", leaseMs: 1000 })).toBe(false);
      expect(await h.store.finish({ jobId: active, owner: "a", status: "completed", result: {}, failedReason: null, progress: {} })).toBe(false);
      expect((await h.store.get(active))!.status).toBe("cancelled");
      expect(await h.store.cancel(crypto.randomUUID())).toBe(false);
    });

    test("units: a retry stays pending with its next time; a failure is final; counts follow", async () => {
      const id = await job(await seed(3));
      await h.store.scheduleRetry({ jobId: id, seq: 0, delayMs: 5000, error: "perplexity: 429" });
      await h.store.failUnit({ jobId: id, seq: 1, error: "perplexity: bad key" });
      // A unit no longer pending is left as it is.
      await h.store.failUnit({ jobId: id, seq: 1, error: "twice" });
      await h.store.scheduleRetry({ jobId: id, seq: 1, delayMs: 1, error: "late" });
      const pending = await h.store.pendingUnits(id);
      expect(pending.map((u) => [u.seq, u.attempts, u.run_at, u.error])).toEqual([
        [0, 1, at(5000), "perplexity: 429"],
        [2, 0, null, null],
      ]);
      expect(await h.store.counts(id)).toEqual({ total: 3, done: 0, failed: 1, pending: 2 });
    });

    test("setProgress is what get shows", async () => {
      const id = await job(await seed());
      await h.store.setProgress({ jobId: id, progress: { phase: "querying", completed: 1, total: 2 } });
      expect(JSON.parse((await h.store.get(id))!.progress)).toEqual({ phase: "querying", completed: 1, total: 2 });
    });

    test("expireDeadLeases frees only the dead owners' jobs, at once (Postgres: none — a lease there ends by time only)", async () => {
      const s = await seed();
      const dead = await job(s);
      time += 1; // claims take the longest-waiting job first; equal times have no order
      const alive = await job(s);
      await h.store.claim({ owner: "host:1:dead", leaseMs: 60_000 });
      await h.store.claim({ owner: "host:2:alive", leaseMs: 60_000 });
      if (h.backend === "postgres") {
        // Instances on several hosts share the database: "dead on this host" cannot be told, so
        // nothing is freed early, and the lease's end frees the job for anyone (store.ts).
        expect(await h.store.expireDeadLeases((owner) => owner === "host:1:dead")).toBe(0);
        expect(await h.store.claim({ owner: "me", leaseMs: 60_000 })).toBeNull();
        expect((await h.store.get(dead))!.lease_owner).toBe("host:1:dead");
        expect(await h.store.heartbeat({ jobId: alive, owner: "host:2:alive", leaseMs: 120_000 })).toBe(true);
        time += 60_001;
      } else expect(await h.store.expireDeadLeases((owner) => owner === "host:1:dead")).toBe(1);
      const retaken = (await h.store.claim({ owner: "me", leaseMs: 60_000 }))!;
      expect(retaken.id).toBe(dead);
      expect(await h.store.claim({ owner: "me", leaseMs: 60_000 })).toBeNull();
      expect((await h.store.get(alive))!.lease_owner).toBe("host:2:alive");
      expect(await h.store.expireDeadLeases(() => false)).toBe(0);
    });

    test("releaseOwned hands the owner's active jobs back as waiting without spending an attempt", async () => {
      const s = await seed();
      const mine = await job(s);
      time += 1;
      const theirs = await job(s);
      await h.store.claim({ owner: "me", leaseMs: 60_000 });
      await h.store.claim({ owner: "them", leaseMs: 60_000 });
      await h.store.releaseOwned("me");
      expect((await h.store.get(mine))!).toMatchObject({ status: "waiting", lease_owner: null, lease_until: null, attempts: 0 });
      expect((await h.store.get(theirs))!).toMatchObject({ status: "active", lease_owner: "them", attempts: 1 });
      expect((await h.store.claim({ owner: "next", leaseMs: 60_000 }))!).toMatchObject({ id: mine, attempts: 1 });
    });

    test("openJobs: the brand's waiting and active jobs of the type, oldest first", async () => {
      const s = await seed();
      const other = await seed();
      const a = await job(s);
      time += 10;
      const b = await job(s);
      time += 10;
      const done = await job(s);
      await job(s, { type: "other" });
      await job(other);
      await h.store.claim({ owner: "x", leaseMs: 60_000 }); // a
      await h.store.claim({ owner: "x", leaseMs: 60_000 }); // b
      await h.store.claim({ owner: "x", leaseMs: 60_000 }); // done
      await h.store.finish({ jobId: done, owner: "x", status: "completed", result: {}, failedReason: null, progress: {} });
      const open = await h.store.openJobs({ brandId: s.brand, type: "tracking" });
      expect(open.map((j) => j.id)).toEqual([a, b]);
      expect(JSON.parse(open[0]!.data)).toEqual({ platforms: ["perplexity"] });
      expect(await h.store.openJobs({ brandId: crypto.randomUUID(), type: "tracking" })).toEqual([]);
    });

    test("enqueueUnlessOpen: an open job the check names is the answer; starts racing on two connections make one job", async () => {
      const s = await seed();
      const input = { type: "tracking", brandId: s.brand, organizationId: s.org, data: { platforms: ["perplexity"] }, units: unitsOf(s.promptIds), createdBy: null };
      const samePlatforms = (open: { id: string; data: string }[]) => open.find((o) => JSON.stringify(JSON.parse(o.data).platforms) === '["perplexity"]')?.id ?? null;
      const other = await h.second();
      try {
        // Eight at once, half on another connection (another instance): one enqueues, the others see its job.
        const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? other.store : h.store).enqueueUnlessOpen(input, samePlatforms)));
        const made = outcomes.filter((o) => o.enqueued);
        expect(made).toHaveLength(1);
        expect(new Set(outcomes.map((o) => o.jobId))).toEqual(new Set([made[0]!.jobId]));
        expect((await h.store.openJobs({ brandId: s.brand, type: "tracking" })).map((j) => j.id)).toEqual([made[0]!.jobId]);
        // A check that names nothing enqueues (other platforms); one that is over (finished) no longer counts.
        const chatgpt = await h.store.enqueueUnlessOpen({ ...input, data: { platforms: ["chatgpt"] } }, () => null);
        expect(chatgpt.enqueued).toBe(true);
        expect(await h.store.counts(chatgpt.jobId)).toEqual({ total: 2, done: 0, failed: 0, pending: 2 });
      } finally {
        await other.close();
      }
    });

    test("listJobs: the organizations' jobs of the type, newest first, filtered by brand and status, capped", async () => {
      const s = await seed();
      const sibling = { ...s, brand: await h.fixtures.brand(s.org) };
      const stranger = await seed();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++, time += 10) ids.push(await job(s));
      const siblings = await job(sibling);
      time += 10;
      await job(stranger);
      await job(s, { type: "other" });
      await h.store.cancel(ids[0]!);
      const list = (f: Partial<Parameters<QueueStore["listJobs"]>[0]>) => h.store.listJobs({ organizationIds: [s.org], type: "tracking", limit: 20, ...f }).then((rows) => rows.map((r) => r.id));
      expect(await list({})).toEqual([siblings, ids[2], ids[1], ids[0]]);
      expect(await list({ brandId: s.brand })).toEqual([ids[2], ids[1], ids[0]]);
      expect(await list({ status: "cancelled" })).toEqual([ids[0]]);
      expect(await list({ limit: 2 })).toEqual([siblings, ids[2]]);
      expect(await list({ organizationIds: [] })).toEqual([]);
      expect((await list({ organizationIds: [s.org, stranger.org] })).length).toBe(5);
    });
  });
}
