/**
 * Answer analysis — pure functions, no I/O (DESIGN §8, issue 6).
 *
 * Typical use by a tracking job:
 *   const compiled = compileEntities(brand, competitors);          // once per brand
 *   const row = analyzeAnswer({ text, citations, compiled });       // per answer -> prompt_results row
 *   const summary = summarizeResults(rows);                        // visibility rate, share of voice, ...
 *   const items = buildSuggestions({ brand, competitors, answers }); // after the run
 *
 * Formulas and worked numbers: src/analysis/README.md.
 */
export { compileEntities, findMentions } from "./entities";
export type { AliasSpec, CompiledEntities, Entity, EntityKind, Mention } from "./entities";
export { analyzeAnswer } from "./analyze";
export type { AnalyzeAnswerInput, AnswerAnalysis, CompetitorMention } from "./analyze";
export { buildCitations } from "./citations";
export type { Citation, CitationInput } from "./citations";
export { canonicalizeUrl, hostBelongsTo, normalizeDomain, registrableDomain } from "./urls";
export type { CanonicalUrl } from "./urls";
export {
  buildSentimentJudgePrompt,
  lexiconScore,
  parseSentimentJudgeReply,
  scorePassages,
  sentimentLabel,
  SENTIMENT_THRESHOLD,
} from "./sentiment";
export type { SentimentJudgePrompt, SentimentLabel, SentimentResult } from "./sentiment";
export { positionAdjustedWordCounts, visibilityScore } from "./scores";
export type { VisibilityInputs, WeightedSentence } from "./scores";
export { averagePosition, citationShare, periodKey, shareOfVoice, summarizeBy, summarizeResults, visibilityRate } from "./aggregate";
export type { EntityShare, GroupDimension, GroupedSummary, Metric, Period, ResultRow, ResultSummary } from "./aggregate";
export { buildSuggestions } from "./suggestions";
export type { BuildSuggestionsInput, Suggestion, SuggestionAnswer, SuggestionEvidence, SuggestionPriority, SuggestionType } from "./suggestions";
