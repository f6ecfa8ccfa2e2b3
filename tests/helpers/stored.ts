// Columns as /rest/v1 shows them, read straight from SQLite: compressed answers and citation URLs
// kept in citation_urls go through the product's own read expressions (src/db/stored-columns.ts).
import { STORED_READS } from "../../src/db/stored-columns";

/** `SELECT`-list text for `columns` of `table` aliased `alias`, each under its own name. */
export function shownColumns(table: string, columns: string[], alias = table): string {
  return columns.map((c) => (STORED_READS[table]?.[c] ? `${STORED_READS[table][c]!.replaceAll("{t}", alias)} AS ${c}` : `${alias}.${c}`)).join(", ");
}
