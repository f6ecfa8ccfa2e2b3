// Sliding-window rate limits in memory, one limiter per use (sign-ups, password attempts, pixel beacons):
// "at most `limit` hits in any `windowMs`", so no burst slips through at a window boundary.

export interface RateLimiter {
  /** Counts one hit for `key`; false (and not counted) when the key is over its limit. */
  hit(key: string): boolean;
  /** Whether one more hit would be allowed, without counting it. */
  allows(key: string): boolean;
  /** How many keys it holds (at most its maxKeys). */
  keys(): number;
}

export function createRateLimiter(options: { limit: number; windowMs: number; now?: () => number; maxKeys?: number }): RateLimiter {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 100_000;
  const hits = new Map<string, number[]>();
  /**
   * Past `maxKeys`, the keys whose window has passed go, then — when a flood of live keys remains —
   * the oldest, down to nine tenths: memory stays bounded, and the next sweep is a tenth of the keys
   * away, so a flood of new keys costs each hit a few steps, not a walk over every key.
   */
  const sweep = (t: number) => {
    for (const [key, times] of hits) if (!times.length || times[times.length - 1]! <= t - options.windowMs) hits.delete(key);
    for (const key of hits.keys()) {
      if (hits.size <= maxKeys * 0.9) break;
      hits.delete(key);
    }
  };
  const recent = (key: string, t: number) => {
    const times = hits.get(key);
    while (times?.length && times[0]! <= t - options.windowMs) times.shift();
    return times;
  };
  return {
    hit(key) {
      const t = now();
      let times = recent(key, t);
      if (!times) {
        if (hits.size >= maxKeys) sweep(t);
        hits.set(key, (times = []));
      }
      if (times.length >= options.limit) return false;
      times.push(t);
      return true;
    },
    allows(key) {
      // Read only: asking leaves no key behind.
      return (recent(key, now())?.length ?? 0) < options.limit;
    },
    keys: () => hits.size,
  };
}

/** A rate limiter whose counts may live outside the process (the database, shared by instances). */
export interface SharedRateLimiter {
  hit(key: string): Promise<boolean>;
  allows(key: string): Promise<boolean>;
}

/** Makes the limiters of one use each (`name` tells them apart where they share a table). */
export interface RateLimitStore {
  limiter(name: string, options: { limit: number; windowMs: number }): SharedRateLimiter;
}

/** The limiters in this process: what a SQLite deployment (one process) needs. */
export function memoryRateLimits(now: () => number = Date.now): RateLimitStore {
  return {
    limiter(_name, options) {
      const local = createRateLimiter({ ...options, now });
      return { hit: async (key) => local.hit(key), allows: async (key) => local.allows(key) };
    },
  };
}

/**
 * The key an address is limited under: an IPv4 address as it is, an IPv6 address by its /64,
 * since one subscriber (and so one attacker) is usually handed a whole /64.
 */
export function addressKey(address: string): string {
  if (!address.includes(":")) return address;
  const bare = address.toLowerCase().replace(/%.*$/, "");
  const [head, tail] = bare.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
