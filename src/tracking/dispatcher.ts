// The main-thread side of tracking runs: claims jobs from the queue, hands their units to the
// worker threads under one per-provider limiter (so concurrency and requests-per-minute hold
// across all threads), retries transient failures with backoff, and finalizes finished jobs.
import { hostname } from "node:os";
import { createLimiter, type EngineConfig, type Limiter, type PlatformId } from "../engines";
import type { Logger } from "../http/log";
import { HANDED_BACK_KIND } from "../queue/messages";
import { TaskFailure, type WorkerPool } from "../queue/pool";
import type { QueueStore, UnitRow } from "../queue/store";
import { finalizeJob } from "./finalize";
import { createResultWriter } from "./result-writer";
import type { TrackingStore, UnitStore } from "./store";
import type { BrandEntities, UnitInput, UnitOutcome, UnitTask } from "./unit";

/** Answers whose write failed, kept for their units' retries across all jobs of a dispatcher. */
const MAX_KEPT_ANSWERS = 1000;

/** What a unit's call ends with that is written (a skipped unit writes nothing). */
type WrittenOutcome = Exclude<UnitOutcome, { kind: "skipped" }>;

export interface DispatcherOptions {
  store: QueueStore;
  tracking: TrackingStore;
  /**
   * Reads each unit's status and prompt ahead, while its lane's previous call is upstream, so a unit
   * starts with its call (UnitTask.input). Without it the threads read them when the unit starts.
   */
  units?: UnitStore;
  pool: WorkerPool;
  engines: EngineConfig;
  logger: Logger;
  now?: () => Date;
  leaseMs?: number;
  maxActiveJobs?: number;
  maxUnitAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  pollMs?: number;
  visibilityAlertPoints?: number;
  /** Told after a job's events were recorded (the webhook deliverer wakes up). */
  onEvents?: () => void;
  /** Each engine call's platform, outcome (answered, or the error's kind) and time (metrics). */
  onUpstream?: (platform: string, outcome: string, ms: number) => void;
}

interface ActiveJob {
  id: string;
  brandId: string;
  organizationId: string | null;
  abort: AbortController;
  unsettled: number;
  /** Outcomes handed to the writer and not yet committed. */
  writing: number;
  retries: number;
  /** Platforms refused for good (bad key): their remaining units fail without a call. */
  deadPlatforms: Map<string, string>;
  timers: Set<ReturnType<typeof setTimeout>>;
  /** Units due to run, per platform, taken in order by that platform's lanes. */
  ready: Map<string, ReadyUnits>;
  /** The brand's entities as read when the job started, sent with each platform's first round. */
  entities?: Promise<BrandEntities | null>;
}

interface ReadyUnits {
  units: UnitRow[];
  next: number;
  lanes: number;
  /** The platform's concurrency: how many lanes take from `units`. */
  width: number;
  /** Inputs read ahead, by index in `units`: at most `width`, those a round ahead of `next`. */
  ahead: Map<number, Promise<UnitInput | null>>;
}

/** A limiter slot; handed on, the next unit of the lane releases it. */
interface Slot {
  release: () => void;
  handedOn: boolean;
}

/** A lane's unit from its hand-over to its thread until its upstream call is over. */
interface LaneCall {
  /** Handed to its thread (or ended without a call), and any call before it in the lane over. */
  started: Promise<void>;
  /** Its upstream call is over: answered, or the unit ended without an answer. */
  over: Promise<void>;
  isOver: boolean;
  slot?: Slot;
  taskId?: number;
}

/** A unit handed to its thread behind the lane's call in flight, with that call's slot. */
interface Chained {
  after: LaneCall;
  slot: Slot;
  /** Tells the limiter the unit's call started (Limiter.handOver). */
  made: () => void;
}

/** How a lane's unit starts: its input read ahead, and whether it goes behind the lane's call in flight. */
interface UnitStart {
  /** One of its platform's first `width` units: it brings the brand's entities to its thread. */
  firstRound: boolean;
  ahead?: Promise<UnitInput | null>;
  chained?: Chained;
}

const OWNER_PREFIX = `${hostname()}:${process.pid}:`;

/** "host:pid:uuid" owners on this host whose process is gone. */
export function isDeadLocalOwner(owner: string): boolean {
  const [host, pid] = owner.split(":");
  if (host !== hostname() || !pid) return false;
  // Only called before this process owns anything: an owner with our pid is a previous process.
  if (Number(pid) === process.pid) return true;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * The longest an upstream's hint (Retry-After, a reset header) may make a unit wait: a day's hint kept
 * a run open a day, and 1e16 ms made an invalid date that ended the process.
 */
export const MAX_RETRY_HINT_MS = 15 * 60_000;

/** Exponential backoff with ±25 % jitter, never shorter than the upstream's own hint (up to MAX_RETRY_HINT_MS). */
export function retryDelay(attempt: number, hintMs: number | undefined, baseMs: number, maxMs: number): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exp * (0.75 + Math.random() * 0.5);
  const hint = hintMs === undefined || Number.isNaN(hintMs) ? 0 : Math.min(hintMs, MAX_RETRY_HINT_MS);
  return Math.round(Math.max(jittered, hint));
}

export function createDispatcher(options: DispatcherOptions) {
  const { store, pool, logger } = options;
  const now = options.now ?? (() => new Date());
  const leaseMs = options.leaseMs ?? 30_000;
  const maxActiveJobs = options.maxActiveJobs ?? 8;
  const maxUnitAttempts = options.maxUnitAttempts ?? 6;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const retryMaxMs = options.retryMaxMs ?? 60_000;
  const owner = `${OWNER_PREFIX}${crypto.randomUUID()}`;
  const active = new Map<string, ActiveJob>();
  /** Jobs whose last unit settled, their summary being made (finish): still ours until it commits. */
  const finishing = new Set<string>();
  const writer = createResultWriter(options.tracking);
  /**
   * Answers bought whose write failed (a locked or unreachable database), by job and unit: the
   * unit's retry writes the kept answer instead of paying for the call again. Bounded: past
   * MAX_KEPT_ANSWERS the oldest is forgotten (its unit asks again); a job's are dropped when it ends.
   */
  const keptAnswers = new Map<string, { task: UnitTask; outcome: WrittenOutcome }>();
  const keptKey = (jobId: string, seq: number) => `${jobId}\u0000${seq}`;
  const limiters = new Map<string, Limiter>();
  let stopped = false;
  let pumping = false;
  let pumpAgain = false;

  const limiterFor = (platform: string): Limiter => {
    const cfg = options.engines.platforms[platform as PlatformId];
    const key = cfg?.prefix ?? platform;
    let limiter = limiters.get(key);
    if (!limiter) limiters.set(key, (limiter = createLimiter({ concurrency: cfg?.concurrency ?? 4, rpm: cfg?.rpm ?? 0 })));
    return limiter;
  };

  function settle(job: ActiveJob) {
    job.unsettled--;
    if (job.unsettled === 0) void finish(job);
  }

  /** A job that ends here, done or handed back, leaves no answers kept for it. */
  function forgetAnswers(jobId: string) {
    for (const key of [...keptAnswers.keys()]) if (key.startsWith(`${jobId}\u0000`)) keptAnswers.delete(key);
  }

  async function finish(job: ActiveJob) {
    active.delete(job.id);
    forgetAnswers(job.id);
    job.timers.forEach(clearTimeout);
    if (job.abort.signal.aborted) return void wake();
    // Its lease is still renewed while the summary is made, and a claim of it meanwhile is ours.
    finishing.add(job.id);
    try {
      const counts = await store.counts(job.id);
      // The phase is set while the summary reads; a job no longer running keeps its own (the queue
      // store's setProgress changes running jobs only, and on SQLite it runs first). Its failure
      // is only logged: the summary goes on, and decides the job's end alone.
      const summarizing = store
        .setProgress({ jobId: job.id, progress: { phase: "summarizing", completed: counts.done + counts.failed, total: counts.total } })
        .catch((error) => logger.warn("tracking job's summarizing phase could not be recorded", { job_id: job.id, error: String(error) }));
      const outcome = await finalizeJob({ store: options.tracking, jobId: job.id, owner, brandId: job.brandId, organizationId: job.organizationId, counts, retries: job.retries, now, visibilityAlertPoints: options.visibilityAlertPoints ?? 10 });
      await summarizing;
      options.onEvents?.();
      logger.info("tracking job finished", { job_id: job.id, status: outcome.status, failed_reason: outcome.failedReason });
      refreshStatistics();
    } catch (error) {
      logger.error("tracking job finalize failed", { job_id: job.id, error: String(error) });
      await failJob(job.id, `could not finalize the run: ${String(error)}`);
    } finally {
      finishing.delete(job.id);
    }
    wake();
  }

  /**
   * After a run, its tables' planner statistics where its writes made them stale (TrackingStore),
   * off the run's path: the job is done when its summary commits. One refresh at a time; stop()
   * waits for the last.
   */
  let refreshing: Promise<void> = Promise.resolve();
  function refreshStatistics() {
    refreshing = refreshing.then(async () => {
      if (stopped) return;
      try {
        const tables = await options.tracking.refreshStatistics();
        if (tables.length) logger.info("planner statistics refreshed after a run", { tables: tables.join(",") });
      } catch (error) {
        logger.error("planner statistics could not be refreshed", { error: String(error) });
      }
    });
  }

  /**
   * A job that cannot be started or finalized is failed with the reason, so it neither blocks the
   * jobs queued behind it nor comes back on every lease expiry.
   */
  async function failJob(jobId: string, reason: string) {
    try {
      await store.finish({ jobId, owner, status: "failed", result: null, failedReason: reason, progress: { phase: "failed" } });
    } catch (error) {
      logger.error("tracking job could not be marked failed", { job_id: jobId, error: String(error) });
    }
  }

  /**
   * A job runs each platform's units in as many lanes as the platform has concurrency, one unit
   * after the other in each: the limiter (shared by every job) never holds more than a few waiters
   * per job, and a unit is looked at only when it is its turn (a platform whose key was refused
   * fails its remaining units without a call).
   */
  function enqueue(job: ActiveJob, unit: UnitRow) {
    // A job stopped or cancelled while its units were being read takes none: its lanes would end at
    // once, leaving the loop below nothing to count on.
    if (job.abort.signal.aborted) return;
    let queue = job.ready.get(unit.platform);
    const width = options.engines.platforms[unit.platform as PlatformId]?.concurrency ?? 4;
    if (!queue) job.ready.set(unit.platform, (queue = { units: [], next: 0, lanes: 0, width, ahead: new Map() }));
    queue.units.push(unit);
    // Read ahead here when the unit a round before it was taken before it arrived, and for the
    // first round: the main pool's connections are open, a thread's own are not yet.
    const index = queue.units.length - 1;
    if (index - width < queue.next) readAhead(job, queue, index);
    // Bounded by a count as well: a lane that ends at once (its job aborted) changes nothing here.
    for (let started = 0; started < width && queue.lanes < width && queue.lanes < queue.units.length - queue.next; started++) void lane(job, queue);
  }

  /**
   * Starts reading the input of the unit at `index`, which a lane takes about one call from now
   * (lanes take units in order, `width` at a time): on Postgres that read is a round trip on a
   * busy pool, which would otherwise come before each call (issue #29). A failed read is none.
   */
  function readAhead(job: ActiveJob, queue: ReadyUnits, index: number) {
    const unit = queue.units[index];
    if (!options.units || !unit || queue.ahead.has(index)) return;
    queue.ahead.set(index, options.units.unitInput({ jobId: job.id, seq: unit.seq, promptId: unit.prompt_id }).catch(() => null));
  }

  async function lane(job: ActiveJob, queue: ReadyUnits) {
    queue.lanes++;
    let current: LaneCall | undefined;
    try {
      // The next unit starts when this one's upstream call is over, while it is analysed and written.
      // Each turn takes a unit, or waits for the lane's call to be over and looks once more for
      // units enqueued meanwhile (retries) before the lane ends.
      while (!job.abort.signal.aborted) {
        // At most one unit waits in a thread behind this lane's call.
        if (current) await current.started;
        if (job.abort.signal.aborted) break;
        if (queue.next >= queue.units.length) {
          if (!current || current.isOver) break;
          await current.over;
          continue;
        }
        const index = queue.next++;
        const unit = queue.units[index]!;
        const input = queue.ahead.get(index);
        queue.ahead.delete(index);
        readAhead(job, queue, index + queue.width);
        // While the lane's call is upstream, its slot goes to the next unit, which its thread starts
        // when that call is over (issue #29: no round trip through this thread between two calls).
        const made = current && !current.isOver && current.slot && current.taskId !== undefined && !job.deadPlatforms.has(unit.platform) ? limiterFor(unit.platform).handOver() : undefined;
        if (made) {
          current!.slot!.handedOn = true;
          current = call(job, unit, { firstRound: index < queue.width, ahead: input, chained: { after: current!, slot: { release: current!.slot!.release, handedOn: false }, made } });
        } else {
          if (current) await current.over;
          current = call(job, unit, { firstRound: index < queue.width, ahead: input });
        }
      }
      if (current) await current.over;
    } finally {
      queue.lanes--;
    }
  }

  function call(job: ActiveJob, unit: UnitRow, how: UnitStart): LaneCall {
    let posted!: () => void;
    let over!: () => void;
    const handed = new Promise<void>((resolve) => (posted = resolve));
    const laneCall: LaneCall = {
      started: how.chained ? Promise.all([handed, how.chained.after.over]).then(() => {}) : handed,
      over: new Promise<void>((resolve) => (over = resolve)),
      isOver: false,
      slot: how.chained?.slot,
    };
    // runUnit records its own failures; what escapes it is logged and hands the job back, so no
    // rejection goes unhandled and no job stays running with a unit nobody will settle.
    runUnit(job, unit, laneCall, { posted, over }, how).catch((error) => lostUnit(job, error));
    return laneCall;
  }

  /**
   * A unit's outcome could not be recorded (the database failed under a retry or a failure): the
   * job is given up here, its lease left to run out, and whoever claims it next — this instance
   * too — resumes its pending units. Going on would leave the unit unsettled and the job active for good.
   */
  function lostUnit(job: ActiveJob, error: unknown) {
    if (stopped || job.abort.signal.aborted) return;
    logger.error("a tracking unit's outcome could not be recorded: the job is handed back", { job_id: job.id, error: String(error) });
    abortJob(job);
  }

  async function runUnit(job: ActiveJob, unit: UnitRow, laneCall: LaneCall, marks: { posted: () => void; over: () => void }, { firstRound, ahead, chained }: UnitStart): Promise<void> {
    // Called when the upstream answers (not when analysis and the write are done): the limits are
    // about calls in flight upstream. A slot handed on to the lane's next unit is that unit's.
    const release = () => {
      if (laneCall.isOver) return;
      laneCall.isOver = true;
      const slot = laneCall.slot;
      // A slot this unit was handed is free only once the call it came from is over too (this unit
      // may end first: aborted, or given back unstarted).
      if (slot && !slot.handedOn) {
        if (chained && !chained.after.isOver) void chained.after.over.then(slot.release);
        else slot.release();
      }
      marks.over();
    };
    let calledAt: number | undefined;
    const onAbort = () => laneCall.taskId !== undefined && pool.abort(laneCall.taskId);
    // A unit handed on starts when the call before it is over (or ends then without a call, which
    // the limiter counts as a start all the same); its call's time is counted from then.
    if (chained)
      void chained.after.over.then(() => {
        chained.made();
        if (calledAt !== undefined) calledAt = performance.now();
      });
    // A platform refused for good fails its units without a call: checked before waiting for a
    // slot, and again before the call (the lane's call before this one, or another lane's, may have
    // been refused meanwhile).
    const failDead = async () => {
      await store.failUnit({ jobId: job.id, seq: unit.seq, error: job.deadPlatforms.get(unit.platform)! });
      settle(job);
    };
    try {
      // An answer already bought is written even when its platform was refused since.
      const kept = keptAnswers.get(keptKey(job.id, unit.seq));
      if (kept) {
        // Stopping: nothing more is written (the next start asks the unit again).
        if (job.abort.signal.aborted || stopped) return;
        keptAnswers.delete(keptKey(job.id, unit.seq));
        await writeOutcome(job, unit, kept.task, kept.outcome);
        return settle(job);
      }
      if (job.deadPlatforms.has(unit.platform)) return await failDead();
      const input = (await ahead) ?? undefined;
      // The first round's tasks bring the brand's entities: a thread just started has read nothing.
      const entities = firstRound ? ((await job.entities) ?? undefined) : undefined;
      laneCall.slot ??= { release: await limiterFor(unit.platform).acquire(unit.platform as PlatformId, job.abort.signal), handedOn: false };
      // Stopping: no new paid call whose answer the stop would drop (the next start asks it).
      if (job.abort.signal.aborted || stopped) return;
      if (job.deadPlatforms.has(unit.platform)) return await failDead();
      calledAt = performance.now();
      const run = pool.run({ jobId: job.id, seq: unit.seq, brandId: unit.brand_id, promptId: unit.prompt_id, platform: unit.platform, model: unit.model, region: unit.region, sample: unit.sample, input, entities }, release, chained?.after.taskId);
      laneCall.taskId = run.id;
      marks.posted();
      job.abort.signal.addEventListener("abort", onAbort, { once: true });
      const outcome = (await run.promise) as UnitOutcome;
      // An answer arriving after stop() is not written: the job was handed back, and the database
      // may already be closed; the next start runs the unit again.
      if (stopped) return;
      options.onUpstream?.(unit.platform, outcome.kind, performance.now() - calledAt);
      if (outcome.kind !== "skipped") await writeOutcome(job, unit, run.task, outcome);
      settle(job);
    } catch (error) {
      if (job.abort.signal.aborted || stopped) return;
      const failure = error instanceof TaskFailure ? error.error : { message: String(error), kind: "internal", permanent: false };
      // Given back unstarted (the call before it was refused): taken again, as if never handed out.
      if (failure.kind === HANDED_BACK_KIND) return void enqueue(job, unit);
      // An upstream failure (not this side's: a write that failed after the answer was counted).
      if (calledAt !== undefined && error instanceof TaskFailure) options.onUpstream?.(unit.platform, failure.kind ?? "error", performance.now() - calledAt);
      const attempt = unit.attempts + 1;
      const reason = failure.variable && failure.kind === "auth" ? failure.message : `${unit.platform}: ${failure.message}`;
      if (failure.permanent || attempt >= maxUnitAttempts) {
        if (failure.kind === "auth") job.deadPlatforms.set(unit.platform, reason);
        await store.failUnit({ jobId: job.id, seq: unit.seq, error: reason });
        settle(job);
      } else {
        job.retries++;
        const delay = retryDelay(attempt, failure.retryAfterMs, retryBaseMs, retryMaxMs);
        await store.scheduleRetry({ jobId: job.id, seq: unit.seq, delayMs: delay, error: reason });
        const timer = setTimeout(() => {
          job.timers.delete(timer);
          enqueue(job, { ...unit, attempts: attempt });
        }, delay);
        job.timers.add(timer);
      }
    } finally {
      release();
      marks.posted();
      job.abort.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Writes a unit's outcome; one that could not be written is kept for the unit's retry (keptAnswers). */
  async function writeOutcome(job: ActiveJob, unit: UnitRow, task: UnitTask, outcome: WrittenOutcome) {
    job.writing++;
    const written = writer.write(task, outcome);
    // The job's last outcomes: nothing more of it is coming to fill the batch, so it commits now.
    if (job.writing === job.unsettled) void writer.flush();
    try {
      await written;
    } catch (error) {
      // Not for a job cancelled or stopped meanwhile: nothing would write or forget it.
      if (!job.abort.signal.aborted && !stopped) {
        if (keptAnswers.size >= MAX_KEPT_ANSWERS) keptAnswers.delete(keptAnswers.keys().next().value!);
        keptAnswers.set(keptKey(job.id, unit.seq), { task, outcome });
      }
      throw error;
    } finally {
      job.writing--;
    }
  }

  async function startJob(row: { id: string; brand_id: string | null; organization_id: string | null; attempts: number; max_attempts: number }) {
    // The threads start while the job's units are read, not after.
    pool.warm();
    const counts = await store.counts(row.id);
    const job: ActiveJob = {
      id: row.id,
      brandId: row.brand_id!,
      organizationId: row.organization_id,
      abort: new AbortController(),
      unsettled: counts.pending,
      writing: 0,
      retries: 0,
      deadPlatforms: new Map(),
      timers: new Set(),
      ready: new Map(),
      // Read on this thread's pool beside the units (its connections are open; a new thread's are not).
      entities: options.units?.entities(row.brand_id!).catch(() => null),
    };
    active.set(job.id, job);
    await store.setProgress({ jobId: job.id, progress: { phase: "querying", completed: counts.done + counts.failed, total: counts.total } });
    if (row.attempts > row.max_attempts) {
      // A job that keeps killing its process is given up rather than retried forever.
      for (const unit of await store.pendingUnits(job.id)) await store.failUnit({ jobId: job.id, seq: unit.seq, error: `gave up after ${row.max_attempts} attempts of the job` });
      job.unsettled = 0;
    }
    if (job.unsettled === 0) return finish(job);
    const pending = await store.pendingUnits(job.id);
    // Aborted meanwhile (finish above checks for itself): no retry timers for a job that is gone.
    if (job.abort.signal.aborted) return;
    const at = now().getTime();
    for (const unit of pending) {
      const waitMs = unit.run_at ? Date.parse(unit.run_at) - at : 0;
      if (waitMs > 0) {
        const timer = setTimeout(() => {
          job.timers.delete(timer);
          enqueue(job, unit);
        }, waitMs);
        job.timers.add(timer);
      } else enqueue(job, unit);
    }
  }

  async function pump() {
    if (pumping) return void (pumpAgain = true);
    pumping = true;
    try {
      await leasesExpired;
      do {
        pumpAgain = false;
        while (!stopped && active.size < maxActiveJobs) {
          const row = await store.claim({ owner, leaseMs });
          if (!row) break;
          // Our own job, its lease lapsed while heartbeats failed: the claim renewed it, and the
          // job runs on here. Starting it again would ask its pending units twice.
          if (active.has(row.id) || finishing.has(row.id)) continue;
          try {
            await startJob(row);
          } catch (error) {
            // One job's bad data must not stop the others from being claimed.
            logger.error("tracking job could not start", { job_id: row.id, error: String(error) });
            const job = active.get(row.id);
            if (job) abortJob(job);
            await failJob(row.id, `could not start the run: ${String(error)}`);
          }
        }
      } while (pumpAgain && !stopped);
    } catch (error) {
      logger.error("tracking dispatcher could not claim", { error: String(error) });
    } finally {
      pumping = false;
    }
  }

  function wake() {
    if (!stopped) queueMicrotask(() => void pump());
  }

  async function heartbeat() {
    try {
      for (const job of [...active.values()]) {
        if (!(await store.heartbeat({ jobId: job.id, owner, leaseMs }))) abortJob(job);
      }
      // A lost lease here shows in the run's end, which records only under its lease.
      for (const jobId of [...finishing]) await store.heartbeat({ jobId, owner, leaseMs });
    } catch (error) {
      logger.error("tracking dispatcher could not renew its leases", { error: String(error) });
    }
  }

  function abortJob(job: ActiveJob) {
    job.abort.abort();
    job.timers.forEach(clearTimeout);
    active.delete(job.id);
  }

  // Before the first claim: the jobs of a previous process on this host are resumed at once.
  const leasesExpired = store.expireDeadLeases(isDeadLocalOwner).catch((error) => logger.error("tracking dispatcher could not expire dead leases", { error: String(error) }));
  const heartbeatTimer = setInterval(() => void heartbeat(), Math.max(50, Math.floor(leaseMs / 3)));
  // Jobs enqueued by another process, and retries whose time came, are picked up by polling too.
  const pollTimer = setInterval(() => void pump(), options.pollMs ?? 1000);
  // Several instances on one Postgres: another one's enqueue wakes this one, and a cancel made on
  // any instance stops the job here at once (on SQLite nothing is announced: polling suffices).
  const listening = store
    .listen({
      work: () => wake(),
      cancelled: (jobId) => {
        const job = active.get(jobId);
        if (job) abortJob(job);
        forgetAnswers(jobId);
        wake();
      },
    })
    .catch((error) => {
      logger.error("tracking dispatcher could not listen for queue events (polling only)", { error: String(error) });
      return async () => {};
    });
  wake();

  return {
    owner,
    wake,
    /** Stops work on a job at once (after it was marked cancelled in the store). */
    cancel(jobId: string) {
      const job = active.get(jobId);
      if (job) abortJob(job);
      forgetAnswers(jobId);
      wake();
    },
    async stop() {
      stopped = true;
      clearInterval(heartbeatTimer);
      clearInterval(pollTimer);
      await (await listening)();
      // Answers already received are written while the jobs are still ours; then the jobs are
      // handed back for the next start to resume at once. A clean stop is not a failed attempt:
      // only crashes count toward max_attempts.
      await writer.flush();
      await refreshing;
      for (const job of active.values()) abortJob(job);
      await store.releaseOwned(owner);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
