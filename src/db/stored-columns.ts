// Columns stored otherwise than /rest/v1 shows them, and the SQL that reads each back: answers and
// their JSON compressed (text-codec.ts), citation URLs kept once in citation_urls. `{t}` is the
// row's alias. Everything that reads these columns through SQL goes through these expressions.
import { PACKED_COLUMNS, unpackedSql } from "./text-codec";

const fromUrlTable = (column: string) => `coalesce({t}.${column}, (SELECT ${column} FROM citation_urls WHERE id = {t}.url_id))`;

export const STORED_READS: Record<string, Record<string, string>> = {
  prompt_results: Object.fromEntries(PACKED_COLUMNS.map((c) => [c, unpackedSql(`{t}.${c}`)])),
  citations: {
    url: fromUrlTable("url"),
    normalized_url: fromUrlTable("normalized_url"),
    // '' in citation_urls stands for no title.
    title: "(CASE WHEN {t}.url_id IS NULL THEN {t}.title ELSE coalesce({t}.title, (SELECT nullif(title, '') FROM citation_urls WHERE id = {t}.url_id)) END)",
  },
};
