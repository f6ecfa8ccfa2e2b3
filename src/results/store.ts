// What identifies a stored answer (prompt_results row). Result rows are written by the tracking
// store's recordResults (src/tracking/store.ts); the SQLite writer they all go through is
// store.sqlite.ts, which also serves bulk imports and test seeding inside their own transactions.

export interface ResultKey {
  id: string;
  jobId: string | null;
  brandId: string;
  promptId: string;
  platform: string;
  model: string;
  region: string;
  /** Which repeated ask of the unit this answer is (0-based; default 0). */
  sample?: number;
  /** ISO-8601 UTC; the database's clock when absent. */
  createdAt?: string;
}
