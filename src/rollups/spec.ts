// What each rollup table sums, written once: the triggers that keep it in step with its raw rows
// and the query that rebuilds it from them are both generated from these lines, on SQLite
// (triggers.sqlite.ts) and on Postgres (triggers.pg.ts), so none of them can disagree.
// `{r}` stands for the raw row (NEW, OLD, or the table when rebuilding).

export interface RollupSpec {
  /** The rollup table (src/db/schema.ts). */
  table: string;
  /** The table whose rows it sums; its triggers keep the rollup current. */
  source: string;
  /** Bucket columns and the expression over the raw row that fills each. */
  keys: Record<string, string>;
  /** Summed columns and the expression each raw row adds. */
  measures: Record<string, string>;
  /**
   * How one raw row's joined rows combine into what it adds to a bucket, per measure: `sum` (the
   * default) or `max` (a flag counted once per raw row, e.g. an answer citing a domain twice).
   */
  combine?: Record<string, "max">;
  /** The measure that counts rows: a bucket whose count falls to 0 is deleted. */
  countColumn: string;
  /** A table-valued source joined to the raw row (one raw row adds several bucket rows). */
  from?: string;
  /** Only raw rows (or joined rows) matching this add to the rollup. */
  where?: string;
  /** Raw columns whose change moves a row between buckets or changes what it adds. */
  watch: string[];
  /**
   * Running totals: the table holds, per key and per day a raw row was added on, the measures summed
   * over every day up to that one (its `day` column is added to the keys). Any window is then two
   * seeks per key — the last row on or before its end minus the last row before its start — so a
   * year costs what a month costs. Its keys are listed once in `<table>_keys` (a plain rollup of all
   * time, counting `rows`), which the reads walk.
   */
  running?: boolean;
  /** A running rollup's day expression over the raw row (default: the day of `created_at`). */
  day?: string;
  /**
   * A running rollup keyed by integer (issue #32): `<table>_keys` gives each key an `id`, and the
   * totals' rows hold that id, the day and the totals only — the brand's UUID and the key's text
   * (paths, bots) are kept once per key instead of once per key and day.
   */
  keyIds?: boolean;
  /**
   * A bucket whose count falls to 0 stays (with zeros) instead of being deleted: the key list of
   * totals keyed by id, whose ids their totals' rows hold — a key deleted and listed again would
   * take a new id while its rows went with the old one, in whatever order the two triggers fire.
   */
  keepEmpty?: boolean;
  /**
   * The table this rollup's rows were kept in before, under another layout (the release before kept
   * running totals keyed by text): while that table is current, the first start moves its rows across
   * in the transaction that makes this rollup's triggers (triggers.sqlite.ts, triggers.pg.ts), so they
   * are not rebuilt.
   */
  formerly?: string;
  /**
   * The former table's rows are moved after the start, a few keys at a time, instead of in the
   * start's transaction (issue #32, target 5: the result-fed totals' move costs ~30 s per million
   * results). Until the former key list is empty each key is in exactly one of the two lists: the
   * triggers keep a key where it is listed (a key new to both goes to the new list), and reads walk
   * both lists (triggers.*.ts moveFormerRows, the insights stores' windowTotals).
   */
  moveLater?: boolean;
  /** Only keys already in the key list take rows (a former layout while its keys move: spec.ts formerWhileMoving). */
  listedOnly?: boolean;
}

/**
 * How the spec's expressions are written in one SQL dialect. The spec is written once over these
 * pieces; SQLite (text timestamps, JSON text, packed answers) and Postgres (timestamptz, jsonb,
 * uuid) each render it (triggers.sqlite.ts, triggers.pg.ts). `{r}` is the raw row, as above.
 */
export interface RollupDialect {
  /** The UTC day (YYYY-MM-DD), the Monday starting its ISO week (YYYY-MM-DD) and month (YYYY-MM) of a timestamp column. */
  day(column: string): string;
  week(column: string): string;
  /** The Monday starting the ISO week of a YYYY-MM-DD text column. */
  weekOfDay(column: string): string;
  month(column: string): string;
  /** A JSON list column of the raw row; JSON a client wrote badly (not JSON, not an array) as an empty list. */
  arrayOrEmpty(column: string): string;
  /** The answer's citations list (packed on SQLite) as a JSON array, or an empty one. */
  citations(): string;
  /** A table-valued source of a JSON list's entries, as `alias`, whose `alias.value` is the entry. */
  entries(list: string, alias: string): string;
  /** A field of a list entry that is an object (as text; NULL for any other entry). */
  entryField(entry: string, field: string): string;
  /** The same for a field holding a row id (NULL when it is not one). */
  entryId(entry: string, field: string): string;
  /** The same for an integer field (NULL when it is not a number; a fraction truncated). */
  entryInt(entry: string, field: string): string;
  /** A list entry that is a string: the condition that it is one and not blank, and its text. */
  textEntry(entry: string): { nonBlank: string; text: string };
  /** A table-valued source of a few values (NULLs included), as `alias` with `alias.value`. */
  values(values: string[], alias: string): string;
}

export const SQLITE_DIALECT: RollupDialect = {
  day: (c) => `substr(${c}, 1, 10)`,
  // Six days back, then forward to the next Monday: the day itself when it is one.
  week: (c) => `date(substr(${c}, 1, 10), '-6 days', 'weekday 1')`,
  weekOfDay: (c) => `date(${c}, '-6 days', 'weekday 1')`,
  month: (c) => `substr(${c}, 1, 7)`,
  arrayOrEmpty: (column) => `(CASE WHEN json_valid({r}.${column}) THEN (CASE WHEN json_type({r}.${column}) = 'array' THEN {r}.${column} ELSE '[]' END) ELSE '[]' END)`,
  citations: () => `(CASE WHEN json_valid(aw_text({r}.citations)) AND json_type(aw_text({r}.citations)) = 'array' THEN aw_text({r}.citations) ELSE '[]' END)`,
  entries: (list, alias) => `json_each(${list}) AS ${alias}`,
  entryField: (entry, field) => `(CASE WHEN ${entry}.type = 'object' THEN json_extract(${entry}.value, '$.${field}') END)`,
  entryId: (entry, field) => SQLITE_DIALECT.entryField(entry, field),
  entryInt: (entry, field) => `CAST(${SQLITE_DIALECT.entryField(entry, field)} AS INTEGER)`,
  textEntry: (entry) => ({ nonBlank: `${entry}.type = 'text' AND trim(${entry}.value) != ''`, text: `${entry}.value` }),
  values: (values, alias) => `json_each(json_array(${values.join(", ")})) AS ${alias}`,
};

/**
 * Postgres: timestamps are timestamptz (their UTC day), JSON columns jsonb (always valid JSON, so
 * only the array check stays), ids uuid. A field that cannot be what its column holds (an id that
 * is not a uuid, a count that is not a number) adds nothing instead of failing the write.
 */
export const PG_DIALECT: RollupDialect = {
  day: (c) => `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  week: (c) => `to_char(date_trunc('week', ${c} AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`,
  weekOfDay: (c) => `to_char(date_trunc('week', CAST(${c} AS timestamp)), 'YYYY-MM-DD')`,
  month: (c) => `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM')`,
  arrayOrEmpty: (column) => `(CASE WHEN jsonb_typeof({r}.${column}) = 'array' THEN {r}.${column} ELSE '[]'::jsonb END)`,
  citations: () => PG_DIALECT.arrayOrEmpty("citations"),
  entries: (list, alias) => `jsonb_array_elements(${list}) AS ${alias}(value)`,
  entryField: (entry, field) => `(CASE WHEN jsonb_typeof(${entry}.value) = 'object' THEN ${entry}.value ->> '${field}' END)`,
  entryId: (entry, field) =>
    `(CASE WHEN jsonb_typeof(${entry}.value) = 'object' AND (${entry}.value ->> '${field}') ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN CAST(${entry}.value ->> '${field}' AS uuid) END)`,
  entryInt: (entry, field) =>
    `(CASE WHEN jsonb_typeof(${entry}.value) = 'object' AND jsonb_typeof(${entry}.value -> '${field}') = 'number' AND abs(CAST(${entry}.value ->> '${field}' AS numeric)) < 2147483648 THEN CAST(trunc(CAST(${entry}.value ->> '${field}' AS numeric)) AS integer) END)`,
  textEntry: (entry) => ({ nonBlank: `jsonb_typeof(${entry}.value) = 'string' AND trim(${entry}.value #>> '{}') != ''`, text: `(${entry}.value #>> '{}')` }),
  values: (values, alias) => `unnest(ARRAY[${values.join(", ")}]) AS ${alias}(value)`,
};

/** A running rollup's key list (withKeyList below): each key once; keyed by id, the totals' rows name its `id`. */
export const keysTable = (spec: Pick<RollupSpec, "table">) => `${spec.table}_keys`;

/** Every rollup, its expressions written in dialect `d`. */
export function rollupSpecs(d: RollupDialect): RollupSpec[] {
  const day = d.day("{r}.created_at");
  const month = d.month("{r}.created_at");
  /** A rollup kept at two bucket sizes: a window reads whole months and the days at its edges. */
  const DAY_AND_MONTH = [
    { suffix: "daily", bucket: { day } },
    { suffix: "monthly", bucket: { month } },
  ] as const;
  /** A rollup kept per bucket size of a timestamp column (`sizes`): one spec per size, its table `<base>_<size>`. */
  const bucketed = (base: string, timestamp: string, sizes: ("daily" | "weekly" | "monthly")[], spec: (bucket: Record<string, string>) => Omit<RollupSpec, "table">): RollupSpec[] => {
    const buckets = { daily: { day: d.day(timestamp) }, weekly: { week: d.week(timestamp) }, monthly: { month: d.month(timestamp) } };
    return sizes.map((size) => ({ table: `${base}_${size}`, ...spec(buckets[size]) }));
  };
  const flag = (condition: string) => `(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
  /** JSON a client wrote badly (not JSON, not an array) must not fail the write it rides on: it adds nothing. */
  const arrayOrEmpty = d.arrayOrEmpty;
  /** A field of a list entry that is an object; NULL for any other entry (a bare name, a number). */
  const entryField = d.entryField;

  const resultMeasures: Record<string, string> = {
    results: "1",
    mentioned: flag("{r}.mentioned"),
    mention_sum: "coalesce({r}.mention_count, 0)",
    position_sum: "coalesce({r}.mention_position, 0)",
    position_n: flag("{r}.mention_position IS NOT NULL"),
    cited: flag("{r}.brand_citation_count > 0"),
    citation_sum: "coalesce({r}.citation_count, 0)",
    brand_citation_sum: "coalesce({r}.brand_citation_count, 0)",
    competitor_mention_sum: `(SELECT coalesce(sum(${d.entryInt("e", "mention_count")}), 0) FROM ${d.entries(arrayOrEmpty("competitor_mentions"), "e")})`,
    sentiment_sum: "coalesce({r}.sentiment_score, 0.0)",
    sentiment_n: flag("{r}.sentiment_score IS NOT NULL"),
    positive: flag("{r}.sentiment = 'positive'"),
    neutral: flag("{r}.sentiment = 'neutral'"),
    negative: flag("{r}.sentiment = 'negative'"),
    visibility_sum: "coalesce({r}.visibility_score, 0.0)",
    visibility_n: flag("{r}.visibility_score IS NOT NULL"),
  };
  const resultWatch = ["brand_id", "created_at", "prompt_id", "platform", "model", "region", "reported_model", "mentioned", "mention_count", "mention_position", "brand_citation_count", "citation_count", "competitor_mentions", "sentiment_score", "sentiment", "visibility_score"];
  const trafficPlatform = "coalesce({r}.source_platform, '')";

  /** The answer's group: what the insights filters select on (topic and branded through the prompt). */
  const answerGroup = { prompt_id: "{r}.prompt_id", platform: "{r}.platform", model: "{r}.model", region: "{r}.region" };
  /** The packed citations column as a JSON array (src/db/text-codec.ts). */
  const citationsArray = d.citations();

  /** Per answer group and day or month: the brand's measures. */
  const resultRollups = DAY_AND_MONTH.map(
    ({ suffix, bucket }): RollupSpec => ({
      table: `result_rollups_${suffix}`,
      source: "prompt_results",
      keys: { brand_id: "{r}.brand_id", ...bucket, ...answerGroup, reported_model: "{r}.reported_model" },
      measures: resultMeasures,
      countColumn: "results",
      watch: resultWatch,
    }),
  );

  /**
   * Per answer group, cited domain and month: citations, answers citing it, and of those the answers
   * naming the brand. Filtered domain reads take whole months from it and the days at a window's
   * edges from the answers (issue #32 dropped its per-day twin: 1.9 KB a result for rare reads).
   */
  const domainRollups = bucketed("domain_rollups", "{r}.created_at", ["monthly"], (bucket) => ({
    source: "prompt_results",
    from: d.entries(citationsArray, "j"),
    where: `${entryField("j", "domain")} IS NOT NULL`,
    keys: { brand_id: "{r}.brand_id", ...bucket, ...answerGroup, domain: entryField("j", "domain") },
    measures: { citations: "1", answers: "1", brand_mentioned: flag("{r}.mentioned") },
    combine: { answers: "max", brand_mentioned: "max" },
    countColumn: "citations",
    watch: ["brand_id", "created_at", "prompt_id", "platform", "model", "region", "mentioned", "citations"],
  }));

  /**
   * A running-totals rollup (RollupSpec.running) over the entries of a JSON list column of
   * prompt_results, keyed by id (issue #32): `<base>_totals`, kept before as `<base>_running` keyed by
   * text, whose rows move across after the start.
   */
  function runningOverList(base: string, list: string, where: string, keys: Record<string, string>, measures: Record<string, string>, combine: RollupSpec["combine"], watch: string[]): RollupSpec[] {
    return withKeyList({
      table: `${base}_totals`,
      formerly: `${base}_running`,
      moveLater: true,
      source: "prompt_results",
      from: d.entries(list, "j"),
      where,
      keys: { brand_id: "{r}.brand_id", ...keys },
      measures,
      combine,
      countColumn: Object.keys(measures)[0]!,
      watch: ["brand_id", "created_at", ...watch],
      running: true,
      day,
      keyIds: true,
    });
  }

  /** A running-totals rollup and its keys, once each with the raw rows adding to them: what a read walks. */
  function withKeyList(running: RollupSpec): RollupSpec[] {
    const keyList: RollupSpec = { ...running, table: keysTable(running), measures: { rows: "1" }, combine: { rows: "max" }, countColumn: "rows", running: undefined, day: undefined, keyIds: undefined, keepEmpty: running.keyIds };
    return [running.formerly ? { ...keyList, formerly: keysTable({ table: running.formerly }) } : { ...keyList, formerly: undefined }, running];
  }

  /** A crawler request's bot, class and verdict; a human's or an unnamed bot's count under bot '' and verdict ''. */
  const crawlerBot = { bot: "coalesce({r}.bot, '')", class: "{r}.class", verdict: "coalesce({r}.verdict, '')" };

  /**
   * What the site answered a crawler, apart: refused (401, 403, 429: the site said no), not found
   * (404, 410) and server errors (5xx). A 404 is not a refusal, and a 503 is the site's trouble.
   */
  const crawlerAnswers = {
    refused: flag("{r}.status IN (401, 403, 429)"),
    not_found: flag("{r}.status IN (404, 410)"),
    server_errors: flag("{r}.status >= 500"),
  };

  /** Per answer group and competitor: answers naming it, its mentions and positions, and answers naming the brand too. */
  const competitorRunning = runningOverList(
    "competitor",
    arrayOrEmpty("competitor_mentions"),
    `${d.entryId("j", "competitor_id")} IS NOT NULL`,
    { ...answerGroup, competitor_id: d.entryId("j", "competitor_id") },
    {
      results: "1",
      mentions: `coalesce(${d.entryInt("j", "mention_count")}, 0)`,
      position_sum: `coalesce(${d.entryInt("j", "position")}, 0)`,
      position_n: flag(`${entryField("j", "position")} IS NOT NULL`),
      both: flag("{r}.mentioned"),
    },
    { results: "max", both: "max" },
    ["prompt_id", "platform", "model", "region", "mentioned", "competitor_mentions"],
  );
  const citedDomain = entryField("j", "domain");
  const citationWatch = ["mentioned", "citations"];
  /** Per cited domain (all prompts and platforms): citations, answers citing it, of those the answers naming the brand. */
  const domainRunning = runningOverList("domain", citationsArray, `${citedDomain} IS NOT NULL`, { domain: citedDomain }, { citations: "1", answers: "1", brand_mentioned: flag("{r}.mentioned") }, { answers: "max", brand_mentioned: "max" }, citationWatch);
  /** Per cited domain and prompt: answers citing it (how many prompts cite a domain in a window). */
  const domainPromptRunning = runningOverList("domain_prompt", citationsArray, `${citedDomain} IS NOT NULL`, { domain: citedDomain, prompt_id: "{r}.prompt_id" }, { answers: "1" }, { answers: "max" }, [...citationWatch, "prompt_id"]);
  const citedUrl = entryField("j", "normalized_url");
  /** Per cited URL (normalized; its domain with it): citations and answers citing it. */
  const urlRunning = runningOverList("url", citationsArray, `${citedUrl} IS NOT NULL`, { normalized_url: citedUrl, domain: `coalesce(${citedDomain}, '')` }, { citations: "1", answers: "1" }, { answers: "max" }, citationWatch);
  /** Per fan-out query and platform: answers whose engine searched it. */
  const queryRunning = runningOverList(
    "query",
    arrayOrEmpty("search_queries"),
    d.textEntry("j").nonBlank,
    { platform: "{r}.platform", query: d.textEntry("j").text },
    { answers: "1" },
    { answers: "max" },
    ["platform", "search_queries"],
  );

  // In dependency order: a rollup fed by another rollup comes after it.
  return [
    ...resultRollups,
    // The brand's answers by day and by ISO week (no prompt): an unfiltered trend by week reads whole
    // weeks, a year's 53 rows per group instead of 365 (issue #32).
    ...bucketed("result_brand", "{r}.created_at", ["daily", "weekly"], (bucket) => ({
      source: "prompt_results",
      keys: { brand_id: "{r}.brand_id", ...bucket, platform: "{r}.platform", model: "{r}.model", region: "{r}.region", reported_model: "{r}.reported_model" },
      measures: resultMeasures,
      countColumn: "results",
      watch: resultWatch,
    })),
    ...domainRollups,
    ...competitorRunning,
    ...domainRunning,
    ...domainPromptRunning,
    ...urlRunning,
    ...queryRunning,
    {
      // A brand's citations per cited domain, all time: what `Prefer: count=exact` on /rest/v1/citations
      // filtered by brand (and domain) sums. Kept by day before (citation_domain_daily), a row per
      // domain and day that no read asked for: ~116 B a result, now ~11 (issue #32).
      table: "citation_domain_counts",
      source: "citations",
      keys: { brand_id: "{r}.brand_id", domain: "{r}.domain" },
      measures: { citations: "1" },
      countColumn: "citations",
      watch: ["brand_id", "domain"],
    },
    // Page views per platform by day and by ISO week (a report by week reads whole weeks).
    ...bucketed("traffic_platform", "{r}.created_at", ["daily", "weekly"], (bucket) => ({
      source: "ai_traffic_logs",
      keys: { brand_id: "{r}.brand_id", ...bucket, platform: trafficPlatform },
      measures: { visits: "1" },
      countColumn: "visits",
      watch: ["brand_id", "created_at", "source_platform"],
    })),
    {
      // Each visit counts under its platform and, when an assistant sent it, under '*' too (a day's
      // distinct visitors from any assistant: one person may come from two).
      table: "traffic_visitor_days",
      source: "ai_traffic_logs",
      from: d.values([trafficPlatform, "CASE WHEN {r}.source_platform IS NOT NULL THEN '*' END"], "j"),
      where: "j.value IS NOT NULL",
      keys: { brand_id: "{r}.brand_id", day, platform: "j.value", visitor_hash: "{r}.visitor_hash" },
      measures: { visits: "1" },
      countColumn: "visits",
      watch: ["brand_id", "created_at", "source_platform", "visitor_hash"],
    },
    {
      // Counts traffic_visitor_days rows: a visitor's first visit of a day adds one, its last removed takes one.
      table: "traffic_visitors_daily",
      source: "traffic_visitor_days",
      keys: { brand_id: "{r}.brand_id", day: "{r}.day", platform: "{r}.platform" },
      measures: { visitors: "1" },
      countColumn: "visitors",
      watch: ["brand_id", "day", "platform", "visitor_hash"],
    },
    {
      // A week's visitors are its days' (visitor hashes change every UTC day): the visitor-days of its days.
      table: "traffic_visitors_weekly",
      source: "traffic_visitor_days",
      keys: { brand_id: "{r}.brand_id", week: d.weekOfDay("{r}.day"), platform: "{r}.platform" },
      measures: { visitors: "1" },
      countColumn: "visitors",
      watch: ["brand_id", "day", "platform", "visitor_hash"],
    },
    // Per day, week and month, per bot and verdict (no path): insights_crawlers and the crawler trend
    // read whole months (or weeks) and the days at the window's edges, so a year costs about what a
    // month costs.
    // By week: a year by week reads 53 weeks, not 365 days (issue #32).
    ...bucketed("crawler", "{r}.at", ["daily", "weekly", "monthly"], (bucket) => ({
      source: "crawler_hits",
      keys: { brand_id: "{r}.brand_id", ...bucket, ...crawlerBot },
      measures: { requests: "1", pages: flag("{r}.hit = 'page'"), ...crawlerAnswers, bytes: "coalesce({r}.bytes, 0)" },
      countColumn: "requests",
      watch: ["brand_id", "at", "bot", "class", "verdict", "hit", "status", "bytes"],
    })),
    // Per named bot, hit kind and path, as running totals: a window's top paths in two seeks per path.
    // Keyed by id (issue #32): crawler_paths_running kept the brand, bot, hit and path in every day's row.
    ...withKeyList({
      table: "crawler_path_totals",
      formerly: "crawler_paths_running",
      source: "crawler_hits",
      where: "{r}.bot IS NOT NULL",
      keys: { brand_id: "{r}.brand_id", bot: "{r}.bot", hit: "{r}.hit", path: "{r}.path" },
      measures: { requests: "1", ...crawlerAnswers },
      countColumn: "requests",
      watch: ["brand_id", "at", "bot", "hit", "path", "status"],
      running: true,
      day: d.day("{r}.at"),
      keyIds: true,
    }),
    // AI-referred visits per landing page and platform, as running totals: a window's landing pages
    // in two seeks per page, a year as a month (issue #32; they were day and month buckets).
    // Keyed by id (issue #32): traffic_pages_running kept the brand, platform and path in every day's row.
    ...withKeyList({
      table: "traffic_page_totals",
      formerly: "traffic_pages_running",
      source: "ai_traffic_logs",
      where: "{r}.source_platform IS NOT NULL",
      keys: { brand_id: "{r}.brand_id", platform: "{r}.source_platform", path: "{r}.path" },
      measures: { visits: "1" },
      countColumn: "visits",
      watch: ["brand_id", "created_at", "source_platform", "path"],
      running: true,
      keyIds: true,
    }),
  ];
}

/**
 * Rollup tables no longer kept (issue #32): their rows stay until they can go without harm — on
 * SQLite at start when small, else with `answerwatch vacuum --full` (dropping reads every page); on
 * Postgres once no instance of an older release runs, which may still read them (triggers.pg.ts).
 */
export const RETIRED_ROLLUPS = ["citation_domain_daily", "domain_rollups_daily", "traffic_pages_daily", "traffic_pages_monthly", "crawler_paths_running", "crawler_paths_running_keys", "traffic_pages_running", "traffic_pages_running_keys"];

/**
 * What a rollup with a former table (RollupSpec.formerly) was in the release before: the same sums
 * under that name, keyed by text. Its definition's hash is what a migration's moved rows were made by.
 */
export function formerLayout(spec: RollupSpec): RollupSpec | null {
  return spec.formerly ? { ...spec, table: spec.formerly, keyIds: undefined, keepEmpty: undefined, formerly: undefined, moveLater: undefined } : null;
}

/**
 * A rollup whose former rows move after the start (RollupSpec.moveLater), while its former key list
 * still exists: the layout the triggers keep then. The former key list keeps its keys at zero
 * (keepEmpty), so a key never leaves it but by the move — a key deleted and added again in one
 * update would otherwise land in the new list while its rows stay behind in the former table.
 */
export function formerWhileMoving(spec: RollupSpec): RollupSpec {
  return { ...formerLayout(spec)!, keepEmpty: true, listedOnly: true };
}

/** The former key list of a rollup moved after the start: its own former table for a key list, the former totals' key list for totals. */
export const formerKeysOf = (spec: RollupSpec) => (spec.running ? keysTable({ table: spec.formerly! }) : spec.formerly!);

/** Two rollups moved after the start that share their former key list: a running total and its key list, which move (and are rebuilt, or done) together. */
export const samePair = (a: RollupSpec, b: RollupSpec) => !!a.moveLater && !!b.moveLater && formerKeysOf(a) === formerKeysOf(b);

/** The key of `spec` in alias `a` (its key columns, brand_id included) is listed in `keyList`; `q` quotes a column. */
export const listedIn = (keyList: string, spec: RollupSpec, a: string, q: (column: string) => string = (c) => c) =>
  `EXISTS (SELECT 1 FROM ${keyList} AS aw_f WHERE ${Object.keys(spec.keys).map((k) => `aw_f.${q(k)} = ${a}.${q(k)}`).join(" AND ")})`;

/** A key of `spec` in alias `a` still listed in its former key list: its rows are still in the former table. */
export const inFormerKeys = (spec: RollupSpec, a: string, q?: (column: string) => string) => listedIn(formerKeysOf(spec), spec, a, q);

/**
 * The running totals moved after the start, each with its key list and former tables, as the
 * movers (triggers.*.ts moveFormerRows) and the reads name them: the same on both backends.
 */
export interface MovedLater {
  totals: string;
  keys: string;
  formerTotals: string;
  formerKeys: string;
  /** The key's columns besides brand_id. */
  keyColumns: string[];
  measures: string[];
}

export const movedLater = (specs: RollupSpec[]): MovedLater[] =>
  specs
    .filter((spec) => spec.moveLater && spec.running)
    .map((spec) => ({
      totals: spec.table,
      keys: keysTable(spec),
      formerTotals: spec.formerly!,
      formerKeys: keysTable({ table: spec.formerly! }),
      keyColumns: Object.keys(spec.keys).filter((k) => k !== "brand_id"),
      measures: Object.keys(spec.measures),
    }));

/** The rollups on SQLite, in dependency order: a rollup fed by another rollup comes after it. */
export const ROLLUPS: RollupSpec[] = rollupSpecs(SQLITE_DIALECT);

/** The running totals keyed by id (RollupSpec.keyIds), the same on both backends: their rows name their key by `key_id`. */
export const KEYED_TOTALS: ReadonlySet<string> = new Set(ROLLUPS.filter((spec) => spec.keyIds).map((spec) => spec.table));

/** The running totals moved after the start (RollupSpec.moveLater), by their table. */
export const MOVED_LATER: ReadonlyMap<string, MovedLater> = new Map(movedLater(ROLLUPS).map((m) => [m.totals, m]));

/** How a running rollup's totals row (alias `a`) names its key `k` from keyList: by id, or by the key's columns (`keyColumns`, brand_id besides). */
export const sameKeyAs = (table: string, keyColumns: string[]) =>
  KEYED_TOTALS.has(table) ? (a: string) => `${a}.key_id = k.id` : (a: string) => ["brand_id", ...keyColumns].map((c) => `${a}.${c} = k.${c}`).join(" AND ");

/**
 * A running rollup's keys of one brand as the reads walk them, aliased `k` (`brand`: the parameter
 * holding its id). Keyed by id, in id order: the totals' rows are then sought in the order they are
 * stored — walked in the keys' text order, the seeks scatter over the table (a read of 36,699 crawler
 * paths took 136–204 ms instead of 72–82 on SQLite).
 */
export const keyList = (table: string, brand: string) => (KEYED_TOTALS.has(table) ? `(SELECT * FROM ${keysTable({ table })} WHERE brand_id = ${brand} ORDER BY id) AS k` : `${keysTable({ table })} AS k`);
