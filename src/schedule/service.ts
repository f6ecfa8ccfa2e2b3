// The one function behind the internal scheduler and POST /cron/daily-tracking: one job per brand
// with its due platforms; none for a brand that already has a run waiting or active.
import { AppError } from "../http/errors";
import type { TrackingService } from "../tracking/service";
import type { Logger } from "../http/log";
import { PLATFORM_IDS } from "../engines/types";
import { isDue } from "./due";
import type { ScheduleStore } from "./store";

export interface ScheduleOutcome {
  success: true;
  enqueued: { brandId: string; jobId: string; platforms: string[] }[];
  skipped: { brandId: string; reason: string }[];
}

/**
 * `timeZone`: CRON_TZ when set, whose wall clock a daily, weekly or monthly check keeps
 * (src/schedule/due.ts); unset, whole days of UTC (an outside cron calling /cron/daily-tracking
 * keeps UTC, and the server's own zone would skip a day at its daylight-saving change).
 */
export function createScheduleService(deps: { store: ScheduleStore; tracking: TrackingService; now?: () => Date; logger?: Logger; timeZone?: string }) {
  const { store } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    // One run at a time across every instance (store.exclusive): the check "no open job" and the
    // enqueue that follows it must not interleave with another run's.
    runDue: (options: { organizationId?: string | null } = {}): Promise<ScheduleOutcome> => store.exclusive(() => runDue(options)),
  };

  async function runDue(options: { organizationId?: string | null }): Promise<ScheduleOutcome> {
    const at = now();
    const dueByBrand = new Map<string, string[]>();
    const inactive = new Set<string>();
    for (const row of await store.platformSchedules({ organizationId: options.organizationId ?? null })) {
      if (!row.brand_active) inactive.add(row.brand_id);
      if (!dueByBrand.has(row.brand_id)) dueByBrand.set(row.brand_id, []);
      // A platform name no engine has (a row written through /rest/v1) is left out, not the brand.
      if (KNOWN_PLATFORMS.has(row.platform) && isDue(row, at, deps.timeZone)) dueByBrand.get(row.brand_id)!.push(row.platform);
    }
    const outcome: ScheduleOutcome = { success: true, enqueued: [], skipped: [] };
    // An inactive brand (is_active = false) is never tracked on a schedule.
    for (const brandId of inactive) {
      dueByBrand.delete(brandId);
      outcome.skipped.push({ brandId, reason: "the brand is inactive" });
    }
    for (const [brandId, platforms] of dueByBrand) {
      // One brand's failure (bad data, a bug) is logged and skipped; the others still run.
      try {
        await scheduleBrand(brandId, platforms, outcome);
      } catch (error) {
        deps.logger?.error("scheduling a brand failed", { brand_id: brandId, error: String((error as Error)?.stack ?? error) });
        outcome.skipped.push({ brandId, reason: "internal error while scheduling this brand (see the server log)" });
      }
    }
    return outcome;
  }

  /** The outcome for one brand: enqueued, or skipped with the reason. */
  async function scheduleBrand(brandId: string, platforms: string[], outcome: ScheduleOutcome): Promise<void> {
    const skip = (reason: string) => void outcome.skipped.push({ brandId, reason });
    if (!platforms.length) return skip("no platform is due");
    const open = await store.openTrackingJob(brandId);
    if (open) return skip(`a tracking run is already waiting or active (${open})`);
    const configured = platforms.filter((p) => deps.tracking.registry.isConfigured(p as never));
    if (!configured.length)
      return skip(`no due platform is configured (${platforms.map((p) => `${p}: set ${deps.tracking.registry.missingVariable(p as never)}`).join(", ")})`);
    try {
      // Unless any run of the brand opened meanwhile (a "Run now" on another instance): the check
      // above and this enqueue are not one step, the enqueue's own check is.
      const run = await deps.tracking.enqueueRun({ brandId, platforms: configured, createdBy: null, force: true, unlessAnyOpen: true });
      outcome.enqueued.push({ brandId, jobId: run.jobId, platforms: run.platforms });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // Due but refused (a run over MAX_UNITS_PER_RUN, no active prompt): said in the log, not only in the cron answer.
      deps.logger?.warn("a scheduled run was not started", { brand_id: brandId, code: error.code, reason: error.message });
      skip(error.message);
    }
  }
}

const KNOWN_PLATFORMS: ReadonlySet<string> = new Set(PLATFORM_IDS);

export type ScheduleService = ReturnType<typeof createScheduleService>;
