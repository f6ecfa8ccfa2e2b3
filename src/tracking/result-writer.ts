// The main thread writes every unit's result: one writer means no lock contention between worker
// threads, and results arriving together are committed together (group commit). A unit's row, its
// citations and its status go in one transaction; the unique key (job, prompt, platform, model,
// region, sample) makes a unit repeated after a crash a no-op.
import { pgCode } from "../db/pg/values";
import type { ResultToRecord, TrackingStore, WriteBatching, WriteOutcome } from "./store";
import type { UnitTask } from "./unit";

export type { WriteOutcome };

interface Pending extends ResultToRecord {
  resolve: (o: WriteOutcome) => void;
  reject: (e: unknown) => void;
}

export function createResultWriter(store: TrackingStore, options: WriteBatching = store.writeBatching ?? {}) {
  // A commit costs about as much as the pages it touches, and results of one job share many of
  // theirs (index and table tails): 16 results a commit write 5.5 pages each, 64 write 3. While
  // results stream in, a batch grows for up to 10 ms or 64 results (a few ms of this thread); when
  // they stop, it is committed 2 ms after the last.
  const idleMs = options.idleMs ?? 2;
  const maxWaitMs = options.maxWaitMs ?? 10;
  const maxBatch = options.maxBatch ?? 64;
  const queue: Pending[] = [];
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let waitTimer: ReturnType<typeof setTimeout> | undefined;

  // One commit in flight at a time: results arriving meanwhile wait for it and go in the next one.
  // On Postgres two commits of one brand would only queue on its rollup lock (triggers.pg.ts), each
  // holding a pool connection; one after the other, the next batch is as large as the wait was long.
  const maxCommit = maxBatch * 4;
  let writing: Promise<void> | undefined;

  function flush(): Promise<void> {
    clearTimeout(idleTimer);
    clearTimeout(waitTimer);
    waitTimer = undefined;
    if (writing) return writing.then(flush);
    if (!queue.length) return Promise.resolve();
    const batch = queue.splice(0, maxCommit);
    writing = commit(batch).finally(() => {
      writing = undefined;
      if (queue.length) void flush();
    });
    return writing;
  }

  /** A batch is due: committed now, or right after the commit in flight. */
  function due(): void {
    if (writing) {
      clearTimeout(idleTimer);
      clearTimeout(waitTimer);
      waitTimer = undefined;
      return;
    }
    void flush();
  }

  async function commit(batch: Pending[]): Promise<void> {
    try {
      const outcomes = await store.recordResults(batch);
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
          p.resolve((await store.recordResults([p]))[0]!);
        } catch (error) {
          p.reject(error);
        }
      }
    }
  }

  return {
    /** Commits what is waiting now (a clean stop keeps the answers already paid for). */
    flush,
    /** Resolves once the unit's rows are committed. */
    write(task: UnitTask, outcome: Pending["outcome"]): Promise<WriteOutcome> {
      return new Promise((resolve, reject) => {
        queue.push({ task, outcome, resolve, reject });
        if (queue.length >= maxBatch) return due();
        clearTimeout(idleTimer);
        idleTimer = setTimeout(due, idleMs);
        waitTimer ??= setTimeout(due, maxWaitMs);
      });
    },
  };
}

export type ResultWriter = ReturnType<typeof createResultWriter>;

/**
 * A constraint failure (foreign key, unique, not null, check): a fault of one row, not of the
 * database. SQLite names it SQLITE_CONSTRAINT_*; Postgres reports SQLSTATE class 23 (23503, …).
 */
export function isConstraintError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && code.startsWith("SQLITE_CONSTRAINT")) return true;
  return pgCode(error)?.startsWith("23") ?? false;
}
