import { EngineError } from './errors';
import type { PlatformId } from './types';

export interface Limiter {
  /** Waits for a slot (concurrency and requests-per-minute); resolves with the release function. */
  acquire(platform: PlatformId, signal?: AbortSignal): Promise<() => void>;
  readonly active: number;
  readonly waiting: number;
  /**
   * Lets a held slot go straight to the holder's next call, which starts elsewhere (in a worker
   * thread) when the current call is over: only while nobody waits for a slot (the waiters come
   * first) and the rate bound allows one more start. Returns undefined when not, else the function
   * to call once the next call has started (or would have). Until then that start counts as made
   * now, so the rate bound holds whenever it really happens.
   */
  handOver(): (() => void) | undefined;
}

const MINUTE = 60_000;

/**
 * Bounds one upstream account inside this process: at most `concurrency` calls in flight and at
 * most `rpm` calls started in any 60 s window (0 = no rate bound). Waiters are served in order and
 * leave the queue at once when their signal aborts.
 */
export function createLimiter(opts: { concurrency: number; rpm: number; now?: () => number }): Limiter {
  const now = opts.now ?? Date.now;
  const starts: number[] = [];
  /** Starts handed over and not yet made: counted in every window until they are. */
  let handedStarts = 0;
  const queue: Array<{ grant: () => void }> = [];
  let active = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** Forgets the starts that have left the 60 s window ending at `t`. */
  const prune = (t: number) => {
    while (starts.length > 0 && starts[0]! <= t - MINUTE) starts.shift();
  };

  const pump = (): void => {
    while (queue.length > 0 && active < opts.concurrency) {
      const t = now();
      prune(t);
      if (opts.rpm > 0 && starts.length + handedStarts >= opts.rpm) {
        // Only the oldest start's expiry frees the window; a handed-over start, once made, pumps.
        if (!timer && starts.length > 0) {
          timer = setTimeout(() => {
            timer = undefined;
            pump();
          }, starts[0]! + MINUTE - t);
        }
        return;
      }
      starts.push(t);
      active++;
      queue.shift()!.grant();
    }
  };

  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    handOver() {
      if (queue.length > 0) return undefined;
      if (opts.rpm <= 0) return () => {};
      prune(now());
      if (starts.length + handedStarts >= opts.rpm) return undefined;
      handedStarts++;
      let made = false;
      return () => {
        if (made) return;
        made = true;
        handedStarts--;
        starts.push(now());
        pump();
      };
    },
    acquire(platform, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) {
          reject(new EngineError({ kind: 'aborted', platform, message: `${platform}: call aborted` }));
          return;
        }
        let released = false;
        const entry = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(() => {
              if (released) return;
              released = true;
              active--;
              pump();
            });
          },
        };
        const onAbort = () => {
          const i = queue.indexOf(entry);
          if (i >= 0) queue.splice(i, 1);
          reject(new EngineError({ kind: 'aborted', platform, message: `${platform}: call aborted while waiting for a slot` }));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(entry);
        pump();
      });
    },
  };
}
