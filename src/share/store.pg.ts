// The share links store on Postgres (store.ts says what each operation does).
import type { SQL } from "bun";
import { isUuid, plainRow, plainRows } from "../db/pg/values";
import type { ShareLinkHolder, ShareLinkRow, ShareStore } from "./store";

export function createPgShareStore(sql: SQL): ShareStore {
  const byId = async (id: string) => {
    if (!isUuid(id)) return null;
    const [row] = await sql`SELECT id, brand_id, organization_id, created_by, prefix, expires_at, revoked_at, created_at FROM share_links WHERE id = ${id}`;
    return row ? plainRow<ShareLinkRow>(row) : null;
  };
  return {
    async findByHash(hash) {
      // With its creator's role today: a link works only while its creator could still make it.
      const [row] = await sql`
        SELECT s.id, s.brand_id, s.organization_id, s.created_by, s.expires_at, s.revoked_at, s.created_at, m.role AS creator_role, m.created_at AS creator_since
          FROM share_links AS s LEFT JOIN organization_members AS m ON m.organization_id = s.organization_id AND m.user_id = s.created_by
         WHERE s.token_hash = ${hash}`;
      return row ? plainRow<ShareLinkHolder>(row) : null;
    },
    async brand(id) {
      if (!isUuid(id)) return null;
      const [row] = await sql`SELECT id, organization_id, name FROM brands WHERE id = ${id}`;
      return row ? plainRow<{ id: string; organization_id: string; name: string }>(row) : null;
    },
    async brandView(brandId) {
      if (!isUuid(brandId)) return null;
      const [brand] = await sql`SELECT id, name, slug FROM brands WHERE id = ${brandId}`;
      if (!brand) return null;
      // COLLATE "C": by code point, as SQLite orders text, whatever the database's locale.
      const platforms = await sql`SELECT platform FROM brand_platforms WHERE brand_id = ${brandId} ORDER BY platform COLLATE "C"`;
      const topics = await sql`SELECT id, name FROM topics WHERE brand_id = ${brandId} ORDER BY name COLLATE "C"`;
      return {
        brand: { id: brand.id, name: brand.name, slug: brand.slug },
        platforms: platforms.map((p: { platform: string }) => p.platform),
        topics: topics.map((t: { id: string; name: string }) => ({ id: t.id, name: t.name })),
      };
    },
    async create(link) {
      // organization_id is the brand's, set by the share_links trigger (drizzle-pg/0001); what the
      // caller passes is the same organization (the service resolves it from the brand).
      const [row] = await sql`
        INSERT INTO share_links (brand_id, created_by, token_hash, prefix, expires_at)
        VALUES (${link.brandId}, ${link.createdBy}, ${link.hash}, ${link.prefix}, ${link.expiresAt})
        RETURNING id, brand_id, organization_id, created_by, prefix, expires_at, revoked_at, created_at`;
      return plainRow<ShareLinkRow>(row);
    },
    async listForBrand(brandId) {
      if (!isUuid(brandId)) return [];
      const rows = await sql`
        SELECT id, brand_id, organization_id, created_by, prefix, expires_at, revoked_at, created_at FROM share_links
         WHERE brand_id = ${brandId} ORDER BY created_at DESC`;
      return plainRows<ShareLinkRow>(rows);
    },
    byId,
    async revoke({ id, at }) {
      if (!isUuid(id)) return null;
      await sql`UPDATE share_links SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`;
      return byId(id);
    },
  };
}
