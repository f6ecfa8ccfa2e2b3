// Group commit: rows from concurrent beacons are collected for at most `maxDelayMs` (or until
// `maxRows`) and written in one transaction; each caller's promise settles only after that commit,
// so a 2xx sent after `await add(row)` means the row is on disk. One commit per batch instead of
// one per beacon is what makes a durable write cheap.

export interface BatchWriterOptions {
  /** Flush as soon as this many rows wait. */
  maxRows: number;
  /** Longest a row waits for companions; 0 flushes on the next turn of the event loop. */
  maxDelayMs: number;
}

export class WriterClosedError extends Error {
  constructor() {
    super("The writer is closed");
  }
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

export function createBatchWriter<T>(writeBatch: (rows: T[]) => void, options: BatchWriterOptions) {
  let rows: T[] = [];
  let waiters: Waiter[] = [];
  let scheduled: ReturnType<typeof setTimeout> | ReturnType<typeof setImmediate> | undefined;
  let closed = false;

  function cancelSchedule() {
    if (scheduled === undefined) return;
    if (options.maxDelayMs > 0) clearTimeout(scheduled as ReturnType<typeof setTimeout>);
    else clearImmediate(scheduled as ReturnType<typeof setImmediate>);
    scheduled = undefined;
  }

  function flush(): void {
    cancelSchedule();
    if (!rows.length) return;
    const batch = rows;
    const settle = waiters;
    rows = [];
    waiters = [];
    try {
      writeBatch(batch);
      for (const waiter of settle) waiter.resolve();
    } catch {
      // One bad row (e.g. its brand was just deleted) must not fail its neighbours: retry one by one.
      for (let i = 0; i < batch.length; i++) {
        try {
          writeBatch([batch[i]]);
          settle[i].resolve();
        } catch (error) {
          settle[i].reject(error);
        }
      }
    }
  }

  return {
    /** Resolves once the row is committed; rejects when it could not be written. */
    add(row: T): Promise<void> {
      if (closed) return Promise.reject(new WriterClosedError());
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      rows.push(row);
      waiters.push({ resolve, reject });
      if (rows.length >= options.maxRows) flush();
      else if (scheduled === undefined) scheduled = options.maxDelayMs > 0 ? setTimeout(flush, options.maxDelayMs) : setImmediate(flush);
      return promise;
    },
    flush,
    /** Writes what is waiting and refuses new rows (shutdown). */
    close(): void {
      closed = true;
      flush();
    },
    get pending(): number {
      return rows.length;
    },
  };
}

export type BatchWriter<T> = ReturnType<typeof createBatchWriter<T>>;
