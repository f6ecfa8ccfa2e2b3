// The crawler-log store on Postgres (store.ts says what each operation does). A call is one
// transaction of three or four statements whatever its size: the hits go in as one multi-row INSERT (one
// array per column, unnested) that skips records stored before (ON CONFLICT on brand, time and
// record key) and answers which new hits may announce a bot; the first sightings go in as one
// INSERT … ON CONFLICT DO NOTHING, whose RETURNING names the bots really new — exactly once even
// with several instances importing the same brand — and each gets its webhook event; a bot known
// before but seen earlier by this call has its first sighting moved back (one UPDATE).
//
// Calls for one brand may run at once (the importer writes two batches at a time; several instances
// may import): their raw rows go in side by side, and their rollups queue on the brand's lock
// (rollups/triggers.pg.ts), which every call adding a hit holds before it reaches crawler_bots. New
// user agents are added in one order, so two calls cannot cross on them; a deadlock still possible
// (records repeated across two calls in crossing orders) is retried, the whole call rolled back first.
import type { SQL } from "bun";
import { isUuid, pgCode, withoutNul } from "../db/pg/values";
import { brandLockKey, RUNNING_LOCK } from "../rollups/triggers.pg";
import { recordEventPg } from "../webhooks/events.pg";
import { pathKey, type CrawlerHit, type CrawlerStore, type WriteTurn } from "./store";

/** Tries of a call that ends in a deadlock (40P01) with a concurrent one. */
const DEADLOCK_ATTEMPTS = 5;

export function createPgCrawlerStore(sql: SQL): CrawlerStore {
  return {
    async pathKeyCount({ brandId, limit }) {
      if (!isUuid(brandId)) return 0;
      const [row] = await sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM crawler_path_totals_keys WHERE brand_id = ${brandId} LIMIT ${limit}) AS k`;
      return row.n;
    },
    async knownPathKeys({ brandId, keys }) {
      if (!isUuid(brandId) || !keys.length) return new Set();
      const rows = await sql`
        SELECT k.bot, k.hit, k.path FROM unnest(${sql.array(keys.map((x) => withoutNul(x.bot)), "text")}::text[], ${sql.array(keys.map((x) => withoutNul(x.hit)), "text")}::text[], ${sql.array(keys.map((x) => withoutNul(x.path)), "text")}::text[]) AS j(bot, hit, path)
          JOIN crawler_path_totals_keys AS k ON k.brand_id = ${brandId} AND k.bot = j.bot AND k.hit = j.hit AND k.path = j.path`;
      return new Set(rows.map((r: { bot: string; hit: string; path: string }) => pathKey(r)));
    },
    async brandsBySlug({ slug, organization }) {
      const rows = await sql`
        SELECT b.id FROM brands b JOIN organizations o ON o.id = b.organization_id
         WHERE b.slug = ${slug} AND (${organization}::text IS NULL OR o.name = ${organization} OR o.slug = ${organization})`;
      return rows.map((r: { id: string }) => r.id);
    },
    async brandOrganization(brandId) {
      if (!isUuid(brandId)) return null;
      const [row] = await sql`SELECT organization_id FROM brands WHERE id = ${brandId}`;
      return row?.organization_id ?? null;
    },
    async appendHits({ brandId, hits, at, turn }) {
      try {
        // Waited for outside any transaction: a call waiting on the one before holds no connection.
        await turn?.after;
        if (!hits.length) return { accepted: 0, events: 0 };
        for (let attempt = 1; ; attempt++) {
          try {
            return await append(brandId, hits, at, turn);
          } catch (error) {
            if (pgCode(error) !== "40P01" || attempt >= DEADLOCK_ATTEMPTS) throw error;
          }
        }
      } finally {
        turn?.taken();
      }
    },
  };

  function append(brandId: string, hits: CrawlerHit[], at: string, turn?: WriteTurn): Promise<{ accepted: number; events: number }> {
    const col = <K extends keyof CrawlerHit>(k: K) => hits.map((h) => withoutNul(h[k]));
    return sql.begin(async (tx) => {
      if (turn) {
        // A call that may announce a bot the brand has not seen takes the brand's lock (the one its
        // rollup triggers take) first, so the next in line reaches crawler_bots only after it
        // commits. A call whose bots are all known announces nothing: it lets the next go at once,
        // and their rows go in side by side (taking the lock first serialized a whole import, ~40 %
        // slower, where only its first batches meet new bots).
        const bots = [...new Set(hits.filter((h) => h.mayAnnounce && h.bot).map((h) => h.bot!))];
        const known = bots.length ? await tx`SELECT count(*)::int AS n FROM crawler_bots WHERE brand_id = ${brandId} AND bot IN ${sql(bots)}` : [{ n: 0 }];
        if (known[0].n < bots.length) await tx.unsafe(`SELECT pg_advisory_xact_lock(${RUNNING_LOCK}, ${brandLockKey("$1::uuid")})`, [brandId]);
        turn.taken();
      }
      const [org] = await tx`SELECT organization_id FROM brands WHERE id = ${brandId}`;
      // `candidates`: for each bot, the earliest (then first in call order) of the new hits that may announce it.
      const [inserted] = await tx`
        WITH u AS (
          SELECT * FROM unnest(
            ${sql.array(col("at"), "text")}::timestamptz[], ${sql.array(col("host"), "text")}::text[], ${sql.array(col("method"), "text")}::text[],
            ${sql.array(col("path"), "text")}::text[], ${sql.array(col("status"), "int4")}::int4[], ${sql.array(col("bytes"), "int8")}::int8[],
            ${sql.array(col("userAgent"), "text")}::text[], ${sql.array(col("refererHost"), "text")}::text[], ${sql.array(col("bot"), "text")}::text[],
            ${sql.array(col("operator"), "text")}::text[], ${sql.array(col("class"), "text")}::text[], ${sql.array(col("hit"), "text")}::text[],
            ${sql.array(col("verdict"), "text")}::text[], ${sql.array(col("listVersion"), "text")}::text[], ${sql.array(col("recordKey"), "bytea")}::bytea[],
            ${sql.array(col("mayAnnounce"), "bool")}::bool[]
          ) WITH ORDINALITY AS u(at, host, method, path, status, bytes, user_agent, referer_host, bot, operator, class, hit, verdict, list_version, record_key, may_announce, i)
        ), new_agents AS (
          -- Each user agent kept once (issue #32). One another instance adds in the meantime is
          -- not seen by this statement: that hit keeps its text instead (agent_id NULL).
          INSERT INTO crawler_agents (user_agent) SELECT DISTINCT user_agent FROM u ORDER BY user_agent ON CONFLICT (user_agent) DO NOTHING RETURNING id, user_agent
        ), agents AS (
          -- A user agent is in one arm at most (new or already there): a plain join, hashed (a
          -- lookup per hit cost 7 µs a line, issue #29).
          SELECT id, user_agent FROM new_agents UNION ALL SELECT id, user_agent FROM crawler_agents WHERE user_agent IN (SELECT user_agent FROM u)
        ), ins AS (
          INSERT INTO crawler_hits (brand_id, at, host, method, path, status, bytes, user_agent, agent_id, referer_host, bot, operator, class, hit, verdict, list_version, record_key)
          SELECT ${brandId}, at, host, method, path, status, bytes, CASE WHEN a.id IS NULL THEN u.user_agent ELSE '' END, a.id, referer_host, bot, operator, class, hit, verdict, list_version, record_key
            FROM u LEFT JOIN agents AS a ON a.user_agent = u.user_agent ORDER BY i
          ON CONFLICT (brand_id, at, record_key) DO NOTHING
          RETURNING at, record_key
        )
        SELECT (SELECT count(*) FROM ins)::int AS accepted,
               ARRAY(SELECT i FROM (
                 SELECT DISTINCT ON (u.bot) u.bot, u.i FROM ins JOIN u ON u.at = ins.at AND u.record_key = ins.record_key
                  WHERE u.may_announce AND u.bot IS NOT NULL ORDER BY u.bot, u.at, u.i) first ORDER BY i)::int[] AS candidates`;
      // int[] arrives as an Int32Array, whose map would make numbers of the hits.
      const candidates = Array.from(inserted.candidates as ArrayLike<number>, (i) => hits[i - 1]!);
      let events = 0;
      if (org && candidates.length) {
        const fresh = await tx`
          INSERT INTO crawler_bots (brand_id, bot, first_seen)
          SELECT ${brandId}, bot, first_seen FROM unnest(${sql.array(candidates.map((h) => h.bot!), "text")}::text[], ${sql.array(candidates.map((h) => h.at), "text")}::timestamptz[]) AS c(bot, first_seen)
          ON CONFLICT (brand_id, bot) DO NOTHING
          RETURNING bot`;
        const isNew = new Set(fresh.map((r: { bot: string }) => r.bot));
        for (const h of candidates) {
          if (!isNew.has(h.bot!)) continue;
          await recordEventPg(tx, { organizationId: org.organization_id, brandId, type: "crawler.first_seen", data: { bot: h.bot, operator: h.operator, class: h.class, verdict: h.verdict, first_seen: h.at, path: h.path } }, at);
          events++;
        }
        // A bot seen before, but at a later time than this call saw it (logs imported out of order, or two batches at once).
        const known = candidates.filter((h) => !isNew.has(h.bot!));
        if (known.length)
          await tx`
            UPDATE crawler_bots AS b SET first_seen = c.first_seen
              FROM unnest(${sql.array(known.map((h) => h.bot!), "text")}::text[], ${sql.array(known.map((h) => h.at), "text")}::timestamptz[]) AS c(bot, first_seen)
             WHERE b.brand_id = ${brandId} AND b.bot = c.bot AND b.first_seen > c.first_seen`;
      }
      return { accepted: inserted.accepted as number, events };
    });
  }
}
