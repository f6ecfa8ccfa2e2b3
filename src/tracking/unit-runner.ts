// One unit of a tracking job, run on a worker thread: ask the engine and analyse the answer. The
// row it produces is written by the main thread (result-writer.ts), the database's one writer.
import type { AnswerAnalysis, CompiledEntities } from "../analysis";
import { isNoSurface, type EngineRegistry, type PlatformId } from "../engines";
import type { UnitStore } from "./store";
import type { BrandEntities, ResultValues, UnitOutcome, UnitTask } from "./unit";

type Analysis = typeof import("../analysis");

export type { ResultValues, UnitOutcome, UnitTask } from "./unit";

export interface SentimentJudge {
  platform: string;
  model: string;
}

export function createUnitRunner(deps: { store: UnitStore; registry: EngineRegistry; judge?: SentimentJudge }) {
  const { store, registry } = deps;

  /**
   * The optional model judge (SENTIMENT_PLATFORM / SENTIMENT_MODEL) rates the brand's passages; any
   * failure or unusable reply keeps the lexicon's result, so a judge outage never fails a unit.
   */
  async function judgedSentiment(
    brandName: string,
    analysis: AnswerAnalysis,
    judgeText: Pick<Analysis, "buildSentimentJudgePrompt" | "parseSentimentJudgeReply">,
    signal: AbortSignal,
  ): Promise<{ label: string | null; score: number | null; source: string }> {
    const lexicon = { label: analysis.sentiment, score: analysis.sentiment_score, source: "lexicon" };
    if (!deps.judge || !analysis.sentiment_passages.length) return lexicon;
    try {
      const prompt = judgeText.buildSentimentJudgePrompt(brandName, analysis.sentiment_passages);
      const reply = await registry.engine(deps.judge.platform as PlatformId).ask({ prompt: `${prompt.system}\n\n${prompt.user}`, model: deps.judge.model, signal });
      const parsed = "text" in reply ? judgeText.parseSentimentJudgeReply(reply.text) : null;
      return parsed ? { ...parsed, source: "judge" } : lexicon;
    } catch {
      return lexicon;
    }
  }
  // The analysis (with its sentiment lexicon and public-suffix list) is most of a thread's start-up:
  // it loads while the thread's first calls are on their way, and only their answers wait for it.
  let analysisModule: Promise<Analysis> | undefined;
  const loadAnalysis = () => {
    if (!analysisModule) {
      analysisModule = import("../analysis");
      analysisModule.catch(() => {}); // a failed load fails the units that await it, nothing else
    }
    return analysisModule;
  };
  // Entities read and compiled once per job (brand and competitors do not change mid-run as far as a run is concerned).
  // The read in flight is what is kept, so a job's units starting together read them once; a brand
  // not found (or a failed read) is not kept.
  const entitiesByJob = new Map<string, Promise<{ loaded: BrandEntities; compiled?: CompiledEntities } | null>>();

  function entitiesFor(task: UnitTask) {
    let entry = entitiesByJob.get(task.jobId);
    if (!entry && entitiesByJob.size > 64) entitiesByJob.clear();
    // Brought with the job's first round (read by the dispatcher): no read of this thread's own.
    if (!entry && task.entities) entitiesByJob.set(task.jobId, (entry = Promise.resolve({ loaded: task.entities })));
    if (!entry) {
      const loading = store.entities(task.brandId).then((loaded) => (loaded ? { loaded } : null));
      entitiesByJob.set(task.jobId, (entry = loading));
      const forget = () => void (entitiesByJob.get(task.jobId) === loading && entitiesByJob.delete(task.jobId));
      loading.then((e) => e ?? forget(), forget);
    }
    return entry;
  }

  let analysisTurn = Promise.resolve();
  return {
    async run(task: UnitTask, signal: AbortSignal, onAnswered: () => void = () => {}): Promise<UnitOutcome> {
      const unit = task.input ?? (await store.unitInput({ jobId: task.jobId, seq: task.seq, promptId: task.promptId }));
      if (unit.status !== "pending") return { kind: "skipped", reason: `unit is ${unit.status ?? "gone"}` };
      const entities = await entitiesFor(task);
      if (unit.promptText === null || !entities) return { kind: "skipped", reason: "prompt or brand was deleted" };
      const prompt = { text: unit.promptText };

      const language = entities.loaded.language ?? undefined;
      const asked = registry.engine(task.platform as PlatformId).ask({ prompt: prompt.text, model: task.model, region: task.region || undefined, language, signal });
      const analysisLoaded = loadAnalysis();
      const answer = await asked;
      onAnswered();
      // Answers are analysed one per turn of the thread's event loop (~0.5 ms each), and the thread
      // reads what came in between two: a lane's next call starts as its answer arrives, not after
      // the analyses of all the answers that arrived with it (issue #29: 32 answers a round).
      const turn = analysisTurn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
      analysisTurn = turn;
      await turn;

      if (isNoSurface(answer)) return { kind: "no_surface", reason: answer.reason };
      const lib = await analysisLoaded;
      entities.compiled ??= lib.compileEntities(entities.loaded.brand, entities.loaded.competitors);
      const analysis = lib.analyzeAnswer({ text: answer.text, citations: answer.citations, sources: answer.sources, compiled: entities.compiled, language });
      const sentiment = await judgedSentiment(entities.loaded.brand.name, analysis, lib, signal);
      const result: ResultValues = {
        surface: answer.surface,
        response: answer.text,
        mentioned: analysis.mentioned ? 1 : 0,
        mention_count: analysis.mention_count,
        mention_position: analysis.mention_position,
        competitor_mentions: JSON.stringify(
          analysis.competitor_mentions.map((c) => ({ competitor_id: c.competitor_id, name: c.name, mention_count: c.mention_count, position: c.position })),
        ),
        citations: JSON.stringify(analysis.citations),
        citation_count: analysis.citation_count,
        brand_citation_count: analysis.brand_citation_count,
        sources: JSON.stringify(analysis.sources),
        source_count: analysis.sources.length,
        sentiment: sentiment.label,
        sentiment_score: sentiment.score,
        visibility_score: analysis.visibility_score,
        search_queries: JSON.stringify(answer.searchQueries ?? []),
        reported_model: answer.model ?? "",
        details: JSON.stringify({
          reported_model: answer.model,
          first_mention_offset: analysis.first_mention_offset,
          list_rank: analysis.list_rank,
          position_adjusted_word_count: analysis.position_adjusted_word_count,
          word_count_share: analysis.word_count_share,
          sentiment_passages: analysis.sentiment_passages,
          sentiment_source: sentiment.source,
          lexicon_sentiment_score: analysis.sentiment_score,
        }),
      };
      return { kind: "answered", result: JSON.stringify(result) };
    },
  };
}

