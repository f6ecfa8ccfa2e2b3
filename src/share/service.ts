// Read-only share links (issue #20): an agency's client sees one brand's overview, prompts and
// sources without an account. The link's token is a bearer that reads that brand's insights RPCs
// and nothing else (src/platform/rest/service.ts); a revoked or expired link answers 404, and so does
// one whose creator is no longer an owner or admin of the brand's organization (as API keys do).
import { futureExpiry, isLive, madeBeforeMembership } from "../http/date-range";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { ApiUser } from "../common/identity";
import type { ShareLinkRow, ShareStore } from "./store";
import { sha256Hex } from "../common/tokens";

export const SHARE_PREFIX = "aws_";
const MANAGERS = ["owner", "admin"];
/** Usable share links of one brand at once. */
export const MAX_LIVE_SHARE_LINKS = 100;

export interface SharedBrand {
  brandId: string;
  organizationId: string;
}

export function createShareService(deps: { store: ShareStore; now?: () => Date; publicUrl: () => string }) {
  const { store } = deps;
  const now = deps.now ?? (() => new Date());

  async function managedBrand(user: ApiUser & { viaKey?: string }, brandId: string) {
    const brand = await store.brand(brandId);
    const role = brand ? user.orgRoles.get(brand.organization_id) : undefined;
    if (!brand || !role) throw new AppError(404, "not_found", "Brand not found");
    if (!MANAGERS.includes(role)) throw new AppError(403, "forbidden", "Only owners and admins share a brand");
    return brand;
  }

  /** The brand a live token opens, or null (unknown, revoked or expired). */
  async function resolve(token: string): Promise<SharedBrand | null> {
    if (!token.startsWith(SHARE_PREFIX)) return null;
    const row = await store.findByHash(sha256Hex(token));
    if (!row || !isLive(row, now())) return null;
    // A link works only while its creator could still make it (and has not left since).
    if (!row.creator_role || !MANAGERS.includes(row.creator_role) || madeBeforeMembership(row.created_at, row.creator_since)) return null;
    return { brandId: row.brand_id, organizationId: row.organization_id };
  }

  return {
    resolve,

    /** What the shared page shows before any data: the brand's name and its filter options. */
    async describe(token: string) {
      const shared = await resolve(token);
      const view = shared && (await store.brandView(shared.brandId));
      if (!view) throw new AppError(404, "not_found", "This share link does not exist, was revoked or has expired");
      return { success: true, ...view };
    },

    async create(user: ApiUser & { viaKey?: string }, body: Record<string, unknown>) {
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "validation_failed", "The body must be a JSON object");
      const brand = await managedBrand(user, requireUuid(body.brand_id, "brand_id"));
      const expiresAt = futureExpiry(body.expires_at, now());
      if ((await store.listForBrand(brand.id)).filter((l) => isLive(l, now())).length >= MAX_LIVE_SHARE_LINKS)
        throw new AppError(429, "too_many_share_links", `This brand has ${MAX_LIVE_SHARE_LINKS} usable share links, the most it may have: revoke one first`, { details: { max: MAX_LIVE_SHARE_LINKS } });
      const token = `${SHARE_PREFIX}${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
      const row: ShareLinkRow = await store.create({ brandId: brand.id, organizationId: brand.organization_id, createdBy: user.user.id, hash: sha256Hex(token), prefix: token.slice(0, 10), expiresAt });
      return { success: true, link: row, url: `${deps.publicUrl().replace(/\/$/, "")}/share/${token}` };
    },

    async list(user: ApiUser, brandId: unknown) {
      const brand = await managedBrand(user, requireUuid(brandId, "brand_id"));
      return { success: true, links: await store.listForBrand(brand.id) };
    },

    async revoke(user: ApiUser, id: unknown) {
      const linkId = requireUuid(id, "id");
      const row = await store.byId(linkId);
      if (!row || !MANAGERS.includes(user.orgRoles.get(row.organization_id) ?? "")) throw new AppError(404, "not_found", "Share link not found");
      return { success: true, link: (await store.revoke({ id: linkId, at: now().toISOString() }))! };
    },
  };
}

export type ShareService = ReturnType<typeof createShareService>;
