// Group commit: rows from concurrent beacons go to the database together, one transaction per
// batch, and each caller's promise settles only after that commit — so a 2xx sent after
// `await add(row)` means the row is on disk. Batches size themselves: a batch leaves on the next
// turn of the event loop when the sink is idle; while the sink is committing, new rows wait and
// leave together as soon as it is done. Light load gets low latency, heavy load big batches.

/** Writes one batch in one transaction; resolves with the failed rows' indexes and reasons. */
export type BatchSink<T> = (rows: T[]) => Promise<Map<number, string>>;

export interface BatchWriterOptions {
  /** Most rows in one transaction. */
  maxRows: number;
  /** Most rows waiting; beyond it add() refuses (backpressure rather than unbounded memory). */
  maxPending: number;
}

export class WriterClosedError extends Error {
  constructor() {
    super("The writer is closed");
  }
}

export class WriterBusyError extends Error {
  constructor() {
    super("Too many rows are waiting to be written");
  }
}

export class RowNotWrittenError extends Error {}

interface Pending<T> {
  row: T;
  resolve(): void;
  reject(error: unknown): void;
}

export function createBatchWriter<T>(sink: BatchSink<T>, options: BatchWriterOptions) {
  let pending: Pending<T>[] = [];
  let writing: Promise<void> | null = null;
  let scheduled = false;
  let closed = false;

  function flush(): void {
    scheduled = false;
    if (writing || !pending.length) return;
    const batch = pending.slice(0, options.maxRows);
    pending = pending.slice(batch.length);
    writing = sink(batch.map((p) => p.row))
      .then(
        (failed) => {
          for (const [i, p] of batch.entries()) {
            const reason = failed.get(i);
            if (reason === undefined) p.resolve();
            else p.reject(new RowNotWrittenError(reason));
          }
        },
        (error) => {
          for (const p of batch) p.reject(error);
        },
      )
      .finally(() => {
        writing = null;
        flush();
      });
  }

  return {
    /** Resolves once the row is committed; rejects when it could not be written. */
    add(row: T): Promise<void> {
      if (closed) return Promise.reject(new WriterClosedError());
      if (pending.length >= options.maxPending) return Promise.reject(new WriterBusyError());
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      pending.push({ row, resolve, reject });
      if (!writing && !scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return promise;
    },
    /** Refuses new rows and resolves once every waiting row is written (shutdown). */
    async close(): Promise<void> {
      closed = true;
      while (writing || pending.length) {
        flush();
        await writing;
      }
    },
    get pending(): number {
      return pending.length;
    },
  };
}

export type BatchWriter<T> = ReturnType<typeof createBatchWriter<T>>;
