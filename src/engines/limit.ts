import { EngineError } from './errors';
import type { PlatformId } from './types';

export interface Limiter {
  /** Waits for a slot (concurrency and requests-per-minute); resolves with the release function. */
  acquire(platform: PlatformId, signal?: AbortSignal): Promise<() => void>;
  readonly active: number;
  readonly waiting: number;
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
  const queue: Array<{ grant: () => void }> = [];
  let active = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const pump = (): void => {
    while (queue.length > 0 && active < opts.concurrency) {
      const t = now();
      while (starts.length > 0 && starts[0]! <= t - MINUTE) starts.shift();
      if (opts.rpm > 0 && starts.length >= opts.rpm) {
        if (!timer) {
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
