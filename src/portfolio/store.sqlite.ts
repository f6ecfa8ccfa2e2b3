// The portfolio's store on SQLite (store.ts says what each operation does). Id lists travel as one
// JSON array (json_each), so a statement is prepared once whatever their length.
import type { Database } from "bun:sqlite";
import type { PortfolioBrand, PortfolioOrganization, PortfolioRun, PortfolioStore } from "./store";

export function createSqlitePortfolioStore(sqlite: Database): PortfolioStore {
  const q = {
    organizations: sqlite.prepare("SELECT id, name FROM organizations WHERE id IN (SELECT value FROM json_each(?)) ORDER BY name, id"),
    brands: sqlite.prepare(
      `SELECT b.id, b.name, b.is_active, b.organization_id, o.name AS organization_name
         FROM brands AS b JOIN organizations AS o ON o.id = b.organization_id
        WHERE b.organization_id IN (SELECT value FROM json_each(?))
        ORDER BY o.name, o.id, b.name, b.id
        LIMIT ?`,
    ),
    // One seek per brand on jobs_brand_idx; the units counted are those of the one job found.
    latestRuns: sqlite.prepare(
      `SELECT j.brand_id, j.id AS job_id, j.status,
              CASE WHEN json_valid(j.progress) THEN json_extract(j.progress, '$.phase') END AS phase,
              (SELECT count(*) FROM job_units AS u WHERE u.job_id = j.id AND u.status != 'pending') AS completed,
              (SELECT count(*) FROM job_units AS u WHERE u.job_id = j.id) AS total,
              j.created_at, j.started_at, j.finished_at
         FROM json_each(?) AS b
         JOIN jobs AS j ON j.id = (SELECT id FROM jobs WHERE brand_id = b.value AND type = 'tracking' ORDER BY created_at DESC, id DESC LIMIT 1)`,
    ),
    topics: sqlite.prepare("SELECT brand_id, id, name FROM topics WHERE brand_id IN (SELECT value FROM json_each(?)) ORDER BY brand_id, name, id"),
  };
  return {
    async organizations(ids) {
      return ids.length ? (q.organizations.all(JSON.stringify(ids)) as PortfolioOrganization[]) : [];
    },
    async brands({ organizationIds, limit }) {
      if (!organizationIds.length || limit < 1) return [];
      const rows = q.brands.all(JSON.stringify(organizationIds), Math.floor(limit)) as (Omit<PortfolioBrand, "is_active"> & { is_active: number })[];
      return rows.map((r) => ({ ...r, is_active: r.is_active === 1 }));
    },
    async latestRuns(brandIds) {
      return brandIds.length ? (q.latestRuns.all(JSON.stringify(brandIds)) as PortfolioRun[]) : [];
    },
    async topics(brandIds) {
      return brandIds.length ? (q.topics.all(JSON.stringify(brandIds)) as { brand_id: string; id: string; name: string }[]) : [];
    },
  };
}
