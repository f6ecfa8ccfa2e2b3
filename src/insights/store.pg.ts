// The insights store on Postgres (store.ts says what each read answers), reading what the SQLite
// store reads: the rollup tables (day and month buckets), the running totals (src/rollups, kept by
// triggers.pg.ts) and, where filters leave no rollup that can answer, the raw rows. Statements are
// built from fixed pieces with numbered parameters; lists go as arrays (= ANY). Sums come back as
// float8 (exact for counts below 2^53): Postgres' sum of integers is a bigint, which arrives as text.
import type { SQL } from "bun";
import type { Entity } from "../analysis/entities";
import { existingTables } from "../db/pg/tables";
import { isUuid, pgCode, plainRows } from "../db/pg/values";
import type { InsightArgs, InsightFilters } from "./args";
import {
  COMPETITOR_MEASURES, RESULT_MEASURES,
  type CompetitorTotals, type CrawlerBucket, type CrawlerPathTotals, type CrawlerTotals, type DomainTotals, type InsightPrompt, type InsightsStore, type ResultSumsRow, type RunAnswer, type UrlTotals,
} from "./store";
import { resultTables, rollupRanges, rollupTable, type RollupReadOptions } from "./store";
import { keyList, MOVED_LATER, sameKeyAs, PG_DIALECT } from "../rollups/spec";
import { BUCKET_COLUMNS, bucketRanges, rangesFor, type DateWindow, type Interval } from "./window";
import { BRAND_CITED_URLS, BRAND_URL_PAGES } from "../platform/rest/policies.pg";

type Row = Record<string, unknown>;

const DOMAIN_MEASURES = ["citations", "answers", "brand_mentioned"] as const;
const num = (expression: string) => `CAST(${expression} AS float8)`;
/**
 * A sum that does not depend on the order rows arrive in (sentiment and visibility sums are
 * fractional: summed as float8 their last digit followed the plan, which differs under another role).
 */
const exactSum = (column: string) => num(`sum(CAST(${column} AS numeric))`);

/** Parameters of one statement: `add` returns the placeholder of a value. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast = ""): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

const needsPrompt = (f: InsightFilters) => f.topicIds !== null || f.promptIds !== null || f.branded !== null;
const unfiltered = (f: InsightFilters) => [f.platforms, f.models, f.regions, f.topicIds, f.promptIds, f.branded].every((v) => v === null);
/** Ids that can be in a uuid column (any other selects nothing, as on SQLite). */
const uuids = (list: string[]) => list.filter(isUuid);

/** WHERE terms over a rollup or result row `a` for the filters (an empty list selects nothing). */
function filterSql(f: InsightFilters, a: string, brandId: string, p: Params): string {
  const terms: string[] = [];
  for (const [column, list] of [["platform", f.platforms], ["model", f.models], ["region", f.regions]] as const)
    if (list !== null) terms.push(`${a}.${column} = ANY(${p.add(list, "::text[]")})`);
  if (needsPrompt(f)) {
    const inner = [`pf.brand_id = ${p.add(brandId, "::uuid")}`];
    if (f.topicIds !== null) inner.push(`pf.topic_id = ANY(${p.add(uuids(f.topicIds), "::uuid[]")})`);
    if (f.promptIds !== null) inner.push(`pf.id = ANY(${p.add(uuids(f.promptIds), "::uuid[]")})`);
    if (f.branded !== null) inner.push(`pf.is_branded = ${p.add(f.branded, "::boolean")}`);
    terms.push(`${a}.prompt_id IN (SELECT pf.id FROM prompts AS pf WHERE ${inner.join(" AND ")})`);
  }
  return terms.length ? ` AND ${terms.join(" AND ")}` : "";
}

/** The rows of a rollup family inside a window, filtered, as one UNION ALL with the bucket named `bucket` (as on SQLite). */
function rollupRows(base: string, columns: string[], args: InsightArgs, window: DateWindow, p: Params, options: RollupReadOptions = {}): string {
  return rollupRanges(window, options)
    .map((range) => {
      const table = rollupTable(base, range, options);
      const bucket = BUCKET_COLUMNS[range.table];
      return `SELECT r.${bucket} AS bucket, ${columns.map((c) => `r."${c}"`).join(", ")} FROM ${table} AS r
               WHERE r.brand_id = ${p.add(args.brandId, "::uuid")} AND r.${bucket} BETWEEN ${p.add(range.from)} AND ${p.add(range.to)}${filterSql(args, "r", args.brandId, p)}`;
    })
    .join(" UNION ALL ");
}

/**
 * As on SQLite (store.sqlite.ts citedDomainRows): whole months from domain_rollups_monthly, the
 * days at the edges from the answers' own citations with the rollup's expressions.
 */
function citedDomainRows(args: InsightArgs, p: Params): string {
  const d = PG_DIALECT;
  const domain = d.entryField("j", "domain");
  const parts = bucketRanges(args.window).map((range) => {
    const brand = p.add(args.brandId, "::uuid");
    if (range.table === "monthly")
      return `SELECT r.prompt_id, r.domain, r.citations, r.answers, r.brand_mentioned FROM domain_rollups_monthly AS r
               WHERE r.brand_id = ${brand} AND r.month BETWEEN ${p.add(range.from)} AND ${p.add(range.to)}${filterSql(args, "r", args.brandId, p)}`;
    const [from, to] = timeBounds(range);
    return `SELECT r.prompt_id, ${domain} AS domain, count(*) AS citations, 1 AS answers, max(CASE WHEN r.mentioned THEN 1 ELSE 0 END) AS brand_mentioned
              FROM prompt_results AS r, ${d.entries(d.citations().replaceAll("{r}", "r"), "j")}
             WHERE r.brand_id = ${brand} AND r.created_at >= ${p.add(from, "::timestamptz")} AND r.created_at < ${p.add(to, "::timestamptz")}${filterSql(args, "r", args.brandId, p)} AND ${domain} IS NOT NULL
             GROUP BY r.id, ${domain}`;
  });
  return parts.length ? parts.join(" UNION ALL ") : "SELECT NULL::uuid AS prompt_id, NULL::text AS domain, 0 AS citations, 0 AS answers, 0 AS brand_mentioned WHERE false";
}

/** The window as created_at bounds: [from 00:00, the day after `to`). */
const timeBounds = (w: DateWindow): [string, string] => [`${w.from}T00:00:00.000Z`, `${nextDay(w.to)}T00:00:00.000Z`];
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export interface PgInsightsOptions {
  /**
   * `sql` is a request's transaction under the caller's role and claims (the REST executor's): every
   * table read is then scoped by its policies (policies.pg.ts), and the shared URL dictionary,
   * which no REST role reads, is read through the functions that check the brand first.
   */
  asCaller?: boolean;
  /** The former tables still read (formerTablesOf), shared by the stores an instance makes per request: asked once. */
  formerTables?: FormerTables;
  /** `sql` is a transaction: a read that may fail on its own (a former table dropped meanwhile) runs in a savepoint. */
  inTransaction?: boolean;
}

/** Which former tables of running totals moved after the start are there, by their new table (formerTablesOf). */
export interface FormerTables {
  get(): Promise<Map<string, string>>;
  /** Asked again at the next read: one of them was dropped. */
  forget(): void;
}

/**
 * The former tables of running totals moved after the start that were there when first asked, by
 * their new table. Emptied, they stay while instances run (triggers.pg.ts drops them at a start
 * with none running); one dropped all the same (a start while every instance's heartbeat was late)
 * fails its read, which is made again without it (windowTotals) and forgets the answer.
 */
export function formerTablesOf(sql: SQL): FormerTables {
  let formers: Promise<Map<string, string>> | null = null;
  return {
    get: () =>
      (formers ??= (async () => {
        const moved = [...MOVED_LATER.values()];
        const present = new Set(await existingTables(sql, moved.map((m) => m.formerKeys)));
        return new Map(moved.filter((m) => present.has(m.formerKeys)).map((m) => [m.totals, m.formerTotals]));
      })().catch((error) => {
        formers = null;
        throw error;
      })),
    forget: () => void (formers = null),
  };
}

export function createPgInsightsStore(sql: SQL, options: PgInsightsOptions = {}): InsightsStore {
  const formerTables = options.formerTables ?? formerTablesOf(sql);
  // The URL dictionary's rows for a brand: of its citations in [from, to), or of the normalized URLs it cited.
  const joinCitedUrls = (brand: string, p: Params, [from, to]: [string, string]) =>
    options.asCaller ? `LEFT JOIN ${BRAND_CITED_URLS}(${brand}, ${p.add(from, "::timestamptz")}, ${p.add(to, "::timestamptz")}) AS u ON u.citation_id = c.id` : "LEFT JOIN citation_urls AS u ON u.id = c.url_id";
  const urlPages = (brandId: string, urls: string[], p: Params) =>
    options.asCaller ? `${BRAND_URL_PAGES}(${p.add(brandId, "::uuid")}, ${p.add(urls, "::text[]")})` : `citation_urls WHERE normalized_url = ANY(${p.add(urls, "::text[]")})`;
  const query = async <T>(text: string, p: Params): Promise<T[]> => plainRows<T>((await sql.unsafe(text, p.values as never[])) as Row[]);

  /**
   * Each key's measures inside the window from a running-totals rollup: the key's last row on or
   * before the window's end minus its last row before its start (two index seeks per key, as on SQLite).
   */
  async function windowTotals<M extends string>(table: string, keyColumns: string[], measures: readonly M[], brandId: string, window: DateWindow, keyFilter?: (p: Params) => string, withFirstDay = false) {
    const p = new Params();
    const from = p.add(window.from);
    const to = p.add(window.to);
    const brand = p.add(brandId, "::uuid");
    const keys = (totals: string) => {
      const same = sameKeyAs(totals, keyColumns);
      const first = withFirstDay ? `, (SELECT min(f.day) FROM ${totals} AS f WHERE ${same("f")} AND f.day BETWEEN ${from} AND ${to}) AS first_day` : "";
      return `SELECT ${keyColumns.map((c) => `k.${c}`).join(", ")}, ${measures.map((m) => `hi."${m}" - coalesce(lo."${m}", 0) AS "${m}"`).join(", ")}, hi.day AS last_day${first}
         FROM ${keyList(totals, brand)}
         CROSS JOIN LATERAL (SELECT * FROM ${totals} AS q WHERE ${same("q")} AND q.day <= ${to} ORDER BY q.day DESC LIMIT 1) AS hi
         LEFT JOIN LATERAL (SELECT * FROM ${totals} AS q WHERE ${same("q")} AND q.day < ${from} ORDER BY q.day DESC LIMIT 1) AS lo ON true
        WHERE k.brand_id = ${brand}${keyFilter ? keyFilter(p) : ""}`;
    };
    // While the former rows move (spec.ts RollupSpec.moveLater) a key is listed in one of the two
    // layouts: both are walked in one statement, so one snapshot.
    type Totals = Row & Record<M, number> & { last_day: string; first_day?: string };
    const former = (await formerTables.get()).get(table);
    if (!former) return (await query<Totals>(keys(table), p)).filter((r) => r[measures[0]!] > 0);
    const both = `${keys(table)} UNION ALL ${keys(former)}`;
    let rows: Totals[];
    try {
      // In a transaction a failed statement would abort it whole: a savepoint keeps the rest.
      rows = options.inTransaction ? await (sql as unknown as { savepoint<T>(f: (sp: SQL) => Promise<T>): Promise<T> }).savepoint(async (sp) => plainRows<Totals>((await sp.unsafe(both, p.values as never[])) as Row[])) : await query<Totals>(both, p);
    } catch (error) {
      if (pgCode(error) !== "42P01") throw error;
      formerTables.forget();
      rows = await query<Totals>(keys(table), p);
    }
    return rows.filter((r) => r[measures[0]!] > 0);
  }


  /** crawler_daily / _weekly / _monthly rows inside a window, read by `by` (window.ts rangesFor). */
  /** As on SQLite (store.sqlite.ts crawlerRows): with `perBot`, each range's named bots summed per bucket. */
  function crawlerRows(args: InsightArgs, by: Interval | "total", p: Params, perBot = false): string {
    return rangesFor(args.window, by)
      .map((r) => {
        const [table, bucket] = [`crawler_${r.table}`, BUCKET_COLUMNS[r.table]];
        const where = `FROM ${table} WHERE brand_id = ${p.add(args.brandId, "::uuid")} AND ${bucket} BETWEEN ${p.add(r.from)} AND ${p.add(r.to)}`;
        return perBot
          ? `SELECT ${bucket} AS bucket, bot, ${num("sum(requests)")} AS requests, ${num("sum(pages)")} AS pages ${where} AND bot != '' GROUP BY ${bucket}, bot`
          : `SELECT ${bucket} AS bucket, bot, class, verdict, requests, pages, refused, not_found, server_errors ${where}`;
      })
      .join(" UNION ALL ");
  }

  return {
    async brand(brandId) {
      if (!isUuid(brandId)) return null;
      const [row] = await sql`SELECT id, name, organization_id FROM brands WHERE id = ${brandId}`;
      return row ? { id: row.id, name: row.name, organization_id: row.organization_id } : null;
    },
    async competitors(brandId) {
      if (!isUuid(brandId)) return [];
      return plainRows(await sql`SELECT id, name, created_at FROM competitors WHERE brand_id = ${brandId} ORDER BY created_at, id`);
    },
    async prompts(f) {
      if (!isUuid(f.brandId)) return [];
      const p = new Params();
      const inner = [`brand_id = ${p.add(f.brandId, "::uuid")}`];
      if (f.topicIds !== null) inner.push(`topic_id = ANY(${p.add(uuids(f.topicIds), "::uuid[]")})`);
      if (f.promptIds !== null) inner.push(`id = ANY(${p.add(uuids(f.promptIds), "::uuid[]")})`);
      if (f.branded !== null) inner.push(`is_branded = ${p.add(f.branded, "::boolean")}`);
      // 0/1 as the interface types them (SQLite's booleans).
      return query<InsightPrompt>(
        `SELECT id, text, topic_id, CASE WHEN is_active THEN 1 ELSE 0 END AS is_active, CASE WHEN is_branded THEN 1 ELSE 0 END AS is_branded
           FROM prompts WHERE ${inner.join(" AND ")} ORDER BY created_at, id`,
        p,
      );
    },
    async promptTopics(brandId) {
      if (!isUuid(brandId)) return [];
      return plainRows(await sql`SELECT id, topic_id FROM prompts WHERE brand_id = ${brandId}`);
    },
    async promptTexts(brandId) {
      if (!isUuid(brandId)) return [];
      return plainRows(await sql`SELECT id, text FROM prompts WHERE brand_id = ${brandId}`);
    },
    async entities(brandId) {
      if (!isUuid(brandId)) return null;
      const [brand] = await sql`SELECT id, name, aliases FROM brands WHERE id = ${brandId}`;
      if (!brand) return null;
      const domains = ((await sql`SELECT domain FROM brand_domains WHERE brand_id = ${brandId} ORDER BY is_primary DESC, domain`) as { domain: string }[]).map((d) => d.domain);
      const competitors = (await sql`SELECT id, name, domain, aliases FROM competitors WHERE brand_id = ${brandId} ORDER BY created_at, id`) as { id: string; name: string; domain: string | null; aliases: unknown }[];
      return {
        brand: { id: brand.id, kind: "brand", name: brand.name, aliases: aliasList(brand.aliases), domains },
        competitors: competitors.map((c) => ({ id: c.id, kind: "competitor" as const, name: c.name, aliases: aliasList(c.aliases), domains: c.domain ? [c.domain] : [] })),
      };
    },
    async resultSums({ query: args, window, groupBy, by }) {
      if (!isUuid(args.brandId)) return [];
      const p = new Params();
      const perPrompt = groupBy.includes("prompt_id") || needsPrompt(args);
      const dims = ["platform", "model", "region", "reported_model", ...(perPrompt ? ["prompt_id"] : [])];
      const source = rollupRows("result_rollups", [...dims, ...RESULT_MEASURES], args, window, p, resultTables(by, perPrompt));
      const keys = groupBy.join(", ");
      const rows = await query<ResultSumsRow>(
        // In the keys' order: the service adds the groups' fractional sums up in the order they come,
        // and a plan chosen under another role (or after an ANALYZE) returned them in another.
        `SELECT ${keys ? `${keys}, ` : ""}${RESULT_MEASURES.map((m) => `${exactSum(m)} AS ${m}`).join(", ")} FROM (${source}) AS s${keys ? ` GROUP BY ${keys} ORDER BY ${keys}` : ""}`,
        p,
      );
      return rows.filter((r) => (r.results ?? 0) > 0);
    },
    async competitorTotals(args) {
      if (!isUuid(args.brandId)) return [];
      return (await windowTotals("competitor_totals", ["prompt_id", "platform", "model", "region", "competitor_id"], COMPETITOR_MEASURES, args.brandId, args.window, (p) => filterSql(args, "k", args.brandId, p))) as unknown as CompetitorTotals[];
    },
    async domainTotals(args) {
      if (!isUuid(args.brandId)) return [];
      if (unfiltered(args)) {
        const prompts = new Map<string, number>();
        for (const r of await windowTotals("domain_prompt_totals", ["domain", "prompt_id"], ["answers"], args.brandId, args.window)) prompts.set(String(r.domain), (prompts.get(String(r.domain)) ?? 0) + 1);
        return (await windowTotals("domain_totals", ["domain"], DOMAIN_MEASURES, args.brandId, args.window)).map((r) => ({
          domain: String(r.domain),
          citations: r.citations,
          answers: r.answers,
          brand_mentioned: r.brand_mentioned,
          prompts: prompts.get(String(r.domain)) ?? 0,
        }));
      }
      const p = new Params();
      const source = citedDomainRows(args, p);
      return query<DomainTotals>(
        `SELECT domain, ${num("sum(citations)")} AS citations, ${num("sum(answers)")} AS answers, ${num("sum(brand_mentioned)")} AS brand_mentioned, ${num("count(DISTINCT prompt_id)")} AS prompts
           FROM (${source}) AS s GROUP BY domain`,
        p,
      );
    },
    async urlTotals(args) {
      if (!isUuid(args.brandId)) return [];
      if (unfiltered(args)) {
        const rows = await windowTotals("url_totals", ["normalized_url", "domain"], ["citations", "answers"] as const, args.brandId, args.window, undefined, true);
        if (!rows.length) return [];
        const p = new Params();
        const from = urlPages(args.brandId, rows.map((r) => String(r.normalized_url)), p);
        const pages = new Map(
          (await query<{ normalized_url: string; url: string; title: string | null }>(`SELECT normalized_url, min(url) AS url, nullif(max(title), '') AS title FROM ${from} GROUP BY normalized_url`, p)).map((u) => [u.normalized_url, u]),
        );
        return rows.map((r) => {
          const page = pages.get(String(r.normalized_url));
          return { url: page?.url ?? String(r.normalized_url), domain: String(r.domain), title: page?.title ?? null, citations: r.citations, answers: r.answers, first_seen: r.first_day!, last_seen: r.last_day };
        });
      }
      const p = new Params();
      const [from, to] = timeBounds(args.window);
      const brand = p.add(args.brandId, "::uuid");
      const where = `c.brand_id = ${brand} AND c.created_at >= ${p.add(from, "::timestamptz")} AND c.created_at < ${p.add(to, "::timestamptz")}`;
      const f = filterSql(args, "fr", args.brandId, p);
      const filter = f ? ` AND c.result_id IN (SELECT fr.id FROM prompt_results AS fr WHERE fr.brand_id = ${brand}${f})` : "";
      return query<UrlTotals>(
        `SELECT min(coalesce(u.url, c.url)) AS url, min(c.domain) AS domain, nullif(max(coalesce(u.title, c.title, '')), '') AS title, ${num("count(*)")} AS citations,
                ${num("count(DISTINCT c.result_id)")} AS answers, to_char(min(c.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS first_seen,
                to_char(max(c.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS last_seen
           FROM citations AS c ${joinCitedUrls(brand, p, [from, to])}
          WHERE ${where}${filter}
          GROUP BY coalesce(u.normalized_url, c.normalized_url)`,
        p,
      );
    },
    async searchQueries(args) {
      if (!isUuid(args.brandId)) return [];
      if (unfiltered({ ...args, platforms: null })) {
        const byQuery = new Map<string, { query: string; answers: number; platforms: string[] }>();
        const platforms = args.platforms === null ? undefined : (p: Params) => filterSql({ ...args, models: null, regions: null }, "k", args.brandId, p);
        for (const r of await windowTotals("query_totals", ["platform", "query"], ["answers"] as const, args.brandId, args.window, platforms)) {
          const q = byQuery.get(String(r.query)) ?? { query: String(r.query), answers: 0, platforms: [] };
          q.answers += r.answers;
          q.platforms.push(String(r.platform));
          byQuery.set(q.query, q);
        }
        return [...byQuery.values()];
      }
      const p = new Params();
      const [from, to] = timeBounds(args.window);
      return query<{ query: string; answers: number; platforms: string[] }>(
        `SELECT q.value #>> '{}' AS query, ${num("count(DISTINCT r.id)")} AS answers, jsonb_agg(DISTINCT r.platform) AS platforms
           FROM prompt_results AS r,
                jsonb_array_elements(CASE WHEN jsonb_typeof(r.search_queries) = 'array' THEN r.search_queries ELSE '[]'::jsonb END) AS q(value)
          WHERE r.brand_id = ${p.add(args.brandId, "::uuid")} AND r.created_at >= ${p.add(from, "::timestamptz")} AND r.created_at < ${p.add(to, "::timestamptz")}
            AND jsonb_typeof(q.value) = 'string' AND trim(q.value #>> '{}') != ''${filterSql(args, "r", args.brandId, p)}
          GROUP BY 1`,
        p,
      );
    },
    async recentRunAnswers(args) {
      if (!isUuid(args.brandId)) return [];
      const p = new Params();
      const [, to] = timeBounds(args.window);
      // Each group's newest answers, on the group's time index: two runs of up to ten samples each.
      return query<RunAnswer>(
        `SELECT w.prompt_id, w.platform, coalesce(w.job_id, w.id) AS run, CASE WHEN w.mentioned THEN 1 ELSE 0 END AS mentioned, w.created_at
           FROM prompt_results_latest AS l
           CROSS JOIN LATERAL (SELECT x.* FROM prompt_results AS x
                 WHERE x.prompt_id = l.prompt_id AND x.platform = l.platform AND x.model = l.model AND x.region = l.region AND x.created_at < ${p.add(to, "::timestamptz")}
                 ORDER BY x.created_at DESC LIMIT 20) AS w
          WHERE l.brand_id = ${p.add(args.brandId, "::uuid")}${filterSql(args, "l", args.brandId, p)}`,
        p,
      );
    },
    async crawlerTotals(args) {
      if (!isUuid(args.brandId)) return [];
      const p = new Params();
      const source = crawlerRows(args, "total", p);
      return query<CrawlerTotals>(
        `SELECT bot, class, verdict, ${["requests", "pages", "refused", "not_found", "server_errors"].map((m) => `${num(`sum(${m})`)} AS ${m}`).join(", ")} FROM (${source}) AS s GROUP BY bot, class, verdict`,
        p,
      );
    },
    async crawlerBuckets({ query: args, interval }) {
      if (!isUuid(args.brandId)) return [];
      const p = new Params();
      // The ranges' buckets never meet (days outside the whole weeks or months), so each range is summed alone.
      return query<CrawlerBucket>(crawlerRows(args, interval, p, true), p);
    },
    async crawlerPathTotals(args) {
      if (!isUuid(args.brandId)) return [];
      return (await windowTotals("crawler_path_totals", ["bot", "hit", "path"], ["requests", "refused", "not_found", "server_errors"] as const, args.brandId, args.window)) as unknown as CrawlerPathTotals[];
    },
  };
}

/** A jsonb list of aliases (names, or objects with a text) as the matcher takes them; anything else is none. */
function aliasList(value: unknown): Entity["aliases"] {
  return Array.isArray(value) ? value.filter((v) => typeof v === "string" || (v && typeof v === "object")) : [];
}
