// visibility.changed on significance (issue #18): after a run, each of its platforms compares the
// brand's visibility over the last 7 days with the 7 before, over the (prompt, platform) pairs
// answered in both weeks. It fires when Newcombe's interval excludes 0 (verdict up or down) and
// the move is at least VISIBILITY_ALERT_POINTS, at most once per brand × platform × UTC day.
// The decision is here; reading the sums (inside the run's transaction) is alerts.sqlite.ts's.
import type { InsightArgs } from "./args";
import type { visibilityChangeOf } from "./service";
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

/** The day of `now`, the last ALERT_WINDOW_DAYS days up to it and the same number before. */
export function alertWindows(now: Date): { today: string; window: DateWindow; previous: DateWindow } {
  const today = isoDay(now);
  return {
    today,
    window: { from: addDays(today, -(ALERT_WINDOW_DAYS - 1)), to: today },
    previous: { from: addDays(today, -(2 * ALERT_WINDOW_DAYS - 1)), to: addDays(today, -ALERT_WINDOW_DAYS) },
  };
}

/**
 * One platform's insight arguments over the current alert window: non-branded prompts, as every
 * headline reads them (a branded prompt names the brand nearly always, and diluted a real move).
 */
export const alertArgs = (brandId: string, platform: string, window: DateWindow): InsightArgs => ({ brandId, window, platforms: [platform], models: null, regions: null, topicIds: null, promptIds: null, branded: false });

/** The alert a platform's change makes, or null when it is not significant or smaller than `points` (whether it fired today already is the caller's check). */
export function alertOf(platform: string, windows: { window: DateWindow; previous: DateWindow }, measured: ReturnType<typeof visibilityChangeOf>, minPoints: number): VisibilityAlert | null {
  const { current, previous, change } = measured;
  if (change.verdict !== "up" && change.verdict !== "down") return null;
  const points = Math.round(change.delta! * 1000) / 10;
  if (Math.abs(points) < minPoints) return null;
  return { platform, window: windows.window, previous_window: windows.previous, current, previous, change, change_points: points };
}
