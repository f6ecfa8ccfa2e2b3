// What every page of a brand is handed: its row, the caller's role in its organization, the filter
// options and the filters. Below the pages and the frame that renders them (pages/brand.tsx), so a
// page never imports the frame.
import type { FilterOptions, Filters } from "./filters";
import type { Connection, Session } from "./session";

export interface BrandRow {
  id: string;
  name: string;
  slug: string;
  organization_id: string;
  region: string | null;
  language: string | null;
  aliases: string[];
  tracking_code: string;
  is_active: boolean;
  industry: string | null;
  description: string | null;
}

export interface PlatformRow {
  platform: string;
  model: string | null;
  is_enabled: boolean;
  check_frequency: string;
  last_checked_at: string | null;
  samples: number;
}

export interface BrandContext {
  conn: Connection;
  session: Session;
  brand: BrandRow;
  role: string;
  /** Owners, admins and members write; viewers only read. */
  canEdit: boolean;
  canManage: boolean;
  options: FilterOptions;
  platforms: PlatformRow[];
  filters: Filters;
  query: URLSearchParams;
  /** Opened through a share link: the brand's insights only, read-only, no account. */
  shared?: { token: string };
}
