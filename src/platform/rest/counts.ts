// Prefer: count=exact|planned|estimated. The daily rollups (src/rollups) hold exact row counts per
// brand and per their key columns, kept in the transaction of the rows: a count whose filters are
// all equalities on such columns is read from them — a year of a brand's rows counts as fast as a
// day — and any other count runs count(*) over the filtered rows (exact) or stops at a cap
// (planned, estimated).
import type { Condition, ReadPlan } from "./plan";
import { scopePredicate } from "./policies";
import { ident, joinSql, sql, type Sql, type SqlContext } from "./sql";

export type CountMode = "exact" | "planned" | "estimated";

/** Where a table's row counts are summed, and which of its columns the rollup is keyed by. */
export const ROLLUP_COUNTS: Record<string, { rollup: string; measure: string; keys: Record<string, string> }[]> = {
  prompt_results: [
    { rollup: "result_brand_daily", measure: "results", keys: { brand_id: "brand_id", platform: "platform", model: "model", region: "region" } },
    // By month: the table has no index by prompt, and a brand's months are a twelfth of its days' rows.
    { rollup: "result_rollups_monthly", measure: "results", keys: { brand_id: "brand_id", prompt_id: "prompt_id", platform: "platform", model: "model", region: "region" } },
  ],
  citations: [{ rollup: "citation_domain_counts", measure: "citations", keys: { brand_id: "brand_id", domain: "domain" } }],
  ai_traffic_logs: [{ rollup: "traffic_platform_daily", measure: "visits", keys: { brand_id: "brand_id", source_platform: "platform" } }],
};

/** Counts past this are estimated by count=planned and count=estimated (PostgREST's planned count is the planner's estimate). */
export const PLANNED_COUNT_CAP = 10_000;

/** column → value for a filter list made only of `column=eq.value` on plain columns; undefined otherwise. */
function equalities(where: Condition[]): Map<string, unknown> | undefined {
  const out = new Map<string, unknown>();
  for (const c of where) {
    if (c.kind !== "test" || c.negated || c.ref.json.length || c.ref.cast || c.test.kind !== "compare" || c.test.op !== "=" || c.test.quantifier) return undefined;
    if (c.test.values.length !== 1 || c.test.values[0] === null || out.has(c.ref.column.name)) return undefined;
    out.set(c.ref.column.name, c.test.values[0]);
  }
  return out;
}

/** The count as a rollup sum, when the read's filters allow it (with the caller's row-level security applied to the rollup's brand). */
export function rollupCountQuery(ctx: SqlContext, plan: ReadPlan): Sql | undefined {
  if (plan.source || plan.embeds.some((e) => e.inner) || !ctx.policies[plan.table.name]) return undefined;
  const filters = equalities(plan.where);
  if (!filters?.has("brand_id")) return undefined;
  const choice = ROLLUP_COUNTS[plan.table.name]?.find((r) => [...filters.keys()].every((column) => column in r.keys));
  if (!choice) return undefined;
  const alias = plan.alias;
  const conditions = [...filters].map(([column, value]) => sql`${ident(alias)}.${ident(choice.keys[column]!)} = ${value}`);
  const policy = scopePredicate(ctx.dialect, ctx.cache, ctx.policies, ctx.caller, plan.table.name, "read", sql`${ident(alias)}.${ident("brand_id")}`);
  if (policy) conditions.push(policy);
  return sql`SELECT coalesce(sum(${ident(alias)}.${ident(choice.measure)}), 0) FROM ${ident(choice.rollup)} AS ${ident(alias)} WHERE ${joinSql(conditions, " AND ")}`;
}
