// The crawler-log store on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import { createBulkRollups } from "../rollups/triggers.sqlite";
import { recordEvent } from "../webhooks/events.sqlite";
import { crawlerBuckets } from "./rollups";
import { pathKey, type CrawlerHit, type CrawlerStore } from "./store";

export interface SqliteCrawlerStoreOptions {
  /**
   * A bulk import (`answerwatch logs import`) owns its connection: each transaction's temporary
   * structures (statement journals, trigger subqueries) then stay in memory — on a file they
   * doubled the import's time (bench/crawlers.ts) — and each batch adds to the rollups once per
   * distinct bucket (aggregated in rollups.ts) instead of five trigger statements per line.
   */
  bulkImport?: boolean;
}

export function createSqliteCrawlerStore(sqlite: Database, options: SqliteCrawlerStoreOptions = {}): CrawlerStore {
  if (options.bulkImport) sqlite.run("PRAGMA temp_store = MEMORY");
  const bulk = options.bulkImport ? createBulkRollups(sqlite, "crawler_hits") : null;
  const firstSeen = sqlite.prepare("INSERT INTO crawler_bots (brand_id, bot, first_seen) VALUES (?, ?, ?) ON CONFLICT (brand_id, bot) DO NOTHING");
  const seenEarlier = sqlite.prepare("UPDATE crawler_bots SET first_seen = ?3 WHERE brand_id = ?1 AND bot = ?2 AND first_seen > ?3");
  const organizationOf = sqlite.prepare("SELECT organization_id FROM brands WHERE id = ?");
  const insert = sqlite.prepare(
    `INSERT INTO crawler_hits (brand_id, at, host, method, path, status, bytes, agent_id, referer_host, bot, operator, class, hit, verdict, list_version, record_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (brand_id, at, record_key) DO NOTHING`,
  );
  // Each user agent kept once (issue #32); its id looked up once a batch.
  const addAgent = sqlite.prepare("INSERT INTO crawler_agents (user_agent) VALUES (?) ON CONFLICT (user_agent) DO NOTHING");
  const agentId = sqlite.prepare("SELECT id FROM crawler_agents WHERE user_agent = ?");
  const bySlug = sqlite.prepare("SELECT b.id FROM brands b JOIN organizations o ON o.id = b.organization_id WHERE b.slug = ?1 AND (?2 IS NULL OR o.name = ?2 OR o.slug = ?2)");

  // IMMEDIATE (below): the write lock at BEGIN, so a busy database waits (busy_timeout) instead of
  // a read-then-write upgrade failing at once when the pixel's writer committed in between.
  const append = sqlite.transaction((input: Parameters<CrawlerStore["appendHits"]>[0]) => {
    if (!bulk) return appendRows(input);
    return bulk.write(() => {
      const added: CrawlerHit[] = [];
      const out = appendRows(input, added);
      return { out, buckets: crawlerBuckets(input.brandId, added) };
    });
  });
  /** Inserts the hits (and first sightings); the new ones are pushed to `added` when given. */
  function appendRows(input: Parameters<CrawlerStore["appendHits"]>[0], added?: CrawlerHit[]) {
    const { brandId, hits, at } = input;
    let accepted = 0;
    let events = 0;
    const org = (organizationOf.get(brandId) as { organization_id: string } | null)?.organization_id;
    const agents = new Map<string, number>();
    const agentOf = (userAgent: string) => {
      let id = agents.get(userAgent);
      if (id === undefined) {
        addAgent.run(userAgent);
        agents.set(userAgent, (id = (agentId.get(userAgent) as { id: number }).id));
      }
      return id;
    };
    // Per bot, the earliest (then first in call order) new hit that may announce it.
    const sightings = new Map<string, { hit: CrawlerHit; index: number }>();
    for (const [index, h] of hits.entries()) {
      if (!insert.run(brandId, h.at, h.host, h.method, h.path, h.status, h.bytes, agentOf(h.userAgent), h.refererHost, h.bot, h.operator, h.class, h.hit, h.verdict, h.listVersion, h.recordKey).changes) continue;
      accepted++;
      added?.push(h);
      if (!org || !h.bot || !h.mayAnnounce) continue;
      const earliest = sightings.get(h.bot);
      if (!earliest || h.at < earliest.hit.at) sightings.set(h.bot, { hit: h, index });
    }
    for (const { hit: h } of [...sightings.values()].sort((a, b) => a.index - b.index)) {
      // Once per brand and bot; a bot seen before at a later time keeps this earlier one.
      if (!firstSeen.run(brandId, h.bot, h.at).changes) {
        seenEarlier.run(brandId, h.bot, h.at);
        continue;
      }
      recordEvent(sqlite, { organizationId: org!, brandId, type: "crawler.first_seen", data: { bot: h.bot, operator: h.operator, class: h.class, verdict: h.verdict, first_seen: h.at, path: h.path } }, at);
      events++;
    }
    return { accepted, events };
  }

  const pathKeyCount = sqlite.prepare("SELECT count(*) AS n FROM (SELECT 1 FROM crawler_path_totals_keys WHERE brand_id = ? LIMIT ?)");
  const knownPaths = sqlite.prepare(
    `SELECT k.bot, k.hit, k.path FROM json_each(?2) AS j JOIN crawler_path_totals_keys AS k
       ON k.brand_id = ?1 AND k.bot = j.value ->> 'bot' AND k.hit = j.value ->> 'hit' AND k.path = j.value ->> 'path'`,
  );
  return {
    async pathKeyCount({ brandId, limit }) {
      return (pathKeyCount.get(brandId, limit) as { n: number }).n;
    },
    async knownPathKeys({ brandId, keys }) {
      return new Set((knownPaths.all(brandId, JSON.stringify(keys)) as { bot: string; hit: string; path: string }[]).map(pathKey));
    },
    async brandsBySlug({ slug, organization }) {
      return (bySlug.all(slug, organization) as { id: string }[]).map((r) => r.id);
    },
    async brandOrganization(brandId) {
      return (organizationOf.get(brandId) as { organization_id: string } | null)?.organization_id ?? null;
    },
    async appendHits(input) {
      // One connection writes one call at a time: a call's turn is taken once it is done.
      try {
        await input.turn?.after;
        return append.immediate(input);
      } catch (error) {
        bulk?.forget();
        throw error;
      } finally {
        input.turn?.taken();
      }
    },
  };
}
