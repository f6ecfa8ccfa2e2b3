// What tracking runs read and write besides the queue (src/queue/store.ts): the brand's prompts and
// platforms a run is made of, the answers it records, and its summary at the end. Two stores, as the
// work is split between threads: TrackingStore on the main thread (service, result writer,
// finalize), UnitStore on the worker threads (what a unit needs to ask). Backend implementations:
// store.sqlite.ts and units.sqlite.ts (and, with #29, their .pg.ts); the contract they keep is
// tests/contracts/tracking.contract.ts.
import type { Suggestion } from "../analysis/suggestions";
import type { BrandEntities, UnitInput, UnitOutcome, UnitTask } from "./unit";

export interface RunBrand {
  id: string;
  organization_id: string;
  region: string | null;
  is_active: number;
}

export interface RunPrompt {
  id: string;
  /** JSON lists as stored (read leniently by the service). */
  platforms: string;
  models: string;
  regions: string;
}

/** What became of one answer handed to recordResults. */
export type WriteOutcome = "written" | "duplicate" | "no_surface" | "job_inactive";

export interface ResultToRecord {
  task: UnitTask;
  outcome: Exclude<UnitOutcome, { kind: "skipped" }>;
}

/** One answer of a run as the summary reads it: the JSON columns cut down to what it needs, still as text. */
export interface SummaryResultRow {
  id: string;
  prompt_id: string;
  platform: string;
  model: string;
  mentioned: number;
  mention_count: number;
  mention_position: number | null;
  competitor_mentions: string;
  citation_count: number;
  brand_citation_count: number;
  visibility_score: number;
  sentiment: string | null;
  sentiment_score: number | null;
  created_at: string;
  brand_id: string;
  /** [{domain, normalized_url, is_brand, competitor_id}] */
  citations: string;
  /** The brand's uncited sources, only for answers that cite none of its pages; '[]' otherwise. */
  sources: string;
  /** {sentiment_passages} of negative answers; '{}' otherwise. */
  details: string;
}

export interface FailedUnitRow {
  seq: number;
  prompt_id: string;
  platform: string;
  model: string;
  region: string;
  error: string | null;
}

/** Everything the end-of-run summary reads (before its write transaction). */
export interface RunForSummary {
  results: SummaryResultRow[];
  /** Failed units, by seq. */
  failedUnits: FailedUnitRow[];
  /** Units done without an answer (the platform had no surface for them). */
  noSurface: number;
  /** The platforms of those units. */
  noSurfacePlatforms: string[];
  /** When the job was made (a scheduled run: its tick) and whether it asked every active prompt; null when the job is gone. */
  job: { createdAt: string; everyPrompt: boolean } | null;
  /** Null when the brand was deleted. */
  brandName: string | null;
  /** The brand's prompts' texts by id (suggestion titles quote them). */
  promptTexts: Map<string, string>;
}

export interface FinishRunInput {
  jobId: string;
  owner: string;
  brandId: string;
  /** Null: no webhook events (a job of no organization). */
  organizationId: string | null;
  status: "completed" | "failed";
  /** The job's failed_reason. */
  jobFailedReason: string | null;
  /** What the tracking.completed / tracking.failed event says. */
  eventFailedReason: string | null;
  result: unknown;
  progress: object;
  suggestions: Suggestion[];
  /** Platforms with at least one answer (visibility alerts compare them). */
  answeredPlatforms: string[];
  /**
   * A run of every active prompt, for the scheduler (src/schedule/due.ts): `platforms` (at least one
   * unit done, an answer or "no surface") are stamped checked at `at`, the job's creation — the
   * scheduler's tick, so the next tick finds them due whatever the run took; `failed` (none done)
   * wait failedRetryAt. Absent for a run of some prompts only: it checks nothing on the schedule.
   */
  checked?: { at: string; platforms: string[]; failed: string[] };
  now: Date;
  /** visibility.changed fires on a significant move of at least this many points (src/insights/alerts.ts). */
  visibilityAlertPoints: number;
}

/** How results are gathered into one recordResults call (src/tracking/result-writer.ts). */
export interface WriteBatching {
  /** A batch is committed once no result has arrived for this long… */
  idleMs?: number;
  /** …or its first result has waited this long… */
  maxWaitMs?: number;
  /** …or it is this large. */
  maxBatch?: number;
}

export interface TrackingStore {
  /** How this store's writes are best batched, when not the writer's defaults. */
  readonly writeBatching?: WriteBatching;
  /** A brand as a run needs it; null when unknown. */
  brandForRun(brandId: string): Promise<RunBrand | null>;
  /** The brand's enabled platforms (by platform), with their model and samples settings. */
  enabledPlatforms(brandId: string): Promise<{ platform: string; model: string | null; samples: number }[]>;
  /** samples of each of the brand's platforms, enabled or not. */
  platformSamples(brandId: string): Promise<{ platform: string; samples: number }[]>;
  /** The brand's active prompts, oldest first. */
  activePrompts(brandId: string): Promise<RunPrompt[]>;
  /** Brands with this slug, in the organization named or slugged `organization` when given. */
  brandsBySlug(input: { slug: string; organization?: string | null }): Promise<{ id: string; org: string }[]>;
  /**
   * Writes answers, all in one transaction (group commit): each answer's result row and citations
   * and its unit's status; an answer of a job no longer active is dropped, a repeated one is a
   * no-op. Outcomes in the input's order.
   */
  recordResults(batch: ResultToRecord[]): Promise<WriteOutcome[]>;
  runForSummary(input: { jobId: string; brandId: string }): Promise<RunForSummary>;
  /**
   * In one transaction: upserts the suggestions, stamps the answered platforms, records the run's
   * webhook events (tracking.*, suggestion.created for new suggestions, visibility.changed) when
   * the job has an organization, and finishes the job if `owner` still holds it (the return).
   */
  finishRun(input: FinishRunInput): Promise<boolean>;
  /**
   * After a run: the planner statistics of tables its writes changed by a large part brought up to
   * date (Postgres plans by them, and autovacuum refreshes them only within a minute: a filtered
   * insight read right after a first run was planned for empty tables). The tables analyzed.
   */
  refreshStatistics(): Promise<string[]>;
}

/** What a worker thread reads to run a unit (and the dispatcher reads ahead: UnitTask.input). */
export interface UnitStore {
  unitInput(input: { jobId: string; seq: number; promptId: string }): Promise<UnitInput>;
  entities(brandId: string): Promise<BrandEntities | null>;
}
