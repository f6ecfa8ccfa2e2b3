// What a client report reads besides the insights (src/insights/store.ts): the brand with its
// organization's name and logo (white-label), the brand's topics (to name moves) and its open
// suggestions. Backend implementations: store.sqlite.ts and store.pg.ts; the contract both keep is
// tests/contracts/client-report.contract.ts.

export interface ReportHeader {
  brand: { id: string; name: string; slug: string; organization_id: string };
  /** `logo`: organizations.logo, a data: URL or null (render.ts decides whether to show it). */
  organization: { id: string; name: string; logo: string | null };
}

export interface ReportSuggestion {
  id: string;
  type: string;
  title: string;
  detail: string | null;
  priority: string;
  status: string;
  created_at: string;
}

/** Suggestions still to act on: not dismissed, sent, done or added. */
export const OPEN_SUGGESTION_STATUSES = ["new", "accepted", "in_progress"] as const;

export interface ClientReportStore {
  /** The brand and its organization (null when there is no such brand). */
  header(brandId: string): Promise<ReportHeader | null>;
  /** The brand's topics, by name. */
  topics(brandId: string): Promise<{ id: string; name: string }[]>;
  /** Up to `limit` of the brand's open suggestions (OPEN_SUGGESTION_STATUSES): high priority first, then medium, then low; newest first within a priority. */
  openSuggestions(brandId: string, limit: number): Promise<ReportSuggestion[]>;
}
