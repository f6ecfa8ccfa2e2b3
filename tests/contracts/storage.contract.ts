// The storage store's contract (src/storage/store.ts), for every backend: answers seeded through the
// fixtures, walked in ranges of positions as maintenance.ts walks them.
import { describe, expect, test, afterAll, beforeAll } from "bun:test";
import { logRetentionStart, runMaintenance } from "../../src/storage/maintenance";
import type { StorageStore } from "../../src/storage/store";
import type { Harness } from "./harness";

const LONG = (n: number) => `Answer ${n}: ` + "lorem ipsum dolor sit amet ".repeat(20);

export function describeStorageStoreContract(name: string, make: () => Promise<Harness & { store: StorageStore }>) {
  describe(`StorageStore contract (${name})`, () => {
    let h: Harness & { store: StorageStore };
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      h = await make();
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      const prompt = await h.fixtures.prompt(brand);
      const answer = (createdAt: string, response: string, platform: string) => h.fixtures.result({ brandId: brand, promptId: prompt, platform, createdAt, mentioned: true, response });
      ids.old = await answer("2025-01-01T00:00:00.000Z", LONG(1), "chatgpt");
      ids.oldEmpty = await answer("2025-01-02T00:00:00.000Z", "", "gemini");
      ids.recent = await answer("2026-06-01T00:00:00.000Z", LONG(2), "perplexity");
    });
    afterAll(() => h.close());

    // SQLite may hold the text packed (read through aw_text); Postgres holds it as text (TOAST compresses it).
    const text = async (id: string) =>
      (await h.inspect<{ response: string }>(`SELECT ${h.backend === "sqlite" ? "aw_text(response)" : "response"} AS response FROM prompt_results WHERE id = ?`, id))[0]!.response;

    test("lastAnswerPosition is past every answer; an empty range or one before the answers changes nothing", async () => {
      const last = await h.store.lastAnswerPosition();
      expect(last).toBeGreaterThanOrEqual(3);
      expect(await h.store.dropAnswerText({ after: last, through: last + 100, before: "2030-01-01T00:00:00.000Z" })).toBe(0);
      expect(await h.store.compressPlainAnswers({ after: last, through: last + 100 })).toBe(0);
      expect(await text(ids.old!)).toBe(LONG(1));
    });

    test("dropAnswerText empties the text of the range's answers created before the cutoff, once; compressPlainAnswers then packs the long plain ones, once, keeping their text", async () => {
      const last = await h.store.lastAnswerPosition();
      expect(await h.store.dropAnswerText({ after: 0, through: last, before: "2026-01-01T00:00:00.000Z" })).toBe(1);
      expect(await h.store.dropAnswerText({ after: 0, through: last, before: "2026-01-01T00:00:00.000Z" })).toBe(0);
      expect([await text(ids.old!), await text(ids.oldEmpty!), await text(ids.recent!)]).toEqual(["", "", LONG(2)]);
      if (h.backend === "sqlite") {
        expect(await h.store.compressPlainAnswers({ after: 0, through: last })).toBe(1);
        expect((await h.inspect<{ kind: string }>("SELECT typeof(response) AS kind FROM prompt_results WHERE id = ?", ids.recent!))[0]!.kind).toBe("blob");
      } else expect(await h.store.compressPlainAnswers({ after: 0, through: last })).toBe(0); // TOAST compresses on write: nothing is left plain
      expect(await h.store.compressPlainAnswers({ after: 0, through: last })).toBe(0);
      expect(await text(ids.recent!)).toBe(LONG(2));
    });

    test("packWithDictionaries leaves a brand below its threshold as it is, reaches the range's end, and keeps every text", async () => {
      // The fixtures' brand has three answers: far below any dictionary (tests/storage/dictionaries.test.ts packs with them).
      const last = await h.store.lastAnswerPosition();
      const columns = ["response", "sources", "details"] as const;
      expect(await h.store.packWithDictionaries({ after: 0, through: last, maxRows: 25, columns })).toEqual({ packed: 0, made: 0, unreadable: 0, through: last });
      expect(await h.store.packWithDictionaries({ after: last, through: last, maxRows: 25, columns })).toEqual({ packed: 0, made: 0, unreadable: 0, through: last });
      expect(await text(ids.recent!)).toBe(LONG(2));
    });

    test("releaseFreePages gives back every free page and says how many", async () => {
      // Postgres reuses freed space itself (autovacuum): there is nothing to give back, and it says 0.
      const free = async () => (h.backend === "sqlite" ? (await h.inspect<{ freelist_count: number }>("PRAGMA freelist_count"))[0]!.freelist_count : 0);
      const before = await free();
      expect(await h.store.releaseFreePages()).toBe(before);
      expect(await free()).toBe(0);
      expect(await h.store.releaseFreePages()).toBe(0);
    });

    test("prepareAhead makes next months' partitions of the raw logs once (Postgres), and nothing on SQLite", async () => {
      const far = new Date("2031-06-15T00:00:00.000Z");
      const made = await h.store.prepareAhead({ now: far });
      if (h.backend === "sqlite") expect(made).toEqual([]);
      else {
        // Each partitioned log gets the months around `now`, named by month.
        expect(made.some((name) => name.includes("y2031m07"))).toBe(true);
        expect(made.every((name) => /_y20\d\dm\d\d$/.test(name))).toBe(true);
      }
      expect(await h.store.prepareAhead({ now: far })).toEqual([]);
    });

    test("dropLogMonthsBefore drops whole old months of raw logs and keeps their rollups (Postgres); nothing on SQLite", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      await h.store.prepareAhead({ now: new Date("2033-03-15T00:00:00.000Z") });
      const hit = (at: string) => h.fixtures.crawlerHit({ brandId: brand, at, bot: "GPTBot", class: "training", hit: "page", path: "/", status: 200 });
      await hit("2033-02-10T12:00:00.000Z");
      await hit("2033-02-28T23:59:59.000Z");
      await hit("2033-03-01T00:00:00.000Z");
      await hit("2033-04-02T08:00:00.000Z");
      const raw = async () => (await h.inspect<{ at: unknown }>("SELECT at FROM crawler_hits WHERE brand_id = ? ORDER BY at", brand)).length;
      const rollup = async () => h.inspect<{ requests: number }>("SELECT sum(requests) AS requests FROM crawler_daily WHERE brand_id = ?", brand);
      const rollupBefore = await rollup();
      expect(await raw()).toBe(4);
      const dropped = await h.store.dropLogMonthsBefore({ before: new Date("2033-03-01T00:00:00.000Z") });
      if (h.backend === "sqlite") {
        expect(dropped).toEqual([]);
        expect(await raw()).toBe(4);
      } else {
        // February (both logs) went, March and April stayed; the reports over February keep their counts.
        expect(dropped).toContain("crawler_hits_y2033m02");
        expect(dropped).toContain("ai_traffic_logs_y2033m02");
        expect(dropped.some((name) => name.endsWith("y2033m03") || name.endsWith("y2033m04"))).toBe(false);
        expect(await raw()).toBe(2);
        expect(Number((await rollup())[0]!.requests)).toBe(4);
      }
      expect(Number(rollupBefore[0]!.requests)).toBe(4);
      expect(await h.store.dropLogMonthsBefore({ before: new Date("2033-03-01T00:00:00.000Z") })).toEqual([]);
      // Upkeep with LOG_RETENTION_MONTHS=1 on 10 May keeps April and May: March goes.
      const report = await runMaintenance(h.store, { retentionDays: 0, logRetentionMonths: 1, now: new Date("2033-05-10T00:00:00.000Z") });
      expect(logRetentionStart(new Date("2033-05-10T00:00:00.000Z"), 1).toISOString()).toBe("2033-04-01T00:00:00.000Z");
      expect(report.partitionsDropped).toBe(h.backend === "sqlite" ? 0 : 2);
      expect(await raw()).toBe(h.backend === "sqlite" ? 4 : 1);
    });

    test("deleteDefaultLogRowsBefore deletes the rows of months past retention that wait in the default partition (a month imported before it had one), keeping the rollups; newer ones stay (Postgres); nothing on SQLite", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      // Partitions exist from 2041-01 on; 2040's months have none, so their rows go to the default one.
      await h.store.prepareAhead({ now: new Date("2041-02-15T00:00:00.000Z") });
      const hit = (at: string) => h.fixtures.crawlerHit({ brandId: brand, at, bot: "GPTBot", class: "training", hit: "page", path: "/", status: 200 });
      for (const at of ["2040-03-10T12:00:00.000Z", "2040-05-01T00:00:00.000Z", "2040-05-31T23:59:59.000Z", "2040-11-02T08:00:00.000Z", "2041-01-05T00:00:00.000Z"]) await hit(at);
      await h.fixtures.visit({ brandId: brand, at: "2040-04-01T10:00:00.000Z", path: "/old", platform: "chatgpt", visitor: "v1" });
      await h.fixtures.visit({ brandId: brand, at: "2040-12-01T10:00:00.000Z", path: "/kept", platform: "chatgpt", visitor: "v2" });
      const hits = async () => (await h.inspect<{ at: unknown }>("SELECT at FROM crawler_hits WHERE brand_id = ?", brand)).length;
      const visits = async () => (await h.inspect<{ path: string }>("SELECT path FROM ai_traffic_logs WHERE brand_id = ? ORDER BY path", brand)).map((r) => r.path);
      const rollups = async () => [
        Number((await h.inspect<{ n: number }>("SELECT sum(requests) AS n FROM crawler_daily WHERE brand_id = ?", brand))[0]!.n),
        Number((await h.inspect<{ n: number }>("SELECT sum(requests) AS n FROM crawler_monthly WHERE brand_id = ?", brand))[0]!.n),
        Number((await h.inspect<{ n: number }>("SELECT sum(visits) AS n FROM traffic_platform_daily WHERE brand_id = ?", brand))[0]!.n),
        Number((await h.inspect<{ n: number }>("SELECT count(*) AS n FROM traffic_visitor_days WHERE brand_id = ?", brand))[0]!.n),
      ];
      expect(await rollups()).toEqual([5, 5, 2, 4]);
      if (h.backend === "postgres") {
        const inDefault = await h.inspect<{ n: number }>("SELECT count(*) AS n FROM crawler_hits_default WHERE brand_id = ?", brand);
        expect(Number(inDefault[0]!.n)).toBe(4);
      }
      // Retention keeping June 2040 on: March's and both May's requests and April's visit go, two a table at a time.
      const deleted = await h.store.deleteDefaultLogRowsBefore({ before: new Date("2040-06-01T00:00:00.000Z"), maxRows: 2 });
      if (h.backend === "sqlite") {
        expect(deleted).toBe(0);
        expect([await hits(), await visits()]).toEqual([5, ["/kept", "/old"]]);
        return;
      }
      expect(deleted).toBe(3);
      const rest = await h.store.deleteDefaultLogRowsBefore({ before: new Date("2040-06-01T00:00:00.000Z"), maxRows: 100 });
      expect(deleted + rest).toBe(4);
      expect([await hits(), await visits()]).toEqual([2, ["/kept"]]);
      // The reports over those months keep their counts, as a dropped month's do.
      expect(await rollups()).toEqual([5, 5, 2, 4]);
      expect(await h.store.deleteDefaultLogRowsBefore({ before: new Date("2040-06-01T00:00:00.000Z"), maxRows: 100 })).toBe(0);
      // The upkeep round does it with LOG_RETENTION_MONTHS=2 on 10 February: kept from December 2040 on, November goes.
      const report = await runMaintenance(h.store, { retentionDays: 0, logRetentionMonths: 2, now: new Date("2041-02-10T00:00:00.000Z") });
      expect(report.defaultRowsDeleted).toBe(1);
      expect([await hits(), await visits()]).toEqual([1, ["/kept"]]);
      expect(await rollups()).toEqual([5, 5, 2, 4]);
    });
  });
}
