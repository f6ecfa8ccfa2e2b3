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

/** The 429 of a caller who already has `limit` requests waiting or running. */
export const tooManyFromCaller = (limit: number) =>
  new AppError(429, "53300", `You have ${limit} requests waiting for the database already; wait for their answers`, { headers: { "retry-after": "1" } });

/**
 * Each caller's share of the waiting room: at most `perCaller` of one caller's requests waiting or
 * running at once (the rest refused with 429), so one account looping heavy reads cannot fill the
 * room everyone waits in. `keyOf` names the caller; null exempts it.
 */
export function createCallerShares<C>(perCaller: number, keyOf: (caller: C) => string | null, refuse: (limit: number) => Error = tooManyFromCaller) {
  const inFlight = new Map<string, number>();
  return {
    async run<T>(caller: C, work: () => Promise<T>): Promise<T> {
      const key = keyOf(caller);
      if (key === null) return work();
      const held = inFlight.get(key) ?? 0;
      if (held >= perCaller) throw refuse(perCaller);
      inFlight.set(key, held + 1);
      try {
        return await work();
      } finally {
        const left = inFlight.get(key)! - 1;
        if (left) inFlight.set(key, left);
        else inFlight.delete(key);
      }
    },
    /** Callers holding requests now (bounded by the requests in flight). */
    callers: () => inFlight.size,
  };
}
