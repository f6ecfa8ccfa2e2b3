// visibility.changed on significance (issue #18): after a run, each of its platforms compares the
// brand's visibility over the last 7 days with the 7 before, over the (prompt, platform) pairs
// answered in both weeks. It fires when Newcombe's interval excludes 0 (verdict up or down) and
// the move is at least VISIBILITY_ALERT_POINTS, at most once per brand × platform × UTC day.
import type { Database } from "bun:sqlite";
import { visibilityChange } from "./service";
import { addDays, isoDay, type DateWindow } from "./window";

export const ALERT_WINDOW_DAYS = 7;

export interface VisibilityAlert {
  platform: string;
  window: DateWindow;
  previous_window: DateWindow;
  current: { value: number | null; n: number; ci_low: number | null; ci_high: number | null };
  previous: { value: number | null; n: number; ci_low: number | null; ci_high: number | null };
  change: { delta: number | null; ci_low: number | null; ci_high: number | null; verdict: string; model_changed: boolean };
  change_points: number;
}

export function visibilityAlerts(sqlite: Database, input: { brandId: string; platforms: string[]; now: Date; points: number }): VisibilityAlert[] {
  const today = isoDay(input.now);
  const window = { from: addDays(today, -(ALERT_WINDOW_DAYS - 1)), to: today };
  const previous = { from: addDays(today, -(2 * ALERT_WINDOW_DAYS - 1)), to: addDays(today, -ALERT_WINDOW_DAYS) };
  const alertedToday = sqlite.prepare(
    "SELECT 1 FROM webhook_events WHERE brand_id = ? AND type = 'visibility.changed' AND created_at >= ? AND json_extract(payload, '$.platform') = ? LIMIT 1",
  );
  const alerts: VisibilityAlert[] = [];
  for (const platform of input.platforms) {
    const args = { brandId: input.brandId, window, platforms: [platform], models: null, regions: null, topicIds: null, promptIds: null, branded: null };
    const { current, previous: before, change } = visibilityChange({ sqlite }, args, previous);
    if (change.verdict !== "up" && change.verdict !== "down") continue;
    const points = Math.round(change.delta! * 1000) / 10;
    if (Math.abs(points) < input.points) continue;
    if (alertedToday.get(input.brandId, `${today}T00:00:00.000Z`, platform)) continue;
    alerts.push({ platform, window, previous_window: previous, current, previous: before, change, change_points: points });
  }
  return alerts;
}
