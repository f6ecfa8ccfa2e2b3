// One unit of a tracking job, run on a worker thread: ask the engine, analyse the answer, and
// write the result row, its citation rows and the unit's status in one transaction. The unique
// key (job, prompt, platform, model, region) makes a repeated unit after a crash a no-op.
import type { Database } from "bun:sqlite";
import { analyzeAnswer, buildSentimentJudgePrompt, compileEntities, parseSentimentJudgeReply, type AnswerAnalysis, type CompiledEntities } from "../analysis";
import { isNoSurface, type EngineRegistry, type PlatformId } from "../engines";
import { loadEntities } from "./entities";

export interface UnitTask {
  jobId: string;
  seq: number;
  brandId: string;
  promptId: string;
  platform: string;
  model: string;
  region: string;
}

export type UnitOutcome =
  | { kind: "answered"; resultId: string; mentioned: boolean; duplicate: boolean }
  | { kind: "no_surface"; reason: string }
  | { kind: "skipped"; reason: string };

export interface SentimentJudge {
  platform: string;
  model: string;
}

export function createUnitRunner(deps: { sqlite: Database; registry: EngineRegistry; judge?: SentimentJudge }) {
  const { sqlite, registry } = deps;

  /**
   * The optional model judge (SENTIMENT_PLATFORM / SENTIMENT_MODEL) rates the brand's passages; any
   * failure or unusable reply keeps the lexicon's result, so a judge outage never fails a unit.
   */
  async function judgedSentiment(brandName: string, analysis: AnswerAnalysis, signal: AbortSignal): Promise<{ label: string | null; score: number | null; source: string }> {
    const lexicon = { label: analysis.sentiment, score: analysis.sentiment_score, source: "lexicon" };
    if (!deps.judge || !analysis.sentiment_passages.length) return lexicon;
    try {
      const prompt = buildSentimentJudgePrompt(brandName, analysis.sentiment_passages);
      const reply = await registry.engine(deps.judge.platform as PlatformId).ask({ prompt: `${prompt.system}\n\n${prompt.user}`, model: deps.judge.model, signal });
      const parsed = "text" in reply ? parseSentimentJudgeReply(reply.text) : null;
      return parsed ? { ...parsed, source: "judge" } : lexicon;
    } catch {
      return lexicon;
    }
  }
  // Entities compiled once per job (brand and competitors do not change mid-run as far as a run is concerned).
  const compiledByJob = new Map<string, { compiled: CompiledEntities; language: string | null; brandName: string }>();
  const q = {
    unit: sqlite.prepare("SELECT status FROM job_units WHERE job_id = ? AND seq = ?"),
    job: sqlite.prepare("SELECT status FROM jobs WHERE id = ?"),
    prompt: sqlite.prepare("SELECT text FROM prompts WHERE id = ?"),
    insertResult: sqlite.prepare(
      `INSERT INTO prompt_results (id, job_id, brand_id, prompt_id, platform, model, region, surface, response, mentioned, mention_count,
         mention_position, competitor_mentions, citations, citation_count, brand_citation_count, sentiment, sentiment_score, visibility_score, search_queries, details)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (job_id, prompt_id, platform, model, region) DO NOTHING`,
    ),
    existing: sqlite.prepare("SELECT id, mentioned FROM prompt_results WHERE job_id = ? AND prompt_id = ? AND platform = ? AND model = ? AND region = ?"),
    insertCitation: sqlite.prepare(
      `INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain, title, is_brand, competitor_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    unitDone: sqlite.prepare("UPDATE job_units SET status = 'done', attempts = attempts + 1, error = ?3 WHERE job_id = ?1 AND seq = ?2"),
  };

  function entitiesFor(task: UnitTask) {
    let entry = compiledByJob.get(task.jobId);
    if (!entry) {
      const loaded = loadEntities(sqlite, task.brandId);
      if (!loaded) return null;
      entry = { compiled: compileEntities(loaded.brand, loaded.competitors), language: loaded.language, brandName: loaded.brand.name };
      if (compiledByJob.size > 64) compiledByJob.clear();
      compiledByJob.set(task.jobId, entry);
    }
    return entry;
  }

  return {
    async run(task: UnitTask, signal: AbortSignal, onAnswered: () => void = () => {}): Promise<UnitOutcome> {
      const unit = q.unit.get(task.jobId, task.seq) as { status: string } | null;
      if (!unit || unit.status !== "pending") return { kind: "skipped", reason: `unit is ${unit?.status ?? "gone"}` };
      const prompt = q.prompt.get(task.promptId) as { text: string } | null;
      const entities = entitiesFor(task);
      if (!prompt || !entities) return { kind: "skipped", reason: "prompt or brand was deleted" };

      const answer = await registry
        .engine(task.platform as PlatformId)
        .ask({ prompt: prompt.text, model: task.model, region: task.region || undefined, language: entities.language ?? undefined, signal });
      onAnswered();

      if (isNoSurface(answer)) {
        q.unitDone.run(task.jobId, task.seq, `no_surface: ${answer.reason}`);
        return { kind: "no_surface", reason: answer.reason };
      }
      const analysis = analyzeAnswer({ text: answer.text, citations: answer.citations, compiled: entities.compiled, language: entities.language ?? undefined });
      const sentiment = await judgedSentiment(entities.brandName, analysis, signal);
      const resultId = crypto.randomUUID();
      const write = sqlite.transaction(() => {
        // A job cancelled while the answer was on its way keeps nothing of it.
        const job = q.job.get(task.jobId) as { status: string } | null;
        if (job?.status !== "active") return null;
        const inserted = q.insertResult.run(
          resultId,
          task.jobId,
          task.brandId,
          task.promptId,
          task.platform,
          // The requested model keys the row (stable across dated upstream ids); the reported one is in the answer.
          task.model,
          task.region,
          answer.surface,
          answer.text,
          analysis.mentioned ? 1 : 0,
          analysis.mention_count,
          analysis.mention_position,
          JSON.stringify(
            analysis.competitor_mentions.map((c) => ({ competitor_id: c.competitor_id, name: c.name, mention_count: c.mention_count, position: c.position })),
          ),
          JSON.stringify(analysis.citations),
          analysis.citation_count,
          analysis.brand_citation_count,
          sentiment.label,
          sentiment.score,
          analysis.visibility_score,
          JSON.stringify(answer.searchQueries ?? []),
          JSON.stringify({
            reported_model: answer.model,
            first_mention_offset: analysis.first_mention_offset,
            list_rank: analysis.list_rank,
            position_adjusted_word_count: analysis.position_adjusted_word_count,
            word_count_share: analysis.word_count_share,
            sentiment_passages: analysis.sentiment_passages,
            sentiment_source: sentiment.source,
            lexicon_sentiment_score: analysis.sentiment_score,
          }),
        );
        if (inserted.changes === 0) {
          const existing = q.existing.get(task.jobId, task.promptId, task.platform, task.model, task.region) as { id: string; mentioned: number } | null;
          q.unitDone.run(task.jobId, task.seq, null);
          return { id: existing?.id ?? resultId, mentioned: !!existing?.mentioned, duplicate: true };
        }
        for (const c of analysis.citations) {
          q.insertCitation.run(resultId, task.brandId, c.position, c.url, c.normalized_url, c.domain ?? c.host ?? "", c.title, c.is_brand ? 1 : 0, c.competitor_id);
        }
        q.unitDone.run(task.jobId, task.seq, null);
        return { id: resultId, mentioned: analysis.mentioned, duplicate: false };
      });
      const written = write.immediate();
      if (!written) return { kind: "skipped", reason: "job is no longer active" };
      return { kind: "answered", resultId: written.id, mentioned: written.mentioned, duplicate: written.duplicate };
    },
  };
}
