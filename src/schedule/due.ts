// When is a brand's platform due (DESIGN §9)? Pure, so the rule is tested on its own.

export type CheckFrequency = "hourly" | "daily" | "weekly" | "monthly" | "manual";

/** A run ends some minutes after the hour it started; without slack a daily check would drift an hour a day. */
export const DUE_TOLERANCE_MS = 5 * 60_000;

export interface PlatformSchedule {
  platform: string;
  is_enabled: boolean | number;
  check_frequency: CheckFrequency | string;
  last_checked_at: string | null;
}

/** The moment after which a platform checked at `last` is due again. */
export function nextDue(frequency: CheckFrequency, last: Date): Date | null {
  const next = new Date(last.getTime());
  switch (frequency) {
    case "hourly":
      next.setUTCHours(next.getUTCHours() + 1);
      break;
    case "daily":
      next.setUTCDate(next.getUTCDate() + 1);
      break;
    case "weekly":
      next.setUTCDate(next.getUTCDate() + 7);
      break;
    case "monthly":
      next.setUTCMonth(next.getUTCMonth() + 1);
      break;
    default:
      return null;
  }
  return next;
}

export function isDue(schedule: PlatformSchedule, now: Date): boolean {
  if (!schedule.is_enabled || schedule.check_frequency === "manual") return false;
  if (!schedule.last_checked_at) return true;
  const last = new Date(schedule.last_checked_at);
  if (Number.isNaN(last.getTime())) return true;
  const next = nextDue(schedule.check_frequency as CheckFrequency, last);
  return next !== null && now.getTime() >= next.getTime() - DUE_TOLERANCE_MS;
}
