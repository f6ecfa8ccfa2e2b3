// The share links store on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import type { ShareLinkHolder, ShareLinkRow, ShareStore } from "./store";

const COLUMNS = "id, brand_id, organization_id, created_by, prefix, expires_at, revoked_at, created_at";

export function createSqliteShareStore(sqlite: Database): ShareStore {
  const q = {
    // With its creator's role today: a link works only while its creator could still make it.
    byHash: sqlite.prepare(
      `SELECT s.id, s.brand_id, s.organization_id, s.created_by, s.expires_at, s.revoked_at, s.created_at, m.role AS creator_role, m.created_at AS creator_since
         FROM share_links AS s LEFT JOIN organization_members AS m ON m.organization_id = s.organization_id AND m.user_id = s.created_by
        WHERE s.token_hash = ?`,
    ),
    brand: sqlite.prepare("SELECT id, organization_id, name FROM brands WHERE id = ?"),
    viewBrand: sqlite.prepare("SELECT id, name, slug FROM brands WHERE id = ?"),
    platforms: sqlite.prepare("SELECT platform FROM brand_platforms WHERE brand_id = ? ORDER BY platform"),
    topics: sqlite.prepare("SELECT id, name FROM topics WHERE brand_id = ? ORDER BY name"),
    insert: sqlite.prepare(`INSERT INTO share_links (brand_id, organization_id, created_by, token_hash, prefix, expires_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`),
    ofBrand: sqlite.prepare(`SELECT ${COLUMNS} FROM share_links WHERE brand_id = ? ORDER BY created_at DESC`),
    byId: sqlite.prepare(`SELECT ${COLUMNS} FROM share_links WHERE id = ?`),
    revoke: sqlite.prepare("UPDATE share_links SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
  };
  return {
    async findByHash(hash) {
      return q.byHash.get(hash) as ShareLinkHolder | null;
    },
    async brand(id) {
      return q.brand.get(id) as { id: string; organization_id: string; name: string } | null;
    },
    async brandView(brandId) {
      const brand = q.viewBrand.get(brandId) as { id: string; name: string; slug: string } | null;
      if (!brand) return null;
      const platforms = (q.platforms.all(brandId) as { platform: string }[]).map((p) => p.platform);
      const topics = q.topics.all(brandId) as { id: string; name: string }[];
      return { brand, platforms, topics };
    },
    async create(link) {
      return q.insert.get(link.brandId, link.organizationId, link.createdBy, link.hash, link.prefix, link.expiresAt) as ShareLinkRow;
    },
    async listForBrand(brandId) {
      return q.ofBrand.all(brandId) as ShareLinkRow[];
    },
    async byId(id) {
      return q.byId.get(id) as ShareLinkRow | null;
    },
    async revoke({ id, at }) {
      q.revoke.run(at, id);
      return q.byId.get(id) as ShareLinkRow | null;
    },
  };
}
