// A brand's entities (name, aliases, domains; competitors) as analysis wants them, read from SQLite.
// Kept apart from the analysis code so the main thread can read them without loading the sentiment
// lexicon; the unit store (units.sqlite.ts) and the insights read them through here.
import type { Database } from "bun:sqlite";
import type { Entity } from "../analysis/entities";
import type { BrandEntities } from "./unit";

interface BrandRow {
  id: string;
  name: string;
  aliases: string;
  language: string | null;
}

function parseList(json: string | null): string[] {
  try {
    const value = JSON.parse(json ?? "[]");
    return Array.isArray(value) ? value.filter((v) => typeof v === "string" || (v && typeof v === "object")) : [];
  } catch {
    return [];
  }
}

export function loadEntities(sqlite: Database, brandId: string): BrandEntities | null {
  const brand = sqlite.query("SELECT id, name, aliases, language FROM brands WHERE id = ?").get(brandId) as BrandRow | null;
  if (!brand) return null;
  const domains = (sqlite.query("SELECT domain FROM brand_domains WHERE brand_id = ? ORDER BY is_primary DESC, domain").all(brandId) as { domain: string }[]).map((d) => d.domain);
  const competitors = (sqlite.query("SELECT id, name, domain, aliases FROM competitors WHERE brand_id = ? ORDER BY created_at, id").all(brandId) as {
    id: string;
    name: string;
    domain: string | null;
    aliases: string;
  }[]).map((c) => ({ id: c.id, kind: "competitor" as const, name: c.name, aliases: parseList(c.aliases) as Entity["aliases"], domains: c.domain ? [c.domain] : [] }));
  return {
    brand: { id: brand.id, kind: "brand", name: brand.name, aliases: parseList(brand.aliases) as Entity["aliases"], domains },
    competitors,
    language: brand.language,
  };
}

