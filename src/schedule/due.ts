// When is a brand's platform due (DESIGN §9)? Pure, so the rule is tested on its own.

export type CheckFrequency = "hourly" | "daily" | "weekly" | "monthly" | "manual";

/**
 * A run is stamped with the time its job was made (the scheduler's tick), a moment after the tick:
 * without slack the next tick would find it not quite due and a daily check would drift.
 */
export const DUE_TOLERANCE_MS = 5 * 60_000;

/** A platform none of whose units got an answer in a run waits this long, doubled per such run in a row, at most its frequency's interval. */
export const FAILED_RETRY_BASE_MS = 60 * 60_000;

export interface PlatformSchedule {
  platform: string;
  is_enabled: boolean | number;
  check_frequency: CheckFrequency | string;
  last_checked_at: string | null;
  /** After a run in which none of its units succeeded: not due before this (brand_platforms.retry_at). */
  retry_at?: string | null;
}

const DAY_MS = 24 * 3_600_000;

/** Minutes `zone` is ahead of UTC at `at` (0 for UTC or no zone). */
function offsetMinutes(at: Date, zone: string | undefined): number {
  if (!zone) return 0;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  return Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/**
 * `last` moved by whole calendar days or months on the wall clock of `zone` (the scheduler's
 * CRON_TZ): a daily check at 06:00 stays at 06:00 across a daylight-saving change (a 23- or 25-hour
 * day), and a month from the 31st is the last day of a shorter month (not the 3rd of the next).
 */
function addCalendar(last: Date, unit: "day" | "month", count: number, zone: string | undefined): Date {
  const before = offsetMinutes(last, zone);
  const wall = new Date(last.getTime() + before * 60_000);
  if (unit === "day") wall.setUTCDate(wall.getUTCDate() + count);
  else {
    const day = wall.getUTCDate();
    wall.setUTCDate(1);
    wall.setUTCMonth(wall.getUTCMonth() + count);
    const lastDay = new Date(Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth() + 1, 0)).getUTCDate();
    wall.setUTCDate(Math.min(day, lastDay));
  }
  // The zone's offset at the new wall time, which may differ from the one at `last`. A wall time
  // the change skipped (spring forward) is read with the offset before it: the moment just after
  // the gap, never an hour early.
  const after = offsetMinutes(new Date(wall.getTime() - before * 60_000), zone);
  const candidate = new Date(wall.getTime() - after * 60_000);
  return offsetMinutes(candidate, zone) === after ? candidate : new Date(wall.getTime() - before * 60_000);
}

/** The moment after which a platform checked at `last` is due again; whole days and months follow `zone`'s wall clock. */
export function nextDue(frequency: CheckFrequency, last: Date, zone?: string): Date | null {
  switch (frequency) {
    case "hourly":
      return new Date(last.getTime() + 3_600_000);
    case "daily":
      return addCalendar(last, "day", 1, zone);
    case "weekly":
      return addCalendar(last, "day", 7, zone);
    case "monthly":
      return addCalendar(last, "month", 1, zone);
    default:
      return null;
  }
}

/** How long a platform waits after its `failedRuns`-th run in a row without a single answer (1 h, 2 h, 4 h… at most its interval). */
export function failedRetryDelay(frequency: CheckFrequency | string, failedRuns: number, at: Date): number {
  const interval = nextDue(frequency as CheckFrequency, at);
  const cap = interval ? interval.getTime() - at.getTime() : DAY_MS;
  return Math.min(cap, FAILED_RETRY_BASE_MS * 2 ** Math.min(Math.max(failedRuns - 1, 0), 20));
}

/** When a platform may run again after its `failedRunsBefore + 1`-th run in a row without a single unit done, that run made at `at`. */
export function failedRetryAt(frequency: CheckFrequency | string, failedRunsBefore: number, at: string): string {
  const made = new Date(at);
  return new Date(made.getTime() + failedRetryDelay(frequency, failedRunsBefore + 1, made)).toISOString();
}

export function isDue(schedule: PlatformSchedule, now: Date, zone?: string): boolean {
  if (!schedule.is_enabled || schedule.check_frequency === "manual") return false;
  const soon = now.getTime() + DUE_TOLERANCE_MS;
  if (schedule.retry_at) {
    const retry = Date.parse(schedule.retry_at);
    if (!Number.isNaN(retry) && soon < retry) return false;
  }
  if (!schedule.last_checked_at) return true;
  const last = new Date(schedule.last_checked_at);
  if (Number.isNaN(last.getTime())) return true;
  const next = nextDue(schedule.check_frequency as CheckFrequency, last, zone);
  return next !== null && soon >= next.getTime();
}
