// The config-as-code store on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import type { BrandExport, BrandListing, BrandRow, BrandState, BrandWrite, OrganizationRef, SetupStore, TopicRef } from "./store";

const json = (v: unknown) => JSON.stringify(v);
const BRAND_COLUMNS = "id, organization_id, name, region, language, aliases, industry, description";

export function createSqliteSetupStore(sqlite: Database): SetupStore {
  const organizations = () => sqlite.query("SELECT id, name, slug FROM organizations ORDER BY created_at").all() as OrganizationRef[];

  function state(organization: OrganizationRef, slug: string): BrandState {
    const brand = sqlite.query(`SELECT ${BRAND_COLUMNS} FROM brands WHERE organization_id = ? AND slug = ?`).get(organization.id, slug) as BrandRow | null;
    if (!brand) return { organization, brand, domains: [], competitors: [], topics: [], prompts: [], platforms: [] };
    return {
      organization,
      brand,
      domains: sqlite.query("SELECT id, domain, is_primary FROM brand_domains WHERE brand_id = ?").all(brand.id) as BrandState["domains"],
      competitors: sqlite.query("SELECT id, name, domain, aliases FROM competitors WHERE brand_id = ?").all(brand.id) as BrandState["competitors"],
      topics: sqlite.query("SELECT id, name FROM topics WHERE brand_id = ?").all(brand.id) as BrandState["topics"],
      prompts: sqlite.query("SELECT id, text, is_active, topic_id FROM prompts WHERE brand_id = ?").all(brand.id) as BrandState["prompts"],
      platforms: sqlite.query("SELECT platform, is_enabled, check_frequency, samples, model FROM brand_platforms WHERE brand_id = ?").all(brand.id) as BrandState["platforms"],
    };
  }

  /** Applies `writes` to the brand `brandId` (null until an insertBrand write makes it). */
  function apply(organizationId: string, brandId: string | null, writes: BrandWrite[]): string | null {
    const insertedTopics = new Map<string, string>();
    let setId: string | undefined;
    const topicId = (t: TopicRef) => (t === null ? null : "id" in t ? t.id : (insertedTopics.get(t.name) ?? null));
    const promptSet = (brand: string) =>
      (setId ??=
        (sqlite.query("SELECT id FROM prompt_sets WHERE brand_id = ? ORDER BY created_at LIMIT 1").get(brand) as { id: string } | null)?.id ??
        (sqlite.query("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'Prompts') RETURNING id").get(brand) as { id: string }).id);
    for (const w of writes) {
      if (w.op === "insertBrand") {
        brandId = (
          sqlite
            .query(`INSERT INTO brands (organization_id, name, slug, region, language, aliases, industry, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${BRAND_COLUMNS}`)
            .get(organizationId, w.name, w.slug, w.region, w.language, json(w.aliases), w.industry, w.description) as BrandRow
        ).id;
        continue;
      }
      if (!brandId) throw new Error(`setup store: ${w.op} before the brand exists`);
      switch (w.op) {
        case "updateBrand":
          sqlite.run(`UPDATE brands SET ${w.field} = ? WHERE id = ?`, [w.value, brandId]);
          break;
        case "updateBrandAliases":
          sqlite.run("UPDATE brands SET aliases = ? WHERE id = ?", [json(w.aliases), brandId]);
          break;
        case "deleteDomain":
          sqlite.run("DELETE FROM brand_domains WHERE id = ?", [w.id]);
          break;
        case "insertDomain":
          sqlite.run("INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, ?, ?)", [brandId, w.domain, w.primary ? 1 : 0]);
          break;
        case "setDomainPrimary":
          sqlite.run("UPDATE brand_domains SET is_primary = ? WHERE id = ?", [w.primary ? 1 : 0, w.id]);
          break;
        case "deleteCompetitor":
          sqlite.run("DELETE FROM competitors WHERE id = ?", [w.id]);
          break;
        case "insertCompetitor":
          sqlite.run("INSERT INTO competitors (brand_id, name, domain, aliases) VALUES (?, ?, ?, ?)", [brandId, w.name, w.domain, json(w.aliases)]);
          break;
        case "updateCompetitor":
          sqlite.run("UPDATE competitors SET name = ?, domain = ?, aliases = ? WHERE id = ?", [w.name, w.domain, json(w.aliases), w.id]);
          break;
        case "deleteTopic":
          sqlite.run("DELETE FROM topics WHERE id = ?", [w.id]);
          break;
        case "insertTopic":
          insertedTopics.set(w.name, (sqlite.query("INSERT INTO topics (brand_id, name) VALUES (?, ?) RETURNING id").get(brandId, w.name) as { id: string }).id);
          break;
        case "deactivatePrompt":
          sqlite.run("UPDATE prompts SET is_active = 0 WHERE id = ?", [w.id]);
          break;
        case "insertPrompt":
          sqlite.run("INSERT INTO prompts (prompt_set_id, brand_id, text, topic_id) VALUES (?, ?, ?, ?)", [promptSet(brandId), brandId, w.text, topicId(w.topic)]);
          break;
        case "activatePrompt":
          sqlite.run("UPDATE prompts SET is_active = 1, topic_id = ? WHERE id = ?", [topicId(w.topic), w.id]);
          break;
        case "disablePlatform":
          sqlite.run("UPDATE brand_platforms SET is_enabled = 0 WHERE brand_id = ? AND platform = ?", [brandId, w.platform]);
          break;
        case "enablePlatform":
          sqlite.run(
            `INSERT INTO brand_platforms (brand_id, platform, is_enabled, check_frequency, samples, model) VALUES (?, ?, 1, ?, ?, ?)
             ON CONFLICT (brand_id, platform) DO UPDATE SET is_enabled = 1, check_frequency = excluded.check_frequency, samples = excluded.samples, model = excluded.model`,
            [brandId, w.platform, w.frequency, w.samples, w.model],
          );
          break;
      }
    }
    return brandId;
  }

  return {
    async organizations() {
      return organizations();
    },
    async reconcileBrand({ slug, chooseOrganization, plan }) {
      return sqlite
        .transaction(() => {
          const organization = chooseOrganization(organizations());
          const now = state(organization, slug);
          return { brandId: apply(organization.id, now.brand?.id ?? null, plan(now)) };
        })
        .immediate();
    },
    async brandForExport({ organizationId, slug }) {
      const brand = sqlite.query("SELECT * FROM brands WHERE organization_id = ? AND slug = ?").get(organizationId, slug) as BrandExport["brand"] | null;
      if (!brand) return null;
      return {
        brand,
        domains: sqlite.query("SELECT domain, is_primary FROM brand_domains WHERE brand_id = ? ORDER BY is_primary DESC, domain").all(brand.id) as BrandExport["domains"],
        topics: sqlite.query("SELECT id, name FROM topics WHERE brand_id = ? ORDER BY name").all(brand.id) as BrandExport["topics"],
        competitors: sqlite.query("SELECT name, domain, aliases FROM competitors WHERE brand_id = ? ORDER BY name").all(brand.id) as BrandExport["competitors"],
        prompts: sqlite.query("SELECT text, topic_id FROM prompts WHERE brand_id = ? AND is_active = 1 ORDER BY created_at, id").all(brand.id) as BrandExport["prompts"],
        platforms: sqlite.query("SELECT platform, check_frequency, samples, model FROM brand_platforms WHERE brand_id = ? AND is_enabled = 1 ORDER BY platform").all(brand.id) as BrandExport["platforms"],
      };
    },
    async listBrands() {
      return sqlite
        .query("SELECT o.name AS organization, b.slug, b.name, b.is_active, (SELECT count(*) FROM prompts p WHERE p.brand_id = b.id AND p.is_active = 1) AS prompts FROM brands b JOIN organizations o ON o.id = b.organization_id ORDER BY o.name, b.slug")
        .all() as BrandListing[];
    },
  };
}
