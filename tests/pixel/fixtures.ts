// Brands for pixel tests, written by SQL until /rest/v1 can create them, and beacon builders.
// seedBrandIn / trafficRowsIn work on either backend through the harness over the server's own
// database (tests/helpers/server-db.ts serverDb); seedBrand / trafficRows stay for the SQLite-only suites.
import type { Database } from "bun:sqlite";
import type { Harness } from "../contracts/harness";

export const CHROME_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export interface SeededBrand {
  organizationId: string;
  brandId: string;
  trackingCode: string;
}

export function seedBrand(
  sqlite: Database,
  options: { domains: string[]; organizationId?: string; respectDnt?: boolean; trackingCode?: string },
): SeededBrand {
  const organizationId = options.organizationId ?? crypto.randomUUID();
  if (!options.organizationId) sqlite.run("INSERT INTO organizations (id, name, slug) VALUES (?, ?, ?)", [organizationId, "Org", `org-${organizationId}`]);
  const brandId = crypto.randomUUID();
  const trackingCode = options.trackingCode ?? `aw_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
  sqlite.run("INSERT INTO brands (id, organization_id, name, slug, tracking_code, respect_dnt) VALUES (?, ?, ?, ?, ?, ?)", [
    brandId,
    organizationId,
    "Acme",
    `acme-${brandId}`,
    trackingCode,
    options.respectDnt ? 1 : 0,
  ]);
  for (const [i, domain] of options.domains.entries())
    sqlite.run("INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, ?, ?)", [brandId, domain, i === 0 ? 1 : 0]);
  return { organizationId, brandId, trackingCode };
}

/** seedBrand on either backend. */
export async function seedBrandIn(
  db: Harness,
  options: { domains: string[]; organizationId?: string; respectDnt?: boolean; trackingCode?: string },
): Promise<SeededBrand> {
  const organizationId = options.organizationId ?? crypto.randomUUID();
  if (!options.organizationId) await db.inspect("INSERT INTO organizations (id, name, slug) VALUES (?, ?, ?)", organizationId, "Org", `org-${organizationId}`);
  const brandId = crypto.randomUUID();
  const trackingCode = options.trackingCode ?? `aw_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
  await db.inspect("INSERT INTO brands (id, organization_id, name, slug, tracking_code, respect_dnt) VALUES (?, ?, ?, ?, ?, ?)", brandId, organizationId, "Acme", `acme-${brandId}`, trackingCode, !!options.respectDnt);
  for (const [i, domain] of options.domains.entries()) await db.inspect("INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, ?, ?)", brandId, domain, i === 0);
  return { organizationId, brandId, trackingCode };
}

/** A beacon as t.js sends it; fields may be overridden with anything (fuzzing, wrong types). */
export function beaconJson(fields: { brand: unknown; url: unknown } & Record<string, unknown>): string {
  return JSON.stringify({ language: "en-US", screen: "1280x720", dnt: false, referrer: "", ...fields });
}

export function trafficRows(sqlite: Database, brandId?: string): Record<string, unknown>[] {
  return brandId
    ? sqlite.query("SELECT * FROM ai_traffic_logs WHERE brand_id = ? ORDER BY created_at, id").all(brandId) as Record<string, unknown>[]
    : sqlite.query("SELECT * FROM ai_traffic_logs ORDER BY created_at, id").all() as Record<string, unknown>[];
}

/** An address per beacon, as a reverse proxy on loopback would forward it: spreads the per-IP limit. */
export function forwardedFor(i: number): string {
  return `100.64.${(i >> 8) & 255}.${i & 255}`;
}

/** trafficRows on either backend (timestamps as ISO strings on both). */
export function trafficRowsIn(db: Harness, brandId?: string): Promise<Record<string, unknown>[]> {
  return brandId ? db.inspect("SELECT * FROM ai_traffic_logs WHERE brand_id = ? ORDER BY created_at, id", brandId) : db.inspect("SELECT * FROM ai_traffic_logs ORDER BY created_at, id");
}
