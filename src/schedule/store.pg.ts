// The scheduler's store on Postgres (store.ts says what each operation does). Every instance runs
// the scheduler; the advisory lock of `exclusive` makes them take turns, so a due brand is
// enqueued by one of them only.
import type { SQL } from "bun";
import { isUuid, plainRow } from "../db/pg/values";
import { serialized, type BrandPlatformSchedule, type ScheduleStore } from "./store";

/** The scheduler's advisory lock key: the same in every instance (the migrations use 4_242_028_001). */
export const SCHEDULER_LOCK = 4_242_028_002;

export function createPgScheduleStore(sql: SQL): ScheduleStore {
  // At most one of this instance's runs waits on the lock at a time: it holds a connection of the
  // pool while its work uses others.
  const local = serialized();
  return {
    async platformSchedules({ organizationId }) {
      if (organizationId !== null && !isUuid(organizationId)) return [];
      const rows = await sql`
        SELECT bp.brand_id, bp.platform, bp.is_enabled, bp.check_frequency, bp.last_checked_at, bp.retry_at, b.is_active AS brand_active
          FROM brand_platforms bp JOIN brands b ON b.id = bp.brand_id
         WHERE (${organizationId}::uuid IS NULL OR b.organization_id = ${organizationId}::uuid)
         ORDER BY b.created_at, b.id, bp.platform`;
      return rows.map((r: Record<string, unknown>) => plainRow<BrandPlatformSchedule>(r));
    },
    async openTrackingJob(brandId) {
      if (!isUuid(brandId)) return null;
      const [row] = await sql`SELECT id FROM jobs WHERE brand_id = ${brandId} AND type = 'tracking' AND status IN ('waiting', 'active') LIMIT 1`;
      return (row?.id as string | undefined) ?? null;
    },
    exclusive<T>(work: () => Promise<T>): Promise<T> {
      // The lock's transaction holds one connection while `work` runs on others: with a pool of
      // one, work would wait for a connection forever.
      if ((sql.options.max ?? 10) < 2) return Promise.reject(new Error("the scheduler needs a Postgres pool of at least 2 connections (DATABASE_POOL_SIZE)"));
      // A transaction-level lock: released by the commit (or the rollback when work throws), and
      // by the server if this instance dies holding it. Work commits its enqueues on other
      // connections before the lock is let go, so the next holder sees them.
      // (The result travels boxed: a transaction callback returning an array is read as queries.)
      return local(async () => {
        const box = await sql.begin(async (tx) => {
          await tx`SELECT pg_advisory_xact_lock(${SCHEDULER_LOCK})`;
          return { value: await work() };
        });
        return (box as { value: T }).value;
      });
    },
  };
}
