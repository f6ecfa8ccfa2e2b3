// The rollup tables on Postgres, kept in the transaction of their raw rows by PL/pgSQL triggers
// whatever path writes those rows (the stores, an import, a cascade), and rebuilt from raw rows when
// their definition changes or a trigger is missing — both generated from the same spec.ts as the
// SQLite ones (triggers.sqlite.ts), rendered in PG_DIALECT.
//
// The trigger functions are SECURITY DEFINER: a write made under a REST role (policies.pg.ts), which
// may not write the rollup tables, keeps them all the same (a cascade from a deleted prompt, say).
//
// Differences from SQLite that shape the SQL:
// - A trigger on a partitioned table (the logs, monthly partitions) is made on every partition, now
//   and later; only the parent's is listed and replaced here.
// - AFTER ROW triggers of one statement run after the whole statement, not between its rows. They
//   read only OLD/NEW and the rollup tables, never the raw table, so the order does not matter.
// - Several sessions write at once. Bucket rows are upserted (INSERT … ON CONFLICT), so two writers
//   of one bucket add up; a running total, though, reads the key's last earlier row and then shifts
//   every later one, which a concurrent writer of the same key would miss (its rows are invisible
//   until it commits). So every rollup trigger on a table feeding running totals (prompt_results,
//   crawler_hits) first takes a transaction lock on the row's brand — every one of them, so the lock
//   comes before any bucket row's lock whatever trigger fires first: writes of one brand's answers
//   queue for each other's commit, other brands do not wait. A transaction writing several brands
//   should write them in one order (as any upserting writer should): two that cross may deadlock.
import type { SQL } from "bun";
import { MIGRATION_LOCK, type PgSchemaPart } from "../db/pg/open";
import { PG_SCHEMA_LEVEL } from "../db/pg/schema-level";
import { existingTables } from "../db/pg/tables";
import { GONE_AFTER_MS } from "../http/instances";
import { formerKeysOf, formerLayout, formerWhileMoving, samePair, inFormerKeys, keysTable, listedIn, movedLater, PG_DIALECT, RETIRED_ROLLUPS, rollupSpecs, type RollupSpec } from "./spec";

/** The rollups of spec.ts in Postgres' SQL, in dependency order. */
export const PG_ROLLUPS: RollupSpec[] = rollupSpecs(PG_DIALECT);

/** First key of the per-brand running-totals lock (pg_advisory_xact_lock(int, int)); any constant unused elsewhere. */
export const RUNNING_LOCK = 424_201;

const at = (expression: string, row: string) => expression.replaceAll("{r}", row);
/** Column names quoted: a measure may be a reserved word (`both`). */
const q = (name: string) => `"${name}"`;
const list = (names: string[], prefix = "") => names.map((n) => `${prefix}${q(n)}`).join(", ");

/**
 * The raw rows a trigger reads, as a FROM item aliased `r`: a statement trigger's transition table
 * (every row the statement inserted or deleted), a row trigger's OLD or NEW (one row), or for a
 * rebuild the source table itself.
 */
export type RawRows = { table: string } | { row: "OLD" | "NEW" };
export const rawRowsSource = (rows: RawRows) => ("table" in rows ? rows.table : `(SELECT ${rows.row}.*)`);

/**
 * SELECT of the bucket rows that `rows` add (keys, organization and summed measures, named as the
 * rollup's columns), one per bucket: what a trigger adds or takes away, and what a rebuild inserts
 * (`rows` then the whole source table). A `max` measure (spec.combine) is combined per raw row
 * first, then summed: each raw row gets an ordinal to group by (a transition table has no ctid).
 */
function contribution(spec: RollupSpec, rows: RawRows, options: { numbered?: boolean } = {}): string {
  // Each bucket carries its raw rows' organization_id (one brand, one organization), so the bucket
  // row's own trigger need not look the brand up again (drizzle-pg/0006).
  const keyColumns = [...Object.keys(spec.keys), "organization_id"];
  const keys = [...Object.entries(spec.keys).map(([column, e]) => `${at(e, "r")} AS ${q(column)}`), "r.organization_id AS organization_id"];
  const measures = (combine: (column: string) => string) => Object.entries(spec.measures).map(([column, e]) => `${combine(column)}(${at(e, "r")}) AS ${q(column)}`);
  const from = (source: string) => [`${source} AS r`, spec.from ? at(spec.from, "r") : ""].filter(Boolean).join(", ");
  const where = spec.where ? at(spec.where, "r") : "true";
  const groupBy = [...Object.values(spec.keys).map((e) => at(e, "r")), "r.organization_id"];
  // Without a `from` a raw row is one joined row, whose max is itself: the triggers sum plainly (a
  // key list over crawler_hits numbered and grouped every raw row, issue #29). The rebuild keeps the
  // numbered form (`numbered`): its text is what definitionHash names, and the rows are the same.
  if (!spec.combine || (!spec.from && !options.numbered)) return `SELECT ${[...keys, ...measures(() => "sum")].join(", ")} FROM ${from(rawRowsSource(rows))} WHERE ${where} GROUP BY ${groupBy.join(", ")}`;
  // Only the raw columns the spec reads are numbered and carried (not a whole row with its answer).
  const read = [...new Set([...JSON.stringify(spec).matchAll(/\{r\}\.(\w+)/g)].map((m) => m[1]!)), "organization_id"].filter((c, i, all) => all.indexOf(c) === i);
  const perRawRow = `SELECT ${[...keys, ...measures((c) => spec.combine?.[c] ?? "sum")].join(", ")} FROM ${from(`(SELECT row_number() OVER () AS aw_n, ${list(read, "t.")} FROM ${rawRowsSource(rows)} AS t)`)}
      WHERE ${where} GROUP BY r.aw_n, ${groupBy.join(", ")}`;
  return `SELECT ${list(keyColumns)}, ${Object.keys(spec.measures).map((m) => `sum(${q(m)}) AS ${q(m)}`).join(", ")} FROM (${perRawRow}) AS per_row GROUP BY ${list(keyColumns)}`;
}

/** `only`: a condition over the bucket row (alias c) it is added under, as none when unset. */
function add(spec: RollupSpec, rows: RawRows, only = "true"): string {
  const columns = [...Object.keys(spec.keys), "organization_id", ...Object.keys(spec.measures)];
  if (spec.listedOnly) {
    // A former key list while its keys move: added to the keys there, no key joins it.
    const plus = Object.keys(spec.measures).map((m) => `${q(m)} = ${spec.table}.${q(m)} + s.${q(m)}`);
    return `UPDATE ${spec.table} SET ${plus.join(", ")} FROM (${contribution(spec, rows)}) AS s WHERE ${Object.keys(spec.keys).map((k) => `${spec.table}.${q(k)} = s.${q(k)}`).join(" AND ")};`;
  }
  const sums = Object.keys(spec.measures).map((m) => `${q(m)} = ${spec.table}.${q(m)} + EXCLUDED.${q(m)}`);
  // A bucket row is only inserted when a raw row contributes something (GROUP BY over nothing is no row).
  return `INSERT INTO ${spec.table} (${list(columns)}) SELECT * FROM (${contribution(spec, rows)}) AS c WHERE ${only}
    ON CONFLICT (${list(Object.keys(spec.keys))}) DO UPDATE SET ${sums.join(", ")};`;
}

function subtract(spec: RollupSpec, rows: RawRows): string {
  const keys = Object.keys(spec.keys);
  const match = keys.map((k) => `${spec.table}.${q(k)} = s.${q(k)}`).join(" AND ");
  const minus = Object.keys(spec.measures).map((m) => `${q(m)} = ${spec.table}.${q(m)} - s.${q(m)}`);
  const update = `UPDATE ${spec.table} SET ${minus.join(", ")} FROM (${contribution(spec, rows)}) AS s WHERE ${match};`;
  // A key list whose ids totals hold keeps its keys (spec.keepEmpty).
  if (spec.keepEmpty) return update;
  return `${update}
  DELETE FROM ${spec.table} WHERE ${q(spec.countColumn)} <= 0 AND (${list(keys)}) IN (SELECT ${list(keys)} FROM (${contribution(spec, rows)}) AS s);`;
}

// Running totals (RollupSpec.running), as on SQLite: raw rows added on day d make sure their key has
// a row for d (carrying the total of the key's last earlier row), then add to that row and every
// later one; removed, they subtract from the same rows. Rows are never deleted. A statement's rows
// are summed per (key, day) first, and each existing row takes the sum of every (key, day) on or
// before it in one UPDATE (an UPDATE … FROM applies one match per row, so the matches are summed first).
const withDay = (spec: RollupSpec): RollupSpec => ({ ...spec, keys: { ...spec.keys, day: spec.day ?? PG_DIALECT.day("{r}.created_at") } });
const sameKey = (spec: RollupSpec, a: string, b: string) => Object.keys(spec.keys).map((k) => `${a}.${q(k)} = ${b}.${q(k)}`).join(" AND ");

/**
 * Adds `rows` in one statement, each row written once: the existing rows on or after a (key, day)
 * the rows add to are shifted (a CTE), and the days missing are inserted with the key's total before
 * them plus what the rows add up to that day. Every part reads the table as it was before the
 * statement, so the inserts carry the old totals, and a day already there (shifted) is left alone.
 * Tracking adds today's answers, later than every row: only inserts, no row written twice.
 */
function addRunning(spec: RollupSpec, rows: RawRows, moving = false): string {
  const keys = totalsKey(spec);
  const measures = Object.keys(spec.measures);
  const upTo = (m: string) => q(`aw_upto_${m}`);
  const contributions = `SELECT x.*, ${measures.map((m) => `sum(x.${q(m)}) OVER (PARTITION BY ${list(keys, "x.")} ORDER BY x.day) AS ${upTo(m)}`).join(", ")} FROM (${runningContribution(spec, rows)}) AS x`;
  // Totals keyed by id carry no organization: they reach it through their key.
  const organization = spec.keyIds ? [] : ["organization_id"];
  // A former table while its keys move takes no key that is not listed there already (spec.ts formerWhileMoving).
  const carried = `SELECT ${list(keys, "c.")}, c.day, ${organization.map((c) => `c.${c}, `).join("")}${measures.map((m) => `coalesce(p.${q(m)}, 0) + c.${upTo(m)}`).join(", ")} FROM aw_c AS c
      LEFT JOIN LATERAL (SELECT ${list(measures, "l.")} FROM ${spec.table} AS l WHERE ${sameTotals(spec, "l", "c")} AND l.day < c.day ORDER BY l.day DESC LIMIT 1) AS p ON true${spec.listedOnly ? ` WHERE ${listedIn(keysTable(spec), spec, "c", q)}` : ""}`;
  // The keys first, counted, in a statement of their own: the next one finds their ids. The key
  // list's own insert trigger (which fires after this one) leaves them to it: a new key written once,
  // not inserted and then updated (a second row version). While the former rows move, a key listed
  // there stays there.
  const listed = spec.keyIds ? `${add(keyListOf(spec), rows, moving ? `NOT ${inFormerKeys(spec, "c", q)}` : "true")}\n  ` : "";
  return `${listed}WITH aw_c AS MATERIALIZED (${contributions}),
    aw_shifted AS (${shift(spec, "aw_c", "+")})
  INSERT INTO ${spec.table} (${list([...keys, "day", ...organization, ...measures])}) ${carried} ON CONFLICT (${list([...keys, "day"])}) DO NOTHING;`;
}

/** The key list (a rollup of its own, spec.ts withKeyList) of running totals keyed by id. */
const keyListOf = (spec: RollupSpec): RollupSpec => PG_ROLLUPS.find((s) => s.table === keysTable(spec))!;

/** The columns naming a running total's key in its rows: its key id, or its key's columns. */
const totalsKey = (spec: RollupSpec) => (spec.keyIds ? ["key_id"] : Object.keys(spec.keys));
const sameTotals = (spec: RollupSpec, a: string, b: string) => totalsKey(spec).map((k) => `${a}.${q(k)} = ${b}.${q(k)}`).join(" AND ");

/** What `rows` add per key and day, the key named as the totals name it (keyed by id: its id from the key list). */
function runningContribution(spec: RollupSpec, rows: RawRows): string {
  const perDay = contribution(withDay(spec), rows);
  if (!spec.keyIds) return perDay;
  return `SELECT k.id AS key_id, x.day, ${list(Object.keys(spec.measures), "x.")} FROM (${perDay}) AS x JOIN ${keysTable(spec)} AS k ON ${sameKey(spec, "k", "x")}`;
}

/** The UPDATE adding (or taking away) `contributions` (a FROM item of (key, day) sums) to every row of their keys on or after their days. */
function shift(spec: RollupSpec, contributions: string, sign: "+" | "-"): string {
  const keys = totalsKey(spec);
  const measures = Object.keys(spec.measures);
  const shifts = `SELECT ${list(keys, "l.")}, l.day, ${measures.map((m) => `sum(c.${q(m)}) AS ${q(m)}`).join(", ")}
      FROM ${spec.table} AS l JOIN ${contributions} AS c ON ${sameTotals(spec, "l", "c")} AND l.day >= c.day GROUP BY ${list(keys, "l.")}, l.day`;
  const set = measures.map((m) => `${q(m)} = ${spec.table}.${q(m)} ${sign} d.${q(m)}`);
  return `UPDATE ${spec.table} SET ${set.join(", ")} FROM (${shifts}) AS d WHERE ${sameTotals(spec, spec.table, "d")} AND ${spec.table}.day = d.day`;
}

function shiftRunning(spec: RollupSpec, rows: RawRows, sign: "+" | "-"): string {
  return `${shift(spec, `(${runningContribution(spec, rows)})`, sign)};`;
}

function rebuildRunning(spec: RollupSpec): string {
  const keys = Object.keys(spec.keys);
  const measures = Object.keys(spec.measures);
  const perDay = contribution(withDay(spec), { table: spec.source });
  if (spec.keyIds) {
    // The key list is rebuilt first (it comes first in spec.ts): each day's sums take their key's id.
    const totals = measures.map((m) => `sum(y.${q(m)}) OVER (PARTITION BY k.id ORDER BY y.day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`);
    return `INSERT INTO ${spec.table} (${list(["key_id", "day", ...measures])}) SELECT k.id, y.day, ${totals.join(", ")} FROM (${perDay}) AS y JOIN ${keysTable(spec)} AS k ON ${sameKey(spec, "k", "y")}`;
  }
  const totals = measures.map((m) => `sum(${q(m)}) OVER (PARTITION BY ${list(keys)} ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`);
  return `INSERT INTO ${spec.table} (${list([...keys, "day", "organization_id", ...measures])}) SELECT ${list(keys)}, day, organization_id, ${totals.join(", ")} FROM (${perDay}) AS y`;
}

export function triggerNames(spec: Pick<RollupSpec, "table">): string[] {
  return ["insert", "delete", "update"].map((kind) => `rollup_${spec.table}_${kind}`);
}

/** The transition tables of the statement triggers (REFERENCING … AS). */
export const INSERTED = { table: "aw_inserted" } as const;
export const DELETED = { table: "aw_deleted" } as const;

/**
 * Takes the brand lock (see above) of each brand of `rows`, in one order (an update moving a row
 * between brands takes two). Every trigger on a locked table takes it first — latest results' too —
 * so two writers of one brand queue on it before either holds a row lock the other needs.
 */
export function runningLock(rows: RawRows[]): string {
  const brands = rows.map((r) => `SELECT brand_id FROM ${rawRowsSource(r)} AS r`).join(" UNION ALL ");
  return `PERFORM pg_advisory_xact_lock(${RUNNING_LOCK}, h) FROM (SELECT DISTINCT ${brandLockKey("brand_id")} AS h FROM (${brands}) AS b ORDER BY 1) AS locks;`;
}

/** The second key of a brand's lock (with RUNNING_LOCK), for a uuid expression: a writer may take it ahead of the triggers. */
export const brandLockKey = (brand: string) => `hashtext(CAST(${brand} AS text))`;

/**
 * Planner settings of every rollup trigger function. Each statement joins a statement's few new
 * rows to a rollup table by its key; a plan made while that table was small (PL/pgSQL keeps it for
 * the session, and a table filling from empty outruns its statistics) scanned and sorted the whole
 * table per statement instead — 68 ms a statement, most of PostgreSQL's time in bench/postgres.ts's
 * tracking run. Nested loops over the keys' indexes cost what the new rows do, on any table size.
 */
const FUNCTION_SETTINGS = ["search_path = public, pg_temp", "enable_seqscan = off", "enable_hashjoin = off", "enable_mergejoin = off"];

/** A trigger function's body (what pg_proc.prosrc holds). */
const functionBody = (statements: string[]) => `\nBEGIN\n  ${statements.filter(Boolean).join("\n  ")}\n  RETURN NULL;\nEND\n`;

/**
 * The three trigger functions of one rollup (insert, delete, update: triggerNames' order), by name
 * and body. `moving`: its former rows still move (spec.ts RollupSpec.moveLater), as on SQLite: a key
 * listed in the former key list is kept there, any other in the new one; removals are taken from both.
 */
function triggerFunctions(spec: RollupSpec, moving = false): { name: string; body: string }[] {
  const names = triggerNames(spec);
  const lock = PG_ROLLUPS.some((s) => s.running && s.source === spec.source) ? runningLock : () => "";
  const OLD: RawRows = { row: "OLD" };
  const NEW: RawRows = { row: "NEW" };
  const former = moving ? formerWhileMoving(spec) : null;
  // The key list of totals keyed by id (keepEmpty) is added to by its totals' trigger (addRunning): its own adds nothing new.
  const addsItself = !spec.keepEmpty;
  const [plus, minus] = spec.running
    ? [(r: RawRows) => [addRunning(spec, r, moving), former ? addRunning(former, r) : ""], (r: RawRows) => [shiftRunning(spec, r, "-"), former ? shiftRunning(former, r, "-") : ""]]
    : [(r: RawRows) => [addsItself ? add(spec, r, former ? `NOT ${inFormerKeys(spec, "c", q)}` : "true") : "", former ? add(former, r) : ""], (r: RawRows) => [subtract(spec, r), former ? subtract(former, r) : ""]];
  const bodies = [[lock([INSERTED]), ...plus(INSERTED)], [lock([DELETED]), ...minus(DELETED)], [lock([OLD, NEW]), ...minus(OLD), ...plus(NEW)]];
  return names.map((name, i) => ({ name, body: functionBody(bodies[i]!) }));
}

const createFunction = (name: string, body: string, settings: string[]) =>
  `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER ${settings.map((s) => `SET ${s}`).join(" ")} AS $rollup$${body}$rollup$`;

/**
 * The triggers of one rollup. Inserts and deletes fire once per statement over its transition
 * table, so a batch of N raw rows costs one upsert per rollup, not N (a statement trigger fires even
 * for no rows: then it changes nothing). Updates are rare and fire per row, only when a watched
 * column changed (a statement trigger can have neither a column list with transition tables nor a WHEN).
 */
function createTriggers(spec: RollupSpec): string[] {
  const [insert, remove, update] = triggerNames(spec);
  // An UPDATE that leaves the watched columns as they were changes no bucket: the trigger is skipped.
  const changed = `(${list(spec.watch, "OLD.")}) IS DISTINCT FROM (${list(spec.watch, "NEW.")})`;
  return [
    `CREATE TRIGGER ${insert} AFTER INSERT ON ${spec.source} REFERENCING NEW TABLE AS ${INSERTED.table} FOR EACH STATEMENT EXECUTE FUNCTION ${insert}()`,
    `CREATE TRIGGER ${remove} AFTER DELETE ON ${spec.source} REFERENCING OLD TABLE AS ${DELETED.table} FOR EACH STATEMENT EXECUTE FUNCTION ${remove}()`,
    `CREATE TRIGGER ${update} AFTER UPDATE OF ${list(spec.watch)} ON ${spec.source} FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION ${update}()`,
  ];
}

/** The trigger functions and triggers that keep one rollup current: [function, trigger] per kind (`moving`: triggerFunctions). */
export function triggerSql(spec: RollupSpec, moving = false): string[] {
  const triggers = createTriggers(spec);
  return triggerFunctions(spec, moving).flatMap((f, i) => [createFunction(f.name, f.body, FUNCTION_SETTINGS), triggers[i]!]);
}

/** Recomputes one rollup from its raw rows: the triggers' contribution, over the whole source table. */
export function rebuildSql(spec: RollupSpec): string[] {
  if (spec.running) return [`DELETE FROM ${spec.table}`, rebuildRunning(spec)];
  const columns = [...Object.keys(spec.keys), "organization_id", ...Object.keys(spec.measures)];
  return [`DELETE FROM ${spec.table}`, `INSERT INTO ${spec.table} (${list(columns)}) ${contribution(spec, { table: spec.source }, { numbered: true })}`];
}

/**
 * Bump when the triggers' arithmetic changes while the rebuild stays the same: the rows kept by the
 * old triggers are then rebuilt at the next start.
 */
const TRIGGER_SEMANTICS = 1;

/** What a rollup's rows are (its rebuild): a rollup stored under another hash is rebuilt. */
export function definitionHash(spec: RollupSpec): string {
  return Bun.hash([`rows v${TRIGGER_SEMANTICS}`, ...rebuildSql(spec)].join("\n")).toString(16);
}

/** A trigger function as deployed: its body and settings (pg_proc). */
interface Deployed {
  body: string;
  settings: string[];
}

/**
 * The hash stored before issue #32, which covered the triggers' text as well (their functions then
 * set only search_path): equal to the stored one while the functions it was computed with are still
 * in place, the rows then being what `rebuildSql` makes. Lets an upgrade that only rewrites trigger
 * functions keep the rows.
 */
function hashWithTriggers(spec: RollupSpec, deployed: Map<string, Deployed>): string {
  const triggers = createTriggers(spec);
  const functions = triggerNames(spec).map((name) => createFunction(name, deployed.get(name)?.body ?? "", FUNCTION_SETTINGS.slice(0, 1)));
  return Bun.hash([...functions.flatMap((f, i) => [f, triggers[i]!]), ...rebuildSql(spec)].join("\n")).toString(16);
}

/** pg_proc.proconfig's form of a setting ("name=value"). */
const storedSetting = (setting: string) => setting.replace(/^(\w+) = /, "$1=");

/** Rebuilds the given rollups (all by default) from raw rows, in dependency order, in the transaction `tx` (or one of its own). */
export async function rebuildPgRollups(sql: SQL, specs: RollupSpec[] = PG_ROLLUPS, inTransaction = false): Promise<{ table: string; rows: number; ms: number }[]> {
  const run = async (tx: SQL) => {
    const out: { table: string; rows: number; ms: number }[] = [];
    for (const spec of specs) {
      const started = performance.now();
      for (const statement of rebuildSql(spec)) await tx.unsafe(statement);
      const [{ n }] = await tx.unsafe(`SELECT count(*)::int AS n FROM ${spec.table}`);
      out.push({ table: spec.table, rows: n, ms: Math.round(performance.now() - started) });
    }
    return out;
  };
  return inTransaction ? run(sql) : sql.begin(run);
}

/**
 * Makes the triggers match spec.ts: a rollup whose rows' definition changed, is new, or lost a
 * trigger gets its functions and triggers replaced and its rows rebuilt (and so does every rollup fed
 * by it); one whose functions are only written differently gets them replaced, its rows kept. Runs in
 * the schema part's transaction, under the migration lock.
 */
export async function ensurePgRollups(tx: SQL): Promise<string[]> {
  const stored = new Map(((await tx`SELECT name, hash FROM rollup_state`) as { name: string; hash: string }[]).map((r) => [r.name, r.hash]));
  const present = (await tx`
    SELECT t.tgname AS name, c.relname AS "table" FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
     WHERE NOT t.tgisinternal AND t.tgparentid = 0 AND c.relnamespace = current_schema()::regnamespace AND t.tgname LIKE 'rollup\\_%'`) as { name: string; table: string }[];
  const triggers = new Set(present.map((t) => t.name));
  const deployed = new Map(
    ((await tx`SELECT proname AS name, prosrc AS body, coalesce(proconfig, '{}') AS settings FROM pg_proc WHERE pronamespace = current_schema()::regnamespace AND proname LIKE 'rollup\\_%'`) as { name: string; body: string; settings: string[] }[]).map(
      (f) => [f.name, { body: f.body, settings: [...f.settings] }],
    ),
  );
  // Triggers of a rollup no longer defined (its table dropped by a migration) would fail every write;
  // a retired rollup's stay while its table does, so that older instances still read it current.
  const defined = new Set(PG_ROLLUPS.flatMap(triggerNames));
  const retiredKept = new Set((await existingTables(tx, RETIRED_ROLLUPS)).flatMap((table) => triggerNames({ table })));
  for (const t of present)
    if (!defined.has(t.name) && !retiredKept.has(t.name)) {
      await tx.unsafe(`DROP TRIGGER IF EXISTS ${t.name} ON ${t.table}`);
      await tx.unsafe(`DROP FUNCTION IF EXISTS ${t.name}()`);
    }
  const keeps = (spec: RollupSpec) => {
    const hash = stored.get(spec.table);
    return (hash === definitionHash(spec) || hash === hashWithTriggers(spec, deployed)) && triggerNames(spec).every((name) => triggers.has(name));
  };
  // Rollups whose former rows move after the start (spec.moveLater) while their former key list still
  // lists keys. Emptied (every key moved, or a new database's: it never had any), the former tables
  // take no write and the triggers keep the new layout alone; they are dropped when no instance
  // runs — a live one reads them (its reads were planned with them) until it stops.
  const formerKeyLists = await existingTables(tx, PG_ROLLUPS.filter((spec) => spec.moveLater).map(formerKeysOf));
  const listing = new Set<string>();
  for (const table of formerKeyLists) if ((await tx.unsafe(`SELECT 1 FROM ${table} LIMIT 1`)).length) listing.add(table);
  if (formerKeyLists.length > listing.size && (await liveInstances(tx)) === 0)
    for (const table of formerKeyLists) if (!listing.has(table)) await dropFormerTables(tx, PG_ROLLUPS.find((spec) => spec.moveLater && formerKeysOf(spec) === table)!, false);
  const moving = new Set(PG_ROLLUPS.filter((spec) => spec.moveLater && listing.has(formerKeysOf(spec))).map((spec) => spec.table));
  // A new rollup whose former table (spec.formerly, retired: its triggers kept) is current: its rows are
  // moved across, not rebuilt — at once, or after the start (moveLater: its triggers keep both layouts until then).
  const takesOver = (spec: RollupSpec) => {
    const former = formerLayout(spec);
    return former !== null && !stored.has(spec.table) && keeps(former);
  };
  const moved = PG_ROLLUPS.filter((spec) => takesOver(spec) && !spec.moveLater);
  // (Its former key list empty, there is nothing to move: the new tables, empty, hold every key.)
  const adopted = PG_ROLLUPS.filter((spec) => takesOver(spec) && spec.moveLater);
  const stale = PG_ROLLUPS.filter((spec) => !keeps(spec) && !moved.includes(spec) && !adopted.includes(spec));
  // Rebuilt with a stale rollup: those it feeds, and totals keyed by id with their key list (rebuilt, it gives new ids).
  // A rollup whose former rows still move goes with its pair: rebuilt, it holds every key.
  const rebuild = PG_ROLLUPS.filter((spec) => stale.includes(spec) || stale.some((s) => s.table === spec.source || (spec.keyIds && s.table === keysTable(spec)) || (moving.has(spec.table) && moving.has(s.table) && samePair(s, spec))));
  // Rebuilt from the raw rows while its former rows still move: the former tables are emptied (a live
  // instance may read them) and every key is in the new layout.
  // The raw table locked first, as the triggers' replacement below would: a writer holding it while
  // its trigger waits on a row this DELETE locked would deadlock with that replacement.
  const emptied = rebuild.filter((spec) => moving.has(spec.table));
  for (const source of new Set(emptied.map((spec) => spec.source))) await tx.unsafe(`LOCK TABLE ${source} IN SHARE ROW EXCLUSIVE MODE`);
  for (const spec of emptied) await tx.unsafe(`DELETE FROM ${spec.running ? spec.formerly : formerKeysOf(spec)}`);
  const settings = FUNCTION_SETTINGS.map(storedSetting).join("\n");
  const written = (spec: RollupSpec) => triggerFunctions(spec, moving.has(spec.table)).every((f) => deployed.get(f.name)?.body === f.body && deployed.get(f.name)?.settings.join("\n") === settings);
  // Functions written differently (same rows): replaced, the rows kept.
  const rewritten = PG_ROLLUPS.filter((spec) => !rebuild.includes(spec) && (stored.get(spec.table) !== definitionHash(spec) || !written(spec)));
  const movedNow = moved.filter((spec) => !rebuild.includes(spec));
  // No write to the raw rows while their rows move and until the new triggers count them (an older
  // instance may be writing): the former tables hold every row written before.
  for (const source of new Set(movedNow.map((spec) => spec.source))) await tx.unsafe(`LOCK TABLE ${source} IN SHARE ROW EXCLUSIVE MODE`);
  for (const spec of movedNow) {
    await tx.unsafe(`DELETE FROM ${spec.table}`);
    await tx.unsafe(moveSql(spec));
  }
  await retirePgRollups(tx);
  if (!rebuild.length && !rewritten.length) return [];
  for (const spec of [...rebuild, ...rewritten]) {
    for (const name of triggerNames(spec)) await tx.unsafe(`DROP TRIGGER IF EXISTS ${name} ON ${spec.source}`);
    for (const statement of triggerSql(spec, moving.has(spec.table))) await tx.unsafe(statement);
  }
  await rebuildPgRollups(tx, rebuild, true);
  for (const spec of [...rebuild, ...rewritten])
    await tx`INSERT INTO rollup_state (name, hash) VALUES (${spec.table}, ${definitionHash(spec)}) ON CONFLICT (name) DO UPDATE SET hash = EXCLUDED.hash, created_at = now()`;
  return rebuild.map((s) => s.table);
}

/**
 * The statement moving a rollup's rows from its former table (spec.formerly, keyed by text), as on
 * SQLite (triggers.sqlite.ts moveSql): a key list's keys in key order, or running totals with their
 * key's id. Rows of a key no longer listed (totals of nothing) stay behind.
 */
function moveSql(spec: RollupSpec): string {
  const former = spec.formerly!;
  const keys = [...Object.keys(spec.keys), "organization_id"];
  const measures = Object.keys(spec.measures);
  if (!spec.running) return `INSERT INTO ${spec.table} (${list([...keys, ...measures])}) SELECT ${list([...keys, ...measures])} FROM ${former} ORDER BY ${list(keys)}`;
  return `INSERT INTO ${spec.table} (${list(["key_id", "day", ...measures])}) SELECT k.id, f.day, ${list(measures, "f.")}
    FROM ${keysTable(spec)} AS k JOIN ${former} AS f ON ${sameKey(spec, "f", "k")} ORDER BY k.id, f.day`;
}

/** Instances that sent a heartbeat lately (answerwatch_instances), any release: `olderOnly`, those of a release with fewer migrations. */
async function liveInstances(sql: SQL, olderOnly = false, level = PG_SCHEMA_LEVEL, liveWithinMs = GONE_AFTER_MS): Promise<number> {
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM answerwatch_instances
                             WHERE heartbeat_at >= now() - make_interval(secs => ${liveWithinMs / 1000}) AND (${!olderOnly} OR schema IS NULL OR schema < ${level})`;
  return n;
}

/**
 * Drops the former tables of a rollup moved after the start (both of its pair: the key list's and
 * the totals', sharing the former key list) and, with `rewrite`, writes both rollups' triggers for
 * the new layout alone. In the caller's transaction, under the migration lock.
 */
async function dropFormerTables(tx: SQL, spec: RollupSpec, rewrite: boolean): Promise<void> {
  const pair = PG_ROLLUPS.filter((s) => samePair(s, spec));
  for (const s of pair) {
    for (const name of triggerNames({ table: s.formerly! })) {
      await tx.unsafe(`DROP TRIGGER IF EXISTS ${name} ON ${s.source}`);
      await tx.unsafe(`DROP FUNCTION IF EXISTS ${name}()`);
    }
    await tx.unsafe(`DROP TABLE IF EXISTS ${s.formerly} CASCADE`);
    await tx`DELETE FROM rollup_state WHERE name = ${s.formerly!}`;
  }
  if (rewrite) for (const s of pair) for (const statement of triggerSql(s)) await tx.unsafe(statement);
}

/** The running totals moved after the start, as the mover names them. */
const PG_MOVED_LATER = movedLater(PG_ROLLUPS);

/**
 * Moves up to `maxKeys` keys of one brand, with their rows, from the former tables of a rollup moved
 * after the start to its new ones (as on SQLite: triggers.sqlite.ts moveFormerRows), in one
 * statement under the brand's running-totals lock, which every trigger writing the brand takes
 * first: a key is in one list or the other at every commit. Nothing moves while an instance of an
 * older release runs (it reads only the former tables). The former tables stay when empty (a live
 * instance reads them): a start with no instance running drops them. `done` once none has a key left.
 */
export async function moveFormerPgRows(sql: SQL, maxKeys = 500): Promise<{ moved: number; done: boolean }> {
  const present = new Set(await existingTables(sql, PG_MOVED_LATER.map((m) => m.formerKeys)));
  if (!present.size) return { moved: 0, done: true };
  if ((await liveInstances(sql, true)) > 0) return { moved: 0, done: false };
  for (const m of PG_MOVED_LATER) {
    if (!present.has(m.formerKeys)) continue;
    const moved = await sql.begin(async (tx) => {
      const [next] = (await tx.unsafe(`SELECT brand_id FROM ${m.formerKeys} LIMIT 1`)) as { brand_id: string }[];
      if (!next) return null;
      // The brand's row first, as its delete or its move to another organization takes it before
      // their cascades take the running-totals lock or these rows: one order, no deadlock. Gone
      // meanwhile, its keys went with it.
      if (!(await tx`SELECT 1 FROM brands WHERE id = ${next.brand_id} FOR SHARE`).length) return 0;
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${RUNNING_LOCK}, ${brandLockKey("$1::uuid")})`, [next.brand_id]);
      const key = ["brand_id", ...m.keyColumns];
      const same = (a: string, b: string) => key.map((c) => `${a}.${q(c)} = ${b}.${q(c)}`).join(" AND ");
      const [{ n }] = await tx.unsafe(
        `WITH chosen AS (DELETE FROM ${m.formerKeys} WHERE (${list(key)}) IN (SELECT ${list(key)} FROM ${m.formerKeys} WHERE brand_id = $1 ORDER BY ${list(key)} LIMIT $2) RETURNING *),
              listed AS (INSERT INTO ${m.keys} (${list([...key, "organization_id", "rows"])}) SELECT ${list([...key, "organization_id", "rows"])} FROM chosen ORDER BY ${list(key)} RETURNING id, ${list(key)}),
              gone AS (DELETE FROM ${m.formerTotals} AS f USING chosen AS c WHERE ${same("f", "c")} RETURNING f.*),
              kept AS (INSERT INTO ${m.totals} (${list(["key_id", "day", ...m.measures])}) SELECT k.id, g.day, ${list(m.measures, "g.")} FROM gone AS g JOIN listed AS k ON ${same("k", "g")} ORDER BY k.id, g.day RETURNING 1)
         SELECT (SELECT count(*)::int FROM chosen) AS n, (SELECT count(*) FROM kept) AS rows`,
        [next.brand_id, maxKeys],
      );
      return n as number;
    });
    if (moved !== null) return { moved, done: false };
  }
  // Every key moved: the triggers that still keep the former layout too are written for the new one
  // alone, under the migration lock as at a start (rows kept, nothing rebuilt).
  const patterns = PG_MOVED_LATER.map((m) => `%${m.formerKeys}%`);
  const stillMoving = await sql`SELECT 1 FROM pg_proc WHERE pronamespace = current_schema()::regnamespace AND proname LIKE 'rollup\_%' AND prosrc LIKE ANY (${sql.array(patterns, "text")}::text[]) LIMIT 1`;
  if (stillMoving.length)
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      await ensurePgRollups(tx);
    });
  return { moved: 0, done: true };
}

/**
 * Drops the retired rollup tables (spec.ts RETIRED_ROLLUPS) still there, with their triggers, once
 * no live instance runs a release with fewer migrations than this one (answerwatch_instances.schema;
 * none: a release from before it): until then a rolling upgrade's older instances still read them,
 * and their triggers keep them current. At start (under the migration lock) and with the hourly
 * upkeep. Returns the tables dropped.
 */
export async function retirePgRollups(sql: SQL, level = PG_SCHEMA_LEVEL, liveWithinMs = GONE_AFTER_MS): Promise<string[]> {
  const retired = await existingTables(sql, RETIRED_ROLLUPS);
  if (!retired.length) return [];
  if ((await liveInstances(sql, true, level, liveWithinMs)) > 0) return [];
  const triggers = (await sql`SELECT t.tgname AS name, c.relname AS "table" FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
                               WHERE NOT t.tgisinternal AND t.tgparentid = 0 AND c.relnamespace = current_schema()::regnamespace
                                 AND t.tgname = ANY(${sql.array(retired.flatMap((table) => triggerNames({ table })), "text")}::text[])`) as { name: string; table: string }[];
  for (const t of triggers) {
    await sql.unsafe(`DROP TRIGGER IF EXISTS ${t.name} ON ${t.table}`);
    await sql.unsafe(`DROP FUNCTION IF EXISTS ${t.name}()`);
  }
  for (const table of retired) {
    await sql.unsafe(`DROP TABLE IF EXISTS ${table} CASCADE`);
    await sql`DELETE FROM rollup_state WHERE name = ${table}`;
  }
  return retired;
}

/** The rollup tables of spec.ts and their triggers, on Postgres. */
export const pgRollupsSchema: PgSchemaPart = { name: "rollups", ensure: ensurePgRollups };
