// Brand lookup by tracking code for the beacon, cached briefly: every beacon needs it, and brand
// domains change rarely. Invalidation is only the TTL (a domain added now is honoured within
// `ttlMs`); unknown codes are cached too, so random codes cannot turn into one query each.
import { normalizeDomain } from "../analysis/urls";
import type { PixelStore } from "./store";

export interface PixelBrand {
  id: string;
  /** Normalized hosts (lower case, no `www.`). */
  domains: string[];
  respectDnt: boolean;
}

export interface BrandDirectoryOptions {
  ttlMs: number;
  maxEntries: number;
}

export function createBrandDirectory(store: Pick<PixelStore, "brandByTrackingCode">, nowMs: () => number, options: BrandDirectoryOptions) {
  const cache = new Map<string, { brand: PixelBrand | null; until: number }>();
  // Beacons that miss the cache together share one read.
  const loading = new Map<string, Promise<PixelBrand | null>>();

  async function load(code: string, now: number): Promise<PixelBrand | null> {
    const found = await store.brandByTrackingCode(code);
    const brand = found && { id: found.id, domains: found.domains.map(normalizeDomain), respectDnt: found.respectDnt };
    cache.delete(code);
    // Map order is insertion order: the first key is the oldest entry.
    if (cache.size >= options.maxEntries) cache.delete(cache.keys().next().value!);
    cache.set(code, { brand, until: now + options.ttlMs });
    return brand;
  }

  return {
    /** The brand, at once when cached (the hot path takes no extra turn), else a promise of it. */
    lookup(code: string): PixelBrand | null | Promise<PixelBrand | null> {
      const now = nowMs();
      const hit = cache.get(code);
      if (hit && hit.until > now) return hit.brand;
      let pending = loading.get(code);
      if (!pending) {
        loading.set(code, (pending = load(code, now)));
        const forget = () => loading.delete(code);
        pending.then(forget, forget);
      }
      return pending;
    },
    clear(): void {
      cache.clear();
      loading.clear();
    },
  };
}

export type BrandDirectory = ReturnType<typeof createBrandDirectory>;
