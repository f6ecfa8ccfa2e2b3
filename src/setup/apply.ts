// `answerwatch apply brand.yaml` and `export brand <slug>`: a brand file made true in the database,
// idempotently — the plan lists each change, a second apply finds none; prompts removed from the
// file are deactivated, not deleted (their answers stay). One transaction, so a failed apply
// changes nothing.
import type { Database } from "bun:sqlite";
import type { BrandFile } from "./brand-file";

export interface Change {
  kind: "+" | "~" | "-";
  what: string;
}

interface BrandRow {
  id: string;
  organization_id: string;
  name: string;
  region: string | null;
  language: string | null;
  aliases: string;
  industry: string | null;
  description: string | null;
}

const json = (v: unknown) => JSON.stringify(v);
const parseList = (text: string | null): string[] => {
  try {
    const v = JSON.parse(text ?? "[]");
    return Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x : String(x?.text ?? ""))) : [];
  } catch {
    return [];
  }
};
const sameList = (a: string[], b: string[]) => json(a) === json(b);

export class ApplyError extends Error {}

export function organizationFor(sqlite: Database, name: string | undefined): { id: string; name: string } {
  const orgs = sqlite.query("SELECT id, name, slug FROM organizations ORDER BY created_at").all() as { id: string; name: string; slug: string }[];
  if (name) {
    const found = orgs.find((o) => o.slug === name || o.name.toLowerCase() === name.toLowerCase());
    if (!found) throw new ApplyError(`brand.organization: no organization named "${name}" (${orgs.map((o) => o.name).join(", ") || "none yet: answerwatch user add --org NAME creates one"})`);
    return found;
  }
  if (orgs.length === 1) return orgs[0]!;
  throw new ApplyError(orgs.length ? `brand.organization is needed: this server has ${orgs.length} organizations (${orgs.map((o) => o.name).join(", ")})` : "no organization yet: answerwatch user add --email … --password … --org NAME creates one");
}

/** The changes `file` makes, and (unless dryRun) makes them. */
export function applyBrandFile(sqlite: Database, file: BrandFile, options: { dryRun?: boolean } = {}): { brandId: string | null; changes: Change[] } {
  const changes: Change[] = [];
  const run = () => {
    const org = organizationFor(sqlite, file.brand.organization);
    const b = file.brand;
    let brand = sqlite.query("SELECT id, organization_id, name, region, language, aliases, industry, description FROM brands WHERE organization_id = ? AND slug = ?").get(org.id, b.slug) as BrandRow | null;
    const write = !options.dryRun;
    if (!brand) {
      changes.push({ kind: "+", what: `brand ${b.name} (${b.slug}) in ${org.name}` });
      if (!write) {
        // A dry run of a new brand: everything in the file is an addition.
        for (const d of [b.website, ...b.domains.filter((x) => x !== b.website)]) changes.push({ kind: "+", what: `domain ${d}` });
        for (const c of file.competitors) changes.push({ kind: "+", what: `competitor ${c.name}` });
        for (const t of file.topics) changes.push({ kind: "+", what: `topic ${t}` });
        for (const p of file.prompts) changes.push({ kind: "+", what: `prompt ${p.text}` });
        for (const f of file.platforms) changes.push({ kind: "+", what: `platform ${f.platform}: ${f.frequency}, ${f.samples} sample(s)` });
        return null;
      }
      brand = sqlite
        .query("INSERT INTO brands (organization_id, name, slug, region, language, aliases, industry, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, organization_id, name, region, language, aliases, industry, description")
        .get(org.id, b.name, b.slug, b.region, b.language, json(b.aliases), b.industry, b.description) as BrandRow;
    } else {
      const fields: [string, unknown, unknown][] = [
        ["name", brand.name, b.name],
        ["region", brand.region, b.region],
        ["language", brand.language, b.language],
        ["industry", brand.industry, b.industry],
        ["description", brand.description, b.description],
      ];
      for (const [field, now, next] of fields)
        if ((now ?? null) !== (next ?? null)) {
          changes.push({ kind: "~", what: `brand ${field}: ${json(now)} → ${json(next)}` });
          if (write) sqlite.run(`UPDATE brands SET ${field} = ? WHERE id = ?`, [next as string | null, brand.id]);
        }
      if (!sameList(parseList(brand.aliases), b.aliases)) {
        changes.push({ kind: "~", what: `brand aliases: ${brand.aliases} → ${json(b.aliases)}` });
        if (write) sqlite.run("UPDATE brands SET aliases = ? WHERE id = ?", [json(b.aliases), brand.id]);
      }
    }
    const brandId = brand.id;

    // Domains: the website first (primary), then the others.
    const wanted = [b.website, ...b.domains.filter((d) => d !== b.website)];
    const domains = sqlite.query("SELECT id, domain, is_primary FROM brand_domains WHERE brand_id = ?").all(brandId) as { id: string; domain: string; is_primary: number }[];
    const wantedSet = new Set(wanted);
    const domainByName = new Map(domains.map((d) => [d.domain, d]));
    for (const d of domains)
      if (!wantedSet.has(d.domain)) {
        changes.push({ kind: "-", what: `domain ${d.domain}` });
        if (write) sqlite.run("DELETE FROM brand_domains WHERE id = ?", [d.id]);
      }
    for (const [i, domain] of wanted.entries()) {
      const found = domainByName.get(domain);
      if (!found) {
        changes.push({ kind: "+", what: `domain ${domain}${i === 0 ? " (primary)" : ""}` });
        if (write) sqlite.run("INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, ?, ?)", [brandId, domain, i === 0 ? 1 : 0]);
      } else if (!!found.is_primary !== (i === 0)) {
        changes.push({ kind: "~", what: `domain ${domain}: ${i === 0 ? "primary" : "not primary"}` });
        if (write) sqlite.run("UPDATE brand_domains SET is_primary = ? WHERE id = ?", [i === 0 ? 1 : 0, found.id]);
      }
    }

    // Competitors, by name (case-insensitive).
    // Lookups by key through maps: a file of thousands of entries applies in linear time.
    const rivals = sqlite.query("SELECT id, name, domain, aliases FROM competitors WHERE brand_id = ?").all(brandId) as { id: string; name: string; domain: string | null; aliases: string }[];
    const fileRivals = new Set(file.competitors.map((c) => c.name.toLowerCase()));
    const rivalByName = new Map(rivals.map((r) => [r.name.toLowerCase(), r]));
    for (const r of rivals)
      if (!fileRivals.has(r.name.toLowerCase())) {
        changes.push({ kind: "-", what: `competitor ${r.name}` });
        if (write) sqlite.run("DELETE FROM competitors WHERE id = ?", [r.id]);
      }
    for (const c of file.competitors) {
      const found = rivalByName.get(c.name.toLowerCase());
      if (!found) {
        changes.push({ kind: "+", what: `competitor ${c.name}` });
        if (write) sqlite.run("INSERT INTO competitors (brand_id, name, domain, aliases) VALUES (?, ?, ?, ?)", [brandId, c.name, c.domain, json(c.aliases)]);
      } else if (found.name !== c.name || (found.domain ?? null) !== c.domain || !sameList(parseList(found.aliases), c.aliases)) {
        changes.push({ kind: "~", what: `competitor ${c.name}` });
        if (write) sqlite.run("UPDATE competitors SET name = ?, domain = ?, aliases = ? WHERE id = ?", [c.name, c.domain, json(c.aliases), found.id]);
      }
    }

    // Topics, by name; prompts keep theirs until the file moves them.
    const topics = sqlite.query("SELECT id, name FROM topics WHERE brand_id = ?").all(brandId) as { id: string; name: string }[];
    const fileTopics = new Set(file.topics);
    for (const t of topics)
      if (!fileTopics.has(t.name)) {
        changes.push({ kind: "-", what: `topic ${t.name}` });
        if (write) sqlite.run("DELETE FROM topics WHERE id = ?", [t.id]);
      }
    const topicId = new Map(topics.map((t) => [t.name, t.id]));
    for (const name of file.topics)
      if (!topicId.has(name)) {
        changes.push({ kind: "+", what: `topic ${name}` });
        if (write) topicId.set(name, (sqlite.query("INSERT INTO topics (brand_id, name) VALUES (?, ?) RETURNING id").get(brandId, name) as { id: string }).id);
      }

    // Prompts, by text: new ones added, missing ones deactivated (never deleted), topics kept in step.
    const prompts = sqlite.query("SELECT id, text, is_active, topic_id FROM prompts WHERE brand_id = ?").all(brandId) as { id: string; text: string; is_active: number; topic_id: string | null }[];
    let setId = (sqlite.query("SELECT id FROM prompt_sets WHERE brand_id = ? ORDER BY created_at LIMIT 1").get(brandId) as { id: string } | null)?.id;
    const fileTexts = new Set(file.prompts.map((f) => f.text));
    const promptByText = new Map(prompts.map((p) => [p.text, p]));
    const topicName = new Map(topics.map((t) => [t.id, t.name]));
    for (const p of prompts)
      if (p.is_active && !fileTexts.has(p.text)) {
        changes.push({ kind: "-", what: `prompt deactivated: ${p.text}` });
        if (write) sqlite.run("UPDATE prompts SET is_active = 0 WHERE id = ?", [p.id]);
      }
    for (const f of file.prompts) {
      const found = promptByText.get(f.text);
      const topic = f.topic ? (topicId.get(f.topic) ?? null) : null;
      if (!found) {
        changes.push({ kind: "+", what: `prompt ${f.text}` });
        if (!write) continue;
        setId ??= (sqlite.query("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'Prompts') RETURNING id").get(brandId) as { id: string }).id;
        sqlite.run("INSERT INTO prompts (prompt_set_id, brand_id, text, topic_id) VALUES (?, ?, ?, ?)", [setId, brandId, f.text, topic]);
        continue;
      }
      if (!found.is_active) changes.push({ kind: "~", what: `prompt reactivated: ${f.text}` });
      const oldTopic = (found.topic_id && topicName.get(found.topic_id)) ?? null;
      if (oldTopic !== f.topic) changes.push({ kind: "~", what: `prompt topic: ${f.text}: ${json(oldTopic)} → ${json(f.topic)}` });
      if (write && (!found.is_active || oldTopic !== f.topic)) sqlite.run("UPDATE prompts SET is_active = 1, topic_id = ? WHERE id = ?", [topic, found.id]);
    }

    // Platforms: the file's are enabled with its schedule; the others are disabled.
    const platforms = sqlite.query("SELECT platform, is_enabled, check_frequency, samples, model FROM brand_platforms WHERE brand_id = ?").all(brandId) as { platform: string; is_enabled: number; check_frequency: string; samples: number; model: string | null }[];
    const filePlatforms = new Set(file.platforms.map((f) => f.platform));
    for (const p of platforms)
      if (p.is_enabled && !filePlatforms.has(p.platform)) {
        changes.push({ kind: "-", what: `platform ${p.platform} disabled` });
        if (write) sqlite.run("UPDATE brand_platforms SET is_enabled = 0 WHERE brand_id = ? AND platform = ?", [brandId, p.platform]);
      }
    for (const f of file.platforms) {
      const found = platforms.find((p) => p.platform === f.platform);
      if (found && found.is_enabled && found.check_frequency === f.frequency && found.samples === f.samples && (found.model ?? null) === f.model) continue;
      changes.push({ kind: found ? "~" : "+", what: `platform ${f.platform}: ${f.frequency}, ${f.samples} sample(s)${f.model ? `, ${f.model}` : ""}` });
      if (write)
        sqlite.run(
          `INSERT INTO brand_platforms (brand_id, platform, is_enabled, check_frequency, samples, model) VALUES (?, ?, 1, ?, ?, ?)
           ON CONFLICT (brand_id, platform) DO UPDATE SET is_enabled = 1, check_frequency = excluded.check_frequency, samples = excluded.samples, model = excluded.model`,
          [brandId, f.platform, f.frequency, f.samples, f.model],
        );
    }
    return brandId;
  };
  const brandId = sqlite.transaction(run).immediate();
  return { brandId, changes };
}

/** The file that describes a brand now (active prompts only). */
export function exportBrandFile(sqlite: Database, slug: string, organization?: string): BrandFile {
  const org = organizationFor(sqlite, organization);
  const brand = sqlite.query("SELECT * FROM brands WHERE organization_id = ? AND slug = ?").get(org.id, slug) as (BrandRow & { slug: string }) | null;
  if (!brand) throw new ApplyError(`no brand "${slug}" in ${org.name}`);
  const domains = sqlite.query("SELECT domain, is_primary FROM brand_domains WHERE brand_id = ? ORDER BY is_primary DESC, domain").all(brand.id) as { domain: string }[];
  const topics = sqlite.query("SELECT id, name FROM topics WHERE brand_id = ? ORDER BY name").all(brand.id) as { id: string; name: string }[];
  const topicNames = new Map(topics.map((t) => [t.id, t.name]));
  return {
    brand: {
      name: brand.name,
      slug: brand.slug,
      organization: org.name,
      website: domains[0]?.domain ?? "",
      domains: domains.slice(1).map((d) => d.domain),
      region: brand.region,
      language: brand.language,
      aliases: parseList(brand.aliases),
      industry: brand.industry,
      description: brand.description,
    },
    competitors: (sqlite.query("SELECT name, domain, aliases FROM competitors WHERE brand_id = ? ORDER BY name").all(brand.id) as { name: string; domain: string | null; aliases: string }[]).map((c) => ({ name: c.name, domain: c.domain, aliases: parseList(c.aliases) })),
    topics: topics.map((t) => t.name),
    prompts: (sqlite.query("SELECT text, topic_id FROM prompts WHERE brand_id = ? AND is_active = 1 ORDER BY created_at, id").all(brand.id) as { text: string; topic_id: string | null }[]).map((p) => ({ text: p.text, topic: (p.topic_id && topicNames.get(p.topic_id)) ?? null })),
    platforms: (sqlite.query("SELECT platform, check_frequency, samples, model FROM brand_platforms WHERE brand_id = ? AND is_enabled = 1 ORDER BY platform").all(brand.id) as { platform: string; check_frequency: string; samples: number; model: string | null }[]).map((p) => ({ platform: p.platform, frequency: p.check_frequency, samples: p.samples, model: p.model })),
  };
}
