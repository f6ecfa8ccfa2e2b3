// The crawler-log store's contract (src/crawlers/store.ts), for every backend.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CrawlerHit, CrawlerStore } from "../../src/crawlers/store";
import type { Harness } from "./harness";

export function describeCrawlerStoreContract(name: string, make: () => Promise<Harness & { store: CrawlerStore }>) {
  describe(`CrawlerStore contract (${name})`, () => {
    let h: Harness & { store: CrawlerStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    let serial = 0;
    /** A GPTBot page hit, unique unless `key` repeats one. */
    const hit = (over: Partial<CrawlerHit> = {}): CrawlerHit => {
      const n = ++serial;
      return {
        at: `2026-11-20T08:${String(Math.floor(n / 60) % 60).padStart(2, "0")}:${String(n % 60).padStart(2, "0")}.000Z`,
        host: "acme.example",
        method: "GET",
        path: `/doc/${n}`,
        status: 200,
        bytes: 512,
        userAgent: "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        refererHost: null,
        bot: "GPTBot",
        operator: "OpenAI",
        class: "ai_training",
        hit: "page",
        verdict: "verified",
        listVersion: "2026-11-01",
        recordKey: crypto.getRandomValues(new Uint8Array(16)),
        mayAnnounce: true,
        ...over,
      };
    };
    async function brand() {
      const org = await h.fixtures.organization();
      return { org, brand: await h.fixtures.brand(org) };
    }
    const stored = (brandId: string) => h.inspect<{ n: number }>("SELECT count(*) AS n FROM crawler_hits WHERE brand_id = ?", brandId).then((r) => Number(r[0]!.n));
    const events = (brandId: string) => h.inspect<{ type: string; payload: string; created_at: string }>("SELECT type, payload, created_at FROM webhook_events WHERE brand_id = ? ORDER BY created_at", brandId);
    const AT = "2026-11-26T12:00:00.000Z";
    const LATER = "2026-11-26T12:05:00.000Z";

    test("brandsBySlug: every brand with the slug, or the one of the organization named or slugged", async () => {
      const tag = ++serial;
      const a = await h.fixtures.organization(`Shops A ${tag}`);
      const b = await h.fixtures.organization(`Shops-B-${tag}`);
      const slug = `store-${tag}`;
      const inA = await h.fixtures.brand(a, slug);
      const inB = await h.fixtures.brand(b, slug);
      expect((await h.store.brandsBySlug({ slug, organization: null })).sort()).toEqual([inA, inB].sort());
      expect(await h.store.brandsBySlug({ slug, organization: `Shops A ${tag}` })).toEqual([inA]);
      expect(await h.store.brandsBySlug({ slug, organization: `shops-b-${tag}` })).toEqual([inB]);
      expect(await h.store.brandsBySlug({ slug, organization: "nobody" })).toEqual([]);
      expect(await h.store.brandsBySlug({ slug: "no-such-brand", organization: null })).toEqual([]);
    });

    test("brandOrganization: the brand's organization; null for an unknown brand", async () => {
      const { org, brand: id } = await brand();
      expect(await h.store.brandOrganization(id)).toBe(org);
      expect(await h.store.brandOrganization(crypto.randomUUID())).toBeNull();
    });

    test("appendHits stores every field; a record sent again (same brand, time and key) adds nothing, also within one call", async () => {
      const { brand: id } = await brand();
      const first = hit({ refererHost: "chatgpt.com", bytes: null, verdict: null, listVersion: null, mayAnnounce: false });
      const second = hit({ mayAnnounce: false });
      expect(await h.store.appendHits({ brandId: id, hits: [first, second, { ...second }], at: AT })).toEqual({ accepted: 2, events: 0 });
      expect(await h.store.appendHits({ brandId: id, hits: [first, second], at: AT })).toEqual({ accepted: 0, events: 0 });
      // The same key at another time is another record.
      expect(await h.store.appendHits({ brandId: id, hits: [{ ...first, at: "2026-11-21T00:00:00.000Z" }], at: AT })).toEqual({ accepted: 1, events: 0 });
      const rows = await h.inspect<Record<string, unknown>>("SELECT at, host, method, path, status, bytes, coalesce((SELECT a.user_agent FROM crawler_agents AS a WHERE a.id = crawler_hits.agent_id), user_agent) AS user_agent, referer_host, bot, operator, class, hit, verdict, list_version, record_key FROM crawler_hits WHERE brand_id = ? ORDER BY at, path", id);
      expect(rows).toHaveLength(3);
      // A 64-bit integer may come back as a string (Postgres' bigint): compared as a number.
      for (const r of rows) r.bytes = r.bytes === null ? null : Number(r.bytes);
      expect(rows[0]).toMatchObject({ at: first.at, host: "acme.example", method: "GET", path: first.path, status: 200, bytes: null, user_agent: first.userAgent, referer_host: "chatgpt.com", bot: "GPTBot", operator: "OpenAI", class: "ai_training", hit: "page", verdict: null, list_version: null });
      expect(Buffer.from(rows[0]!.record_key as Uint8Array).equals(Buffer.from(first.recordKey))).toBe(true);
      expect(rows[1]).toMatchObject({ path: second.path, bytes: 512, verdict: "verified", list_version: "2026-11-01" });
    });

    test("a NUL character in a field is stored (as U+FFFD on Postgres, whose text cannot hold it) and fails nothing", async () => {
      const { brand: id } = await brand();
      expect(await h.store.appendHits({ brandId: id, hits: [hit({ path: "/x\u0000y", userAgent: "Bot\u0000", mayAnnounce: false }), hit({ mayAnnounce: false })], at: AT })).toEqual({ accepted: 2, events: 0 });
      const kept = h.backend === "postgres" ? "\uFFFD" : "\u0000";
      const rows = await h.inspect<{ path: string; user_agent: string }>("SELECT path, coalesce((SELECT a.user_agent FROM crawler_agents AS a WHERE a.id = crawler_hits.agent_id), user_agent) AS user_agent FROM crawler_hits WHERE brand_id = ? AND path LIKE '/x%'", id);
      expect(rows).toEqual([{ path: `/x${kept}y`, user_agent: `Bot${kept}` }]);
    });

    test("an empty call stores nothing; a large batch is stored in one call", async () => {
      const { brand: id } = await brand();
      expect(await h.store.appendHits({ brandId: id, hits: [], at: AT })).toEqual({ accepted: 0, events: 0 });
      const many = Array.from({ length: 10_000 }, () => hit({ mayAnnounce: false }));
      expect(await h.store.appendHits({ brandId: id, hits: many, at: AT })).toEqual({ accepted: 10_000, events: 0 });
      expect(await stored(id)).toBe(10_000);
    });

    test("appendHits is all or nothing: a hit the database refuses stores none of its call", async () => {
      const { brand: id } = await brand();
      const bad = hit({ path: null as unknown as string });
      await expect(h.store.appendHits({ brandId: id, hits: [hit(), hit(), bad], at: AT })).rejects.toThrow();
      expect(await stored(id)).toBe(0);
      expect(await events(id)).toEqual([]);
      expect(await h.inspect("SELECT 1 FROM crawler_bots WHERE brand_id = ?", id)).toEqual([]);
    });

    test("a bot's first new hit that may announce it records its first sighting and one crawler.first_seen event, once per brand and bot", async () => {
      const { org, brand: id } = await brand();
      const quiet = hit({ bot: "ClaudeBot", operator: "Anthropic", mayAnnounce: false });
      const human = hit({ bot: null, operator: null, class: "human", verdict: null, mayAnnounce: true });
      const announce = hit({ path: "/pricing" });
      const again = hit();
      expect(await h.store.appendHits({ brandId: id, hits: [quiet, human, announce, again], at: AT })).toEqual({ accepted: 4, events: 1 });
      const [event, ...more] = await events(id);
      expect(more).toEqual([]);
      expect(event).toMatchObject({ type: "crawler.first_seen", created_at: AT });
      expect(JSON.parse(event!.payload)).toEqual({ bot: "GPTBot", operator: "OpenAI", class: "ai_training", verdict: "verified", first_seen: announce.at, path: "/pricing" });
      expect(await h.inspect("SELECT bot, first_seen FROM crawler_bots WHERE brand_id = ?", id)).toEqual([{ bot: "GPTBot", first_seen: announce.at }]);
      expect(await h.inspect("SELECT organization_id FROM webhook_events WHERE brand_id = ?", id)).toEqual([{ organization_id: org }]);
      // Seen before: no second event, in a later call either; a re-sent first hit announces nothing.
      expect(await h.store.appendHits({ brandId: id, hits: [announce, hit()], at: AT })).toEqual({ accepted: 1, events: 0 });
      // Another bot, and the same bot on another brand, are new.
      expect(await h.store.appendHits({ brandId: id, hits: [hit({ bot: "ClaudeBot", operator: "Anthropic" })], at: LATER })).toEqual({ accepted: 1, events: 1 });
      const other = await brand();
      expect(await h.store.appendHits({ brandId: other.brand, hits: [hit()], at: AT })).toEqual({ accepted: 1, events: 1 });
      expect((await events(id)).map((e) => [JSON.parse(e.payload).bot, e.created_at])).toEqual([["GPTBot", AT], ["ClaudeBot", LATER]]);
    });
  });
}
