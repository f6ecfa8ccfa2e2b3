// One unit of a tracking run as it crosses between threads and stores: the task handed to a
// worker thread, the outcome it sends back, and the stored values of an answer.
import type { Entity } from "../analysis/entities";

/** The brand and its competitors as a run matches them. */
export interface BrandEntities {
  brand: Entity;
  competitors: Entity[];
  language: string | null;
}

export interface UnitTask {
  jobId: string;
  seq: number;
  brandId: string;
  promptId: string;
  platform: string;
  model: string;
  region: string;
  /** Which repeated ask of this prompt × platform × model × region in the run (0-based). */
  sample: number;
  /**
   * The unit's status and prompt text as the dispatcher read them ahead, while the lane's previous
   * call was upstream; without them the thread reads them first.
   */
  input?: UnitInput;
  /** The brand's entities, read by the dispatcher as the job starts: sent with its first round, so a new thread's first calls wait for no read of its own. */
  entities?: BrandEntities;
}

/** A unit's status (null: gone) and, when it is pending, its prompt's text (null: deleted, or the unit is not pending). */
export interface UnitInput {
  status: string | null;
  promptText: string | null;
}

/** Column values of one prompt_results row, in ResultWriter's insert order after the key columns. */
export interface ResultValues {
  surface: string;
  response: string;
  mentioned: number;
  mention_count: number;
  mention_position: number | null;
  competitor_mentions: string;
  citations: string;
  citation_count: number;
  brand_citation_count: number;
  sources: string;
  source_count: number;
  sentiment: string | null;
  sentiment_score: number | null;
  visibility_score: number;
  search_queries: string;
  details: string;
  /** The model the engine said answered; '' when it did not say. */
  reported_model?: string;
}

/**
 * `result` is the JSON of ResultValues: one string crosses the thread boundary far cheaper than an
 * object graph. The citation rows are written from its `citations` column, so they cross once.
 */
export type UnitOutcome =
  | { kind: "answered"; result: string }
  | { kind: "no_surface"; reason: string }
  | { kind: "skipped"; reason: string };
