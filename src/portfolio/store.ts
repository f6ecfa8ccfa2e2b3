// What the portfolio (issue #31) reads besides the insights: the brands of a set of organizations,
// each brand's newest tracking run and its topics' names. Backend implementations: store.sqlite.ts
// and store.pg.ts; the contract both keep is tests/contracts/portfolio.contract.ts.
import type { JobStatus } from "../queue/store";

export interface PortfolioOrganization {
  id: string;
  name: string;
}

export interface PortfolioBrand {
  id: string;
  name: string;
  is_active: boolean;
  organization_id: string;
  organization_name: string;
}

/** A brand's newest tracking job; `completed` counts its units done or failed for good, as GET /api/tracking/job does. */
export interface PortfolioRun {
  brand_id: string;
  job_id: string;
  status: JobStatus;
  /** The phase the run last reported (null when it reported none). */
  phase: string | null;
  completed: number;
  total: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface PortfolioStore {
  /** Those of the organizations that exist, by name (then id). */
  organizations(ids: string[]): Promise<PortfolioOrganization[]>;
  /** The brands of the organizations, by organization name, then brand name (ids break ties); at most `limit`. */
  brands(input: { organizationIds: string[]; limit: number }): Promise<PortfolioBrand[]>;
  /** Each brand's newest tracking job (by created_at, then id); brands that never ran are left out. */
  latestRuns(brandIds: string[]): Promise<PortfolioRun[]>;
  /** The brands' topics (what "what changed" names a topic by). */
  topics(brandIds: string[]): Promise<{ brand_id: string; id: string; name: string }[]>;
}
