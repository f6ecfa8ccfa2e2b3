// The main thread writes every unit's result: one writer means no lock contention between worker
// threads, and results arriving together are committed together (group commit). A unit's row, its
// citations and its status go in one transaction; the unique key (job, prompt, platform, model,
// region, sample) makes a unit repeated after a crash a no-op.
import type { Database } from "bun:sqlite";
import { createResultStore } from "../results/store";
import type { ResultValues, UnitOutcome, UnitTask } from "./unit-runner";

export type WriteOutcome = "written" | "duplicate" | "no_surface" | "job_inactive";

export interface ResultWriterOptions {
  /** A batch is committed once no result has arrived for this long… */
  idleMs?: number;
  /** …or its first result has waited this long… */
  maxWaitMs?: number;
  /** …or it is this large. */
  maxBatch?: number;
}

interface Pending {
  task: UnitTask;
  outcome: Exclude<UnitOutcome, { kind: "skipped" }>;
  resolve: (o: WriteOutcome) => void;
  reject: (e: unknown) => void;
}

export function createResultWriter(sqlite: Database, options: ResultWriterOptions = {}) {
  // A commit costs about as much as the pages it touches, and results of one job share many of
  // theirs (index and table tails): 16 results a commit write 5.5 pages each, 64 write 3. While
  // results stream in, a batch grows for up to 10 ms or 64 results (a few ms of this thread); when
  // they stop, it is committed 2 ms after the last.
  const idleMs = options.idleMs ?? 2;
  const maxWaitMs = options.maxWaitMs ?? 10;
  const maxBatch = options.maxBatch ?? 64;
  const results = createResultStore(sqlite);
  const q = {
    job: sqlite.prepare("SELECT status FROM jobs WHERE id = ?"),
    unitDone: sqlite.prepare("UPDATE job_units SET status = 'done', attempts = attempts + 1, error = ?3 WHERE job_id = ?1 AND seq = ?2 AND status = 'pending'"),
  };
  let queue: Pending[] = [];
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let waitTimer: ReturnType<typeof setTimeout> | undefined;

  function writeOne({ task, outcome }: Pending, jobActive: (jobId: string) => boolean): WriteOutcome {
    // A job cancelled while the answer was on its way keeps nothing of it.
    if (!jobActive(task.jobId)) return "job_inactive";
    if (outcome.kind === "no_surface") {
      q.unitDone.run(task.jobId, task.seq, `no_surface: ${outcome.reason}`);
      return "no_surface";
    }
    const r = JSON.parse(outcome.result) as ResultValues;
    // Time-ordered ids append to the primary-key indexes instead of touching a random page each.
    // The requested model keys the row (stable across dated upstream ids); the reported one is in details.
    const written = results.insert({ id: Bun.randomUUIDv7(), jobId: task.jobId, brandId: task.brandId, promptId: task.promptId, platform: task.platform, model: task.model, region: task.region, sample: task.sample }, r);
    q.unitDone.run(task.jobId, task.seq, null);
    return written ? "written" : "duplicate";
  }

  function flush() {
    clearTimeout(idleTimer);
    clearTimeout(waitTimer);
    waitTimer = undefined;
    if (!queue.length) return;
    const batch = queue;
    queue = [];
    try {
      const outcomes = commit(batch);
      batch.forEach((p, i) => p.resolve(outcomes[i]!));
    } catch (batchError) {
      // A locked, full or failing database fails every unit alike: retrying them one by one
      // would only wait out the lock again per unit, on the thread that answers HTTP.
      if (!isConstraintError(batchError)) {
        for (const p of batch) p.reject(batchError);
        return;
      }
      // One unit that cannot be written (its prompt was deleted meanwhile) must not send its
      // neighbours back upstream: each is committed on its own, and only the bad one fails.
      for (const p of batch) {
        try {
          p.resolve(commit([p])[0]!);
        } catch (error) {
          p.reject(error);
        }
      }
    }
  }

  function commit(batch: Pending[]): WriteOutcome[] {
    return sqlite
      .transaction(() => {
        // A batch holds a few jobs at most: their status is read once, inside the transaction.
        const active = new Map<string, boolean>();
        const jobActive = (jobId: string) => {
          let yes = active.get(jobId);
          if (yes === undefined) active.set(jobId, (yes = (q.job.get(jobId) as { status: string } | null)?.status === "active"));
          return yes;
        };
        return batch.map((p) => writeOne(p, jobActive));
      })
      .immediate();
  }

  return {
    /** Commits what is waiting now (a clean stop keeps the answers already paid for). */
    flush,
    /** Resolves once the unit's rows are committed. */
    write(task: UnitTask, outcome: Pending["outcome"]): Promise<WriteOutcome> {
      return new Promise((resolve, reject) => {
        queue.push({ task, outcome, resolve, reject });
        if (queue.length >= maxBatch) return flush();
        clearTimeout(idleTimer);
        idleTimer = setTimeout(flush, idleMs);
        waitTimer ??= setTimeout(flush, maxWaitMs);
      });
    },
  };
}

export type ResultWriter = ReturnType<typeof createResultWriter>;

/** SQLite's constraint failures (foreign key, unique, not null, check): a fault of one row, not of the database. */
export function isConstraintError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && code.startsWith("SQLITE_CONSTRAINT");
}
