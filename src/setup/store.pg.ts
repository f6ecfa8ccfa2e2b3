// The config-as-code store on Postgres (store.ts says what each operation does). reconcileBrand is
// one transaction that first takes a transaction-scoped advisory lock on (organization, slug):
// two applies of the same brand (two instances, two CI jobs) then run one after the other, each
// planning from the state the other left, as SQLite's single writer guarantees. Text is ordered
// byte-wise (COLLATE "C"), as SQLite orders it, whatever the database's locale. The brand's
// prompts.is_branded are rechecked inside that transaction (branded.pg.ts): right at commit.
import type { SQL } from "bun";
import { isUuid } from "../db/pg/values";
import { recheckBranded } from "../insights/branded.pg";
import type { BrandExport, BrandListing, BrandRow, BrandState, BrandWrite, OrganizationRef, SetupStore, TopicRef } from "./store";

/** The advisory lock class of config-as-code applies (the other key is a hash of org and slug). */
const APPLY_LOCK_CLASS = 4_242_029;

/** jsonb arrives parsed; the interface keeps SQLite's JSON text (compact, as JSON.stringify writes it). */
const jsonText = (v: unknown) => JSON.stringify(v ?? []);

// Fixed statements per brand field (the field names are the interface's union, never the caller's text).
const UPDATE_BRAND: Record<Extract<BrandWrite, { op: "updateBrand" }>["field"], string> = {
  name: "UPDATE brands SET name = $1 WHERE id = $2",
  region: "UPDATE brands SET region = $1 WHERE id = $2",
  language: "UPDATE brands SET language = $1 WHERE id = $2",
  industry: "UPDATE brands SET industry = $1 WHERE id = $2",
  description: "UPDATE brands SET description = $1 WHERE id = $2",
};

type Row = Record<string, unknown>;
const brandRow = (r: Row): BrandRow => ({
  id: r.id as string,
  organization_id: r.organization_id as string,
  name: r.name as string,
  region: r.region as string | null,
  language: r.language as string | null,
  aliases: jsonText(r.aliases),
  industry: r.industry as string | null,
  description: r.description as string | null,
});
const bit = (b: unknown) => (b ? 1 : 0);

export function createPgSetupStore(sql: SQL): SetupStore {
  const organizations = async (q: SQL): Promise<OrganizationRef[]> => [...(await q`SELECT id, name, slug FROM organizations ORDER BY created_at`)].map((r: Row) => ({ id: r.id as string, name: r.name as string, slug: r.slug as string }));

  async function state(tx: SQL, organization: OrganizationRef, slug: string): Promise<BrandState> {
    const [found] = await tx`SELECT id, organization_id, name, region, language, aliases, industry, description FROM brands WHERE organization_id = ${organization.id} AND slug = ${slug}`;
    if (!found) return { organization, brand: null, domains: [], competitors: [], topics: [], prompts: [], platforms: [] };
    const brand = brandRow(found);
    const [domains, competitors, topics, prompts, platforms] = await Promise.all([
      tx`SELECT id, domain, is_primary FROM brand_domains WHERE brand_id = ${brand.id}`,
      tx`SELECT id, name, domain, aliases FROM competitors WHERE brand_id = ${brand.id}`,
      tx`SELECT id, name FROM topics WHERE brand_id = ${brand.id}`,
      tx`SELECT id, text, is_active, topic_id FROM prompts WHERE brand_id = ${brand.id}`,
      tx`SELECT platform, is_enabled, check_frequency, samples, model FROM brand_platforms WHERE brand_id = ${brand.id}`,
    ]);
    return {
      organization,
      brand,
      domains: domains.map((r: Row) => ({ id: r.id, domain: r.domain, is_primary: bit(r.is_primary) })),
      competitors: competitors.map((r: Row) => ({ id: r.id, name: r.name, domain: r.domain, aliases: jsonText(r.aliases) })),
      topics: topics.map((r: Row) => ({ id: r.id, name: r.name })),
      prompts: prompts.map((r: Row) => ({ id: r.id, text: r.text, is_active: bit(r.is_active), topic_id: r.topic_id })),
      platforms: platforms.map((r: Row) => ({ platform: r.platform, is_enabled: bit(r.is_enabled), check_frequency: r.check_frequency, samples: r.samples, model: r.model })),
    };
  }

  /** Applies `writes` to the brand `brandId` (null until an insertBrand write makes it), in order. */
  async function apply(tx: SQL, organizationId: string, brandId: string | null, writes: BrandWrite[]): Promise<string | null> {
    const insertedTopics = new Map<string, string>();
    let setId: string | undefined;
    const topicId = (t: TopicRef) => (t === null ? null : "id" in t ? t.id : (insertedTopics.get(t.name) ?? null));
    const promptSet = async (brand: string) => {
      if (setId) return setId;
      const [first] = await tx`SELECT id FROM prompt_sets WHERE brand_id = ${brand} ORDER BY created_at LIMIT 1`;
      setId = (first ?? (await tx`INSERT INTO prompt_sets (brand_id, name) VALUES (${brand}, 'Prompts') RETURNING id`)[0]).id as string;
      return setId;
    };
    for (const w of writes) {
      if (w.op === "insertBrand") {
        const [row] = await tx`
          INSERT INTO brands (organization_id, name, slug, region, language, aliases, industry, description)
          VALUES (${organizationId}, ${w.name}, ${w.slug}, ${w.region}, ${w.language}, ${w.aliases}, ${w.industry}, ${w.description}) RETURNING id`;
        brandId = row.id as string;
        continue;
      }
      if (!brandId) throw new Error(`setup store: ${w.op} before the brand exists`);
      // Ids come from the state the plan was given; one that is no uuid names no row (as on SQLite),
      // and each write by id stays within the plan's brand.
      if ("id" in w && !isUuid(w.id)) continue;
      switch (w.op) {
        case "updateBrand":
          await tx.unsafe(UPDATE_BRAND[w.field], [w.value, brandId]);
          break;
        case "updateBrandAliases":
          await tx`UPDATE brands SET aliases = ${w.aliases} WHERE id = ${brandId}`;
          break;
        case "deleteDomain":
          await tx`DELETE FROM brand_domains WHERE id = ${w.id} AND brand_id = ${brandId}`;
          break;
        case "insertDomain":
          await tx`INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (${brandId}, ${w.domain}, ${w.primary})`;
          break;
        case "setDomainPrimary":
          await tx`UPDATE brand_domains SET is_primary = ${w.primary} WHERE id = ${w.id} AND brand_id = ${brandId}`;
          break;
        case "deleteCompetitor":
          await tx`DELETE FROM competitors WHERE id = ${w.id} AND brand_id = ${brandId}`;
          break;
        case "insertCompetitor":
          await tx`INSERT INTO competitors (brand_id, name, domain, aliases) VALUES (${brandId}, ${w.name}, ${w.domain}, ${w.aliases})`;
          break;
        case "updateCompetitor":
          await tx`UPDATE competitors SET name = ${w.name}, domain = ${w.domain}, aliases = ${w.aliases} WHERE id = ${w.id} AND brand_id = ${brandId}`;
          break;
        case "deleteTopic":
          await tx`DELETE FROM topics WHERE id = ${w.id} AND brand_id = ${brandId}`;
          break;
        case "insertTopic":
          insertedTopics.set(w.name, (await tx`INSERT INTO topics (brand_id, name) VALUES (${brandId}, ${w.name}) RETURNING id`)[0].id as string);
          break;
        case "deactivatePrompt":
          await tx`UPDATE prompts SET is_active = false WHERE id = ${w.id} AND brand_id = ${brandId}`;
          break;
        case "insertPrompt":
          await tx`INSERT INTO prompts (prompt_set_id, brand_id, text, topic_id) VALUES (${await promptSet(brandId)}, ${brandId}, ${w.text}, ${topicId(w.topic)})`;
          break;
        case "activatePrompt":
          await tx`UPDATE prompts SET is_active = true, topic_id = ${topicId(w.topic)} WHERE id = ${w.id} AND brand_id = ${brandId}`;
          break;
        case "disablePlatform":
          await tx`UPDATE brand_platforms SET is_enabled = false WHERE brand_id = ${brandId} AND platform = ${w.platform}`;
          break;
        case "enablePlatform":
          await tx`
            INSERT INTO brand_platforms (brand_id, platform, is_enabled, check_frequency, samples, model) VALUES (${brandId}, ${w.platform}, true, ${w.frequency}, ${w.samples}, ${w.model})
            ON CONFLICT (brand_id, platform) DO UPDATE SET is_enabled = true, check_frequency = excluded.check_frequency, samples = excluded.samples, model = excluded.model`;
          break;
      }
    }
    return brandId;
  }

  return {
    organizations: () => organizations(sql),
    async reconcileBrand({ slug, chooseOrganization, plan }) {
      return sql.begin(async (tx) => {
        const organization = chooseOrganization(await organizations(tx));
        await tx`SELECT pg_advisory_xact_lock(${APPLY_LOCK_CLASS}, hashtext(${`${organization.id}/${slug}`}))`;
        const now = await state(tx, organization, slug);
        const brandId = await apply(tx, organization.id, now.brand?.id ?? null, plan(now));
        // is_branded right at commit, as SQLite's triggers keep it: an apply often runs with no
        // instance listening (the CLI before any server starts), and nothing else would recheck.
        if (brandId) await recheckBranded(tx, [brandId], { inTransaction: true });
        return { brandId };
      });
    },
    async brandForExport({ organizationId, slug }) {
      if (!isUuid(organizationId)) return null;
      const [found] = await sql`SELECT id, organization_id, name, slug, region, language, aliases, industry, description FROM brands WHERE organization_id = ${organizationId} AND slug = ${slug}`;
      if (!found) return null;
      const id = found.id as string;
      const [domains, topics, competitors, prompts, platforms] = await Promise.all([
        sql`SELECT domain FROM brand_domains WHERE brand_id = ${id} ORDER BY is_primary DESC, domain COLLATE "C"`,
        sql`SELECT id, name FROM topics WHERE brand_id = ${id} ORDER BY name COLLATE "C"`,
        sql`SELECT name, domain, aliases FROM competitors WHERE brand_id = ${id} ORDER BY name COLLATE "C"`,
        sql`SELECT text, topic_id FROM prompts WHERE brand_id = ${id} AND is_active ORDER BY created_at, id`,
        sql`SELECT platform, check_frequency, samples, model FROM brand_platforms WHERE brand_id = ${id} AND is_enabled ORDER BY platform COLLATE "C"`,
      ]);
      return {
        brand: { ...brandRow(found), slug: found.slug as string },
        domains: [...domains] as BrandExport["domains"],
        topics: [...topics] as BrandExport["topics"],
        competitors: competitors.map((r: Row) => ({ name: r.name, domain: r.domain, aliases: jsonText(r.aliases) })),
        prompts: [...prompts] as BrandExport["prompts"],
        platforms: [...platforms] as BrandExport["platforms"],
      };
    },
    async listBrands() {
      const rows = await sql`
        SELECT o.name AS organization, b.slug, b.name, b.is_active, (SELECT count(*) FROM prompts p WHERE p.brand_id = b.id AND p.is_active)::int AS prompts
          FROM brands b JOIN organizations o ON o.id = b.organization_id ORDER BY o.name COLLATE "C", b.slug COLLATE "C"`;
      return rows.map((r: Row) => ({ organization: r.organization, slug: r.slug, name: r.name, is_active: bit(r.is_active), prompts: r.prompts })) as BrandListing[];
    },
  };
}
