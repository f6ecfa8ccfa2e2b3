// The main thread writes every unit's result: one writer means no lock contention between worker
// threads, and results arriving together are committed together (group commit). A unit's row, its
// citations and its status go in one transaction; the unique key (job, prompt, platform, model,
// region) makes a unit repeated after a crash a no-op.
import type { Database } from "bun:sqlite";
import type { UnitOutcome, UnitTask } from "./unit-runner";

const BATCH_WINDOW_MS = 2;
const MAX_BATCH = 64;

export type WriteOutcome = "written" | "duplicate" | "no_surface" | "job_inactive";

interface Pending {
  task: UnitTask;
  outcome: Exclude<UnitOutcome, { kind: "skipped" }>;
  resolve: (o: WriteOutcome) => void;
  reject: (e: unknown) => void;
}

export function createResultWriter(sqlite: Database) {
  const q = {
    job: sqlite.prepare("SELECT status FROM jobs WHERE id = ?"),
    insertResult: sqlite.prepare(
      `INSERT INTO prompt_results (id, job_id, brand_id, prompt_id, platform, model, region, surface, response, mentioned, mention_count,
         mention_position, competitor_mentions, citations, citation_count, brand_citation_count, sentiment, sentiment_score, visibility_score, search_queries, details)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (job_id, prompt_id, platform, model, region) DO NOTHING`,
    ),
    insertCitation: sqlite.prepare(
      `INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain, title, is_brand, competitor_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    unitDone: sqlite.prepare("UPDATE job_units SET status = 'done', attempts = attempts + 1, error = ?3 WHERE job_id = ?1 AND seq = ?2 AND status = 'pending'"),
  };
  let queue: Pending[] = [];
  let scheduled = false;

  function writeOne({ task, outcome }: Pending): WriteOutcome {
    // A job cancelled while the answer was on its way keeps nothing of it.
    if ((q.job.get(task.jobId) as { status: string } | null)?.status !== "active") return "job_inactive";
    if (outcome.kind === "no_surface") {
      q.unitDone.run(task.jobId, task.seq, `no_surface: ${outcome.reason}`);
      return "no_surface";
    }
    const r = outcome.result;
    const resultId = crypto.randomUUID();
    // The requested model keys the row (stable across dated upstream ids); the reported one is in details.
    const inserted = q.insertResult.run(
      resultId, task.jobId, task.brandId, task.promptId, task.platform, task.model, task.region, r.surface, r.response, r.mentioned, r.mention_count,
      r.mention_position, r.competitor_mentions, r.citations, r.citation_count, r.brand_citation_count, r.sentiment, r.sentiment_score, r.visibility_score,
      r.search_queries, r.details,
    );
    q.unitDone.run(task.jobId, task.seq, null);
    if (inserted.changes === 0) return "duplicate";
    for (const c of outcome.citations) {
      q.insertCitation.run(resultId, task.brandId, c.position, c.url, c.normalized_url, c.domain, c.title, c.is_brand, c.competitor_id);
    }
    return "written";
  }

  function flush() {
    scheduled = false;
    if (!queue.length) return;
    const batch = queue;
    queue = [];
    let outcomes: WriteOutcome[];
    try {
      outcomes = sqlite.transaction(() => batch.map(writeOne)).immediate();
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => p.resolve(outcomes[i]!));
  }

  return {
    /** Resolves once the unit's rows are committed. */
    write(task: UnitTask, outcome: Pending["outcome"]): Promise<WriteOutcome> {
      return new Promise((resolve, reject) => {
        queue.push({ task, outcome, resolve, reject });
        if (queue.length >= MAX_BATCH) flush();
        else if (!scheduled) {
          scheduled = true;
          // A short window lets results that arrive together share one commit.
          setTimeout(flush, BATCH_WINDOW_MS);
        }
      });
    },
  };
}

export type ResultWriter = ReturnType<typeof createResultWriter>;
