// The rollup tables' expected contents, recomputed in TypeScript from the raw rows (prompt_results,
// citations, ai_traffic_logs) by what each table's columns mean — never from the rollup tables or
// from src/rollups — and a row-by-row comparison with what the database holds. The comparison
// works on rows read in SQLite's shapes (ISO timestamps, JSON as text); recompute.pg.ts reads a
// Postgres database into the same shapes.
import type { Database } from "bun:sqlite";

export type Row = Record<string, unknown>;

/** The raw rows the rollups sum, as SQLite returns them; results carry their citations list as `citations_text`. */
export interface RawRows {
  results: Row[];
  citations: Row[];
  crawlerHits: Row[];
  traffic: Row[];
}

/** The raw rows and every rollup table's rows, read at one moment. */
export interface RollupSnapshot {
  raw: RawRows;
  tables: Record<string, Row[]>;
}

export function sqliteSnapshot(sqlite: Database): RollupSnapshot {
  const all = (sql: string) => sqlite.query(sql).all() as Row[];
  return {
    raw: {
      results: all("SELECT *, aw_text(citations) AS citations_text FROM prompt_results"),
      citations: all("SELECT * FROM citations"),
      crawlerHits: all("SELECT * FROM crawler_hits"),
      traffic: all("SELECT * FROM ai_traffic_logs"),
    },
    tables: Object.fromEntries(ROLLUP_TABLES.map((t) => [t, all(logicalRowsSql(t, (table) => (sqlite.query("SELECT name FROM pragma_table_info(?)").all(table) as { name: string }[]).map((c) => c.name)))])),
  };
}

/**
 * A rollup table's rows as its key columns and measures (TABLES), whatever its layout: running
 * totals keyed by id (a `key_id` column) are read with their key list's columns, its `id` left out.
 * A totals row whose key is not listed reads with NULL keys, so it shows up as a row not expected.
 */
export function logicalRowsSql(table: string, columnsOf: (table: string) => string[]): string {
  const def = TABLES[table]!;
  // While a former layout's keys still move (issue #32), a key is listed in one of the two: both are read.
  const former = FORMER_TABLES[table];
  const formerKeys = former && (former.endsWith("_keys") ? former : `${former}_keys`);
  const alsoFormer = former && columnsOf(formerKeys!).length
    ? ` UNION ALL SELECT ${[...def.keys, ...def.measures].map((c) => `f.${c}`).join(", ")} FROM ${former} AS f${
        former === formerKeys ? "" : ` WHERE EXISTS (SELECT 1 FROM ${formerKeys} AS l WHERE ${def.keys.filter((c) => c !== "day").map((c) => `l.${c} = f.${c}`).join(" AND ")})`
      }`
    : "";
  if (columnsOf(table).includes("key_id"))
    return `SELECT ${def.keys.map((c) => (c === "day" ? "t.day" : `k.${c}`)).join(", ")}, ${def.measures.map((m) => `t.${m}`).join(", ")} FROM ${table} AS t LEFT JOIN ${table}_keys AS k ON k.id = t.key_id${alsoFormer}`;
  if (columnsOf(table).includes("id")) return `SELECT ${[...def.keys, ...def.measures].join(", ")} FROM ${table}${alsoFormer}`;
  return `SELECT * FROM ${table}`;
}

/**
 * The running totals fed by results moved after the start to a layout keyed by id (issue #32), by
 * their former tables: until the move ends a key and its rows are in one layout or the other.
 * A former totals row whose key is no longer listed there is none (a key gone before the upgrade).
 */
const FORMER_TABLES: Record<string, string> = Object.fromEntries(
  ["competitor", "domain", "domain_prompt", "url", "query"].flatMap((base) => [
    [`${base}_totals`, `${base}_running`],
    [`${base}_totals_keys`, `${base}_running_keys`],
  ]),
);

export interface TableDef {
  keys: string[];
  measures: string[];
  /** Measures summed as floats (compared with a tolerance). */
  floats?: string[];
  /**
   * Running totals: one row per key and day a raw row was added on, holding the measures summed
   * over all days up to it. Rows stay when their raw rows go (their totals must still be right).
   */
  running?: boolean;
  /** A key list whose keys stay once listed (their counts back at 0): ids that totals keyed by id hold. */
  keepsEmpty?: boolean;
}

const RESULT_MEASURES = [
  "results", "mentioned", "mention_sum", "position_sum", "position_n", "cited", "citation_sum", "brand_citation_sum", "competitor_mention_sum",
  "sentiment_sum", "sentiment_n", "positive", "neutral", "negative", "visibility_sum", "visibility_n",
];
const RESULT_FLOATS = ["sentiment_sum", "visibility_sum"];
const COMPETITOR_MEASURES = ["results", "mentions", "position_sum", "position_n", "both"];
const DOMAIN_MEASURES = ["citations", "answers", "brand_mentioned"];

export const TABLES: Record<string, TableDef> = {
  result_rollups_daily: { keys: ["brand_id", "day", "prompt_id", "platform", "model", "region", "reported_model"], measures: RESULT_MEASURES, floats: RESULT_FLOATS },
  result_rollups_monthly: { keys: ["brand_id", "month", "prompt_id", "platform", "model", "region", "reported_model"], measures: RESULT_MEASURES, floats: RESULT_FLOATS },
  result_brand_daily: { keys: ["brand_id", "day", "platform", "model", "region", "reported_model"], measures: RESULT_MEASURES, floats: RESULT_FLOATS },
  result_brand_weekly: { keys: ["brand_id", "week", "platform", "model", "region", "reported_model"], measures: RESULT_MEASURES, floats: RESULT_FLOATS },
  /** Per answer group and competitor: answers naming it, its mentions, positions, and answers naming the brand too. */
  competitor_totals: { keys: ["brand_id", "prompt_id", "platform", "model", "region", "competitor_id", "day"], measures: COMPETITOR_MEASURES, running: true },
  competitor_totals_keys: { keys: ["brand_id", "prompt_id", "platform", "model", "region", "competitor_id"], measures: ["rows"], keepsEmpty: true },
  /** Per cited domain over all prompts and platforms; per domain and prompt; per normalized URL; per fan-out query and platform. */
  domain_totals: { keys: ["brand_id", "domain", "day"], measures: DOMAIN_MEASURES, running: true },
  domain_totals_keys: { keys: ["brand_id", "domain"], measures: ["rows"], keepsEmpty: true },
  domain_prompt_totals: { keys: ["brand_id", "domain", "prompt_id", "day"], measures: ["answers"], running: true },
  domain_prompt_totals_keys: { keys: ["brand_id", "domain", "prompt_id"], measures: ["rows"], keepsEmpty: true },
  url_totals: { keys: ["brand_id", "normalized_url", "domain", "day"], measures: ["citations", "answers"], running: true },
  url_totals_keys: { keys: ["brand_id", "normalized_url", "domain"], measures: ["rows"], keepsEmpty: true },
  query_totals: { keys: ["brand_id", "platform", "query", "day"], measures: ["answers"], running: true },
  query_totals_keys: { keys: ["brand_id", "platform", "query"], measures: ["rows"], keepsEmpty: true },
  /** Per answer group and cited domain (from the answer's citations list): citations, answers citing it, of those naming the brand. */
  domain_rollups_monthly: { keys: ["brand_id", "month", "prompt_id", "platform", "model", "region", "domain"], measures: DOMAIN_MEASURES },
  citation_domain_counts: { keys: ["brand_id", "domain"], measures: ["citations"] },
  /** Crawler requests per brand × hour × bot × class × verdict × hit kind × path × status ('' for no bot or verdict). */
  /** Per day and month, per bot × class × verdict: requests, page hits, 4xx/5xx answers, bytes. */
  crawler_daily: { keys: ["brand_id", "day", "bot", "class", "verdict"], measures: ["requests", "pages", "refused", "not_found", "server_errors", "bytes"] },
  crawler_monthly: { keys: ["brand_id", "month", "bot", "class", "verdict"], measures: ["requests", "pages", "refused", "not_found", "server_errors", "bytes"] },
  crawler_weekly: { keys: ["brand_id", "week", "bot", "class", "verdict"], measures: ["requests", "pages", "refused", "not_found", "server_errors", "bytes"] },
  /** A named bot's requests and refusals per hit kind and path, as running totals by day. */
  crawler_path_totals: { keys: ["brand_id", "bot", "hit", "path", "day"], measures: ["requests", "refused", "not_found", "server_errors"], running: true },
  crawler_path_totals_keys: { keys: ["brand_id", "bot", "hit", "path"], measures: ["rows"], keepsEmpty: true },
  traffic_platform_daily: { keys: ["brand_id", "day", "platform"], measures: ["visits"] },
  traffic_visitor_days: { keys: ["brand_id", "day", "platform", "visitor_hash"], measures: ["visits"] },
  /** Distinct visitor_hash per (brand, day, coalesce(source_platform, '')), and per (brand, day, "*") over visits an assistant sent. */
  traffic_visitors_daily: { keys: ["brand_id", "day", "platform"], measures: ["visitors"] },
  traffic_platform_weekly: { keys: ["brand_id", "week", "platform"], measures: ["visits"] },
  traffic_visitors_weekly: { keys: ["brand_id", "week", "platform"], measures: ["visitors"] },
  traffic_page_totals: { keys: ["brand_id", "platform", "path", "day"], measures: ["visits"], running: true },
  traffic_page_totals_keys: { keys: ["brand_id", "platform", "path"], measures: ["rows"], keepsEmpty: true },
};
export const ROLLUP_TABLES = Object.keys(TABLES);

const day = (createdAt: unknown) => String(createdAt).slice(0, 10);
const month = (createdAt: unknown) => String(createdAt).slice(0, 7);
/** The Monday of the ISO week (UTC), computed here from the date, not by the rollup's SQL. */
const week = (createdAt: unknown) => {
  const d = new Date(`${day(createdAt)}T00:00:00Z`);
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
};
const keyOf = (values: unknown[]) => JSON.stringify(values);
const truthy = (v: unknown) => v !== null && v !== undefined && v !== 0 && v !== false && v !== "0";

/** The elements of a JSON array column that are objects; anything else adds nothing. */
function objectsOf(json: unknown): Row[] {
  if (typeof json !== "string") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? parsed.filter((e): e is Row => !!e && typeof e === "object" && !Array.isArray(e)) : [];
}
const intOf = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0);

class Buckets {
  readonly rows = new Map<string, Row>();
  constructor(readonly def: TableDef) {}
  add(keys: Record<string, unknown>, measures: Record<string, number>) {
    const k = keyOf(this.def.keys.map((c) => keys[c]));
    let row = this.rows.get(k);
    if (!row) {
      row = { ...keys };
      for (const m of this.def.measures) row[m] = 0;
      this.rows.set(k, row);
    }
    for (const [m, v] of Object.entries(measures)) row[m] = (row[m] as number) + v;
  }
}

/** Every rollup table's expected rows, keyed by the JSON of its key columns. */
export function expectedRollups(raw: RawRows): Record<string, Map<string, Row>> {
  const b = Object.fromEntries(ROLLUP_TABLES.map((t) => [t, new Buckets(TABLES[t])])) as Record<string, Buckets>;

  for (const r of raw.results) {
    const competitors = objectsOf(r.competitor_mentions);
    const measures = {
      results: 1,
      mentioned: truthy(r.mentioned) ? 1 : 0,
      mention_sum: intOf(r.mention_count),
      position_sum: r.mention_position === null ? 0 : intOf(r.mention_position),
      position_n: r.mention_position === null ? 0 : 1,
      cited: (r.brand_citation_count as number) > 0 ? 1 : 0,
      citation_sum: intOf(r.citation_count),
      brand_citation_sum: intOf(r.brand_citation_count),
      competitor_mention_sum: competitors.reduce((s, c) => s + intOf(c.mention_count), 0),
      sentiment_sum: r.sentiment_score === null ? 0 : (r.sentiment_score as number),
      sentiment_n: r.sentiment_score === null ? 0 : 1,
      positive: r.sentiment === "positive" ? 1 : 0,
      neutral: r.sentiment === "neutral" ? 1 : 0,
      negative: r.sentiment === "negative" ? 1 : 0,
      visibility_sum: r.visibility_score === null ? 0 : (r.visibility_score as number),
      visibility_n: r.visibility_score === null ? 0 : 1,
    };
    const group = { brand_id: r.brand_id, prompt_id: r.prompt_id, platform: r.platform, model: r.model, region: r.region };
    const buckets = [{ day: day(r.created_at) }, { month: month(r.created_at) }];
    const keys = { ...group, ...buckets[0], reported_model: r.reported_model };
    b.result_rollups_daily.add(keys, measures);
    b.result_rollups_monthly.add({ ...group, ...buckets[1], reported_model: r.reported_model }, measures);
    b.result_brand_daily.add(keys, measures);
    b.result_brand_weekly!.add({ ...keys, week: week(r.created_at) }, measures);
    const mentioned = truthy(r.mentioned) ? 1 : 0;
    // An answer naming a competitor twice in its list counts once as an answer, twice in mentions.
    const byCompetitor = new Map<unknown, { mentions: number; position_sum: number; position_n: number }>();
    for (const c of competitors) {
      if (c.competitor_id === null || c.competitor_id === undefined) continue;
      const m = byCompetitor.get(c.competitor_id) ?? { mentions: 0, position_sum: 0, position_n: 0 };
      m.mentions += intOf(c.mention_count);
      if (c.position !== null && c.position !== undefined) (m.position_sum += intOf(c.position)), (m.position_n += 1);
      byCompetitor.set(c.competitor_id, m);
    }
    const byDomain = new Map<unknown, number>();
    const byUrl = new Map<string, { normalized_url: unknown; domain: unknown; citations: number }>();
    for (const c of objectsOf(r.citations_text)) {
      if (c.domain !== null && c.domain !== undefined) byDomain.set(c.domain, (byDomain.get(c.domain) ?? 0) + 1);
      if (c.normalized_url === null || c.normalized_url === undefined) continue;
      const key = keyOf([c.normalized_url, c.domain ?? ""]);
      const u = byUrl.get(key) ?? { normalized_url: c.normalized_url, domain: c.domain ?? "", citations: 0 };
      u.citations++;
      byUrl.set(key, u);
    }
    for (const [domain, citations] of byDomain) b.domain_rollups_monthly!.add({ ...group, ...buckets[1], domain }, { citations, answers: 1, brand_mentioned: mentioned });
    const d = day(r.created_at);
    const brand = { brand_id: r.brand_id };
    for (const [competitor_id, m] of byCompetitor) {
      b.competitor_totals!.add({ ...group, competitor_id, day: d }, { results: 1, ...m, both: mentioned });
      b.competitor_totals_keys!.add({ ...group, competitor_id }, { rows: 1 });
    }
    for (const [domain, citations] of byDomain) {
      b.domain_totals!.add({ ...brand, domain, day: d }, { citations, answers: 1, brand_mentioned: mentioned });
      b.domain_totals_keys!.add({ ...brand, domain }, { rows: 1 });
      b.domain_prompt_totals!.add({ ...brand, domain, prompt_id: r.prompt_id, day: d }, { answers: 1 });
      b.domain_prompt_totals_keys!.add({ ...brand, domain, prompt_id: r.prompt_id }, { rows: 1 });
    }
    for (const u of byUrl.values()) {
      b.url_totals!.add({ ...brand, normalized_url: u.normalized_url, domain: u.domain, day: d }, { citations: u.citations, answers: 1 });
      b.url_totals_keys!.add({ ...brand, normalized_url: u.normalized_url, domain: u.domain }, { rows: 1 });
    }
    const queries = new Set<string>();
    try {
      const parsed: unknown = JSON.parse(String(r.search_queries));
      if (Array.isArray(parsed)) for (const q of parsed) if (typeof q === "string" && q.replace(/^ +| +$/g, "") !== "") queries.add(q); // SQLite's trim() drops spaces only
    } catch {
      // not JSON: adds nothing
    }
    for (const query of queries) {
      b.query_totals!.add({ ...brand, platform: r.platform, query, day: d }, { answers: 1 });
      b.query_totals_keys!.add({ ...brand, platform: r.platform, query }, { rows: 1 });
    }
  }

  for (const c of raw.citations)
    b.citation_domain_counts.add({ brand_id: c.brand_id, domain: c.domain }, { citations: 1 });

  for (const h of raw.crawlerHits) {
    const who = { bot: h.bot ?? "", class: h.class, verdict: h.verdict ?? "" };
    const status = h.status as number;
    const answers = { refused: [401, 403, 429].includes(status) ? 1 : 0, not_found: [404, 410].includes(status) ? 1 : 0, server_errors: status >= 500 ? 1 : 0 };
    const measures = { requests: 1, pages: h.hit === "page" ? 1 : 0, ...answers, bytes: intOf(h.bytes) };
    b.crawler_daily!.add({ brand_id: h.brand_id, day: day(h.at), ...who }, measures);
    b.crawler_monthly!.add({ brand_id: h.brand_id, month: month(h.at), ...who }, measures);
    b.crawler_weekly!.add({ brand_id: h.brand_id, week: week(h.at), ...who }, measures);
    if (h.bot === null) continue;
    b.crawler_path_totals!.add({ brand_id: h.brand_id, bot: h.bot, hit: h.hit, path: h.path, day: day(h.at) }, { requests: 1, ...answers });
    b.crawler_path_totals_keys!.add({ brand_id: h.brand_id, bot: h.bot, hit: h.hit, path: h.path }, { rows: 1 });
  }

  const visitors = new Map<string, Set<unknown>>();
  for (const t of raw.traffic) {
    const platform = t.source_platform ?? "";
    b.traffic_platform_daily.add({ brand_id: t.brand_id, day: day(t.created_at), platform }, { visits: 1 });
    b.traffic_platform_weekly!.add({ brand_id: t.brand_id, week: week(t.created_at), platform }, { visits: 1 });
    // A visitor counts under its visit's platform and, when an assistant sent the visit, under '*'
    // (any assistant) as well.
    for (const bucket of t.source_platform === null ? [platform] : [platform, "*"]) {
      b.traffic_visitor_days.add({ brand_id: t.brand_id, day: day(t.created_at), platform: bucket, visitor_hash: t.visitor_hash }, { visits: 1 });
      const vk = keyOf([t.brand_id, day(t.created_at), bucket]);
      if (!visitors.has(vk)) visitors.set(vk, new Set());
      visitors.get(vk)!.add(t.visitor_hash);
    }
    if (t.source_platform !== null) {
      b.traffic_page_totals!.add({ brand_id: t.brand_id, platform: t.source_platform, path: t.path, day: day(t.created_at) }, { visits: 1 });
      b.traffic_page_totals_keys!.add({ brand_id: t.brand_id, platform: t.source_platform, path: t.path }, { rows: 1 });
    }
  }
  for (const [vk, set] of visitors) {
    const [brand_id, d, platform] = JSON.parse(vk) as string[];
    b.traffic_visitors_daily.add({ brand_id, day: d, platform }, { visitors: set.size });
    // A week's visitors are its days' distinct visitors added up.
    b.traffic_visitors_weekly!.add({ brand_id, week: week(d), platform }, { visitors: set.size });
  }

  return Object.fromEntries(ROLLUP_TABLES.map((t) => [t, b[t].rows]));
}

/** What a rollup table holds, keyed like expectedRollups. */
export function actualRollup(rows: Row[], table: string): Map<string, Row> {
  const def = TABLES[table];
  return new Map(rows.map((r) => [keyOf(def.keys.map((c) => r[c])), r]));
}

const TOLERANCE = 1e-9;

/** Differences between the rollup tables and the raw rows' aggregates (at most `limit` lines). */
export function rollupDifferences(sqlite: Database, limit = 20): string[] {
  return snapshotDifferences(sqliteSnapshot(sqlite), limit);
}

/** The same over rows already read (from either backend). */
export function snapshotDifferences(snapshot: RollupSnapshot, limit = 20): string[] {
  const expected = expectedRollups(snapshot.raw);
  const problems: string[] = [];
  for (const table of ROLLUP_TABLES) {
    const def = TABLES[table];
    const want = def.running ? runningTotals(def, expected[table]) : expected[table];
    const got = actualRollup(snapshot.tables[table] ?? [], table);
    // A key read twice (both layouts of a running total while it moves, issue #32) would count twice in the insights.
    if (got.size !== (snapshot.tables[table] ?? []).length) problems.push(`${table}: ${(snapshot.tables[table] ?? []).length - got.size} rows share their key with another`);
    const columns = new Set([...def.keys, ...def.measures]);
    for (const [k, row] of got) {
      const extra = Object.keys(row).filter((c) => !columns.has(c));
      if (extra.length) problems.push(`${table}: unexpected columns ${extra.join(", ")}`);
      // A running table keeps a day whose raw rows were removed: it must hold the total up to that day.
      // A key list may keep a key whose raw rows all went, counting nothing.
      const w = want.get(k) ?? (def.running ? totalAsOf(def, want, row) : def.keepsEmpty ? { ...row, ...Object.fromEntries(def.measures.map((m) => [m, 0])) } : undefined);
      if (!w) {
        problems.push(`${table} ${k}: row present, expected none — got ${JSON.stringify(row)}`);
        continue;
      }
      for (const m of def.measures) {
        const a = row[m] as number;
        const e = w[m] as number;
        const same = def.floats?.includes(m) ? typeof a === "number" && Math.abs(a - e) <= TOLERANCE : a === e;
        if (!same) problems.push(`${table} ${k}: ${m} expected ${e}, got ${a}`);
      }
    }
    for (const [k, w] of want) if (!got.has(k)) problems.push(`${table} ${k}: row missing — expected ${JSON.stringify(w)}`);
  }
  return problems.slice(0, limit);
}

/** Per key, each day's sums turned into the totals up to that day. */
function runningTotals(def: TableDef, perDay: Map<string, Row>): Map<string, Row> {
  const byKey = new Map<string, Row[]>();
  for (const row of perDay.values()) {
    const key = keyOf(def.keys.filter((c) => c !== "day").map((c) => row[c]));
    byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  const out = new Map<string, Row>();
  for (const rows of byKey.values()) {
    const total: Record<string, number> = Object.fromEntries(def.measures.map((m) => [m, 0]));
    for (const row of rows.sort((a, b) => String(a.day).localeCompare(String(b.day)))) {
      for (const m of def.measures) total[m]! += row[m] as number;
      out.set(keyOf(def.keys.map((c) => row[c])), { ...row, ...total });
    }
  }
  return out;
}

/** The totals of `row`'s key up to `row`'s day, from the expected rows (zeros before the first). */
function totalAsOf(def: TableDef, want: Map<string, Row>, row: Row): Row {
  const key = keyOf(def.keys.filter((c) => c !== "day").map((c) => row[c]));
  let best: Row | undefined;
  for (const w of want.values())
    if (keyOf(def.keys.filter((c) => c !== "day").map((c) => w[c])) === key && String(w.day) <= String(row.day) && (!best || String(w.day) > String(best.day))) best = w;
  return best ?? { ...row, ...Object.fromEntries(def.measures.map((m) => [m, 0])) };
}

/** Row counts of every rollup table (to see a check was not vacuous). */
export function rollupCounts(sqlite: Database): Record<string, number> {
  return Object.fromEntries(ROLLUP_TABLES.map((t) => [t, (sqlite.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));
}

/**
 * An older release's rollups as spec.ts describes them now (an upgrade test builds that release's
 * database with them): the ones whose tables its migrations made, and the tables a later migration
 * adds — which the first start after the upgrade fills from the raw rows.
 */
export function rollupsOfRelease<T extends { table: string }>(sqlite: Database, specs: T[]): { specs: T[]; later: string[] } {
  return splitByTables(specs, new Set((sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name)));
}

/** The specs whose tables are among `made`, and the tables of the others. */
export function splitByTables<T extends { table: string }>(specs: T[], made: Set<string>): { specs: T[]; later: string[] } {
  return { specs: specs.filter((s) => made.has(s.table)), later: specs.filter((s) => !made.has(s.table)).map((s) => s.table) };
}
