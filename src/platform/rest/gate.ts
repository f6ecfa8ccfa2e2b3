// At most `size` pieces of work at once, the rest waiting in order (at most `maxQueued` of them;
// beyond, refused at once). On Postgres, /rest/v1 reads and RPCs pass through one of REST_READERS,
// as they pass through that many reader threads on SQLite: a burst of heavy insights holds neither
// every pooled connection (the tracking writer and /healthz need theirs) nor every core.
import { AppError } from "../../http/errors";

/** The 503 of a request that found too many others waiting for the database (thread-pool.ts too). */
export const tooManyWaiting = () => new AppError(503, "53300", "Too many requests are waiting for the database; try again", { headers: { "retry-after": "1" } });

export function createGate(size: number, maxQueued = 256, onWait?: (ms: number) => void) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      const queuedAt = performance.now();
      if (active < size) active++;
      else {
        if (waiting.length >= maxQueued) throw tooManyWaiting();
        // The finishing run hands its place over (active stays counted).
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
      onWait?.(performance.now() - queuedAt);
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
    /** Running and waiting now. */
    load: () => ({ active, waiting: waiting.length }),
  };
}
