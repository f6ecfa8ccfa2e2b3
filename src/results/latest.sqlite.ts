// prompt_results_latest: the newest result of each (prompt, platform, model, region), ties to the
// greater id, kept by triggers on every write path (REST with the service key and cascades
// included), so that get_latest_prompt_results costs what it returns. The triggers are made here,
// not in a migration: a table rebuilt by a later migration loses its triggers, and a missing one is
// put back (with the table rebuilt) the next time the database is opened for serving.
import type { Database } from "bun:sqlite";
import type { SchemaPart } from "../db/schema-part";

const GROUP = (r: string) => `prompt_id = ${r}.prompt_id AND platform = ${r}.platform AND model = ${r}.model AND region = ${r}.region`;
const COLUMNS = "prompt_id, platform, model, region, brand_id, result_id, created_at";

/** The row `r` (NEW) becomes its group's latest if it is newer. */
const learn = (r: string) => `INSERT INTO prompt_results_latest (${COLUMNS}) VALUES (${r}.prompt_id, ${r}.platform, ${r}.model, ${r}.region, ${r}.brand_id, ${r}.id, ${r}.created_at)
    ON CONFLICT (prompt_id, platform, model, region) DO UPDATE SET brand_id = excluded.brand_id, result_id = excluded.result_id, created_at = excluded.created_at
     WHERE excluded.created_at > prompt_results_latest.created_at
        OR (excluded.created_at = prompt_results_latest.created_at AND excluded.result_id >= prompt_results_latest.result_id);`;

/** The row `r` (OLD) left its group: if it was the latest, the group's next newest row takes its place. */
const forget = (r: string) => `DELETE FROM prompt_results_latest WHERE ${GROUP(r)} AND result_id = ${r}.id;
  INSERT INTO prompt_results_latest (${COLUMNS})
    SELECT prompt_id, platform, model, region, brand_id, id, created_at FROM prompt_results
     WHERE ${GROUP(r)} AND NOT EXISTS (SELECT 1 FROM prompt_results_latest WHERE ${GROUP(r)})
     ORDER BY created_at DESC, id DESC LIMIT 1;`;

export const LATEST_TRIGGERS: Record<string, string> = {
  prompt_results_latest_insert: `AFTER INSERT ON prompt_results BEGIN\n  ${learn("NEW")}\nEND`,
  prompt_results_latest_delete: `AFTER DELETE ON prompt_results BEGIN\n  ${forget("OLD")}\nEND`,
  prompt_results_latest_update: `AFTER UPDATE OF prompt_id, platform, model, region, brand_id, created_at ON prompt_results BEGIN\n  ${forget("OLD")}\n  ${learn("NEW")}\nEND`,
};

export function rebuildLatest(sqlite: Database): number {
  sqlite.run("DELETE FROM prompt_results_latest");
  return sqlite.run(
    `INSERT INTO prompt_results_latest (${COLUMNS})
       SELECT prompt_id, platform, model, region, brand_id, id, created_at FROM (
         SELECT *, row_number() OVER (PARTITION BY prompt_id, platform, model, region ORDER BY created_at DESC, id DESC) AS rn FROM prompt_results)
        WHERE rn = 1`,
  ).changes;
}

/** Creates missing latest triggers and then rebuilds the table; true when it had to. */
export function ensureLatest(sqlite: Database): boolean {
  const present = new Set((sqlite.query("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string }[]).map((r) => r.name));
  const missing = Object.keys(LATEST_TRIGGERS).filter((name) => !present.has(name));
  if (!missing.length) return false;
  sqlite.transaction(() => {
    for (const name of missing) sqlite.run(`CREATE TRIGGER ${name} ${LATEST_TRIGGERS[name]}`);
    rebuildLatest(sqlite);
  }).immediate();
  return true;
}

/** latest_results and the triggers that keep it. */
export const latestSchema: SchemaPart = { name: "latest", ensure: ensureLatest };
