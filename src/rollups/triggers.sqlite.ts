// Rollup tables kept in the transaction of their raw rows by SQLite triggers, whatever path writes
// those rows (the tracking writer, /rest/v1 with the service key, an import, a brand's cascade
// delete), and rebuilt from raw rows when their definition changes or on demand
// (`answerwatch rollups rebuild`). Triggers and rebuild are both generated from spec.ts.
import type { Database } from "bun:sqlite";
import type { SchemaPart } from "../db/schema-part";
import { DEADLINE_FUNCTION } from "../db/statement-deadline";
import { PACKED_COLUMNS, TEXT_FUNCTION } from "../db/text-codec";
import { formerKeysOf, formerLayout, formerWhileMoving, samePair, inFormerKeys, keysTable, listedIn, MOVED_LATER, RETIRED_ROLLUPS, ROLLUPS, type RollupSpec } from "./spec";

const at = (expression: string, row: string) => expression.replaceAll("{r}", row);

/** SELECT of the bucket rows that raw row `row` adds (keys and summed measures, named as the rollup's columns). */
function contribution(spec: RollupSpec, row: string, sourceAlias?: string, perRawRow = false): string {
  const keys = Object.entries(spec.keys).map(([column, e]) => `${at(e, row)} AS ${column}`);
  const measures = Object.entries(spec.measures).map(([column, e]) => `${spec.combine?.[column] ?? "sum"}(${at(e, row)}) AS ${column}`);
  const from = [sourceAlias ? `${spec.source} AS ${sourceAlias}` : "", spec.from ? at(spec.from, row) : ""].filter(Boolean).join(", ");
  const groupBy = [...(perRawRow ? [`${row}.rowid`] : []), ...Object.values(spec.keys).map((e) => at(e, row))].join(", ");
  return `SELECT ${[...keys, ...measures].join(", ")}${from ? ` FROM ${from}` : ""} WHERE ${spec.where ? at(spec.where, row) : "1"} GROUP BY ${groupBy}`;
}

/** `only`: a condition over the bucket row (alias c) it is added under, as none when unset. */
function add(spec: RollupSpec, row: string, only = "1"): string {
  if (spec.listedOnly) return addExisting(spec, row);
  const columns = [...Object.keys(spec.keys), ...Object.keys(spec.measures)];
  const sums = Object.keys(spec.measures).map((m) => `${m} = ${spec.table}.${m} + excluded.${m}`);
  // A bucket row is only inserted when the raw row contributes something (GROUP BY over nothing is no row).
  return `INSERT INTO ${spec.table} (${columns.join(", ")}) SELECT * FROM (${contribution(spec, row)}) AS c WHERE ${only}
    ON CONFLICT (${Object.keys(spec.keys).join(", ")}) DO UPDATE SET ${sums.join(", ")};`;
}

/** Adds to the buckets already there only (a former key list while its keys move: no key joins it). */
function addExisting(spec: RollupSpec, row: string): string {
  const plus = Object.keys(spec.measures).map((m) => `${m} = ${spec.table}.${m} + s.${m}`);
  return `UPDATE ${spec.table} SET ${plus.join(", ")} FROM (${contribution(spec, row)}) AS s WHERE ${Object.keys(spec.keys).map((k) => `${spec.table}.${k} = s.${k}`).join(" AND ")};`;
}

function subtract(spec: RollupSpec, row: string): string {
  const keys = Object.keys(spec.keys);
  const match = keys.map((k) => `${spec.table}.${k} = s.${k}`).join(" AND ");
  const minus = Object.keys(spec.measures).map((m) => `${m} = ${spec.table}.${m} - s.${m}`);
  const update = `UPDATE ${spec.table} SET ${minus.join(", ")} FROM (${contribution(spec, row)}) AS s WHERE ${match};`;
  if (spec.keepEmpty) return update;
  return `${update}
  DELETE FROM ${spec.table} WHERE ${spec.countColumn} <= 0 AND (${keys.join(", ")}) IN (SELECT ${keys.join(", ")} FROM (${contribution(spec, row)}));`;
}

// Running totals (RollupSpec.running): a raw row added on day d makes sure its key has a row for d
// (carrying the total of the key's last earlier row), then adds to that row and every later one;
// removed, it subtracts from the same rows. Rows are never deleted: a key's history stays seekable.
// Rows are found by their key and day, never by rowid: the tables may be WITHOUT ROWID (issue #32).
const DAY = "substr({r}.created_at, 1, 10)";
const withDay = (spec: RollupSpec): RollupSpec => ({ ...spec, keys: { ...spec.keys, day: spec.day ?? DAY } });
const sameKey = (spec: RollupSpec, a: string, b: string) => Object.keys(spec.keys).map((k) => `${a}.${k} = ${b}.${k}`).join(" AND ");

/** `moving`: the former rows still move (spec.ts formerWhileMoving): a key still listed there is kept there. */
function addRunning(spec: RollupSpec, row: string, moving = false): string {
  const keys = Object.keys(spec.keys);
  const measures = Object.keys(spec.measures);
  if (!spec.from) return addRunningRow(spec, row);
  const c = contribution(withDay(spec), row);
  const carry = (p: string, c: string, same: (a: string) => string) =>
    `LEFT JOIN ${spec.table} AS ${p} ON ${same(p)} AND ${p}.day = (SELECT max(q.day) FROM ${spec.table} AS q WHERE ${same("q")} AND q.day < ${c}.day)`;
  if (spec.keyIds) {
    const keyList = keysTable(spec);
    // The keys first, counted: their ids are what the rows hold. The key list's own insert trigger
    // leaves them to this one (addsItself): the answer's list is read once for both.
    const listed = add(ROLLUPS.find((s) => s.table === keyList)!, row, moving ? `NOT ${inFormerKeys(spec, "c")}` : "1");
    const added = `INSERT INTO ${spec.table} (key_id, day, ${measures.join(", ")}) SELECT k.id, c.day, ${measures.map((m) => `coalesce(p.${m}, 0)`).join(", ")}
      FROM (${c}) AS c JOIN ${keyList} AS k ON ${sameKey(spec, "k", "c")} ${carry("p", "c", (a) => `${a}.key_id = k.id`)} WHERE 1 ON CONFLICT (key_id, day) DO NOTHING;`;
    const kept = `${listed}
  ${added}
  ${shiftRunning(spec, row, "+")}`;
    return moving ? `${kept}
  ${addRunning(formerWhileMoving(spec), row)}` : kept;
  }
  const carried = `SELECT ${keys.map((k) => `c.${k}`).join(", ")}, c.day, ${measures.map((m) => `coalesce(p.${m}, 0)`).join(", ")} FROM (${c}) AS c ${carry("p", "c", (a) => sameKey(spec, a, "c"))}`;
  // A former table while its keys move takes no key that is not listed there already.
  const only = spec.listedOnly ? listedIn(keysTable(spec), spec, "x") : "1";
  return `INSERT INTO ${spec.table} (${[...keys, "day", ...measures].join(", ")}) SELECT * FROM (${carried}) AS x WHERE ${only} ON CONFLICT (${[...keys, "day"].join(", ")}) DO NOTHING;
  ${shiftRunning(spec, row, "+")}`;
}

/**
 * The same for a rollup over the raw row alone (no joined list): one bucket row per raw row, so the
 * statements read the row's values directly instead of grouping a subquery — a log import fires
 * this once per request.
 */
function addRunningRow(spec: RollupSpec, row: string): string {
  return runningRowSql(spec, row).map((statement) => `${statement};`).join("\n  ");
}

/** addRunningRow's statements: the bucket's day row carrying the key's earlier total, then the row's measures added from that day on. */
function runningRowSql(spec: RollupSpec, row: string): string[] {
  const keys = Object.entries(withDay(spec).keys).map(([k, e]) => [k, at(e, row)] as const);
  const measures = Object.entries(spec.measures).map(([m, e]) => [m, at(e, row)] as const);
  const where = spec.where ? at(spec.where, row) : "1";
  const match = (alias: string) => keys.filter(([k]) => k !== "day").map(([k, e]) => `${alias}.${k} = ${e}`).join(" AND ");
  const day = keys.find(([k]) => k === "day")![1];
  if (spec.keyIds) {
    const keyList = keysTable(spec);
    const keyColumns = keys.filter(([k]) => k !== "day");
    return [
      // The key first (its own rollup's trigger may fire after this one): its id is what the totals' rows hold.
      `INSERT INTO ${keyList} (${keyColumns.map(([k]) => k).join(", ")}, rows) SELECT ${keyColumns.map(([, e]) => e).join(", ")}, 0 WHERE ${where} ON CONFLICT DO NOTHING`,
      `INSERT INTO ${spec.table} (key_id, day, ${measures.map(([m]) => m).join(", ")})
      SELECT k.id, ${day}, ${measures.map(([m]) => `coalesce(p.${m}, 0)`).join(", ")} FROM ${keyList} AS k
      LEFT JOIN ${spec.table} AS p ON p.key_id = k.id AND p.day = (SELECT max(q.day) FROM ${spec.table} AS q WHERE q.key_id = k.id AND q.day < ${day})
      WHERE ${match("k")} AND ${where} ON CONFLICT (key_id, day) DO NOTHING`,
      `UPDATE ${spec.table} SET ${measures.map(([m, e]) => `${m} = ${m} + ${e}`).join(", ")} WHERE key_id = (SELECT k.id FROM ${keyList} AS k WHERE ${match("k")}) AND day >= ${day} AND ${where}`,
    ];
  }
  return [
    `INSERT INTO ${spec.table} (${[...keys.map(([k]) => k), ...measures.map(([m]) => m)].join(", ")})
      SELECT ${keys.map(([, e]) => e).join(", ")}, ${measures.map(([m]) => `coalesce(p.${m}, 0)`).join(", ")} FROM (SELECT 1)
      LEFT JOIN ${spec.table} AS p ON ${match("p")} AND p.day = (SELECT max(q.day) FROM ${spec.table} AS q WHERE ${match("q")} AND q.day < ${day})
      WHERE ${where} ON CONFLICT (${keys.map(([k]) => k).join(", ")}) DO NOTHING`,
    `UPDATE ${spec.table} SET ${measures.map(([m, e]) => `${m} = ${m} + ${e}`).join(", ")} WHERE ${match(spec.table)} AND day >= ${day} AND ${where}`,
  ];
}

function shiftRunning(spec: RollupSpec, row: string, sign: "+" | "-"): string {
  const measures = Object.keys(spec.measures).map((m) => `${m} = ${spec.table}.${m} ${sign} c.${m}`);
  // Keyed by id: the contribution's key found in the key list (a key no longer listed has no rows left to shift).
  if (spec.keyIds)
    return `UPDATE ${spec.table} SET ${measures.join(", ")} FROM (${contribution(withDay(spec), row)}) AS c, ${keysTable(spec)} AS k WHERE ${sameKey(spec, "k", "c")} AND ${spec.table}.key_id = k.id AND ${spec.table}.day >= c.day;`;
  return `UPDATE ${spec.table} SET ${measures.join(", ")} FROM (${contribution(withDay(spec), row)}) AS c WHERE ${sameKey(spec, spec.table, "c")} AND ${spec.table}.day >= c.day;`;
}

function rebuildRunning(spec: RollupSpec): string {
  const keys = Object.keys(spec.keys);
  const measures = Object.keys(spec.measures);
  const perDay = `SELECT ${keys.join(", ")}, day, ${measures.map((m) => `sum(${m}) AS ${m}`).join(", ")} FROM (${contribution(withDay(spec), "r", "r", true)}) GROUP BY ${[...keys, "day"].join(", ")}`;
  if (spec.keyIds) {
    // The key list is rebuilt first (it comes first in spec.ts): each day's sums take their key's id.
    const totals = measures.map((m) => `sum(x.${m}) OVER (PARTITION BY k.id ORDER BY x.day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`);
    return `INSERT INTO ${spec.table} (key_id, day, ${measures.join(", ")}) SELECT k.id, x.day, ${totals.join(", ")} FROM (${perDay}) AS x JOIN ${keysTable(spec)} AS k ON ${sameKey(spec, "k", "x")}`;
  }
  const totals = measures.map((m) => `sum(${m}) OVER (PARTITION BY ${keys.join(", ")} ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`);
  return `INSERT INTO ${spec.table} (${[...keys, "day", ...measures].join(", ")}) SELECT ${keys.join(", ")}, day, ${totals.join(", ")} FROM (${perDay})`;
}

/**
 * An update that leaves every watched value as it was changes no rollup. A packed column counts by
 * its text, compared last: storage upkeep repacking an answer's citations with its brand's
 * dictionary (src/storage/dictionaries.sqlite.ts) changes their bytes, not what they say.
 */
function changed(spec: RollupSpec): string {
  const packed = (c: string) => spec.source === "prompt_results" && (PACKED_COLUMNS as readonly string[]).includes(c);
  const plain = spec.watch.filter((c) => !packed(c)).map((c) => `OLD.${c} IS NOT NEW.${c}`);
  const text = spec.watch.filter(packed).map((c) => `${TEXT_FUNCTION}(OLD.${c}) IS NOT ${TEXT_FUNCTION}(NEW.${c})`);
  return [...plain, ...text].join(" OR ");
}

export function triggerNames(spec: RollupSpec): string[] {
  return ["insert", "delete", "update"].map((kind) => `rollup_${spec.table}_${kind}`);
}

/**
 * The CREATE TRIGGER statements that keep one rollup current. `moving`: its former rows still move
 * (spec.ts RollupSpec.moveLater): a key listed in the former key list is kept there, any other in
 * the new one; removals are taken from both (a key's rows are in one of them).
 */
export function triggerSql(spec: RollupSpec, moving = false): string[] {
  const [insert, remove, update] = triggerNames(spec);
  const former = moving ? formerWhileMoving(spec) : null;
  // The key list of totals keyed by id over a joined list is added to by its totals' trigger
  // (addRunning); the log-fed ones' stay counted here, where the bulk writer's buckets count them too.
  const addsItself = !(spec.keepEmpty && spec.from);
  const [plus, minus] = spec.running
    ? [addRunning(spec, "NEW", moving), [shiftRunning(spec, "OLD", "-"), former ? shiftRunning(former, "OLD", "-") : ""]]
    : [[addsItself ? add(spec, "NEW", former ? `NOT ${inFormerKeys(spec, "c")}` : "1") : "", former ? add(former, "NEW") : ""], [subtract(spec, "OLD"), former ? subtract(former, "OLD") : ""]];
  // A trigger holds one statement at least: one that adds nothing has a SELECT of nothing.
  const body = (statements: string[]) => statements.flat().filter(Boolean).join("\n  ") || "SELECT 0 WHERE 0;";
  return [
    `CREATE TRIGGER ${insert} AFTER INSERT ON ${spec.source} BEGIN\n  ${body([plus].flat())}\nEND`,
    // A removed row passes the statement's deadline first: a cascade through /rest/v1 stops at STATEMENT_TIMEOUT_MS (db/statement-deadline.ts).
    `CREATE TRIGGER ${remove} AFTER DELETE ON ${spec.source} BEGIN\n  SELECT ${DEADLINE_FUNCTION}();\n  ${body([minus].flat())}\nEND`,
    `CREATE TRIGGER ${update} AFTER UPDATE OF ${spec.watch.join(", ")} ON ${spec.source} WHEN ${changed(spec)} BEGIN\n  ${body([minus, plus].flat())}\nEND`,
  ];
}

/** Recomputes one rollup from its raw rows. */
export function rebuildSql(spec: RollupSpec): string[] {
  const columns = [...Object.keys(spec.keys), ...Object.keys(spec.measures)];
  if (spec.running) return [`DELETE FROM ${spec.table}`, rebuildRunning(spec)];
  // A measure combined per raw row (`combine`) is combined per row first, then summed per bucket.
  const rows = spec.combine
    ? `SELECT ${Object.keys(spec.keys).join(", ")}, ${Object.keys(spec.measures).map((m) => `sum(${m})`).join(", ")} FROM (${contribution(spec, "r", "r", true)}) GROUP BY ${Object.keys(spec.keys).join(", ")}`
    : contribution(spec, "r", "r");
  return [`DELETE FROM ${spec.table}`, `INSERT INTO ${spec.table} (${columns.join(", ")}) ${rows}`];
}

/** One bucket of a rollup and what a batch adds to it: a value for each key column (and `day` for a running total) and each measure. */
export type BucketSums = Record<string, string | number>;

/** The columns a bucket binds, in bucketSql's parameter order (?1, ?2, …). */
const bucketColumns = (spec: RollupSpec) => [...Object.keys(spec.keys), ...(spec.running ? ["day"] : []), ...Object.keys(spec.measures)];

/**
 * The statements adding one bucket's sums to a rollup (values bound in bucketColumns' order): an
 * upsert, or for a running total (as its trigger does) a row for the bucket's day carrying the
 * key's total before it, then the sums added to that row and every later one of the key.
 */
function bucketSql(spec: RollupSpec): string[] {
  const keys = Object.keys(spec.keys);
  const measures = Object.keys(spec.measures);
  const param = new Map(bucketColumns(spec).map((column, i) => [column, `?${i + 1}`]));
  if (!spec.running)
    return [
      `INSERT INTO ${spec.table} (${[...param.keys()].join(", ")}) VALUES (${[...param.values()].join(", ")})
        ON CONFLICT (${keys.join(", ")}) DO UPDATE SET ${measures.map((m) => `${m} = ${spec.table}.${m} + excluded.${m}`).join(", ")}`,
    ];
  const bound: RollupSpec = { ...spec, from: undefined, where: undefined, keys: Object.fromEntries(keys.map((k) => [k, param.get(k)!])), day: param.get("day")!, measures: Object.fromEntries(measures.map((m) => [m, param.get(m)!])) };
  return runningRowSql(bound, "NEW");
}

/** A running total's last row (its latest day and totals), as a bulk writer last left it; keyed by id, the key's id. */
interface Tail {
  day: string;
  totals: number[];
  keyId?: number;
}

/** Keys remembered per running rollup by a bulk writer; past it, it forgets them all (memory stays bounded). */
const MAX_TAILS = 200_000;

/**
 * Set-based rollup maintenance for bulk writes into `source` (issue #32): each write adds its rows'
 * buckets (aggregated by the caller) once per distinct bucket, where the per-row triggers would
 * have run once per raw row. A running total's bucket needs the key's total before its day; an
 * import runs forward in time, so the writer remembers each key's last row and, for a day after it,
 * writes the new row in one insert — no look-up, no later rows to shift. Whenever anything else
 * wrote in between — another connection (PRAGMA data_version) or this one (total_changes(), which
 * counts its triggers' rows too) — or a write failed, it forgets them.
 */
export function createBulkRollups(sqlite: Database, source: string) {
  const specs = ROLLUPS.filter((spec) => spec.source === source);
  const prepared = new Map(
    specs.map((spec) => {
      const keys = Object.keys(spec.keys);
      const measures = Object.keys(spec.measures);
      const byKey = keys.map((k, i) => `${k} = ?${i + 1}`).join(" AND ");
      // Keyed by id: the key's id beside its last row (the key list is written first, spec.ts order), the key's day and totals after it.
      const last = !spec.running
        ? null
        : spec.keyIds
          ? sqlite.query(`SELECT t.day, ${measures.map((m) => `t.${m}`).join(", ")}, k.id FROM ${keysTable(spec)} AS k LEFT JOIN ${spec.table} AS t ON t.key_id = k.id AND t.day = (SELECT max(day) FROM ${spec.table} WHERE key_id = k.id) WHERE ${byKey}`)
          : sqlite.query(`SELECT day, ${measures.join(", ")} FROM ${spec.table} WHERE ${byKey} ORDER BY day DESC LIMIT 1`);
      // Keyed by id and the id known (the key list's upsert returned it): the last row in one seek.
      const lastById = spec.running && spec.keyIds ? sqlite.query(`SELECT day, ${measures.join(", ")} FROM ${spec.table} WHERE key_id = ?1 ORDER BY day DESC LIMIT 1`) : null;
      const appended = spec.keyIds ? ["key_id", "day", ...measures] : bucketColumns(spec);
      const append = spec.running ? sqlite.query(`INSERT INTO ${spec.table} (${appended.join(", ")}) VALUES (${appended.map((_, i) => `?${i + 1}`).join(", ")})`) : null;
      // The key's last row taking the bucket's day again (a batch that began inside the day the one
      // before ended in): its totals replaced, as no later row of the key exists.
      const rowKey = spec.keyIds ? ["key_id", "day"] : [...keys, "day"];
      const replaceLast = spec.running
        ? sqlite.query(`UPDATE ${spec.table} SET ${measures.map((m, i) => `${m} = ?${i + 1}`).join(", ")} WHERE ${rowKey.map((k, i) => `${k} = ?${measures.length + i + 1}`).join(" AND ")}`)
        : null;
      // A key list (another rollup's keys, spec.ts withKeyList): its upsert returns the key's id for the totals after it.
      const listing = !spec.running && ROLLUPS.some((s) => s.keyIds && s.source === source && keysTable(s) === spec.table);
      const statements = bucketSql(spec).map((sql) => sqlite.query(listing ? `${sql} RETURNING id` : sql));
      return [spec, { keys, measures, columns: bucketColumns(spec), statements, listing, last, lastById, append, replaceLast, tails: new Map<string, Tail>() }] as const;
    }),
  );
  let state: string | null = null;
  const writes = sqlite.query("SELECT (SELECT data_version FROM pragma_data_version) || ':' || total_changes() AS state");
  const writesNow = () => (writes.get() as { state: string }).state;
  // Each key list's ids by key (values joined), as its upsert returned them this write.
  const listedIds = new Map<string, Map<string, number>>();
  const forget = () => {
    for (const p of prepared.values()) p.tails.clear();
    listedIds.clear();
  };

  function add(spec: RollupSpec, buckets: Iterable<BucketSums>) {
    const { keys, measures, columns, statements, listing, last, lastById, append, replaceLast, tails } = prepared.get(spec)!;
    const ids = listing ? new Map<string, number>() : null;
    if (ids) listedIds.set(spec.table, ids);
    const listed = spec.keyIds ? listedIds.get(keysTable(spec)) : undefined;
    for (const bucket of buckets) {
      const values = columns.map((column) => bucket[column]!);
      if (!spec.running) {
        if (!ids) statements[0]!.run(...(values as [string]));
        else ids.set(values.slice(0, keys.length).join("\u0000"), (statements[0]!.get(...(values as [string])) as { id: number }).id);
        continue;
      }
      const keyValues = values.slice(0, keys.length) as [string];
      const id = keyValues.join("\u0000");
      const day = bucket.day as string;
      const sums = measures.map((m) => bucket[m] as number);
      let tail = tails.get(id);
      if (!tail) {
        const listedId = listed?.get(id);
        const row = (listedId === undefined ? last!.values(...keyValues)[0] : lastById!.values(listedId)[0]) as [string | null, ...number[]] | undefined;
        if (tails.size >= MAX_TAILS) tails.clear();
        const keyId = spec.keyIds ? (listedId ?? (row?.at(-1) as number | undefined)) : undefined;
        const found = row && row[0] !== null ? { day: row[0], totals: row.slice(1, 1 + measures.length) as number[] } : { day: "", totals: sums.map(() => 0) };
        tails.set(id, (tail = { ...found, keyId }));
      }
      // The key list is written before its totals (spec.ts order): a keyed total always finds its key.
      if (spec.keyIds && tail.keyId === undefined) throw new Error(`${spec.table}: key (${keyValues.join(", ")}) not listed in ${keysTable(spec)}`);
      const keyOfRows = spec.keyIds ? [tail.keyId!] : keyValues;
      if (day > tail.day) {
        tail.day = day;
        tail.totals = tail.totals.map((t, i) => t + sums[i]!);
        append!.run(...keyOfRows, day, ...tail.totals);
      } else if (day === tail.day) {
        tail.totals = tail.totals.map((t, i) => t + sums[i]!);
        replaceLast!.run(...tail.totals, ...keyOfRows, day);
      } else {
        // A day before the key's last: the general statements (carry, then add to every later row, the last included).
        for (const statement of statements) statement.run(...(values.slice(0, statement.paramsCount) as [string]));
        tail.totals = tail.totals.map((t, i) => t + sums[i]!);
      }
    }
  }

  return {
    /**
     * Runs `write` inside the caller's write transaction with the per-row insert triggers of the
     * source's rollups set aside (dropped, then made again before it commits: no other connection
     * ever sees them missing), then adds the buckets it returns, one iterable per rollup table.
     * For large batches only: the schema change makes other connections prepare their statements again.
     */
    write<T>(write: () => { out: T; buckets: Map<string, Iterable<BucketSums>> }): T {
      try {
        if (writesNow() !== state) forget();
        for (const spec of specs) sqlite.run(`DROP TRIGGER IF EXISTS ${triggerNames(spec)[0]}`);
        const { out, buckets } = write();
        for (const spec of specs) {
          const rows = buckets.get(spec.table);
          if (!rows) throw new Error(`a bulk write into ${source} brought no buckets for ${spec.table}`);
          add(spec, rows);
        }
        for (const spec of specs) sqlite.run(triggerSql(spec)[0]!);
        state = writesNow();
        return out;
      } catch (error) {
        state = null;
        forget();
        throw error;
      }
    },
    /** Forgets every remembered running total (the caller's transaction failed after write). */
    forget() {
      state = null;
      forget();
    },
  };
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

/**
 * The hash stored before issue #32, which covered the triggers' text as well: equal to the stored
 * one while the triggers it was computed with are still in place, the rows then being what
 * `rebuildSql` makes. Lets an upgrade that only rewrites triggers keep the rows.
 */
function hashWithTriggers(spec: RollupSpec, triggers: Map<string, string>): string {
  return Bun.hash([...triggerNames(spec).map((name) => triggers.get(name) ?? ""), ...rebuildSql(spec)].join("\n")).toString(16);
}

/**
 * Rebuilds the given rollups (all by default) from raw rows, in dependency order, in one transaction.
 * A rollup whose former rows were still moving then has them all: its former tables go.
 */
export function rebuildRollups(sqlite: Database, specs: RollupSpec[] = ROLLUPS): { table: string; rows: number; ms: number }[] {
  return sqlite.transaction(() =>
    specs.map((spec) => {
      if (spec.moveLater && tableExists(sqlite, formerKeysOf(spec))) dropFormerTables(sqlite, spec);
      const started = performance.now();
      for (const statement of rebuildSql(spec)) sqlite.run(statement);
      const rows = (sqlite.query(`SELECT count(*) AS n FROM ${spec.table}`).get() as { n: number }).n;
      return { table: spec.table, rows, ms: Math.round(performance.now() - started) };
    }),
  ).immediate();
}

/**
 * Makes the rollups match spec.ts: a rollup whose rows' definition changed (or is new, as after the
 * upgrade that introduced it) gets its triggers replaced and its rows rebuilt, all in one
 * transaction; one whose triggers are only written differently gets them replaced, its rows kept.
 * Then retired tables are dropped and tables kept WITHOUT ROWID, up to `convertUpTo` rows each.
 * Called on the server's main connection after migrations; returns the rollups rebuilt.
 */
export function ensureRollups(sqlite: Database, options: { convertUpTo?: number } = {}): string[] {
  const rebuilt = ensureTriggers(sqlite);
  dropRetiredRollups(sqlite, options.convertUpTo ?? CONVERT_AT_START_ROWS);
  keepKeysOnce(sqlite, options.convertUpTo ?? CONVERT_AT_START_ROWS);
  return rebuilt;
}

/** Drops the retired rollup tables (spec.ts) of up to `maxRows` rows; returns those dropped. Their triggers are gone already: ensureTriggers drops those of rollups no longer defined. */
export function dropRetiredRollups(sqlite: Database, maxRows = Infinity): string[] {
  return RETIRED_ROLLUPS.filter((table) => {
    if (!tableExists(sqlite, table) || rowsAbove(sqlite, table, maxRows)) return false;
    sqlite.transaction(() => {
      sqlite.run(`DROP TABLE "${table}"`);
      sqlite.run("DELETE FROM rollup_state WHERE name = ?", [table]);
    }).immediate();
    return true;
  });
}

const rowsAbove = (sqlite: Database, table: string, maxRows: number) =>
  maxRows !== Infinity && (sqlite.query(`SELECT count(*) AS n FROM (SELECT 1 FROM "${table}" LIMIT ${maxRows + 1})`).get() as { n: number }).n > maxRows;

export const tableExists = (sqlite: Database, table: string) => sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== null;

/** The rollups whose former rows still move after the start (spec.ts RollupSpec.moveLater): their former key list is still there. */
function movingTables(sqlite: Database): Set<string> {
  return new Set(ROLLUPS.filter((spec) => spec.moveLater && tableExists(sqlite, formerKeysOf(spec))).map((spec) => spec.table));
}

/**
 * Drops the former tables of a rollup moved after the start (its key list's and its totals', both
 * sharing the former key list) and writes both rollups' triggers for the new layout alone: once the
 * former key list is empty, or when the new tables are rebuilt from the raw rows instead. In the
 * caller's write transaction.
 */
function dropFormerTables(sqlite: Database, spec: RollupSpec): void {
  const pair = ROLLUPS.filter((s) => samePair(s, spec));
  for (const s of pair) {
    for (const name of [...triggerNames(s), ...triggerNames({ ...s, table: s.formerly! })]) sqlite.run(`DROP TRIGGER IF EXISTS ${name}`);
    sqlite.run(`DROP TABLE IF EXISTS ${s.formerly}`);
    sqlite.run("DELETE FROM rollup_state WHERE name = ?", [s.formerly!]);
  }
  for (const s of pair) for (const statement of triggerSql(s)) sqlite.run(statement);
}

/** What ensureTriggers has to do, read from the database as it is now. */
function rollupPlan(sqlite: Database) {
  const stored = new Map((sqlite.query("SELECT name, hash FROM rollup_state").all() as { name: string; hash: string }[]).map((r) => [r.name, r.hash]));
  // A table rebuilt by a later migration (create, copy, drop, rename) loses its triggers: a missing one makes its rollup stale.
  const triggers = new Map((sqlite.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all() as { name: string; sql: string }[]).map((r) => [r.name, r.sql]));
  const current = (spec: RollupSpec) => {
    const hash = stored.get(spec.table);
    return (hash === definitionHash(spec) || hash === hashWithTriggers(spec, triggers)) && triggerNames(spec).every((name) => triggers.has(name));
  };
  const moving = movingTables(sqlite);
  // A new rollup whose former table (spec.formerly) is current: its rows are moved across, not rebuilt
  // — at once, or after the start (moveLater: its triggers keep both layouts until then).
  const takesOver = (spec: RollupSpec) => {
    const former = formerLayout(spec);
    return former !== null && !stored.has(spec.table) && current(former);
  };
  const moved = ROLLUPS.filter((spec) => takesOver(spec) && !spec.moveLater);
  const adopted = ROLLUPS.filter((spec) => takesOver(spec) && spec.moveLater && moving.has(spec.table));
  // Triggers of a rollup that is no longer defined (its table dropped by a migration) would fail every
  // write; a former table's go in the transaction that moves its rows: nothing written before is lost.
  const defined = new Set(ROLLUPS.flatMap(triggerNames));
  const undefinedTriggers = [...triggers.keys()].filter((name) => name.startsWith("rollup_") && !defined.has(name));
  const stale = ROLLUPS.filter((spec) => !current(spec) && !moved.includes(spec) && !adopted.includes(spec));
  // A rollup fed by a stale one is rebuilt after it, even if its own definition did not change; and
  // totals keyed by id with their key list (rebuilt, it gives its keys new ids).
  // A rollup whose former rows still move goes with its pair: rebuilt, it holds every key.
  const rebuild = ROLLUPS.filter((spec) => stale.includes(spec) || stale.some((s) => s.table === spec.source || (spec.keyIds && s.table === keysTable(spec)) || (moving.has(spec.table) && moving.has(s.table) && samePair(s, spec))));
  // Triggers written differently (same rows): replaced, the rows kept.
  const rewritten = ROLLUPS.filter((spec) => !rebuild.includes(spec) && (stored.get(spec.table) !== definitionHash(spec) || triggerSql(spec, moving.has(spec.table)).some((sql, i) => triggers.get(triggerNames(spec)[i]!) !== sql)));
  // Former tables of rollups moved after the start that go now: their key list is empty (a new
  // database's, or every key moved), or the new tables are rebuilt from the raw rows.
  const formerDone = ROLLUPS.filter((spec) => moving.has(spec.table) && (rebuild.includes(spec) || sqlite.query(`SELECT 1 FROM ${formerKeysOf(spec)} LIMIT 1`).get() === null));
  return { moved: moved.filter((spec) => !rebuild.includes(spec)), undefinedTriggers, rebuild, rewritten, moving, formerDone };
}

function ensureTriggers(sqlite: Database): string[] {
  const first = rollupPlan(sqlite);
  if (!first.rebuild.length && !first.rewritten.length && !first.undefinedTriggers.length && !first.formerDone.length) return [];
  // Planned again under the write lock: another process starting beside this one (a CLI import) may
  // have done it meanwhile, and a move made twice would copy tables no longer kept.
  return sqlite.transaction(() => {
    for (const spec of rollupPlan(sqlite).formerDone) dropFormerTables(sqlite, spec);
    const { moved, undefinedTriggers, rebuild, rewritten, moving } = rollupPlan(sqlite);
    for (const spec of moved) {
      sqlite.run(`DELETE FROM ${spec.table}`);
      sqlite.run(moveSql(spec));
    }
    for (const name of undefinedTriggers) sqlite.run(`DROP TRIGGER IF EXISTS ${name}`);
    for (const spec of [...rebuild, ...rewritten]) {
      for (const name of triggerNames(spec)) sqlite.run(`DROP TRIGGER IF EXISTS ${name}`);
      for (const statement of triggerSql(spec, moving.has(spec.table))) sqlite.run(statement);
    }
    rebuildRollups(sqlite, rebuild);
    for (const spec of [...rebuild, ...rewritten]) sqlite.run("INSERT INTO rollup_state (name, hash) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at", [spec.table, definitionHash(spec)]);
    return rebuild.map((s) => s.table);
  }).immediate();
}

/**
 * The statement moving a rollup's rows from its former table (spec.formerly, keyed by text): a key
 * list's keys in key order (their ids in that order), or running totals with their key's id — the
 * keys in id order, each seeking its rows, so the table is written as one ascending run. Rows of a
 * key no longer listed (all its raw rows removed: totals of nothing) stay behind.
 */
function moveSql(spec: RollupSpec): string {
  const former = spec.formerly!;
  const keys = Object.keys(spec.keys);
  const measures = Object.keys(spec.measures);
  if (!spec.running) return `INSERT INTO ${spec.table} (${[...keys, ...measures].join(", ")}) SELECT ${[...keys, ...measures].join(", ")} FROM ${former} ORDER BY ${keys.join(", ")}`;
  return `INSERT INTO ${spec.table} (key_id, day, ${measures.join(", ")}) SELECT k.id, f.day, ${measures.map((m) => `f.${m}`).join(", ")}
    FROM ${keysTable(spec)} AS k JOIN ${former} AS f ON ${sameKey(spec, "f", "k")} ORDER BY k.id, f.day`;
}

/**
 * Moves up to `maxKeys` keys of one brand, with their rows, from the former tables of a rollup moved
 * after the start (spec.ts RollupSpec.moveLater) to its new ones, in one short write transaction: a
 * key is in one list or the other at every commit, so reads and triggers never see it twice or not
 * at all. When a former key list is found empty, its former tables go (dropFormerTables). Returns
 * the keys moved, and `done` once no former table is left. Called again and again by the server's
 * runtime (through src/storage) until done; every call ends by its count.
 */
export function moveFormerRows(sqlite: Database, maxKeys = 500): { moved: number; done: boolean } {
  for (const m of MOVED_LATER.values()) {
    if (!tableExists(sqlite, m.formerKeys)) continue;
    const moved = sqlite.transaction(() => {
      // Planned under the write lock: another process may have moved the last keys meanwhile.
      if (!tableExists(sqlite, m.formerKeys)) return 0;
      const next = sqlite.query(`SELECT brand_id FROM ${m.formerKeys} LIMIT 1`).get() as { brand_id: string } | null;
      if (!next) {
        dropFormerTables(sqlite, ROLLUPS.find((spec) => spec.table === m.totals)!);
        return 0;
      }
      const key = ["brand_id", ...m.keyColumns];
      const same = (a: string, b: string) => key.map((c) => `${a}.${c} = ${b}.${c}`).join(" AND ");
      // The same keys in every statement: the first of the brand in key order (nothing else writes meanwhile).
      const chosen = `(SELECT ${key.join(", ")}, rows FROM ${m.formerKeys} WHERE brand_id = ?1 ORDER BY ${key.join(", ")} LIMIT ?2)`;
      sqlite.query(`INSERT INTO ${m.keys} (${key.join(", ")}, rows) SELECT ${key.join(", ")}, rows FROM ${chosen} ORDER BY ${key.join(", ")}`).run(next.brand_id, maxKeys);
      sqlite
        .query(
          `INSERT INTO ${m.totals} (key_id, day, ${m.measures.join(", ")}) SELECT k.id, f.day, ${m.measures.map((x) => `f.${x}`).join(", ")}
             FROM ${chosen} AS c JOIN ${m.keys} AS k ON ${same("k", "c")} JOIN ${m.formerTotals} AS f ON ${same("f", "c")} ORDER BY k.id, f.day`,
        )
        .run(next.brand_id, maxKeys);
      sqlite.query(`DELETE FROM ${m.formerTotals} WHERE (${key.join(", ")}) IN (SELECT ${key.join(", ")} FROM ${chosen})`).run(next.brand_id, maxKeys);
      return sqlite.query(`DELETE FROM ${m.formerKeys} WHERE (${key.join(", ")}) IN (SELECT ${key.join(", ")} FROM ${chosen})`).run(next.brand_id, maxKeys).changes;
    }).immediate();
    if (moved) return { moved, done: false };
  }
  return { moved: 0, done: true };
}

/**
 * Rollup tables up to this many rows are made WITHOUT ROWID at start (a fresh database's all are):
 * each well under a second. Larger ones keep their layout until `answerwatch vacuum --full`, so the
 * first start after an upgrade stays short (issue #32, target 5).
 */
export const CONVERT_AT_START_ROWS = 50_000;

/**
 * Makes each rollup table of up to `maxRows` rows a WITHOUT ROWID table (issue #32): its rows kept
 * once, in its primary key's b-tree, instead of in a rowid table plus that key's index — about half
 * the bytes, and one b-tree to write instead of two. The rows, secondary indexes and triggers stay
 * (those on the raw tables name the rollup, which keeps its name). One transaction per table.
 * Returns the tables converted.
 */
export function keepKeysOnce(sqlite: Database, maxRows = Infinity): string[] {
  const converted: string[] = [];
  const layout = sqlite.query("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?");
  // A key list of totals keyed by id stays a rowid table: the rowid is the id its totals hold.
  const keyLists = new Set(ROLLUPS.filter((spec) => spec.keyIds).map(keysTable));
  for (const table of new Set(ROLLUPS.map((spec) => spec.table))) {
    if (keyLists.has(table) || (layout.get(table) as { wr: number } | null)?.wr !== 0) continue;
    if (rowsAbove(sqlite, table, maxRows)) continue;
    const definitions = sqlite.query("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL").all(table) as { type: string; name: string; sql: string }[];
    const create = definitions.find((d) => d.type === "table")!.sql;
    // Its indexes, and the triggers on it (a rollup fed by this one: traffic_visitor_days), go with the old table.
    const dependents = definitions.filter((d) => d.type === "index" || d.type === "trigger").map((d) => d.sql);
    // Copied aside, dropped and made again under its own name: renaming a table re-reads every
    // trigger of the schema (~13 ms a table even when empty), which a fresh database's start would pay for each.
    sqlite.transaction(() => {
      sqlite.run(`CREATE TEMP TABLE aw_keyed_copy AS SELECT * FROM "${table}"`);
      sqlite.run(`DROP TABLE "${table}"`);
      sqlite.run(`${create.trimEnd()} WITHOUT ROWID`);
      sqlite.run(`INSERT INTO "${table}" SELECT * FROM temp.aw_keyed_copy`);
      sqlite.run("DROP TABLE temp.aw_keyed_copy");
      for (const sql of dependents) sqlite.run(sql);
    }).immediate();
    converted.push(table);
  }
  return converted;
}

/** The rollup tables of spec.ts and their triggers. */
export const rollupsSchema: SchemaPart = { name: "rollups", ensure: ensureRollups };
