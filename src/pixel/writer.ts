// Group commit: rows from concurrent beacons go to the database together, one transaction per
// batch, and each caller's promise settles only after that commit — so a 2xx sent after
// `await add(row)` means the row is on disk. Batches size themselves: a batch leaves on the next
// turn of the event loop while fewer than `maxInFlight` batches are being written; beyond that,
// new rows wait and leave together as soon as one is done. Light load gets low latency, heavy load
// big batches, and with maxInFlight > 1 the thread that fills batches never waits for the one that
// writes them (the sink must then keep batches in order, as a worker's message queue does).

/** Writes one batch in one transaction; resolves with the failed rows' indexes and reasons. */
export type BatchSink<T> = (rows: T[]) => Promise<Map<number, string>>;

export interface BatchWriterOptions {
  /** Most rows in one transaction. */
  maxRows: number;
  /** Most rows waiting; beyond it add() refuses (backpressure rather than unbounded memory). */
  maxPending: number;
  /** Most batches handed to the sink and not yet written (default 1). */
  maxInFlight?: number;
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
  const maxInFlight = options.maxInFlight ?? 1;
  let pending: Pending<T>[] = [];
  const writing = new Set<Promise<void>>();
  let scheduled = false;
  let closed = false;

  function flush(): void {
    scheduled = false;
    if (writing.size >= maxInFlight || !pending.length) return;
    const batch = pending.length <= options.maxRows ? pending : pending.slice(0, options.maxRows);
    pending = batch === pending ? [] : pending.slice(batch.length);
    const write: Promise<void> = sink(batch.map((p) => p.row))
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
        writing.delete(write);
        flush();
      });
    writing.add(write);
  }

  return {
    /** Resolves once the row is committed; rejects when it could not be written. */
    add(row: T): Promise<void> {
      if (closed) return Promise.reject(new WriterClosedError());
      if (pending.length >= options.maxPending) return Promise.reject(new WriterBusyError());
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      pending.push({ row, resolve, reject });
      if (writing.size < maxInFlight && !scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return promise;
    },
    /** Refuses new rows and resolves once every waiting row is written (shutdown). */
    async close(): Promise<void> {
      closed = true;
      while (writing.size || pending.length) {
        flush();
        await Promise.race(writing);
      }
    },
    get pending(): number {
      return pending.length;
    },
  };
}

export type BatchWriter<T> = ReturnType<typeof createBatchWriter<T>>;
