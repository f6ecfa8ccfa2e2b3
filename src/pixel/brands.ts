// Brand lookup by tracking code for the beacon, cached briefly: every beacon needs it, and brand
// domains change rarely. Invalidation is only the TTL (a domain added now is honoured within
// `ttlMs`); unknown codes are cached too, so random codes cannot turn into one query each.
import type { Database } from "bun:sqlite";
import { normalizeDomain } from "../analysis/urls";

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

export function createBrandDirectory(sqlite: Database, nowMs: () => number, options: BrandDirectoryOptions) {
  const byCode = sqlite.query<{ id: string; respect_dnt: number; domain: string | null }, [string]>(
    `SELECT b.id, b.respect_dnt, d.domain
       FROM brands b LEFT JOIN brand_domains d ON d.brand_id = b.id
      WHERE b.tracking_code = ?`,
  );
  const cache = new Map<string, { brand: PixelBrand | null; until: number }>();

  function load(code: string): PixelBrand | null {
    const rows = byCode.all(code);
    if (!rows.length) return null;
    const domains = rows.flatMap((r) => (r.domain ? [normalizeDomain(r.domain)] : []));
    return { id: rows[0].id, domains, respectDnt: Boolean(rows[0].respect_dnt) };
  }

  return {
    lookup(code: string): PixelBrand | null {
      const now = nowMs();
      const hit = cache.get(code);
      if (hit && hit.until > now) return hit.brand;
      const brand = load(code);
      cache.delete(code);
      // Map order is insertion order: the first key is the oldest entry.
      if (cache.size >= options.maxEntries) cache.delete(cache.keys().next().value!);
      cache.set(code, { brand, until: now + options.ttlMs });
      return brand;
    },
    clear(): void {
      cache.clear();
    },
  };
}

export type BrandDirectory = ReturnType<typeof createBrandDirectory>;
