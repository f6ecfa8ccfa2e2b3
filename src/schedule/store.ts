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
}
