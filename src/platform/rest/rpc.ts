// /rest/v1/rpc/<function> (DESIGN §5). A routine is a parameterized row source over an exposed
// table: its rows go through the same plan as a table read, so select, filters, order, limit,
// embeds and row-level security apply to what it returns. Arguments are checked like PostgREST
// matches a function signature (PGRST202) and typed like Postgres parameters (22P02, 22007).
import { dateOutOfRange, dayInRange } from "../../http/date-range";
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
    source: (a) => {
      // `CAST(? AS TEXT) IS NULL`: a bare `? IS NULL` gives Postgres no type for the parameter.
      const filters = `(CAST(? AS TEXT) IS NULL OR l.platform = ?) AND (CAST(? AS TEXT) IS NULL OR l.model = ?) AND (CAST(? AS TEXT) IS NULL OR l.region = ?)
          AND (CAST(? AS TEXT) IS NULL OR l.prompt_id IN (SELECT id FROM prompts WHERE topic_id = ?))`;
      const filterParams = ["p_platform", "p_model", "p_region", "p_topic_id"].flatMap((k) => [a[k], a[k]]);
      // prompt_results_latest holds each group's newest row (kept by triggers): without a window
      // the answer is a join on it; with one, each group seeks its newest row inside the window on
      // prompt_results_group_time_idx. Either way the cost follows the groups, not the history.
      if (a.p_date_from === null && a.p_date_to === null) {
        return {
          text: `SELECT pr.* FROM prompt_results_latest AS l JOIN prompt_results AS pr ON pr.id = l.result_id WHERE l.brand_id = ? AND ${filters}`,
          params: [a.p_brand_id, ...filterParams],
        };
      }
      return {
        text: `SELECT pr.* FROM prompt_results_latest AS l JOIN prompt_results AS pr ON pr.id = (
            SELECT w.id FROM prompt_results AS w
             WHERE w.prompt_id = l.prompt_id AND w.platform = l.platform AND w.model = l.model AND w.region = l.region AND w.brand_id = l.brand_id
               AND (CAST(? AS TEXT) IS NULL OR w.created_at >= ?) AND (CAST(? AS TEXT) IS NULL OR w.created_at <= ?)
             ORDER BY w.created_at DESC, w.id DESC LIMIT 1)
          WHERE l.brand_id = ? AND ${filters}`,
        params: [a.p_date_from, a.p_date_from, a.p_date_to, a.p_date_to, a.p_brand_id, ...filterParams],
      };
    },
  },
};

export function noFunction(name: string, argNames: string[], jsonBody: boolean, knownParams?: readonly string[]): AppError {
  const func = `public.${name}`;
  const list = argNames.join(", ");
  const message = `Could not find the function ${func}${argNames.length ? `(${list})` : " without parameters"} in the schema cache`;
  const searched = argNames.length ? ` with parameter${argNames.length > 1 ? "s" : ""} ${list}` : " without parameters";
  const routine = Object.hasOwn(ROUTINES, name) ? ROUTINES[name] : undefined;
  const params = knownParams ?? routine?.params.map((p) => p.name);
  const near = params ? `${name}(${[...params].sort().join(", ")})` : closestName(Object.keys(ROUTINES), name, 0.55);
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
  for (const param of routine.params) {
    const value = (typed[param.name] = fromJson(name, param, args[param.name]));
    if (param.type === "timestamp" && typeof value === "string" && !dayInRange(value)) throw dateOutOfRange(args[param.name]);
  }
  const plan = planRead(p, routine.returns, query, topRange);
  plan.source = routine.source(typed);
  return plan;
}
