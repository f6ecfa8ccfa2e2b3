// The portfolio's store on Postgres (store.ts says what each operation does). Text is ordered
// COLLATE "C": by code point, as SQLite orders it, whatever the database's locale.
import type { SQL } from "bun";
import { isUuid, plainRows } from "../db/pg/values";
import type { PortfolioBrand, PortfolioOrganization, PortfolioRun, PortfolioStore } from "./store";

export function createPgPortfolioStore(sql: SQL): PortfolioStore {
  const uuids = (ids: string[]) => sql.array([...new Set(ids.filter(isUuid))], "uuid");
  return {
    async organizations(ids) {
      if (!ids.some(isUuid)) return [];
      const rows = await sql`SELECT id, name FROM organizations WHERE id = ANY(${uuids(ids)}::uuid[]) ORDER BY name COLLATE "C", id`;
      return plainRows<PortfolioOrganization>(rows);
    },
    async brands({ organizationIds, limit }) {
      if (!organizationIds.some(isUuid) || limit < 1) return [];
      const rows = await sql`
        SELECT b.id, b.name, b.is_active, b.organization_id, o.name AS organization_name
          FROM brands AS b JOIN organizations AS o ON o.id = b.organization_id
         WHERE b.organization_id = ANY(${uuids(organizationIds)}::uuid[])
         ORDER BY o.name COLLATE "C", o.id, b.name COLLATE "C", b.id
         LIMIT ${Math.floor(limit)}`;
      return plainRows<PortfolioBrand>(rows);
    },
    async latestRuns(brandIds) {
      if (!brandIds.some(isUuid)) return [];
      // One index seek per brand (LATERAL … LIMIT 1); the units counted are those of the one job found.
      const rows = await sql`
        SELECT b.id AS brand_id, j.id AS job_id, j.status, j.progress ->> 'phase' AS phase,
               (SELECT count(*)::int FROM job_units AS u WHERE u.job_id = j.id AND u.status <> 'pending') AS completed,
               (SELECT count(*)::int FROM job_units AS u WHERE u.job_id = j.id) AS total,
               j.created_at, j.started_at, j.finished_at
          FROM unnest(${uuids(brandIds)}::uuid[]) AS b(id)
          CROSS JOIN LATERAL (SELECT * FROM jobs WHERE jobs.brand_id = b.id AND jobs.type = 'tracking' ORDER BY jobs.created_at DESC, jobs.id DESC LIMIT 1) AS j`;
      return plainRows<PortfolioRun>(rows);
    },
    async topics(brandIds) {
      if (!brandIds.some(isUuid)) return [];
      const rows = await sql`SELECT brand_id, id, name FROM topics WHERE brand_id = ANY(${uuids(brandIds)}::uuid[]) ORDER BY brand_id, name COLLATE "C", id`;
      return plainRows<{ brand_id: string; id: string; name: string }>(rows);
    },
  };
}
