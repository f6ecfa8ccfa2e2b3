// GET /healthz: the process is up and its database answers (and, before the lazily loaded
// runtime is up, that it did not fail to load), and no write has recently failed for want of disk.
import { isStorageFull } from "./errors";
import { GONE_AFTER_MS, type InstanceStore } from "./instances";
import type { StatusStore } from "./status-store";

/** How long after the last write that failed for want of disk /healthz still reports it. */
const WRITE_FAILURE_WINDOW_MS = 60_000;

/**
 * Remembers the last write that failed because the disk was full, for /healthz: reads still work
 * then, so a read-only probe alone would call a server that can take no sign-in or beacon healthy.
 */
export function createStorageHealth(now: () => number = Date.now) {
  let failedAt: number | undefined;
  return {
    record(error: unknown): void {
      if (isStorageFull(error)) failedAt = now();
    },
    /** The failure to report, or null when writes have not failed lately. */
    writeFailure(): string | null {
      return failedAt !== undefined && now() - failedAt < WRITE_FAILURE_WINDOW_MS ? `a write failed ${Math.round((now() - failedAt) / 1000)} s ago: the disk is full` : null;
    },
  };
}

export type StorageHealth = ReturnType<typeof createStorageHealth>;

export async function healthResponse(
  status: StatusStore,
  version: string,
  startedAt: number,
  state: { runtimeFailed?: boolean; writeFailure?: string | null } = {},
  instances?: InstanceStore,
): Promise<Response> {
  const body: Record<string, unknown> = { status: "ok", version, uptime_s: Math.round((Date.now() - startedAt) / 1000), db: "ok" };
  if (state.runtimeFailed) return Response.json({ ...body, status: "error", runtime: "error" }, { status: 503 });
  try {
    // Several instances on one database: how many renewed their heartbeat lately (that answer is
    // the database's too: one statement, not two).
    if (instances) body.instances = (await instances.live(GONE_AFTER_MS)).length;
    else await status.ping();
  } catch {
    return Response.json({ ...body, status: "error", db: "error" }, { status: 503 });
  }
  if (state.writeFailure) return Response.json({ ...body, status: "error", db_write: "error", error: state.writeFailure }, { status: 503 });
  return Response.json(body);
}
