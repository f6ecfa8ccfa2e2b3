// The visibility alerts of a finished run (alerts.ts decides), read synchronously on the handle the
// run's transaction holds (src/tracking/finalize.ts): the result sums of both weeks and whether the
// platform's alert fired today already.
import type { Database } from "bun:sqlite";
import { alertArgs, alertOf, alertWindows, type VisibilityAlert } from "./alerts";
import { VISIBILITY_CHANGE_GROUPS, visibilityChangeOf } from "./service";
import { createSqliteInsightReads } from "./store.sqlite";

export function visibilityAlerts(sqlite: Database, input: { brandId: string; platforms: string[]; now: Date; points: number }): VisibilityAlert[] {
  const windows = alertWindows(input.now);
  const reads = createSqliteInsightReads(sqlite);
  const alertedToday = sqlite.prepare(
    "SELECT 1 FROM webhook_events WHERE brand_id = ? AND type = 'visibility.changed' AND created_at >= ? AND json_extract(payload, '$.platform') = ? LIMIT 1",
  );
  const alerts: VisibilityAlert[] = [];
  for (const platform of input.platforms) {
    const args = alertArgs(input.brandId, platform, windows.window);
    const rowsNow = reads.resultSums({ query: args, window: windows.window, groupBy: VISIBILITY_CHANGE_GROUPS });
    const rowsBefore = reads.resultSums({ query: args, window: windows.previous, groupBy: VISIBILITY_CHANGE_GROUPS });
    const alert = alertOf(platform, windows, visibilityChangeOf(rowsNow, rowsBefore), input.points);
    if (!alert) continue;
    if (alertedToday.get(input.brandId, `${windows.today}T00:00:00.000Z`, platform)) continue;
    alerts.push(alert);
  }
  return alerts;
}
