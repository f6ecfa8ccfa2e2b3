// What share links keep (share_links) and the brand facts a link needs, and how the feature asks for
// them. Backend implementations: store.sqlite.ts (and, with #29, store.pg.ts); the contract both
// must keep is tests/contracts/share.contract.ts.

export interface ShareLinkRow {
  id: string;
  brand_id: string;
  organization_id: string;
  created_by: string | null;
  prefix: string;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

/** A link found by its token hash, with its creator's current role in the link's organization (null when they left). */
export interface ShareLinkHolder extends Omit<ShareLinkRow, "prefix"> {
  creator_role: string | null;
  /** When the creator's current membership of the link's organization began. */
  creator_since: string | null;
}

/** What a shared page shows before any data. */
export interface SharedBrandView {
  brand: { id: string; name: string; slug: string };
  /** The brand's platforms, by name. */
  platforms: string[];
  /** The brand's topics, by name. */
  topics: { id: string; name: string }[];
}

export interface ShareStore {
  findByHash(hash: string): Promise<ShareLinkHolder | null>;
  /** The brand with its organization (null when unknown). */
  brand(id: string): Promise<{ id: string; organization_id: string; name: string } | null>;
  /** null when the brand is unknown. */
  brandView(brandId: string): Promise<SharedBrandView | null>;
  create(input: { brandId: string; organizationId: string; createdBy: string; hash: string; prefix: string; expiresAt: string | null }): Promise<ShareLinkRow>;
  /** The brand's links, newest first. */
  listForBrand(brandId: string): Promise<ShareLinkRow[]>;
  byId(id: string): Promise<ShareLinkRow | null>;
  /** Sets revoked_at unless it is set already; the link as it is afterwards (null when unknown). */
  revoke(input: { id: string; at: string }): Promise<ShareLinkRow | null>;
}
