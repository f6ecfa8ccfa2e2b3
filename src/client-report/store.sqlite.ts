// The client report's store on SQLite (store.ts says what each read answers).
import type { Database } from "bun:sqlite";
import { OPEN_SUGGESTION_STATUSES, type ClientReportStore, type ReportSuggestion } from "./store";

const STATUSES = OPEN_SUGGESTION_STATUSES.map((s) => `'${s}'`).join(", ");

export function createSqliteClientReportStore(sqlite: Database): ClientReportStore {
  const q = {
    header: sqlite.prepare(
      `SELECT b.id, b.name, b.slug, b.organization_id, o.name AS organization_name, o.logo
         FROM brands AS b JOIN organizations AS o ON o.id = b.organization_id
        WHERE b.id = ?`,
    ),
    topics: sqlite.prepare("SELECT id, name FROM topics WHERE brand_id = ? ORDER BY name, id"),
    suggestions: sqlite.prepare(
      `SELECT id, type, title, detail, priority, status, created_at FROM suggestions
        WHERE brand_id = ? AND status IN (${STATUSES})
        ORDER BY CASE priority WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, created_at DESC, id
        LIMIT ?`,
    ),
  };
  return {
    async header(brandId) {
      const row = q.header.get(brandId) as { id: string; name: string; slug: string; organization_id: string; organization_name: string; logo: string | null } | null;
      if (!row) return null;
      return { brand: { id: row.id, name: row.name, slug: row.slug, organization_id: row.organization_id }, organization: { id: row.organization_id, name: row.organization_name, logo: row.logo } };
    },
    async topics(brandId) {
      return q.topics.all(brandId) as { id: string; name: string }[];
    },
    async openSuggestions(brandId, limit) {
      return q.suggestions.all(brandId, limit) as ReportSuggestion[];
    },
  };
}
