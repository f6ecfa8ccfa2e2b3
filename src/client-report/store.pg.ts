// The client report's store on Postgres (store.ts says what each read answers).
import type { SQL } from "bun";
import { isUuid, plainRows } from "../db/pg/values";
import { OPEN_SUGGESTION_STATUSES, type ClientReportStore, type ReportSuggestion } from "./store";

export function createPgClientReportStore(sql: SQL): ClientReportStore {
  return {
    async header(brandId) {
      if (!isUuid(brandId)) return null;
      const [row] = await sql`
        SELECT b.id, b.name, b.slug, b.organization_id, o.name AS organization_name, o.logo
          FROM brands AS b JOIN organizations AS o ON o.id = b.organization_id
         WHERE b.id = ${brandId}`;
      if (!row) return null;
      return { brand: { id: row.id, name: row.name, slug: row.slug, organization_id: row.organization_id }, organization: { id: row.organization_id, name: row.organization_name, logo: row.logo ?? null } };
    },
    async topics(brandId) {
      if (!isUuid(brandId)) return [];
      // COLLATE "C": by code point, as SQLite orders text, whatever the database's locale.
      const rows = await sql`SELECT id, name FROM topics WHERE brand_id = ${brandId} ORDER BY name COLLATE "C", id`;
      return rows.map((t: { id: string; name: string }) => ({ id: t.id, name: t.name }));
    },
    async openSuggestions(brandId, limit) {
      if (!isUuid(brandId)) return [];
      const rows = await sql`
        SELECT id, type, title, detail, priority, status, created_at FROM suggestions
         WHERE brand_id = ${brandId} AND status = ANY(${sql.array([...OPEN_SUGGESTION_STATUSES], "text")})
         ORDER BY CASE priority WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, created_at DESC, id
         LIMIT ${limit}`;
      return plainRows<ReportSuggestion>(rows);
    },
  };
}
