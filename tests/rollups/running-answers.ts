// What the insights read from the running totals (competitors, cited domains, cited URLs, fan-out
// queries) for some brands, sorted, so two reads compare whole: the upgrade tests compare them across
// the move of the result-fed totals to their layout keyed by id (issue #32), on either backend.
import type { InsightArgs } from "../../src/insights/args";
import type { InsightsStore } from "../../src/insights/store";

const args = (brandId: string): InsightArgs => ({ brandId, window: { from: "2026-05-10", to: "2026-06-14" }, platforms: null, models: null, regions: null, topicIds: null, promptIds: null, branded: null });

/**
 * `days: false` leaves the first and last days out: running totals keep a day whose results were all
 * deleted since, which a rebuild from the raw rows has not (the counts are the same).
 */
export async function runningTotalsAnswers(store: InsightsStore, brandIds: string[], days = true): Promise<Record<string, string[]>> {
  const sorted = <T>(rows: T[]) => rows.map((r) => JSON.stringify(days ? r : { ...r, first_seen: undefined, last_seen: undefined, last_day: undefined })).sort();
  const out: Record<string, string[]> = {};
  for (const id of brandIds) {
    out[`${id} competitors`] = sorted(await store.competitorTotals(args(id)));
    out[`${id} domains`] = sorted(await store.domainTotals(args(id)));
    out[`${id} urls`] = sorted(await store.urlTotals(args(id)));
    out[`${id} queries`] = sorted((await store.searchQueries(args(id))).map((q) => ({ ...q, platforms: [...q.platforms].sort() })));
    // Filtered: the key filter's parameters bound once per layout while both are read.
    out[`${id} competitors on chatgpt`] = sorted(await store.competitorTotals({ ...args(id), platforms: ["chatgpt"] }));
    out[`${id} queries on perplexity`] = sorted(await store.searchQueries({ ...args(id), platforms: ["perplexity"] }));
  }
  return out;
}
