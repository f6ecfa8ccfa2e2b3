// What a worker thread reads to run a unit, on Postgres (store.ts says what each operation does).
// Its own module, as units.sqlite.ts: a worker loads this, not the main thread's store.
import type { SQL } from "bun";
import type { Entity } from "../analysis/entities";
import { isUuid } from "../db/pg/values";
import type { UnitStore } from "./store";
import type { BrandEntities } from "./unit";

/** A jsonb alias list as analysis reads it: names, or objects with their options; anything else dropped. */
function aliasList(value: unknown): Entity["aliases"] {
  return Array.isArray(value) ? value.filter((v) => typeof v === "string" || (v && typeof v === "object")) : [];
}

export async function loadPgEntities(sql: SQL, brandId: string): Promise<BrandEntities | null> {
  if (!isUuid(brandId)) return null;
  const [brand] = await sql`SELECT id, name, aliases, language FROM brands WHERE id = ${brandId}`;
  if (!brand) return null;
  const domains = await sql`SELECT domain FROM brand_domains WHERE brand_id = ${brandId} ORDER BY is_primary DESC, domain COLLATE "C"`;
  const competitors = await sql`SELECT id, name, domain, aliases FROM competitors WHERE brand_id = ${brandId} ORDER BY created_at, id`;
  return {
    brand: { id: brand.id, kind: "brand", name: brand.name, aliases: aliasList(brand.aliases), domains: domains.map((d: { domain: string }) => d.domain) },
    competitors: competitors.map((c: { id: string; name: string; domain: string | null; aliases: unknown }) => ({
      id: c.id, kind: "competitor" as const, name: c.name, aliases: aliasList(c.aliases), domains: c.domain ? [c.domain] : [],
    })),
    language: brand.language,
  };
}

export function createPgUnitStore(sql: SQL): UnitStore {
  return {
    async unitInput({ jobId, seq, promptId }) {
      if (!isUuid(jobId)) return { status: null, promptText: null };
      // One round trip (the thread's two connections serve 32 lanes or more, issue #29); the prompt's
      // text only for a pending unit, which is skipped otherwise.
      const [unit] = await sql`
        SELECT u.status, (SELECT p.text FROM prompts AS p WHERE p.id = ${isUuid(promptId) ? promptId : null}::uuid AND u.status = 'pending') AS text
          FROM job_units AS u WHERE u.job_id = ${jobId} AND u.seq = ${seq}`;
      return { status: unit?.status ?? null, promptText: unit?.text ?? null };
    },
    entities: (brandId) => loadPgEntities(sql, brandId),
  };
}
