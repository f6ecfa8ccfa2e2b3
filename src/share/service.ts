// Read-only share links (issue #20): an agency's client sees one brand's overview, prompts and
// sources without an account. The link's token is a bearer that reads that brand's insights RPCs
// and nothing else (src/platform/rest/service.ts); a revoked or expired link answers 404, and so does
// one whose creator is no longer an owner or admin of the brand's organization (as API keys do).
import type { Database } from "bun:sqlite";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { ApiUser } from "../common/identity";

export const SHARE_PREFIX = "aws_";
const MANAGERS = ["owner", "admin"];
const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
const COLUMNS = "id, brand_id, organization_id, created_by, prefix, expires_at, revoked_at, created_at";

interface LinkRow {
  id: string;
  brand_id: string;
  organization_id: string;
  created_by: string | null;
  prefix: string;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

export interface SharedBrand {
  brandId: string;
  organizationId: string;
}

export function createShareService(deps: { sqlite: Database; now?: () => Date; publicUrl: () => string }) {
  const { sqlite } = deps;
  const now = deps.now ?? (() => new Date());
  // With its creator's role today: a link works only while its creator could still make it.
  const byHash = sqlite.prepare(
    `SELECT s.id, s.brand_id, s.organization_id, s.created_by, s.expires_at, s.revoked_at, m.role AS creator_role
       FROM share_links AS s LEFT JOIN organization_members AS m ON m.organization_id = s.organization_id AND m.user_id = s.created_by
      WHERE s.token_hash = ?`,
  );

  function managedBrand(user: ApiUser & { viaKey?: string }, brandId: string) {
    const brand = sqlite.query("SELECT id, organization_id, name FROM brands WHERE id = ?").get(brandId) as { id: string; organization_id: string; name: string } | null;
    const role = brand ? user.orgRoles.get(brand.organization_id) : undefined;
    if (!brand || !role) throw new AppError(404, "not_found", "Brand not found");
    if (!MANAGERS.includes(role)) throw new AppError(403, "forbidden", "Only owners and admins share a brand");
    return brand;
  }

  return {
    /** The brand a live token opens, or null (unknown, revoked or expired). */
    resolve(token: string): SharedBrand | null {
      if (!token.startsWith(SHARE_PREFIX)) return null;
      const row = byHash.get(sha256(token)) as (LinkRow & { creator_role: string | null }) | null;
      if (!row || row.revoked_at || (row.expires_at && Date.parse(row.expires_at) <= now().getTime())) return null;
      if (!row.creator_role || !MANAGERS.includes(row.creator_role)) return null;
      return { brandId: row.brand_id, organizationId: row.organization_id };
    },

    /** What the shared page shows before any data: the brand's name and its filter options. */
    describe(token: string) {
      const shared = this.resolve(token);
      if (!shared) throw new AppError(404, "not_found", "This share link does not exist, was revoked or has expired");
      const brand = sqlite.query("SELECT id, name, slug FROM brands WHERE id = ?").get(shared.brandId) as { id: string; name: string; slug: string };
      const platforms = (sqlite.query("SELECT platform FROM brand_platforms WHERE brand_id = ? ORDER BY platform").all(shared.brandId) as { platform: string }[]).map((p) => p.platform);
      const topics = sqlite.query("SELECT id, name FROM topics WHERE brand_id = ? ORDER BY name").all(shared.brandId) as { id: string; name: string }[];
      return { success: true, brand, platforms, topics };
    },

    create(user: ApiUser & { viaKey?: string }, body: Record<string, unknown>) {
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "validation_failed", "The body must be a JSON object");
      const brand = managedBrand(user, requireUuid(body.brand_id, "brand_id"));
      let expiresAt: string | null = null;
      if (body.expires_at !== undefined && body.expires_at !== null) {
        const t = typeof body.expires_at === "string" ? Date.parse(body.expires_at) : NaN;
        if (Number.isNaN(t) || t <= now().getTime()) throw new AppError(400, "validation_failed", "expires_at must be an ISO 8601 date-time in the future");
        expiresAt = new Date(t).toISOString();
      }
      const token = `${SHARE_PREFIX}${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
      const row = sqlite
        .query(`INSERT INTO share_links (brand_id, organization_id, created_by, token_hash, prefix, expires_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`)
        .get(brand.id, brand.organization_id, user.user.id, sha256(token), token.slice(0, 10), expiresAt) as LinkRow;
      return { success: true, link: row, url: `${deps.publicUrl().replace(/\/$/, "")}/share/${token}` };
    },

    list(user: ApiUser, brandId: unknown) {
      const brand = managedBrand(user, requireUuid(brandId, "brand_id"));
      return { success: true, links: sqlite.query(`SELECT ${COLUMNS} FROM share_links WHERE brand_id = ? ORDER BY created_at DESC`).all(brand.id) as LinkRow[] };
    },

    revoke(user: ApiUser, id: unknown) {
      const linkId = requireUuid(id, "id");
      const row = sqlite.query(`SELECT ${COLUMNS} FROM share_links WHERE id = ?`).get(linkId) as LinkRow | null;
      if (!row || !MANAGERS.includes(user.orgRoles.get(row.organization_id) ?? "")) throw new AppError(404, "not_found", "Share link not found");
      if (!row.revoked_at) sqlite.run("UPDATE share_links SET revoked_at = ? WHERE id = ?", [now().toISOString(), linkId]);
      return { success: true, link: sqlite.query(`SELECT ${COLUMNS} FROM share_links WHERE id = ?`).get(linkId) as LinkRow };
    },
  };
}

export type ShareService = ReturnType<typeof createShareService>;
