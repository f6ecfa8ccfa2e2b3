// The crawler-log store's contract (src/crawlers/store.ts), for every backend.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { pathKey, type CrawlerHit, type CrawlerStore } from "../../src/crawlers/store";
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

    test("pathKeyCount counts the brand's listed paths up to a limit; knownPathKeys names which of some keys are listed", async () => {
      const { brand: id } = await brand();
      const other = await brand();
      await h.store.appendHits({ brandId: id, hits: [hit({ path: "/a" }), hit({ path: "/b" }), hit({ path: "/a" }), hit({ path: "/c", hit: "asset" }), hit({ path: "/x", bot: null, class: "human", mayAnnounce: false })], at: AT });
      await h.store.appendHits({ brandId: other.brand, hits: [hit({ path: "/z" })], at: AT });
      // Named bots' paths only: /a, /b, /c (a human's request has no path key).
      expect(await h.store.pathKeyCount({ brandId: id, limit: 100 })).toBe(3);
      expect(await h.store.pathKeyCount({ brandId: id, limit: 2 })).toBe(2);
      const keys = [{ bot: "GPTBot", hit: "page", path: "/a" }, { bot: "GPTBot", hit: "page", path: "/c" }, { bot: "GPTBot", hit: "asset", path: "/c" }, { bot: "GPTBot", hit: "page", path: "/z" }, { bot: "ClaudeBot", hit: "page", path: "/b" }];
      expect([...(await h.store.knownPathKeys({ brandId: id, keys }))].sort()).toEqual([pathKey(keys[0]!), pathKey(keys[2]!)].sort());
      expect(await h.store.knownPathKeys({ brandId: id, keys: [] })).toEqual(new Set());
      expect(await h.store.pathKeyCount({ brandId: crypto.randomUUID(), limit: 10 })).toBe(0);
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

    test("text with tabs, line breaks, backslashes, a literal \\N and any script comes back exactly as sent", async () => {
      const { brand: id } = await brand();
      const odd = hit({ host: "tab\there.example", path: "/a\\b\\\\N/\\N\tc\nd\re", userAgent: "Bot\\N/1.0 \t(\u00e9\u4e2d\ud83e\udd16)\r\n", refererHost: "\\N", bytes: 0, mayAnnounce: false });
      const plain = hit({ mayAnnounce: false });
      expect(await h.store.appendHits({ brandId: id, hits: [odd, plain], at: AT })).toEqual({ accepted: 2, events: 0 });
      const rows = await h.inspect<Record<string, unknown>>("SELECT host, path, coalesce((SELECT a.user_agent FROM crawler_agents AS a WHERE a.id = crawler_hits.agent_id), user_agent) AS user_agent, referer_host, bytes, record_key FROM crawler_hits WHERE brand_id = ? ORDER BY at", id);
      expect(rows.map((r) => ({ ...r, bytes: Number(r.bytes), record_key: Buffer.from(r.record_key as Uint8Array).toString("hex") }))).toEqual(
        [odd, plain].map((x) => ({ host: x.host, path: x.path, user_agent: x.userAgent, referer_host: x.refererHost, bytes: Number(x.bytes), record_key: Buffer.from(x.recordKey).toString("hex") })),
      );
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

    test("a bot's first sighting is its earliest new hit, whatever order the hits come in; an earlier one sent later moves it back without a second event", async () => {
      const { brand: id } = await brand();
      const at = (minute: number) => `2026-10-01T10:${String(minute).padStart(2, "0")}:00.000Z`;
      const late = hit({ at: at(30), path: "/late" });
      const early = hit({ at: at(20), path: "/early" });
      expect(await h.store.appendHits({ brandId: id, hits: [late, early], at: AT })).toEqual({ accepted: 2, events: 1 });
      expect(JSON.parse((await events(id))[0]!.payload)).toMatchObject({ bot: "GPTBot", first_seen: at(20), path: "/early" });
      const firstSeen = () => h.inspect<{ first_seen: string }>("SELECT first_seen FROM crawler_bots WHERE brand_id = ? AND bot = 'GPTBot'", id).then((r) => r.map((x) => x.first_seen));
      expect(await firstSeen()).toEqual([at(20)]);
      expect(await h.store.appendHits({ brandId: id, hits: [hit({ at: at(40) })], at: AT })).toEqual({ accepted: 1, events: 0 });
      expect(await firstSeen()).toEqual([at(20)]);
      expect(await h.store.appendHits({ brandId: id, hits: [hit({ at: at(5) }), hit({ at: at(10) })], at: AT })).toEqual({ accepted: 2, events: 0 });
      expect(await firstSeen()).toEqual([at(5)]);
      // A spoofed or non-announcing hit does not move it.
      expect(await h.store.appendHits({ brandId: id, hits: [hit({ at: at(1), mayAnnounce: false })], at: AT })).toEqual({ accepted: 1, events: 0 });
      expect(await firstSeen()).toEqual([at(5)]);
      expect(await events(id)).toHaveLength(1);
    });

    test("calls given turns record first sightings in the turns' order, even when the later call starts first", async () => {
      const { brand: id } = await brand();
      const early = hit({ at: "2026-10-01T10:00:00.000Z", path: "/early" });
      const late = hit({ at: "2026-10-01T10:05:00.000Z", path: "/late" });
      let firstTaken!: () => void;
      const first = { after: Promise.resolve(), taken: () => firstTaken() };
      const second = { after: new Promise<void>((resolve) => (firstTaken = resolve)), taken: () => {} };
      // The later batch goes first; the earlier one follows once it has had time to commit.
      const later = h.store.appendHits({ brandId: id, hits: [late], at: AT, turn: second });
      await Bun.sleep(150);
      const earlier = h.store.appendHits({ brandId: id, hits: [early], at: AT, turn: first });
      expect(await Promise.all([earlier, later])).toEqual([{ accepted: 1, events: 1 }, { accepted: 1, events: 0 }]);
      const [event, ...more] = await events(id);
      expect(more).toEqual([]);
      expect(JSON.parse(event!.payload)).toMatchObject({ bot: "GPTBot", first_seen: early.at, path: "/early" });
      expect(await h.inspect("SELECT first_seen FROM crawler_bots WHERE brand_id = ?", id)).toEqual([{ first_seen: early.at }]);
      // A turn is taken whatever the call does: with nothing to store, or failing.
      const taken = new Set<string>();
      await h.store.appendHits({ brandId: id, hits: [], at: AT, turn: { after: Promise.resolve(), taken: () => taken.add("empty") } });
      await expect(h.store.appendHits({ brandId: id, hits: [hit({ path: null as unknown as string })], at: AT, turn: { after: Promise.resolve(), taken: () => taken.add("refused") } })).rejects.toThrow();
      expect([...taken].sort()).toEqual(["empty", "refused"]);
    });

    test("calls for one brand at once (an import writing two batches, several instances): each record stored once, each new bot announced once at its earliest hit, rollups as counted", async () => {
      const { brand: id } = await brand();
      const bots = ["GPTBot", "ClaudeBot", "PerplexityBot", "Bytespider"];
      const records = Array.from({ length: 1_200 }, (_, i) =>
        // Seven paths over a hundred days: each path's running totals get a row on many days, from every call.
        hit({ at: new Date(Date.UTC(2026, 6, 1) + i * 7_200_000).toISOString(), bot: bots[i % 4]!, path: `/doc/${i % 7}`, userAgent: `Agent ${i % 97} (${bots[i % 4]})`, status: i % 10 === 0 ? 404 : 200 }),
      );
      // Four calls at once over overlapping records, two of them in crossing orders (on Postgres some deadlock, and are tried again).
      const calls = [records.slice(0, 500), records.slice(400, 900), records.slice(800).reverse(), records.slice(300, 700).reverse()];
      const results = await Promise.all(calls.map((hits) => h.store.appendHits({ brandId: id, hits, at: AT })));
      expect(results.reduce((n, r) => n + r.accepted, 0)).toBe(records.length);
      expect(results.reduce((n, r) => n + r.events, 0)).toBe(bots.length);
      expect(await stored(id)).toBe(records.length);
      const sightings = await h.inspect<{ bot: string; first_seen: string }>("SELECT bot, first_seen FROM crawler_bots WHERE brand_id = ? ORDER BY bot", id);
      expect(sightings).toEqual(bots.map((bot) => ({ bot, first_seen: records.find((r) => r.bot === bot)!.at })).sort((a, b) => a.bot.localeCompare(b.bot)));
      const daily = await h.inspect<{ requests: number; not_found: number }>("SELECT sum(requests) AS requests, sum(not_found) AS not_found FROM crawler_daily WHERE brand_id = ?", id);
      expect(daily.map((r) => ({ requests: Number(r.requests), not_found: Number(r.not_found) }))).toEqual([{ requests: records.length, not_found: records.filter((r) => r.status === 404).length }]);
      // The running totals per path: each path's last day holds every request to it (a total read
      // before a concurrent call committed would have lost that call's requests).
      const last = await h.inspect<{ bot: string; path: string; requests: number }>(
        "SELECT k.bot AS bot, k.path AS path, r.requests AS requests FROM crawler_path_totals_keys AS k JOIN crawler_path_totals AS r ON r.key_id = k.id WHERE k.brand_id = ? AND r.day = (SELECT max(x.day) FROM crawler_path_totals AS x WHERE x.key_id = k.id) ORDER BY k.bot, k.path",
        id,
      );
      const perPath = new Map<string, number>();
      for (const r of records) perPath.set(`${r.bot} ${r.path}`, (perPath.get(`${r.bot} ${r.path}`) ?? 0) + 1);
      expect(last.map((r) => [`${r.bot} ${r.path}`, Number(r.requests)])).toEqual([...perPath].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    });
  });
}
