// The scheduler's store on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import { serialized, type BrandPlatformSchedule, type ScheduleStore } from "./store";

const runsOnFile = new Map<string, ReturnType<typeof serialized>>();

export function createSqliteScheduleStore(sqlite: Database): ScheduleStore {
  const q = {
    platforms: sqlite.prepare(
      `SELECT bp.brand_id, bp.platform, bp.is_enabled, bp.check_frequency, bp.last_checked_at, bp.retry_at, b.is_active AS brand_active
       FROM brand_platforms bp JOIN brands b ON b.id = bp.brand_id
       WHERE (?1 IS NULL OR b.organization_id = ?1) ORDER BY b.created_at, b.id, bp.platform`,
    ),
    openJob: sqlite.prepare("SELECT id FROM jobs WHERE brand_id = ? AND type = 'tracking' AND status IN ('waiting', 'active') LIMIT 1"),
  };
  // One process per DATA_DIR (an OS lock): serializing this process's runs on the file is the whole lock.
  let exclusive = runsOnFile.get(sqlite.filename);
  if (!exclusive) runsOnFile.set(sqlite.filename, (exclusive = serialized()));
  return {
    exclusive,
    async platformSchedules({ organizationId }) {
      return q.platforms.all(organizationId) as BrandPlatformSchedule[];
    },
    async openTrackingJob(brandId) {
      return (q.openJob.get(brandId) as { id: string } | null)?.id ?? null;
    },
  };
}
