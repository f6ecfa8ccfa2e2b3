// /rest/v1/rpc/<function> (DESIGN §5). A routine is a parameterized row source over an exposed
// table: its rows go through the same plan as a table read, so select, filters, order, limit,
// embeds and row-level security apply to what it returns. Arguments are checked like PostgREST
// matches a function signature (PGRST202) and typed like Postgres parameters (22P02, 22007).
import { AppError } from "../../http/errors";
import type { QueryParams, Range } from "./parse";
import { planRead, type Planner, type ReadPlan } from "./plan";
import { closestName, type ColumnInfo } from "./schema-cache";
import { fromJson, type SqlValue } from "./values";

interface Routine {
  params: (ColumnInfo & { required: boolean })[];
  /** The table whose rows (and policies) the routine returns. */
  returns: string;
  source(args: Record<string, SqlValue>): { text: string; params: unknown[] };
}

const param = (name: string, type: ColumnInfo["type"], required = false) => ({ name, type, required, notNull: required, hasDefault: !required });

export const ROUTINES: Record<string, Routine> = {
  /** The newest result per (prompt, platform, model, region) of one brand, inside an optional window. */
  get_latest_prompt_results: {
    params: [
      param("p_brand_id", "uuid", true),
      param("p_platform", "text"),
      param("p_model", "text"),
      param("p_region", "text"),
      param("p_date_from", "timestamp"),
      param("p_date_to", "timestamp"),
      param("p_topic_id", "uuid"),
    ],
    returns: "prompt_results",
    source: (a) => ({
      // Served by prompt_results_latest_idx (brand_id, prompt_id, platform, model, region, created_at).
      text: `SELECT * FROM (
        SELECT pr.*, row_number() OVER (PARTITION BY pr.prompt_id, pr.platform, pr.model, pr.region ORDER BY pr.created_at DESC, pr.rowid DESC) AS latest_rank
        FROM prompt_results AS pr
        WHERE pr.brand_id = ?
          AND (? IS NULL OR pr.platform = ?) AND (? IS NULL OR pr.model = ?) AND (? IS NULL OR pr.region = ?)
          AND (? IS NULL OR pr.created_at >= ?) AND (? IS NULL OR pr.created_at <= ?)
          AND (? IS NULL OR pr.prompt_id IN (SELECT id FROM prompts WHERE topic_id = ?))
      ) WHERE latest_rank = 1`,
      params: [a.p_brand_id, ...["p_platform", "p_model", "p_region", "p_date_from", "p_date_to", "p_topic_id"].flatMap((k) => [a[k], a[k]])],
    }),
  },
};

function noFunction(name: string, argNames: string[], jsonBody: boolean): AppError {
  const func = `public.${name}`;
  const list = argNames.join(", ");
  const message = `Could not find the function ${func}${argNames.length ? `(${list})` : " without parameters"} in the schema cache`;
  const searched = argNames.length ? ` with parameter${argNames.length > 1 ? "s" : ""} ${list}` : " without parameters";
  const routine = Object.hasOwn(ROUTINES, name) ? ROUTINES[name] : undefined;
  const near = routine ? `${name}(${routine.params.map((p) => p.name).sort().join(", ")})` : closestName(Object.keys(ROUTINES), name, 0.55);
  return new AppError(404, "PGRST202", message, {
    details: `Searched for the function ${func}${searched}${jsonBody ? " or with a single unnamed json/jsonb parameter" : ""}, but no matches were found in the schema cache.`,
    hint: near ? `Perhaps you meant to call the function public.${near}` : null,
  });
}

/** The read plan of an RPC call: its arguments (JSON body for POST, query parameters for GET) bound into its row source. */
export function planRpc(p: Planner, name: string, args: Record<string, unknown>, jsonBody: boolean, query: QueryParams, topRange: Range): ReadPlan {
  const argNames = Object.keys(args).sort();
  const routine = Object.hasOwn(ROUTINES, name) ? ROUTINES[name] : undefined;
  const known = routine && argNames.every((a) => routine.params.some((p) => p.name === a)) && routine.params.every((p) => !p.required || argNames.includes(p.name));
  if (!routine || !known) throw noFunction(name, argNames, jsonBody);
  const typed: Record<string, SqlValue> = {};
  for (const param of routine.params) typed[param.name] = fromJson(name, param, args[param.name]);
  const plan = planRead(p, routine.returns, query, topRange);
  plan.source = routine.source(typed);
  return plan;
}
