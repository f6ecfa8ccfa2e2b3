// prompts.is_branded: the prompt names the brand, found by the same matcher that finds the brand in
// answers (src/analysis/entities.ts: name, aliases, domains). Kept by triggers on every write path
// (REST, the CLI, a rename of the brand, a domain added) through aw_names_brand(), a function every
// connection registers; made here, not in a migration, like the rollups' triggers.
import type { Database } from "bun:sqlite";
import { ensureTriggers, type SchemaPart } from "../db/schema-part";
import { createBrandNamer } from "./branded";

export const NAMES_BRAND_FUNCTION = "aw_names_brand";

export function registerBrandedFunction(sqlite: Database): void {
  sqlite.function(NAMES_BRAND_FUNCTION, { deterministic: true }, createBrandNamer());
}

/** is_branded of the prompt row `p` (a table alias, NEW or OLD). */
const brandedOf = (p: string) =>
  `coalesce((SELECT ${NAMES_BRAND_FUNCTION}(${p}.text, b.name, b.aliases, (SELECT json_group_array(d.domain) FROM brand_domains AS d WHERE d.brand_id = b.id)) FROM brands AS b WHERE b.id = ${p}.brand_id), 0)`;

const recheckBrand = (brandId: string) => `UPDATE prompts SET is_branded = ${brandedOf("prompts")} WHERE brand_id = ${brandId};`;

export const BRANDED_TRIGGERS: Record<string, string> = {
  prompts_branded_insert: `AFTER INSERT ON prompts BEGIN\n  UPDATE prompts SET is_branded = ${brandedOf("NEW")} WHERE id = NEW.id;\nEND`,
  // is_branded is watched too: a client writing it gets it recomputed (recursive triggers are off).
  prompts_branded_update: `AFTER UPDATE OF text, brand_id, is_branded ON prompts BEGIN\n  UPDATE prompts SET is_branded = ${brandedOf("NEW")} WHERE id = NEW.id;\nEND`,
  brands_branded_update: `AFTER UPDATE OF name, aliases ON brands BEGIN\n  ${recheckBrand("NEW.id")}\nEND`,
  brand_domains_branded_insert: `AFTER INSERT ON brand_domains BEGIN\n  ${recheckBrand("NEW.brand_id")}\nEND`,
  brand_domains_branded_delete: `AFTER DELETE ON brand_domains BEGIN\n  ${recheckBrand("OLD.brand_id")}\nEND`,
  brand_domains_branded_update: `AFTER UPDATE OF domain, brand_id ON brand_domains BEGIN\n  ${recheckBrand("OLD.brand_id")}\n  ${recheckBrand("NEW.brand_id")}\nEND`,
};

/** Creates missing triggers (replacing changed ones) and then rechecks every prompt; true when it had to. */
export function ensureBranded(sqlite: Database): boolean {
  return ensureTriggers(sqlite, BRANDED_TRIGGERS, () => sqlite.run(`UPDATE prompts SET is_branded = ${brandedOf("prompts")}`));
}

/** prompts.is_branded: the brand matcher SQL function and the triggers that call it. */
export const brandedSchema: SchemaPart = { name: "branded", functions: registerBrandedFunction, ensure: ensureBranded };
