// prompt_results_latest on Postgres: the same table kept by the same rules as latest.sqlite.ts (the
// newest result of each (prompt, platform, model, region), ties to the greater id, on every write
// path), as PL/pgSQL triggers — SECURITY DEFINER, so a write made under a REST role (which may not
// write this table) keeps it too, as the rollups' triggers do. Made from code, not a migration, as on SQLite; CREATE OR REPLACE
// keeps it idempotent, and the table is rebuilt only when a trigger or its function was missing
// or different (a rebuild reads every result).
import type { SQL } from "bun";
import type { PgSchemaPart } from "../db/pg/open";
import { DELETED, INSERTED, rawRowsSource, runningLock, type RawRows } from "../rollups/triggers.pg";

const GROUP_COLUMNS = "prompt_id, platform, model, region";
/** Rows `a` and `b` are of one group. */
const SAME_GROUP = (a: string, b: string) => GROUP_COLUMNS.split(", ").map((c) => `${a}.${c} = ${b}.${c}`).join(" AND ");
const COLUMNS = "prompt_id, platform, model, region, brand_id, organization_id, result_id, created_at";
/** The upsert's rule: the incoming row replaces the group's latest if it is newer (ties: the greater id). */
const NEWER = `ON CONFLICT (prompt_id, platform, model, region) DO UPDATE SET brand_id = excluded.brand_id, organization_id = excluded.organization_id, result_id = excluded.result_id, created_at = excluded.created_at
      WHERE excluded.created_at > prompt_results_latest.created_at
         OR (excluded.created_at = prompt_results_latest.created_at AND excluded.result_id >= prompt_results_latest.result_id)`;
/** The newest of `rows` per group (one upsert may touch a row once, so one candidate per group). */
const newestOf = (rows: string, where = "true") =>
  `SELECT DISTINCT ON (${GROUP_COLUMNS}) ${GROUP_COLUMNS}, brand_id, organization_id, id, created_at FROM ${rows} AS r WHERE ${where} ORDER BY ${GROUP_COLUMNS}, created_at DESC, id DESC`;

/** The rows of `rows` become their groups' latest where they are newer. */
const learn = (rows: RawRows) => `INSERT INTO prompt_results_latest (${COLUMNS}) ${newestOf(rawRowsSource(rows))}
    ${NEWER};`;

/**
 * The rows of `rows` left their groups: where one was the latest, the group's next newest row takes
 * its place. That replacement is an upsert with the same rule, so a row another transaction made
 * latest meanwhile is not overwritten by an older one (no unique violation either).
 */
const forget = (rows: RawRows) => `DELETE FROM prompt_results_latest AS l USING ${rawRowsSource(rows)} AS o WHERE ${SAME_GROUP("l", "o")} AND l.result_id = o.id;
  INSERT INTO prompt_results_latest (${COLUMNS})
    ${newestOf("prompt_results", `(${GROUP_COLUMNS}) IN (SELECT ${GROUP_COLUMNS} FROM ${rawRowsSource(rows)} AS o) AND NOT EXISTS (SELECT 1 FROM prompt_results_latest AS l WHERE ${SAME_GROUP("l", "r")})`)}
    ${NEWER};`;

const WATCHED = ["prompt_id", "platform", "model", "region", "brand_id", "created_at"];
/**
 * Each trigger of prompt_results and the body of the function of the same name it runs. Inserts
 * and deletes fire once per statement over its transition table (a batch costs one upsert); an
 * update fires per row, only when it moves the row (see triggers.pg.ts).
 */
const TRIGGERS: { name: string; on: string; body: string }[] = [
  // The brand lock first: these triggers fire before the rollups' (names sort before "rollup_").
  { name: "aw_latest_insert", on: `AFTER INSERT ON prompt_results REFERENCING NEW TABLE AS ${INSERTED.table} FOR EACH STATEMENT`, body: `${runningLock([INSERTED])}\n  ${learn(INSERTED)}` },
  { name: "aw_latest_delete", on: `AFTER DELETE ON prompt_results REFERENCING OLD TABLE AS ${DELETED.table} FOR EACH STATEMENT`, body: `${runningLock([DELETED])}\n  ${forget(DELETED)}` },
  {
    name: "aw_latest_update",
    // Only a change of the row's group, owner or time moves the latest; other updates cost nothing.
    on: `AFTER UPDATE OF ${WATCHED.join(", ")} ON prompt_results FOR EACH ROW WHEN (${WATCHED.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(" OR ")})`,
    body: `${runningLock([{ row: "OLD" }, { row: "NEW" }])}\n  ${forget({ row: "OLD" })}\n  ${learn({ row: "NEW" })}`,
  },
];
/** The function's source; it names its trigger's definition, so a changed definition is a changed function (and is made again). */
const source = (t: (typeof TRIGGERS)[number]) => `\n-- trigger ${t.name}: ${t.on}\nBEGIN\n  ${t.body}\n  RETURN NULL;\nEND\n`;

export async function rebuildLatestPg(tx: SQL): Promise<number> {
  await tx`DELETE FROM prompt_results_latest`;
  const inserted = await tx.unsafe(`INSERT INTO prompt_results_latest (${COLUMNS}) ${newestOf("prompt_results")}`);
  return inserted.count;
}

/** Creates or replaces the functions and triggers; when any was missing or different, rebuilds the table. True when it had to. */
export async function ensureLatestPg(tx: SQL): Promise<boolean> {
  const names = TRIGGERS.map((t) => t.name);
  const functions = new Map<string, string>(
    // A function that is not SECURITY DEFINER (made before the REST roles existed) counts as different.
    (await tx`SELECT proname, prosrc, prosecdef FROM pg_proc WHERE proname = ANY(${tx.array(names, "text")}) AND pronamespace = 'public'::regnamespace`).map(
      (r: { proname: string; prosrc: string; prosecdef: boolean }) => [r.proname, r.prosecdef ? r.prosrc : ""],
    ),
  );
  const triggers = new Set<string>(
    (await tx`SELECT tgname FROM pg_trigger WHERE tgrelid = 'prompt_results'::regclass AND NOT tgisinternal`).map((r: { tgname: string }) => r.tgname),
  );
  const stale = TRIGGERS.some((t) => functions.get(t.name) !== source(t) || !triggers.has(t.name));
  if (!stale) return false;
  // Nothing writes results while this runs: the migration lock is held, and the table is locked
  // so that a running instance's writes wait for the rebuild instead of being missed by it.
  await tx`LOCK TABLE prompt_results IN SHARE ROW EXCLUSIVE MODE`;
  for (const t of TRIGGERS) {
    await tx.unsafe(`CREATE OR REPLACE FUNCTION ${t.name}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $fn$${source(t)}$fn$`);
    await tx.unsafe(`CREATE OR REPLACE TRIGGER ${t.name} ${t.on} EXECUTE FUNCTION ${t.name}()`);
  }
  await rebuildLatestPg(tx);
  return true;
}

/** prompt_results_latest and the triggers that keep it, on Postgres. */
export const latestPgSchema: PgSchemaPart = { name: "latest", ensure: ensureLatestPg };
