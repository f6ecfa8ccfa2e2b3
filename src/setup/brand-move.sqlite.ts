// A brand moved to another organization takes along the rows that name its organization beside
// it (jobs, share links, brand-scoped webhook endpoints and their events), as Postgres' trigger
// brands_organization_moved does: otherwise the old organization kept managing, and the new one
// could not revoke, a share link of a brand it now owns. A trigger (made here, not in a migration,
// so a table rebuilt later gets it back), so every path that moves a brand is covered.
import type { Database } from "bun:sqlite";
import type { SchemaPart } from "../db/schema-part";

const CARRIED = ["jobs", "share_links", "webhook_endpoints", "webhook_events"] as const;
const TRIGGER = "brands_organization_moved";

const follow = (brand: string) => CARRIED.map((table) => `UPDATE ${table} SET organization_id = ${brand}.organization_id WHERE brand_id = ${brand}.id AND organization_id IS NOT ${brand}.organization_id;`);

/** Makes the trigger when it is missing, first carrying over the rows of brands moved before it existed. */
export function ensureBrandMove(sqlite: Database): boolean {
  if (sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(TRIGGER)) return false;
  sqlite
    .transaction(() => {
      for (const table of CARRIED)
        sqlite.run(`UPDATE ${table} SET organization_id = (SELECT b.organization_id FROM brands AS b WHERE b.id = ${table}.brand_id)
          WHERE brand_id IS NOT NULL AND organization_id IS NOT (SELECT b.organization_id FROM brands AS b WHERE b.id = ${table}.brand_id)`);
      sqlite.run(`CREATE TRIGGER ${TRIGGER} AFTER UPDATE OF organization_id ON brands WHEN OLD.organization_id IS NOT NEW.organization_id BEGIN\n  ${follow("NEW").join("\n  ")}\nEND`);
    })
    .immediate();
  return true;
}

export const brandMoveSchema: SchemaPart = { name: "brand-move", ensure: ensureBrandMove };
