// Whether a prompt names its brand (prompts.is_branded): the same matcher that finds the brand in
// answers (src/analysis/entities.ts: name, aliases, domains). Backend-neutral: SQLite calls it from
// its triggers as a SQL function (branded.sqlite.ts); Postgres, which cannot call TypeScript, from
// the writers and a listener (branded.pg.ts).
import { compileEntities, findMentions, type CompiledEntities, type Entity } from "../analysis/entities";

function parseList(json: unknown): Entity["aliases"] {
  try {
    const value: unknown = typeof json === "string" ? JSON.parse(json) : [];
    return Array.isArray(value) ? value.filter((v) => typeof v === "string" || (v && typeof v === "object" && typeof v.text === "string")) : [];
  } catch {
    return [];
  }
}

/** Whether `text` names the brand called `name` (aliases and domains as JSON lists). */
export function createBrandNamer() {
  // A brand's prompts are checked together (a rename rechecks them all): compile its names once.
  const compiled = new Map<string, CompiledEntities>();
  return (text: unknown, name: unknown, aliases: unknown, domains: unknown): number => {
    if (typeof text !== "string" || typeof name !== "string" || !name.trim()) return 0;
    const key = `${name}\u0000${aliases}\u0000${domains}`;
    let entities = compiled.get(key);
    if (!entities) {
      const domainList = (parseList(domains) ?? []).filter((d): d is string => typeof d === "string");
      entities = compileEntities({ id: "brand", kind: "brand", name, aliases: parseList(aliases), domains: domainList });
      if (compiled.size >= 64) compiled.delete(compiled.keys().next().value!);
      compiled.set(key, entities);
    }
    return findMentions(entities, text).length > 0 ? 1 : 0;
  };
}
