// A Postgres database's raw rows and rollup tables read into the shapes recompute.ts compares
// (SQLite's): ISO strings for timestamps, JSON lists as text, numbers for bigint sums, and without
// the organization_id Postgres adds to every tenant table (kept by its own trigger, not a measure).
import type { SQL } from "bun";
import { logicalRowsSql, ROLLUP_TABLES, splitByTables, type Row, type RollupSnapshot } from "./recompute";

const JSON_COLUMNS = new Set(["competitor_mentions", "citations", "search_queries", "sources", "details", "shopping_cards", "inline_products"]);
/** int8 columns (Bun's client returns them as strings). */
const BIGINT_COLUMNS = new Set(["bytes", "id"]);

function shaped(row: Row, table: "raw" | "rollup"): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === "organization_id") continue;
    if (v instanceof Date) out[k] = v.toISOString();
    else if (table === "raw" && JSON_COLUMNS.has(k)) out[k] = JSON.stringify(v);
    else if (typeof v === "string" && (table === "rollup" ? k === "bytes" : BIGINT_COLUMNS.has(k) && k !== "id")) out[k] = Number(v);
    else out[k] = v;
  }
  return out;
}

export async function pgSnapshot(sql: SQL): Promise<RollupSnapshot> {
  // One snapshot for every read: rows written meanwhile by another session are all seen or none.
  return sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
    const all = async (text: string, kind: "raw" | "rollup") => ((await tx.unsafe(text)) as Row[]).map((r) => shaped(r, kind));
    const results = (await all("SELECT * FROM prompt_results", "raw")).map((r) => ({ ...r, citations_text: r.citations }));
    const tables: Record<string, Row[]> = {};
    const columnsOf = await pgColumns(tx);
    for (const t of ROLLUP_TABLES) tables[t] = await all(logicalRowsSql(t, columnsOf), "rollup");
    return {
      raw: { results, citations: await all("SELECT * FROM citations", "raw"), crawlerHits: await all("SELECT * FROM crawler_hits", "raw"), traffic: await all("SELECT * FROM ai_traffic_logs", "raw") },
      tables,
    };
  });
}

/** Each table's column names (for logicalRowsSql). */
export async function pgColumns(sql: SQL): Promise<(table: string) => string[]> {
  const columns = new Map<string, string[]>();
  for (const r of (await sql`SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()`) as { t: string; c: string }[])
    columns.set(r.t, [...(columns.get(r.t) ?? []), r.c]);
  return (table) => columns.get(table) ?? [];
}

export async function pgRollupCounts(sql: SQL): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ROLLUP_TABLES) out[t] = ((await sql.unsafe(`SELECT count(*)::int AS n FROM ${t}`)) as { n: number }[])[0]!.n;
  return out;
}

/** rollupsOfRelease (recompute.ts) on Postgres: the rollups whose tables an older release's migrations made, and the tables added later. */
export async function pgRollupsOfRelease<T extends { table: string }>(sql: SQL, specs: T[]): Promise<{ specs: T[]; later: string[] }> {
  return splitByTables(specs, new Set(((await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`) as { table_name: string }[]).map((r) => r.table_name)));
}

