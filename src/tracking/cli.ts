// `answerwatch run BRAND [--wait]`: enqueues a tracking run for a brand (by slug) as the API would;
// the server's dispatcher runs it. --wait follows it to the end, with a progress bar on a terminal.
import { terminalSafe } from "../common/terminal";
import type { EngineConfig } from "../engines";
import { AppError } from "../http/errors";
import type { QueueStore } from "../queue/store";
import { createTrackingService } from "./service";
import type { TrackingStore } from "./store";

type Out = { write(text: string): void; isTTY?: boolean };

/** How often --wait checks that a server still holds DATA_DIR (no server: nobody runs the job). */
const SERVER_CHECK_MS = 2_000;

export async function runRunCommand(args: string[], deps: { store: QueueStore; tracking: TrackingStore; engines: EngineConfig; serverRunning: () => boolean | Promise<boolean>; dataDir: string }, out: Out = process.stdout, err: Out = process.stderr): Promise<number> {
  const wait = args.includes("--wait");
  const orgAt = args.indexOf("--org");
  const org = orgAt >= 0 ? args[orgAt + 1] : undefined;
  const positional = args.filter((a, i) => !a.startsWith("--") && !(orgAt >= 0 && i === orgAt + 1));
  if (positional.length !== 1 || (orgAt >= 0 && !org)) {
    err.write("usage: answerwatch run BRAND_SLUG [--org ORGANIZATION] [--wait]\n");
    return 2;
  }
  const brands = await deps.tracking.brandsBySlug({ slug: positional[0]!, organization: org ?? null });
  if (brands.length !== 1) {
    err.write(brands.length ? `answerwatch: several organizations have a brand "${positional[0]}" (${brands.map((b) => b.org).join(", ")}): add --org\n` : `answerwatch: no brand "${positional[0]}" (answerwatch brands lists them)\n`);
    return 2;
  }
  const { store } = deps;
  const tracking = createTrackingService({ store, tracking: deps.tracking, engines: deps.engines });
  let started: { jobId: string; units: number; platforms: string[] };
  try {
    started = await tracking.enqueueRun({ brandId: brands[0]!.id, createdBy: null });
  } catch (error) {
    if (error instanceof AppError) {
      err.write(`answerwatch: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  out.write(`job ${started.jobId}: ${started.units} answer(s) on ${started.platforms.join(", ")}; the server runs it\n`);
  if (!wait) return 0;
  let shown = "";
  let checked = 0;
  for (;;) {
    const job = (await store.get(started.jobId))!;
    const c = await store.counts(started.jobId);
    const done = c.done + c.failed;
    if (out.isTTY) {
      const width = 30;
      const filled = c.total ? Math.round((done / c.total) * width) : 0;
      const line = `\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${c.total} ${job.status}`;
      if (line !== shown) out.write((shown = line));
    }
    if (["completed", "failed", "cancelled"].includes(job.status)) {
      if (out.isTTY) out.write("\n");
      out.write(`${job.status}: ${c.done} answered, ${c.failed} failed${job.failed_reason ? ` (${terminalSafe(job.failed_reason)})` : ""}\n`);
      return job.status === "completed" ? 0 : 1;
    }
    if (Date.now() - checked >= SERVER_CHECK_MS) {
      checked = Date.now();
      if (!(await deps.serverRunning())) {
        if (out.isTTY && shown) out.write("\n");
        err.write(`answerwatch: no server runs on DATA_DIR=${deps.dataDir}: job ${started.jobId} stays queued and runs when one starts (answerwatch serve); not waiting\n`);
        return 3;
      }
    }
    await Bun.sleep(500);
  }
}
