// The insights store on SQLite (store.ts says what each read answers): the rollup tables (day and
// month buckets), the running totals (src/rollups/spec.ts) and, where filters leave no rollup that
// can answer, the raw rows. Also usable synchronously (createSqliteInsightReads) by a caller inside
// a SQLite transaction: the visibility alerts of a finished run (alerts.sqlite.ts).
import type { Database } from "bun:sqlite";
import { loadEntities } from "../tracking/entities.sqlite";
import type { InsightArgs, InsightFilters } from "./args";
import {
  COMPETITOR_MEASURES, RESULT_MEASURES,
  type CompetitorTotals, type CrawlerBucket, type CrawlerPathTotals, type CrawlerTotals, type DomainTotals, type InsightPrompt, type InsightsStore, type ResultSumsRow, type RunAnswer, type UrlTotals,
} from "./store";
import { resultTables, rollupRanges, rollupTable, type RollupReadOptions } from "./store";
import { keyList, MOVED_LATER, sameKeyAs, SQLITE_DIALECT } from "../rollups/spec";
import { tableExists } from "../rollups/triggers.sqlite";
import { BUCKET_COLUMNS, bucketRanges, rangesFor, type DateWindow, type Interval } from "./window";

type Params = (string | number | null)[];
type Row = Record<string, unknown>;

/** The store's reads as plain synchronous calls. */
export type SqliteInsightReads = { [K in keyof InsightsStore]: InsightsStore[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never };

const DOMAIN_MEASURES = ["citations", "answers", "brand_mentioned"] as const;

const placeholders = (list: readonly unknown[]) => list.map(() => "?").join(", ");

/** Whether a filter needs the prompt (topic, branded, prompt ids): then only per-prompt rollups can answer. */
const needsPrompt = (f: InsightFilters) => f.topicIds !== null || f.promptIds !== null || f.branded !== null;

/** No filter at all: the brand-wide running totals can answer. */
const unfiltered = (f: InsightFilters) => [f.platforms, f.models, f.regions, f.topicIds, f.promptIds, f.branded].every((v) => v === null);

/** WHERE terms over a rollup or result row `a` for the filters (an empty list selects nothing). */
function filterSql(f: InsightFilters, a: string, brandId: string): { sql: string; params: Params } {
  const terms: string[] = [];
  const params: Params = [];
  for (const [column, list] of [["platform", f.platforms], ["model", f.models], ["region", f.regions]] as const) {
    if (list === null) continue;
    terms.push(list.length ? `${a}.${column} IN (${placeholders(list)})` : "0");
    params.push(...list);
  }
  if (needsPrompt(f)) {
    const inner = ["p.brand_id = ?"];
    params.push(brandId);
    if (f.topicIds !== null) (inner.push(f.topicIds.length ? `p.topic_id IN (${placeholders(f.topicIds)})` : "0"), params.push(...f.topicIds));
    if (f.promptIds !== null) (inner.push(f.promptIds.length ? `p.id IN (${placeholders(f.promptIds)})` : "0"), params.push(...f.promptIds));
    if (f.branded !== null) (inner.push("p.is_branded = ?"), params.push(f.branded ? 1 : 0));
    terms.push(`${a}.prompt_id IN (SELECT p.id FROM prompts AS p WHERE ${inner.join(" AND ")})`);
  }
  return { sql: terms.length ? ` AND ${terms.join(" AND ")}` : "", params };
}

/**
 * The rows of a rollup family (`<base>_daily` / `<base>_monthly`) inside a window, filtered, as one
 * UNION ALL with the bucket named `bucket`, read by `by` (store.ts rollupRanges): by day, by week
 * (whole weeks when the family has a weekly table), or whole months and the days at the edges.
 */
function rollupRows(base: string, columns: string[], args: InsightArgs, window: DateWindow, options: RollupReadOptions = {}) {
  const parts: string[] = [];
  const params: Params = [];
  for (const range of rollupRanges(window, options)) {
    const table = rollupTable(base, range, options);
    const bucket = BUCKET_COLUMNS[range.table];
    const filter = filterSql(args, "r", args.brandId);
    parts.push(`SELECT r.${bucket} AS bucket, ${columns.map((c) => `r.${c}`).join(", ")} FROM ${table} AS r WHERE r.brand_id = ? AND r.${bucket} BETWEEN ? AND ?${filter.sql}`);
    params.push(args.brandId, range.from, range.to, ...filter.params);
  }
  return { sql: parts.join(" UNION ALL "), params };
}

/**
 * Each key's measures inside the window, from a running-totals rollup (src/rollups/spec.ts): the
 * key's last row on or before the window's end minus its last row before the window's start — two
 * seeks per key, whatever the window's length. Keys with nothing in the window are left out.
 * `keyFilter` selects keys (columns of `<table>_keys`, alias k); `lastDay`/`firstDay` are the days of
 * the key's last and first rows inside the window.
 */
function windowTotals<M extends string>(
  sqlite: Database,
  table: string,
  keyColumns: string[],
  measures: readonly M[],
  brandId: string,
  window: DateWindow,
  keyFilter: { sql: string; params: Params } = { sql: "", params: [] },
  withFirstDay = false,
): (Row & Record<M, number> & { last_day: string; first_day?: string })[] {
  const keys = (totals: string) => {
    const same = sameKeyAs(totals, keyColumns);
    // The key's last row up to a day, its day and measures in one seek (a JSON array): fetching the
    // row again by key and day (the tables are WITHOUT ROWID) made each read ~1.7× slower.
    const last = (upTo: string) => `(SELECT json_array(q.day, ${measures.map((m) => `q.${m}`).join(", ")}) FROM ${totals} AS q WHERE ${same("q")} AND ${upTo} ORDER BY q.day DESC LIMIT 1)`;
    const first = withFirstDay ? `, (SELECT min(f.day) FROM ${totals} AS f WHERE ${same("f")} AND f.day BETWEEN ?1 AND ?2) AS first_day` : "";
    return `SELECT ${keyColumns.map((c) => `k.${c}`).join(", ")}, ${last("q.day <= ?2")} AS aw_hi, ${last("q.day < ?1")} AS aw_lo${first} FROM ${keyList(totals, "?3")} WHERE k.brand_id = ?3${keyFilter.sql}`;
  };
  // While the former rows move (spec.ts RollupSpec.moveLater) a key is listed in one of the two
  // layouts: both are walked in one statement, so one snapshot. Moved to the end meanwhile, the
  // former tables are gone: read again without them.
  const moving = MOVED_LATER.get(table);
  const read = (former: string | null) =>
    sqlite.query(former ? `${keys(table)} UNION ALL ${keys(former)}` : keys(table)).all(window.from, window.to, brandId, ...keyFilter.params, ...(former ? keyFilter.params : [])) as (Row & {
      aw_hi: string | null;
      aw_lo: string | null;
      first_day?: string;
    })[];
  const former = moving && tableExists(sqlite, moving.formerKeys) ? moving.formerTotals : null;
  let rows: ReturnType<typeof read>;
  try {
    rows = read(former);
  } catch (error) {
    if (!former || !/no such table/.test(String(error))) throw error;
    rows = read(null);
  }
  const totals: (Row & Record<M, number> & { last_day: string; first_day?: string })[] = [];
  for (const { aw_hi, aw_lo, ...key } of rows) {
    if (!aw_hi) continue;
    const hi = JSON.parse(aw_hi) as [string, ...number[]];
    const lo = aw_lo ? (JSON.parse(aw_lo) as [string, ...number[]]) : null;
    const row = { ...key, last_day: hi[0] } as Row & Record<M, number> & { last_day: string; first_day?: string };
    measures.forEach((m, i) => ((row as Record<string, unknown>)[m] = (hi[i + 1] as number) - ((lo?.[i + 1] as number | undefined) ?? 0)));
    if (row[measures[0]!] > 0) totals.push(row);
  }
  return totals;
}

/** The window as created_at bounds: [from 00:00, the day after `to`). */
const timeBounds = (w: DateWindow): [string, string] => [`${w.from}T00:00:00.000Z`, `${nextDay(w.to)}T00:00:00.000Z`];
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The answers of the window passing the filters, as a SQL subquery of result ids (null: every answer of the brand). */
function resultFilter(args: InsightArgs, column: string): { sql: string; params: Params } {
  const f = filterSql(args, "fr", args.brandId);
  if (!f.sql) return { sql: "", params: [] };
  return { sql: ` AND ${column} IN (SELECT fr.id FROM prompt_results AS fr WHERE fr.brand_id = ?${f.sql})`, params: [args.brandId, ...f.params] };
}

/**
 * crawler_daily / _weekly / _monthly rows inside a window, read by `by` (window.ts rangesFor); with
 * `perBot`, only the named bots' requests and pages, in the table's own key order (no sort).
 */
function crawlerRows(args: InsightArgs, by: Interval | "total", perBot = false) {
  const ranges = rangesFor(args.window, by);
  const sql = ranges
    .map((r) => {
      const bucket = BUCKET_COLUMNS[r.table];
      const where = `FROM crawler_${r.table} WHERE brand_id = ? AND ${bucket} BETWEEN ? AND ?`;
      return perBot
        ? `SELECT ${bucket} AS bucket, bot, requests, pages ${where} AND bot != ''`
        : `SELECT ${bucket} AS bucket, bot, class, verdict, requests, pages, refused, not_found, server_errors ${where}`;
    })
    .join(" UNION ALL ");
  return { sql, params: ranges.flatMap((r) => [args.brandId, r.from, r.to]) };
}

/**
 * Per prompt and cited domain, the filtered answers' citations over a window: whole months from
 * domain_rollups_monthly, the days at the edges from the answers themselves (issue #32 dropped the
 * per-day table, 1.9 KB a result kept for these rare filtered reads). The edges read the answers'
 * citations with the rollup's own expressions (src/rollups/spec.ts), one row per answer and domain,
 * so both parts count alike.
 */
function citedDomainRows(args: InsightArgs) {
  const d = SQLITE_DIALECT;
  const domain = d.entryField("j", "domain");
  const parts: string[] = [];
  const params: Params = [];
  for (const range of bucketRanges(args.window)) {
    const f = filterSql(args, "r", args.brandId);
    if (range.table === "monthly") {
      parts.push(`SELECT r.prompt_id, r.domain, r.citations, r.answers, r.brand_mentioned FROM domain_rollups_monthly AS r WHERE r.brand_id = ? AND r.month BETWEEN ? AND ?${f.sql}`);
      params.push(args.brandId, range.from, range.to, ...f.params);
      continue;
    }
    parts.push(
      `SELECT r.prompt_id, ${domain} AS domain, count(*) AS citations, 1 AS answers, max(CASE WHEN r.mentioned THEN 1 ELSE 0 END) AS brand_mentioned
         FROM prompt_results AS r, ${d.entries(d.citations().replaceAll("{r}", "r"), "j")}
        WHERE r.brand_id = ? AND r.created_at >= ? AND r.created_at < ?${f.sql} AND ${domain} IS NOT NULL
        GROUP BY r.id, ${domain}`,
    );
    params.push(args.brandId, ...timeBounds(range), ...f.params);
  }
  return { sql: parts.length ? parts.join(" UNION ALL ") : "SELECT NULL AS prompt_id, NULL AS domain, 0 AS citations, 0 AS answers, 0 AS brand_mentioned WHERE 0", params };
}

export function createSqliteInsightReads(sqlite: Database): SqliteInsightReads {
  return {
    brand(brandId) {
      return sqlite.query("SELECT id, name, organization_id FROM brands WHERE id = ?").get(brandId) as { id: string; name: string; organization_id: string } | null;
    },
    competitors(brandId) {
      return sqlite.query("SELECT id, name, created_at FROM competitors WHERE brand_id = ? ORDER BY created_at, id").all(brandId) as { id: string; name: string; created_at: string }[];
    },
    prompts(f) {
      const inner = ["brand_id = ?"];
      const params: Params = [f.brandId];
      if (f.topicIds !== null) (inner.push(f.topicIds.length ? `topic_id IN (${placeholders(f.topicIds)})` : "0"), params.push(...f.topicIds));
      if (f.promptIds !== null) (inner.push(f.promptIds.length ? `id IN (${placeholders(f.promptIds)})` : "0"), params.push(...f.promptIds));
      if (f.branded !== null) (inner.push("is_branded = ?"), params.push(f.branded ? 1 : 0));
      return sqlite.query(`SELECT id, text, topic_id, is_active, is_branded FROM prompts WHERE ${inner.join(" AND ")} ORDER BY created_at, id`).all(...params) as InsightPrompt[];
    },
    promptTopics(brandId) {
      return sqlite.query("SELECT id, topic_id FROM prompts WHERE brand_id = ?").all(brandId) as { id: string; topic_id: string | null }[];
    },
    promptTexts(brandId) {
      return sqlite.query("SELECT id, text FROM prompts WHERE brand_id = ?").all(brandId) as { id: string; text: string }[];
    },
    entities(brandId) {
      const loaded = loadEntities(sqlite, brandId);
      return loaded ? { brand: loaded.brand, competitors: loaded.competitors } : null;
    },
    resultSums({ query: args, window, groupBy, by }) {
      // Without a prompt in the grouping or the filters, the brand-level day table is enough (and smaller).
      const perPrompt = groupBy.includes("prompt_id") || needsPrompt(args);
      const dims = ["platform", "model", "region", "reported_model", ...(perPrompt ? ["prompt_id"] : [])];
      const source = rollupRows("result_rollups", [...dims, ...RESULT_MEASURES], args, window, resultTables(by, perPrompt));
      const keys = groupBy.length ? groupBy.join(", ") : "";
      const sql = `SELECT ${keys ? `${keys}, ` : ""}${RESULT_MEASURES.map((m) => `sum(${m}) AS ${m}`).join(", ")} FROM (${source.sql})${keys ? ` GROUP BY ${keys} ORDER BY ${keys}` : ""}`;
      return (sqlite.query(sql).all(...source.params) as ResultSumsRow[]).filter((r) => (r.results ?? 0) > 0);
    },
    competitorTotals(args) {
      return windowTotals(sqlite, "competitor_totals", ["prompt_id", "platform", "model", "region", "competitor_id"], COMPETITOR_MEASURES, args.brandId, args.window, filterSql(args, "k", args.brandId)) as unknown as CompetitorTotals[];
    },
    domainTotals(args) {
      // Without filters, the brand-wide running totals; else the per-prompt day and month rollups.
      if (unfiltered(args)) {
        const prompts = new Map<string, number>();
        for (const r of windowTotals(sqlite, "domain_prompt_totals", ["domain", "prompt_id"], ["answers"], args.brandId, args.window)) prompts.set(String(r.domain), (prompts.get(String(r.domain)) ?? 0) + 1);
        return windowTotals(sqlite, "domain_totals", ["domain"], DOMAIN_MEASURES, args.brandId, args.window).map((r) => ({
          domain: String(r.domain),
          citations: r.citations,
          answers: r.answers,
          brand_mentioned: r.brand_mentioned,
          prompts: prompts.get(String(r.domain)) ?? 0,
        }));
      }
      const source = citedDomainRows(args);
      return sqlite
        .query(`SELECT domain, sum(citations) AS citations, sum(answers) AS answers, sum(brand_mentioned) AS brand_mentioned, count(DISTINCT prompt_id) AS prompts FROM (${source.sql}) GROUP BY domain`)
        .all(...source.params) as DomainTotals[];
    },
    urlTotals(args) {
      // Without filters from the brand-wide running totals, shown by the URL table's first spelling and longest title; with filters from the window's citations.
      if (unfiltered(args)) {
        const shown = sqlite.prepare("SELECT min(url) AS url, nullif(max(title), '') AS title FROM citation_urls WHERE normalized_url = ?");
        return windowTotals(sqlite, "url_totals", ["normalized_url", "domain"], ["citations", "answers"] as const, args.brandId, args.window, undefined, true).map((r) => {
          const page = shown.get(String(r.normalized_url)) as { url: string | null; title: string | null };
          return { url: page.url ?? String(r.normalized_url), domain: String(r.domain), title: page.title, citations: r.citations, answers: r.answers, first_seen: r.first_day!, last_seen: r.last_day };
        });
      }
      const [from, to] = timeBounds(args.window);
      const filter = resultFilter(args, "c.result_id");
      return sqlite
        .query(
          `SELECT min(coalesce(u.url, c.url)) AS url, c.domain AS domain, nullif(max(coalesce(u.title, c.title, '')), '') AS title, count(*) AS citations,
                  count(DISTINCT c.result_id) AS answers, substr(min(c.created_at), 1, 10) AS first_seen, substr(max(c.created_at), 1, 10) AS last_seen
             FROM citations AS c LEFT JOIN citation_urls AS u ON u.id = c.url_id
            WHERE c.brand_id = ? AND c.created_at >= ? AND c.created_at < ?${filter.sql}
            GROUP BY coalesce(u.normalized_url, c.normalized_url)`,
        )
        .all(args.brandId, from, to, ...filter.params) as UrlTotals[];
    },
    searchQueries(args) {
      // Filtered by platform at most: the running totals per query and platform answer.
      if (unfiltered({ ...args, platforms: null })) {
        const byQuery = new Map<string, { query: string; answers: number; platforms: string[] }>();
        const platforms = args.platforms === null ? { sql: "", params: [] } : filterSql({ ...args, models: null, regions: null }, "k", args.brandId);
        for (const r of windowTotals(sqlite, "query_totals", ["platform", "query"], ["answers"] as const, args.brandId, args.window, platforms)) {
          const q = byQuery.get(String(r.query)) ?? { query: String(r.query), answers: 0, platforms: [] };
          q.answers += r.answers;
          q.platforms.push(String(r.platform));
          byQuery.set(q.query, q);
        }
        return [...byQuery.values()];
      }
      const [from, to] = timeBounds(args.window);
      const f = filterSql(args, "r", args.brandId);
      const rows = sqlite
        .query(
          `SELECT q.value AS query, count(DISTINCT r.id) AS answers, json_group_array(DISTINCT r.platform) AS platforms
             FROM prompt_results AS r,
                  json_each(CASE WHEN json_valid(r.search_queries) AND json_type(r.search_queries) = 'array' THEN r.search_queries ELSE '[]' END) AS q
            WHERE r.brand_id = ? AND r.created_at >= ? AND r.created_at < ? AND q.type = 'text' AND trim(q.value) != ''${f.sql}
            GROUP BY q.value`,
        )
        .all(args.brandId, from, to, ...f.params) as { query: string; answers: number; platforms: string }[];
      return rows.map((r) => ({ query: r.query, answers: r.answers, platforms: JSON.parse(r.platforms) as string[] }));
    },
    recentRunAnswers(args) {
      const [, to] = timeBounds(args.window);
      const f = filterSql(args, "l", args.brandId);
      // Each group's newest answers, on the group's time index: two runs of up to ten samples each.
      return sqlite
        .query(
          `SELECT w.prompt_id, w.platform, coalesce(w.job_id, w.id) AS run, w.mentioned, w.created_at
             FROM prompt_results_latest AS l
             JOIN prompt_results AS w ON w.rowid IN (
                  SELECT x.rowid FROM prompt_results AS x
                   WHERE x.prompt_id = l.prompt_id AND x.platform = l.platform AND x.model = l.model AND x.region = l.region AND x.created_at < ?
                   ORDER BY x.created_at DESC LIMIT 20)
            WHERE l.brand_id = ?${f.sql}`,
        )
        .all(to, args.brandId, ...f.params) as RunAnswer[];
    },
    crawlerTotals(args) {
      const source = crawlerRows(args, "total");
      return sqlite
        .query(`SELECT bot, class, verdict, sum(requests) AS requests, sum(pages) AS pages, sum(refused) AS refused, sum(not_found) AS not_found, sum(server_errors) AS server_errors FROM (${source.sql}) GROUP BY bot, class, verdict`)
        .all(...source.params) as CrawlerTotals[];
    },
    crawlerBuckets({ query: args, interval }) {
      // A bucket's rows per class and verdict as they are: the caller sums them (SQLite's GROUP BY
      // cost twice the rows' read, issue #32).
      const source = crawlerRows(args, interval, true);
      return sqlite.query(source.sql).all(...source.params) as CrawlerBucket[];
    },
    crawlerPathTotals(args) {
      return windowTotals(sqlite, "crawler_path_totals", ["bot", "hit", "path"], ["requests", "refused", "not_found", "server_errors"] as const, args.brandId, args.window) as unknown as CrawlerPathTotals[];
    },
  };
}

/** The insights store over a connection (a reader thread's read-only one, or the server's). */
export function createSqliteInsightsStore(sqlite: Database): InsightsStore {
  const reads = createSqliteInsightReads(sqlite);
  const store = {} as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const [name, read] of Object.entries(reads) as [string, (...args: unknown[]) => unknown][]) store[name] = async (...args) => read(...args);
  return store as unknown as InsightsStore;
}
