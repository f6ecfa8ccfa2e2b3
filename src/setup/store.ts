// What config as code (apply, export, brands) reads and writes: a brand with its domains,
// competitors, topics, prompts and platforms. Backend implementations: store.sqlite.ts (and, with
// #29, store.pg.ts); the contract both must keep is tests/contracts/setup.contract.ts.

export interface OrganizationRef {
  id: string;
  name: string;
  slug: string;
}

export interface BrandRow {
  id: string;
  organization_id: string;
  name: string;
  region: string | null;
  language: string | null;
  /** JSON text, as stored. */
  aliases: string;
  industry: string | null;
  description: string | null;
}

/** A brand and everything apply compares with a file, as it is now. */
export interface BrandState {
  organization: OrganizationRef;
  brand: BrandRow | null;
  domains: { id: string; domain: string; is_primary: number }[];
  competitors: { id: string; name: string; domain: string | null; aliases: string }[];
  topics: { id: string; name: string }[];
  prompts: { id: string; text: string; is_active: number; topic_id: string | null }[];
  platforms: { platform: string; is_enabled: number; check_frequency: string; samples: number; model: string | null }[];
}

/** A topic of the brand already stored (by id), or one inserted earlier in the same plan (by name). */
export type TopicRef = { id: string } | { name: string } | null;

/** One write of a plan, applied in order; every write is to the brand of the plan (inserted by its first write when new). */
export type BrandWrite =
  | { op: "insertBrand"; name: string; slug: string; region: string | null; language: string | null; aliases: string[]; industry: string | null; description: string | null }
  | { op: "updateBrand"; field: "name" | "region" | "language" | "industry" | "description"; value: string | null }
  | { op: "updateBrandAliases"; aliases: string[] }
  | { op: "deleteDomain"; id: string }
  | { op: "insertDomain"; domain: string; primary: boolean }
  | { op: "setDomainPrimary"; id: string; primary: boolean }
  | { op: "deleteCompetitor"; id: string }
  | { op: "insertCompetitor"; name: string; domain: string | null; aliases: string[] }
  | { op: "updateCompetitor"; id: string; name: string; domain: string | null; aliases: string[] }
  | { op: "deleteTopic"; id: string }
  | { op: "insertTopic"; name: string }
  | { op: "deactivatePrompt"; id: string }
  /** Into the brand's first prompt set (made when it has none). */
  | { op: "insertPrompt"; text: string; topic: TopicRef }
  | { op: "activatePrompt"; id: string; topic: TopicRef }
  | { op: "disablePlatform"; platform: string }
  | { op: "enablePlatform"; platform: string; frequency: string; samples: number; model: string | null };

/** A brand as export writes it (active prompts, enabled platforms). */
export interface BrandExport {
  brand: BrandRow & { slug: string };
  /** Primary first, then by domain. */
  domains: { domain: string }[];
  /** By name. */
  competitors: { name: string; domain: string | null; aliases: string }[];
  /** By name. */
  topics: { id: string; name: string }[];
  /** Active ones, oldest first. */
  prompts: { text: string; topic_id: string | null }[];
  /** Enabled ones, by platform. */
  platforms: { platform: string; check_frequency: string; samples: number; model: string | null }[];
}

export interface BrandListing {
  organization: string;
  slug: string;
  name: string;
  is_active: number;
  /** Active prompts. */
  prompts: number;
}

export interface SetupStore {
  /** Every organization, oldest first. */
  organizations(): Promise<OrganizationRef[]>;
  /**
   * Reconciles one brand in one write transaction: reads the organizations, lets
   * `chooseOrganization` pick one (it may throw, which changes nothing), reads the brand `slug` of
   * it with everything it has, and applies the writes `plan` returns for that state (none for a dry
   * run). Both callbacks run synchronously inside the transaction. The brand's id afterwards, null
   * when there is none.
   */
  reconcileBrand(input: { slug: string; chooseOrganization: (organizations: OrganizationRef[]) => OrganizationRef; plan: (state: BrandState) => BrandWrite[] }): Promise<{ brandId: string | null }>;
  /** The brand `slug` of the organization for export; null when none. */
  brandForExport(input: { organizationId: string; slug: string }): Promise<BrandExport | null>;
  /** Every brand with its organization's name, by organization name then slug. */
  listBrands(): Promise<BrandListing[]>;
}
