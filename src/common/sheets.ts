// Pure code shared by the server and the web app (no I/O, no imports).
//
// The insights tables a share link serves as CSV at /share/<token>/csv/<table> (src/share/routes.ts):
// the insights RPCs that return rows (tests check the list against src/insights/rpc.ts).
export const SHEET_TABLES = [
  "insights_trend",
  "insights_competitors",
  "insights_head_to_head",
  "insights_citation_domains",
  "insights_citation_urls",
  "insights_prompts",
  "insights_search_queries",
  "insights_crawlers",
  "insights_crawler_trend",
  "insights_crawler_paths",
] as const;

/** A table's CSV URL under a share link's URL, and the Google Sheets formula that imports it. */
export const sheetUrl = (shareUrl: string, table: string) => `${shareUrl.replace(/\/$/, "")}/csv/${table}`;
export const importFormula = (shareUrl: string, table: string) => `=IMPORTDATA("${sheetUrl(shareUrl, table)}")`;
