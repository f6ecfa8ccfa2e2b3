// Rollup tables kept in the transaction of their raw rows by SQLite triggers, whatever path writes
// those rows (the tracking writer, /rest/v1 with the service key, an import, a brand's cascade
// delete), and rebuilt from raw rows when their definition changes or on demand
// (`answerwatch rollups rebuild`). Triggers and rebuild are both generated from spec.ts.
import type { Database } from "bun:sqlite";
import type { SchemaPart } from "../db/schema-part";
import { ROLLUPS, type RollupSpec } from "./spec";

const at = (expression: string, row: string) => expression.replaceAll("{r}", row);

/** SELECT of the bucket rows that raw row `row` adds (keys and summed measures, named as the rollup's columns). */
function contribution(spec: RollupSpec, row: string, sourceAlias?: string, perRawRow = false): string {
  const keys = Object.entries(spec.keys).map(([column, e]) => `${at(e, row)} AS ${column}`);
  const measures = Object.entries(spec.measures).map(([column, e]) => `${spec.combine?.[column] ?? "sum"}(${at(e, row)}) AS ${column}`);
  const from = [sourceAlias ? `${spec.source} AS ${sourceAlias}` : "", spec.from ? at(spec.from, row) : ""].filter(Boolean).join(", ");
  const groupBy = [...(perRawRow ? [`${row}.rowid`] : []), ...Object.values(spec.keys).map((e) => at(e, row))].join(", ");
  return `SELECT ${[...keys, ...measures].join(", ")}${from ? ` FROM ${from}` : ""} WHERE ${spec.where ? at(spec.where, row) : "1"} GROUP BY ${groupBy}`;
}

function add(spec: RollupSpec, row: string): string {
  const columns = [...Object.keys(spec.keys), ...Object.keys(spec.measures)];
  const sums = Object.keys(spec.measures).map((m) => `${m} = ${spec.table}.${m} + excluded.${m}`);
  // A bucket row is only inserted when the raw row contributes something (GROUP BY over nothing is no row).
  return `INSERT INTO ${spec.table} (${columns.join(", ")}) SELECT * FROM (${contribution(spec, row)}) WHERE 1
    ON CONFLICT (${Object.keys(spec.keys).join(", ")}) DO UPDATE SET ${sums.join(", ")};`;
}

function subtract(spec: RollupSpec, row: string): string {
  const keys = Object.keys(spec.keys);
  const match = keys.map((k) => `${spec.table}.${k} = s.${k}`).join(" AND ");
  const minus = Object.keys(spec.measures).map((m) => `${m} = ${spec.table}.${m} - s.${m}`);
  return `UPDATE ${spec.table} SET ${minus.join(", ")} FROM (${contribution(spec, row)}) AS s WHERE ${match};
  DELETE FROM ${spec.table} WHERE ${spec.countColumn} <= 0 AND (${keys.join(", ")}) IN (SELECT ${keys.join(", ")} FROM (${contribution(spec, row)}));`;
}

// Running totals (RollupSpec.running): a raw row added on day d makes sure its key has a row for d
// (carrying the total of the key's last earlier row), then adds to that row and every later one;
// removed, it subtracts from the same rows. Rows are never deleted: a key's history stays seekable.
const DAY = "substr({r}.created_at, 1, 10)";
const withDay = (spec: RollupSpec): RollupSpec => ({ ...spec, keys: { ...spec.keys, day: spec.day ?? DAY } });
const sameKey = (spec: RollupSpec, a: string, b: string) => Object.keys(spec.keys).map((k) => `${a}.${k} = ${b}.${k}`).join(" AND ");

function addRunning(spec: RollupSpec, row: string): string {
  const keys = Object.keys(spec.keys);
  const measures = Object.keys(spec.measures);
  if (!spec.from) return addRunningRow(spec, row);
  const c = contribution(withDay(spec), row);
  const carried = `SELECT ${keys.map((k) => `c.${k}`).join(", ")}, c.day, ${measures.map((m) => `coalesce(p.${m}, 0)`).join(", ")} FROM (${c}) AS c
      LEFT JOIN ${spec.table} AS p ON p.rowid = (SELECT q.rowid FROM ${spec.table} AS q WHERE ${sameKey(spec, "q", "c")} AND q.day < c.day ORDER BY q.day DESC LIMIT 1)`;
  return `INSERT INTO ${spec.table} (${[...keys, "day", ...measures].join(", ")}) SELECT * FROM (${carried}) WHERE 1 ON CONFLICT (${[...keys, "day"].join(", ")}) DO NOTHING;
  ${shiftRunning(spec, row, "+")}`;
}

/**
 * The same for a rollup over the raw row alone (no joined list): one bucket row per raw row, so the
 * statements read the row's values directly instead of grouping a subquery — a log import fires
 * this once per request.
 */
function addRunningRow(spec: RollupSpec, row: string): string {
  const keys = Object.entries(withDay(spec).keys).map(([k, e]) => [k, at(e, row)] as const);
  const measures = Object.entries(spec.measures).map(([m, e]) => [m, at(e, row)] as const);
  const where = spec.where ? at(spec.where, row) : "1";
  const match = (alias: string) => keys.filter(([k]) => k !== "day").map(([k, e]) => `${alias}.${k} = ${e}`).join(" AND ");
  const day = keys.find(([k]) => k === "day")![1];
  return `INSERT INTO ${spec.table} (${[...keys.map(([k]) => k), ...measures.map(([m]) => m)].join(", ")})
      SELECT ${keys.map(([, e]) => e).join(", ")}, ${measures.map(([m]) => `coalesce(p.${m}, 0)`).join(", ")} FROM (SELECT 1)
      LEFT JOIN ${spec.table} AS p ON p.rowid = (SELECT q.rowid FROM ${spec.table} AS q WHERE ${match("q")} AND q.day < ${day} ORDER BY q.day DESC LIMIT 1)
      WHERE ${where} ON CONFLICT (${keys.map(([k]) => k).join(", ")}) DO NOTHING;
  UPDATE ${spec.table} SET ${measures.map(([m, e]) => `${m} = ${m} + ${e}`).join(", ")} WHERE ${match(spec.table)} AND day >= ${day} AND ${where};`;
}

function shiftRunning(spec: RollupSpec, row: string, sign: "+" | "-"): string {
  const measures = Object.keys(spec.measures).map((m) => `${m} = ${spec.table}.${m} ${sign} c.${m}`);
  return `UPDATE ${spec.table} SET ${measures.join(", ")} FROM (${contribution(withDay(spec), row)}) AS c WHERE ${sameKey(spec, spec.table, "c")} AND ${spec.table}.day >= c.day;`;
}

function rebuildRunning(spec: RollupSpec): string {
  const keys = Object.keys(spec.keys);
  const measures = Object.keys(spec.measures);
  const perDay = `SELECT ${keys.join(", ")}, day, ${measures.map((m) => `sum(${m}) AS ${m}`).join(", ")} FROM (${contribution(withDay(spec), "r", "r", true)}) GROUP BY ${[...keys, "day"].join(", ")}`;
  const totals = measures.map((m) => `sum(${m}) OVER (PARTITION BY ${keys.join(", ")} ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`);
  return `INSERT INTO ${spec.table} (${[...keys, "day", ...measures].join(", ")}) SELECT ${keys.join(", ")}, day, ${totals.join(", ")} FROM (${perDay})`;
}

export function triggerNames(spec: RollupSpec): string[] {
  return ["insert", "delete", "update"].map((kind) => `rollup_${spec.table}_${kind}`);
}

/** The CREATE TRIGGER statements that keep one rollup current. */
export function triggerSql(spec: RollupSpec): string[] {
  const [insert, remove, update] = triggerNames(spec);
  if (spec.running)
    return [
      `CREATE TRIGGER ${insert} AFTER INSERT ON ${spec.source} BEGIN\n  ${addRunning(spec, "NEW")}\nEND`,
      `CREATE TRIGGER ${remove} AFTER DELETE ON ${spec.source} BEGIN\n  ${shiftRunning(spec, "OLD", "-")}\nEND`,
      `CREATE TRIGGER ${update} AFTER UPDATE OF ${spec.watch.join(", ")} ON ${spec.source} BEGIN\n  ${shiftRunning(spec, "OLD", "-")}\n  ${addRunning(spec, "NEW")}\nEND`,
    ];
  return [
    `CREATE TRIGGER ${insert} AFTER INSERT ON ${spec.source} BEGIN\n  ${add(spec, "NEW")}\nEND`,
    `CREATE TRIGGER ${remove} AFTER DELETE ON ${spec.source} BEGIN\n  ${subtract(spec, "OLD")}\nEND`,
    `CREATE TRIGGER ${update} AFTER UPDATE OF ${spec.watch.join(", ")} ON ${spec.source} BEGIN\n  ${subtract(spec, "OLD")}\n  ${add(spec, "NEW")}\nEND`,
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

/**
 * Set-based maintenance for a bulk write (issue #32): adds the rows of the spec's source whose rowid
 * is above ?1 — a batch its caller wrote in this transaction with the insert triggers set aside — with
 * one upsert per distinct key, where the triggers would have run once per raw row. A running total
 * first gets a row for each (key, day) of the batch carrying the key's total before it (as the
 * trigger does), then every row of those keys from that day on adds the batch's sums up to its day.
 */
export function bulkAddSql(spec: RollupSpec): string[] {
  const keys = Object.keys(spec.keys);
  const measures = Object.keys(spec.measures);
  const batch: RollupSpec = { ...spec, where: `(${spec.where ?? "1"}) AND {r}.rowid > ?1` };
  if (!spec.running) {
    const rows = spec.combine
      ? `SELECT ${keys.join(", ")}, ${measures.map((m) => `sum(${m})`).join(", ")} FROM (${contribution(batch, "r", "r", true)}) GROUP BY ${keys.join(", ")}`
      : contribution(batch, "r", "r");
    const sums = measures.map((m) => `${m} = ${spec.table}.${m} + excluded.${m}`);
    return [`INSERT INTO ${spec.table} (${[...keys, ...measures].join(", ")}) SELECT * FROM (${rows}) WHERE 1 ON CONFLICT (${keys.join(", ")}) DO UPDATE SET ${sums.join(", ")}`];
  }
  const perDay = `SELECT ${keys.join(", ")}, day, ${measures.map((m) => `sum(${m}) AS ${m}`).join(", ")} FROM (${contribution(withDay(batch), "r", "r", true)}) GROUP BY ${[...keys, "day"].join(", ")}`;
  const carry = `INSERT INTO ${spec.table} (${[...keys, "day", ...measures].join(", ")})
    SELECT ${keys.map((k) => `c.${k}`).join(", ")}, c.day, ${measures.map((m) => `coalesce(p.${m}, 0)`).join(", ")} FROM (${perDay}) AS c
    LEFT JOIN ${spec.table} AS p ON p.rowid = (SELECT q.rowid FROM ${spec.table} AS q WHERE ${sameKey(spec, "q", "c")} AND q.day < c.day ORDER BY q.day DESC LIMIT 1)
    WHERE 1 ON CONFLICT (${[...keys, "day"].join(", ")}) DO NOTHING`;
  const shift = `WITH c AS (${perDay})
    UPDATE ${spec.table} SET ${measures.map((m) => `${m} = ${spec.table}.${m} + s.${m}`).join(", ")}
    FROM (SELECT t.rowid AS target, ${measures.map((m) => `sum(c.${m}) AS ${m}`).join(", ")} FROM ${spec.table} AS t JOIN c ON ${sameKey(spec, "t", "c")} AND t.day >= c.day GROUP BY t.rowid) AS s
    WHERE ${spec.table}.rowid = s.target`;
  return [carry, shift];
}

/**
 * Runs `write` (which inserts rows into `source`) in a transaction with the rollups of that table
 * kept set-based (bulkAddSql) instead of by their per-row insert triggers, which are dropped for the
 * write and made again before it commits: no other connection ever sees them missing. For large
 * batches only (a log import): the schema change makes other connections prepare their statements again.
 */
export function withBulkRollups<T>(sqlite: Database, source: string, write: () => T): T {
  const specs = ROLLUPS.filter((spec) => spec.source === source);
  const { before } = sqlite.query(`SELECT coalesce(max(rowid), 0) AS before FROM ${source}`).get() as { before: number };
  for (const spec of specs) sqlite.run(`DROP TRIGGER IF EXISTS ${triggerNames(spec)[0]}`);
  const out = write();
  for (const spec of specs) for (const statement of bulkAddSql(spec)) sqlite.query(statement).run(before);
  for (const spec of specs) sqlite.run(triggerSql(spec)[0]!);
  return out;
}

function definitionHash(spec: RollupSpec): string {
  return Bun.hash([...triggerSql(spec), ...rebuildSql(spec)].join("\n")).toString(16);
}

/** Rebuilds the given rollups (all by default) from raw rows, in dependency order, in one transaction. */
export function rebuildRollups(sqlite: Database, specs: RollupSpec[] = ROLLUPS): { table: string; rows: number; ms: number }[] {
  return sqlite.transaction(() =>
    specs.map((spec) => {
      const started = performance.now();
      for (const statement of rebuildSql(spec)) sqlite.run(statement);
      const rows = (sqlite.query(`SELECT count(*) AS n FROM ${spec.table}`).get() as { n: number }).n;
      return { table: spec.table, rows, ms: Math.round(performance.now() - started) };
    }),
  ).immediate();
}

/**
 * Makes the triggers match spec.ts: a rollup whose definition changed (or is new, as after the
 * upgrade that introduced it) gets its triggers replaced and its rows rebuilt, all in one
 * transaction. Called on the server's main connection after migrations.
 */
export function ensureRollups(sqlite: Database): string[] {
  const stored = new Map((sqlite.query("SELECT name, hash FROM rollup_state").all() as { name: string; hash: string }[]).map((r) => [r.name, r.hash]));
  // A table rebuilt by a later migration (create, copy, drop, rename) loses its triggers: a missing one makes its rollup stale.
  const triggers = new Set((sqlite.query("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string }[]).map((r) => r.name));
  // Triggers of a rollup that is no longer defined (its table dropped by a migration) would fail every write.
  const defined = new Set(ROLLUPS.flatMap(triggerNames));
  for (const name of triggers) if (name.startsWith("rollup_") && !defined.has(name)) sqlite.run(`DROP TRIGGER ${name}`);
  const stale = ROLLUPS.filter((spec) => stored.get(spec.table) !== definitionHash(spec) || triggerNames(spec).some((name) => !triggers.has(name)));
  if (!stale.length) return [];
  // A rollup fed by a stale one is rebuilt after it, even if its own definition did not change.
  const rebuild = ROLLUPS.filter((spec) => stale.includes(spec) || stale.some((s) => s.table === spec.source));
  sqlite.transaction(() => {
    for (const spec of rebuild) {
      for (const name of triggerNames(spec)) sqlite.run(`DROP TRIGGER IF EXISTS ${name}`);
      for (const statement of triggerSql(spec)) sqlite.run(statement);
    }
    rebuildRollups(sqlite, rebuild);
    for (const spec of rebuild) sqlite.run("INSERT INTO rollup_state (name, hash) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at", [spec.table, definitionHash(spec)]);
  }).immediate();
  return rebuild.map((s) => s.table);
}

/** The rollup tables of spec.ts and their triggers. */
export const rollupsSchema: SchemaPart = { name: "rollups", ensure: ensureRollups };
