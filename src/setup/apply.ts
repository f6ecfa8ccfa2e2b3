// `answerwatch apply brand.yaml` and `export brand <slug>`: a brand file made true in the database,
// idempotently — the plan lists each change, a second apply finds none; prompts removed from the
// file are deactivated, not deleted (their answers stay). One transaction, so a failed apply
// changes nothing.
import type { BrandFile } from "./brand-file";
import type { BrandState, BrandWrite, OrganizationRef, SetupStore } from "./store";

export interface Change {
  kind: "+" | "~" | "-";
  what: string;
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

export function organizationFor(orgs: OrganizationRef[], name: string | undefined): OrganizationRef {
  if (name) {
    // Names are anyone's to choose (and slugs a manager's): a file names one organization by its id,
    // or by a slug or name only one answers to — never the first of several. An id is one answer
    // among the others: an organization renamed to another's id (what `export` then writes as its
    // name) must not send a file to that other organization.
    const found = orgs.filter((o) => o.id === name || o.slug === name || o.name.toLowerCase() === name.toLowerCase());
    if (!found.length) throw new ApplyError(`brand.organization: no organization named "${name}" (${orgs.map((o) => o.name).join(", ") || "none yet: answerwatch user add --org NAME creates one"})`);
    if (found.length > 1)
      throw new ApplyError(`brand.organization: ${found.length} organizations answer to "${name}" (${found.map((o) => `${o.name}, slug ${o.slug}, id ${o.id}`).join("; ")}): name it by its id`);
    return found[0]!;
  }
  if (orgs.length === 1) return orgs[0]!;
  throw new ApplyError(orgs.length ? `brand.organization is needed: this server has ${orgs.length} organizations (${orgs.map((o) => o.name).join(", ")})` : "no organization yet: answerwatch user add --email … --password … --org NAME creates one");
}

/** What `file` changes in `state`: the plan's lines and the writes that make them (none for a dry run of a new brand). */
export function planBrandFile(state: BrandState, file: BrandFile, options: { dryRun?: boolean } = {}): { changes: Change[]; writes: BrandWrite[] } {
  const changes: Change[] = [];
  const writes: BrandWrite[] = [];
  const { organization: org, brand } = state;
  const b = file.brand;
  if (!brand) {
    changes.push({ kind: "+", what: `brand ${b.name} (${b.slug}) in ${org.name}` });
    if (options.dryRun) {
      // A dry run of a new brand: everything in the file is an addition.
      for (const d of [b.website, ...b.domains.filter((x) => x !== b.website)]) changes.push({ kind: "+", what: `domain ${d}` });
      for (const c of file.competitors) changes.push({ kind: "+", what: `competitor ${c.name}` });
      for (const t of file.topics) changes.push({ kind: "+", what: `topic ${t}` });
      for (const p of file.prompts) changes.push({ kind: "+", what: `prompt ${p.text}` });
      for (const f of file.platforms) changes.push({ kind: "+", what: `platform ${f.platform}: ${f.frequency}, ${f.samples} sample(s)` });
      return { changes, writes };
    }
    writes.push({ op: "insertBrand", name: b.name, slug: b.slug, region: b.region, language: b.language, aliases: b.aliases, industry: b.industry, description: b.description });
  } else {
    const fields: ["name" | "region" | "language" | "industry" | "description", unknown, string | null][] = [
      ["name", brand.name, b.name],
      ["region", brand.region, b.region],
      ["language", brand.language, b.language],
      ["industry", brand.industry, b.industry],
      ["description", brand.description, b.description],
    ];
    for (const [field, now, next] of fields)
      if ((now ?? null) !== (next ?? null)) {
        changes.push({ kind: "~", what: `brand ${field}: ${json(now)} → ${json(next)}` });
        writes.push({ op: "updateBrand", field, value: next });
      }
    if (!sameList(parseList(brand.aliases), b.aliases)) {
      changes.push({ kind: "~", what: `brand aliases: ${brand.aliases} → ${json(b.aliases)}` });
      writes.push({ op: "updateBrandAliases", aliases: b.aliases });
    }
  }

  // Domains: the website first (primary), then the others.
  const wanted = [b.website, ...b.domains.filter((d) => d !== b.website)];
  const wantedSet = new Set(wanted);
  const domainByName = new Map(state.domains.map((d) => [d.domain, d]));
  for (const d of state.domains)
    if (!wantedSet.has(d.domain)) {
      changes.push({ kind: "-", what: `domain ${d.domain}` });
      writes.push({ op: "deleteDomain", id: d.id });
    }
  for (const [i, domain] of wanted.entries()) {
    const found = domainByName.get(domain);
    if (!found) {
      changes.push({ kind: "+", what: `domain ${domain}${i === 0 ? " (primary)" : ""}` });
      writes.push({ op: "insertDomain", domain, primary: i === 0 });
    } else if (!!found.is_primary !== (i === 0)) {
      changes.push({ kind: "~", what: `domain ${domain}: ${i === 0 ? "primary" : "not primary"}` });
      writes.push({ op: "setDomainPrimary", id: found.id, primary: i === 0 });
    }
  }

  // Competitors, by name (case-insensitive).
  // Lookups by key through maps: a file of thousands of entries applies in linear time.
  // Keys trimmed as the file's values are: a name stored with a trailing space (through /rest/v1)
  // is the same competitor, renamed, not deleted with its citations' links and made again.
  const fileRivals = new Set(file.competitors.map((c) => c.name.toLowerCase()));
  const rivalByName = new Map(state.competitors.map((r) => [r.name.trim().toLowerCase(), r]));
  for (const r of state.competitors)
    if (!fileRivals.has(r.name.trim().toLowerCase())) {
      changes.push({ kind: "-", what: `competitor ${r.name}` });
      writes.push({ op: "deleteCompetitor", id: r.id });
    }
  for (const c of file.competitors) {
    const found = rivalByName.get(c.name.toLowerCase());
    if (!found) {
      changes.push({ kind: "+", what: `competitor ${c.name}` });
      writes.push({ op: "insertCompetitor", name: c.name, domain: c.domain, aliases: c.aliases });
    } else if (found.name !== c.name || (found.domain ?? null) !== c.domain || !sameList(parseList(found.aliases), c.aliases)) {
      changes.push({ kind: "~", what: `competitor ${c.name}` });
      writes.push({ op: "updateCompetitor", id: found.id, name: c.name, domain: c.domain, aliases: c.aliases });
    }
  }

  // Topics, by name; prompts keep theirs until the file moves them.
  const fileTopics = new Set(file.topics);
  for (const t of state.topics)
    if (!fileTopics.has(t.name.trim())) {
      changes.push({ kind: "-", what: `topic ${t.name}` });
      writes.push({ op: "deleteTopic", id: t.id });
    }
  const topicId = new Map(state.topics.map((t) => [t.name.trim(), t.id]));
  const newTopics = new Set<string>();
  for (const name of file.topics)
    if (!topicId.has(name)) {
      changes.push({ kind: "+", what: `topic ${name}` });
      writes.push({ op: "insertTopic", name });
      newTopics.add(name);
    }
  const topicRef = (name: string | null) => (!name ? null : topicId.has(name) ? { id: topicId.get(name)! } : newTopics.has(name) ? { name } : null);

  // Prompts, by text: new ones added, missing ones deactivated (never deleted), topics kept in step.
  const fileTexts = new Set(file.prompts.map((f) => f.text));
  const promptByText = new Map(state.prompts.map((p) => [p.text.trim(), p]));
  const topicName = new Map(state.topics.map((t) => [t.id, t.name.trim()]));
  for (const p of state.prompts)
    if (p.is_active && !fileTexts.has(p.text.trim())) {
      changes.push({ kind: "-", what: `prompt deactivated: ${p.text}` });
      writes.push({ op: "deactivatePrompt", id: p.id });
    }
  for (const f of file.prompts) {
    const found = promptByText.get(f.text);
    if (!found) {
      changes.push({ kind: "+", what: `prompt ${f.text}` });
      writes.push({ op: "insertPrompt", text: f.text, topic: topicRef(f.topic) });
      continue;
    }
    if (!found.is_active) changes.push({ kind: "~", what: `prompt reactivated: ${f.text}` });
    const oldTopic = (found.topic_id && topicName.get(found.topic_id)) ?? null;
    if (oldTopic !== f.topic) changes.push({ kind: "~", what: `prompt topic: ${f.text}: ${json(oldTopic)} → ${json(f.topic)}` });
    if (!found.is_active || oldTopic !== f.topic) writes.push({ op: "activatePrompt", id: found.id, topic: topicRef(f.topic) });
  }

  // Platforms: the file's are enabled with its schedule; the others are disabled.
  const filePlatforms = new Set(file.platforms.map((f) => f.platform));
  for (const p of state.platforms)
    if (p.is_enabled && !filePlatforms.has(p.platform)) {
      changes.push({ kind: "-", what: `platform ${p.platform} disabled` });
      writes.push({ op: "disablePlatform", platform: p.platform });
    }
  for (const f of file.platforms) {
    const found = state.platforms.find((p) => p.platform === f.platform);
    if (found && found.is_enabled && found.check_frequency === f.frequency && found.samples === f.samples && (found.model ?? null) === f.model) continue;
    changes.push({ kind: found ? "~" : "+", what: `platform ${f.platform}: ${f.frequency}, ${f.samples} sample(s)${f.model ? `, ${f.model}` : ""}` });
    writes.push({ op: "enablePlatform", platform: f.platform, frequency: f.frequency, samples: f.samples, model: f.model });
  }
  return { changes, writes };
}

/** The changes `file` makes, and (unless dryRun) makes them: read, plan and write in one store transaction. */
export async function applyBrandFile(store: SetupStore, file: BrandFile, options: { dryRun?: boolean } = {}): Promise<{ brandId: string | null; changes: Change[] }> {
  let changes: Change[] = [];
  const { brandId } = await store.reconcileBrand({
    slug: file.brand.slug,
    chooseOrganization: (orgs) => organizationFor(orgs, file.brand.organization),
    plan: (state) => {
      const planned = planBrandFile(state, file, options);
      changes = planned.changes;
      return options.dryRun ? [] : planned.writes;
    },
  });
  return { brandId, changes };
}

/** The file that describes a brand now (active prompts only). */
export async function exportBrandFile(store: SetupStore, slug: string, organization?: string): Promise<BrandFile> {
  const org = organizationFor(await store.organizations(), organization);
  const found = await store.brandForExport({ organizationId: org.id, slug });
  if (!found) throw new ApplyError(`no brand "${slug}" in ${org.name}`);
  const { brand, domains, topics } = found;
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
    competitors: found.competitors.map((c) => ({ name: c.name, domain: c.domain, aliases: parseList(c.aliases) })),
    topics: topics.map((t) => t.name),
    prompts: found.prompts.map((p) => ({ text: p.text, topic: (p.topic_id && topicNames.get(p.topic_id)) ?? null })),
    platforms: found.platforms.map((p) => ({ platform: p.platform, frequency: p.check_frequency, samples: p.samples, model: p.model })),
  };
}
