// What the scheduler reads to decide which brands are due (brand_platforms, brands, open tracking
// jobs). Enqueueing goes through the tracking service, not this store. Backend implementations:
// store.sqlite.ts (and, with #29, store.pg.ts); the contract both must keep is
// tests/contracts/schedule.contract.ts.
import type { PlatformSchedule } from "./due";

export interface BrandPlatformSchedule extends PlatformSchedule {
  brand_id: string;
  /** The brand's is_active. */
  brand_active: boolean | number;
}

export interface ScheduleStore {
  /** Every platform of every brand (of one organization when given), brands oldest first, then by platform. */
  platformSchedules(input: { organizationId: string | null }): Promise<BrandPlatformSchedule[]>;
  /** The id of one tracking job of the brand that is waiting or active, or null. */
  openTrackingJob(brandId: string): Promise<string | null>;
  /**
   * Runs `work` (runDue's due-check-and-enqueue) while no other run of it holds the scheduler's
   * lock — in this process or, on Postgres, in any instance sharing the database (an advisory
   * lock held for the run's transaction) — and resolves with its result. A run in progress is
   * waited for, so the next one finds the jobs it enqueued open: a due brand is enqueued once,
   * whatever the number of instances and of concurrent ticks or POST /cron/daily-tracking calls.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

/** Runs the `work`s given one after another (a lock of this process). */
export function serialized(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>) => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
}
