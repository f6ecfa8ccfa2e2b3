// The scheduler's store on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import type { BrandPlatformSchedule, ScheduleStore } from "./store";

export function createSqliteScheduleStore(sqlite: Database): ScheduleStore {
  const q = {
    platforms: sqlite.prepare(
      `SELECT bp.brand_id, bp.platform, bp.is_enabled, bp.check_frequency, bp.last_checked_at, b.is_active AS brand_active
       FROM brand_platforms bp JOIN brands b ON b.id = bp.brand_id
       WHERE (?1 IS NULL OR b.organization_id = ?1) ORDER BY b.created_at, b.id, bp.platform`,
    ),
    openJob: sqlite.prepare("SELECT id FROM jobs WHERE brand_id = ? AND type = 'tracking' AND status IN ('waiting', 'active') LIMIT 1"),
  };
  return {
    async platformSchedules({ organizationId }) {
      return q.platforms.all(organizationId) as BrandPlatformSchedule[];
    },
    async openTrackingJob(brandId) {
      return (q.openJob.get(brandId) as { id: string } | null)?.id ?? null;
    },
  };
}
