// Date windows of the insights (pure): a window is whole UTC days, `to` inclusive; the previous
// window is the one of the same length just before. Rollups hold days and months, so a window is
// read as the days at its edges plus the whole months between them: a year costs about what a
// month costs (DESIGN §13).

export interface DateWindow {
  /** YYYY-MM-DD, inclusive. */
  from: string;
  /** YYYY-MM-DD, inclusive. */
  to: string;
}

const DAY_MS = 86_400_000;
export const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const parseDay = (day: string) => new Date(`${day}T00:00:00Z`);
export const addDays = (day: string, n: number) => isoDay(new Date(parseDay(day).getTime() + n * DAY_MS));
export const daysBetween = (from: string, to: string) => Math.round((parseDay(to).getTime() - parseDay(from).getTime()) / DAY_MS) + 1;

/** The window of the same length ending the day before `w` starts. */
export function previousWindow(w: DateWindow): DateWindow {
  const length = daysBetween(w.from, w.to);
  return { from: addDays(w.from, -length), to: addDays(w.from, -1) };
}

/** The bucket column of a rollup kept by day, week or month. */
export const BUCKET_COLUMNS = { daily: "day", weekly: "week", monthly: "month" } as const;

/** Where a window's rows are: day buckets at the edges, month buckets for each whole month inside. */
export interface BucketRange {
  table: "daily" | "weekly" | "monthly";
  from: string;
  to: string;
}

const monthOf = (day: string) => day.slice(0, 7);
const firstOfMonth = (day: string) => `${monthOf(day)}-01`;
function lastOfMonth(day: string): string {
  const d = parseDay(firstOfMonth(day));
  return isoDay(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)));
}

export function bucketRanges(w: DateWindow): BucketRange[] {
  if (w.from > w.to) return [];
  // The first whole month starts at `from` when it is a 1st, else the month after.
  const firstWhole = w.from === firstOfMonth(w.from) ? w.from : addDays(lastOfMonth(w.from), 1);
  // The last whole month ends at `to` when it is a month's last day, else the month before.
  const lastWhole = w.to === lastOfMonth(w.to) ? w.to : addDays(firstOfMonth(w.to), -1);
  if (firstWhole > lastWhole) return [{ table: "daily", from: w.from, to: w.to }];
  const ranges: BucketRange[] = [];
  if (w.from < firstWhole) ranges.push({ table: "daily", from: w.from, to: addDays(firstWhole, -1) });
  ranges.push({ table: "monthly", from: monthOf(firstWhole), to: monthOf(lastWhole) });
  if (lastWhole < w.to) ranges.push({ table: "daily", from: addDays(lastWhole, 1), to: w.to });
  return ranges;
}

export type Interval = "day" | "week" | "month";

/**
 * Where a window's rows are when read by week (a table kept by week: crawler_weekly): day buckets
 * for the partial weeks at the edges, the whole ISO weeks between by their Mondays.
 */
export function weekRanges(w: DateWindow): BucketRange[] {
  if (w.from > w.to) return [];
  const firstMonday = periodOf(w.from, "week") === w.from ? w.from : addDays(periodOf(w.from, "week"), 7);
  // The last whole week ends on `to` when it is a Sunday, else on the Sunday before.
  const lastSunday = addDays(periodOf(addDays(w.to, 1), "week"), -1);
  if (firstMonday > lastSunday) return [{ table: "daily", from: w.from, to: w.to }];
  const ranges: BucketRange[] = [];
  if (w.from < firstMonday) ranges.push({ table: "daily", from: w.from, to: addDays(firstMonday, -1) });
  ranges.push({ table: "weekly", from: firstMonday, to: periodOf(lastSunday, "week") });
  if (lastSunday < w.to) ranges.push({ table: "daily", from: addDays(lastSunday, 1), to: w.to });
  return ranges;
}

/** The buckets to read for a trend by `interval` (days; weeks and their edges; months and their edges), or for totals (`total`: months and their edges). */
export function rangesFor(w: DateWindow, by: Interval | "total"): BucketRange[] {
  if (by === "day") return w.from > w.to ? [] : [{ table: "daily", from: w.from, to: w.to }];
  return by === "week" ? weekRanges(w) : bucketRanges(w);
}

/** The period a day falls in: the day, the Monday starting its ISO week, or its month (YYYY-MM). */
export function periodOf(day: string, interval: Interval): string {
  if (interval === "day") return day;
  if (interval === "month") return monthOf(day);
  const weekday = (parseDay(day).getUTCDay() + 6) % 7;
  return addDays(day, -weekday);
}

/** Every period a window touches, in order. The loop ends by a count as well as by the date: a date
 * string past year 9999 (`+010000-…`) sorts before `9999-…`, so a comparison alone may never end. */
export function periodsOf(w: DateWindow, interval: Interval): string[] {
  const periods: string[] = [];
  const most = Math.max(0, daysBetween(w.from, w.to)) + 1;
  if (w.from > w.to) return periods;
  if (interval !== "month") {
    // Days and weeks step by a fixed count of days: one date formatted a period (a year by week is 53).
    const step = (interval === "week" ? 7 : 1) * DAY_MS;
    for (let at = parseDay(periodOf(w.from, interval)).getTime(), n = 0; n < most; n++, at += step) {
      const day = isoDay(new Date(at));
      if (day > w.to) break;
      periods.push(day);
    }
    return periods;
  }
  for (let day = w.from, n = 0; day <= w.to && n < most; n++, day = addDays(lastOfMonth(day), 1)) periods.push(periodOf(day, interval));
  return periods;
}
