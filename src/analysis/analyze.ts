/** analyzeAnswer: everything stored per prompt_results row, from one answer's text and citations. */
import { buildCitations, buildSources, citationsFromLinks, type AnalyzedSource, type Citation, type CitationInput, type SourceInput } from "./citations";
import { compileEntities, findMentions, type CompiledEntities, type Entity, type Mention } from "./entities";
import { scanLinks } from "./links";
import { scorePassages, type SentimentLabel } from "./sentiment";
import { positionAdjustedWordCounts, round, shares, visibilityScore } from "./scores";
import { analyzeLines, lineIndexAt, listRank, segmenterFor, sentenceUnits, withoutUrls, type SentenceUnit } from "./structure";

export interface AnalyzeAnswerInput {
  text: string;
  /** Citations as the engine returned them; when empty, links in the text are used. */
  citations?: readonly CitationInput[] | null;
  /** Everything the engine retrieved, each marked cited or not (defaults to the citations). */
  sources?: readonly SourceInput[] | null;
  /** Precompiled entities (preferred for batches); else `brand` and `competitors` are compiled. */
  compiled?: CompiledEntities;
  brand?: Entity;
  competitors?: readonly Entity[];
  /** BCP 47 language of the answer, for sentence segmentation. */
  language?: string;
}

export interface EntityMentionSummary {
  entity_id: string;
  name: string;
  mention_count: number;
  /** UTF-16 offset of the first mention in the answer text. */
  first_offset: number;
  /** 1 + number of other named entities whose first mention comes earlier. */
  position: number;
  /** Rank of the list item (or numbered heading) naming it, when it sits in one. */
  list_rank: number | null;
  /** GEO position-adjusted word count and its share among all named entities. */
  position_adjusted_word_count: number;
  word_count_share: number;
}

export interface CompetitorMention {
  competitor_id: string;
  name: string;
  mention_count: number;
  position: number;
  first_offset: number;
  list_rank: number | null;
  position_adjusted_word_count: number;
  word_count_share: number;
}

export interface AnswerAnalysis {
  mentioned: boolean;
  mention_count: number;
  first_mention_offset: number | null;
  mention_position: number | null;
  list_rank: number | null;
  /** Competitors named in the answer, in order of first mention. */
  competitor_mentions: CompetitorMention[];
  citations: Citation[];
  citation_count: number;
  brand_citation_count: number;
  /** Every source retrieved, canonical and attributed as citations are, with `cited` (a superset of citations). */
  sources: AnalyzedSource[];
  /** Null when the brand is not named (there is nothing to judge). */
  sentiment: SentimentLabel | null;
  sentiment_score: number | null;
  /** The passages the sentiment was computed from (input for the optional model judge). */
  sentiment_passages: string[];
  visibility_score: number;
  position_adjusted_word_count: number;
  word_count_share: number;
  /** Every mention found, for evidence and debugging. */
  mentions: Mention[];
}

// Where one clause ends and the next begins, for sentences naming several entities.
const CLAUSE_BREAK = /[;:,]|\s[-–—]\s|\b(?:but|while|whereas|although|though|however|unlike|compared (?:to|with)|versus|vs\.?|mais|aber|pero|alors que|tandis que|mientras|während|whilst)\b/giu;

/** Mentions inside each unit; both lists are in text order, so one forward walk suffices. */
function mentionsPerUnit(mentions: readonly Mention[], units: readonly SentenceUnit[]): Mention[][] {
  let next = 0;
  return units.map((unit) => {
    while (next < mentions.length && mentions[next]!.start < unit.start) next++;
    const inside: Mention[] = [];
    for (let k = next; k < mentions.length && mentions[k]!.start < unit.end; k++) if (mentions[k]!.end <= unit.end) inside.push(mentions[k]!);
    return inside;
  });
}

/** Text with every entity name replaced by "it", so names like "Best Buy" carry no sentiment. */
function masked(text: string, from: number, to: number, mentions: readonly Mention[]): string {
  let out = "";
  let at = from;
  for (const m of mentions) {
    if (m.start < from || m.end > to) continue;
    out += `${text.slice(at, m.start)}it`;
    at = m.end;
  }
  return out + text.slice(at, to);
}

/**
 * The part of a sentence that speaks about the brand. When the sentence also names others, it is
 * cut into clauses; a clause naming nobody belongs to the entity named before it (or after it, at
 * the start), so "Beta is cheap, but Acme is faster" gives Acme only "Acme is faster".
 */
function brandPassage(text: string, plain: string, unit: SentenceUnit, unitMentions: readonly Mention[]): string | null {
  if (!unitMentions.some((m) => m.entity === 0)) return null;
  if (unitMentions.every((m) => m.entity === 0)) return masked(text, unit.start, unit.end, unitMentions);
  const sentence = plain.slice(unit.start, unit.end);
  const cuts = [0];
  for (const b of sentence.matchAll(CLAUSE_BREAK)) cuts.push(b.index!);
  cuts.push(sentence.length);
  const clauses = cuts.slice(0, -1).map((from, i) => {
    const start = unit.start + from;
    const end = unit.start + cuts[i + 1]!;
    return { start, end, entities: new Set(unitMentions.filter((m) => m.start >= start && m.start < end).map((m) => m.entity)) };
  });
  let carried: Set<number> | null = null;
  for (const c of clauses) {
    if (c.entities.size === 0 && carried) c.entities = carried;
    else if (c.entities.size > 0) carried = c.entities;
  }
  const firstNamed = clauses.find((c) => c.entities.size > 0)!.entities;
  const parts = clauses.filter((c) => (c.entities.size ? c.entities : firstNamed).has(0));
  return parts.map((c) => masked(text, c.start, c.end, unitMentions)).join(" ");
}

// Scripts written without spaces need a dictionary-based segmenter; everything else splits on
// letters and digits, which gives the same words at a fraction of Intl.Segmenter's cost.
const NO_SPACE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’\-]*/gu;

const ASCII = /^[\x00-\x7f]*$/;

/** WORD's count on ASCII text, where its letters and digits are [A-Za-z0-9] and \p{M} is empty, without building the matches. */
function asciiWordCount(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (alnum) {
      if (!inWord) n++;
      inWord = true;
    } else if (c !== 39 && c !== 45) inWord = false; // ' and - continue a word, never start one
  }
  return n;
}

export function wordCount(text: string, language: string | undefined): number {
  const clean = text.replace(/https?:\/\/\S+/g, " ");
  if (ASCII.test(clean)) return asciiWordCount(clean);
  if (!NO_SPACE_SCRIPT.test(clean)) return clean.match(WORD)?.length ?? 0;
  let n = 0;
  for (const s of segmenterFor(language, "word").segment(clean)) if (s.isWordLike) n++;
  return n;
}

export function analyzeAnswer(input: AnalyzeAnswerInput): AnswerAnalysis {
  const compiled = input.compiled ?? compileEntities(requiredBrand(input.brand), input.competitors ?? []);
  const text = input.text ?? "";
  const links = scanLinks(text);
  const mentions = findMentions(compiled, text, links);
  const lines = analyzeLines(text);
  const plain = withoutUrls(text, links);
  const units = sentenceUnits(plain, lines, input.language);
  const entityCount = compiled.entities.length;

  const offsets: number[][] = Array.from({ length: entityCount }, () => []);
  for (const m of mentions) offsets[m.entity]!.push(m.start);
  const named = offsets.map((o, entity) => ({ entity, first: o[0] })).filter((e) => e.first !== undefined);
  named.sort((a, b) => a.first! - b.first!);
  const positionOf = new Map(named.map((e, i) => [e.entity, i + 1]));

  const passages: string[] = [];
  // A sentence naming nobody right after one naming only the brand, on the same line, is still
  // about the brand ("Acme is a CRM. It is fast and cheap.").
  let brandOnlyLine = -1;
  const perUnit = mentionsPerUnit(mentions, units);
  const weighted = units.map((unit, u) => {
    const inUnit = perUnit[u]!;
    const line = lineIndexAt(lines, unit.start);
    const passage = brandPassage(text, plain, unit, inUnit);
    if (passage !== null) passages.push(passage);
    else if (inUnit.length === 0 && line === brandOnlyLine) passages.push(text.slice(unit.start, unit.end));
    if (inUnit.length > 0) brandOnlyLine = inUnit.every((m) => m.entity === 0) ? line : -1;
    return { words: wordCount(text.slice(unit.start, unit.end), input.language), entities: [...new Set(inUnit.map((m) => m.entity))] };
  });
  const pawc = positionAdjustedWordCounts(weighted, entityCount);
  const pawcShare = shares(pawc);

  const summaries: EntityMentionSummary[] = named.map(({ entity, first }) => ({
    entity_id: compiled.entities[entity]!.id,
    name: compiled.entities[entity]!.name,
    mention_count: offsets[entity]!.length,
    first_offset: first!,
    position: positionOf.get(entity)!,
    list_rank: listRank(lines, offsets[entity]!),
    position_adjusted_word_count: round(pawc[entity]!),
    word_count_share: round(pawcShare[entity]!),
  }));
  const brand = summaries.find((s) => s.entity_id === compiled.entities[0]!.id && offsets[0]!.length > 0) ?? null;

  const citations = buildCitations(compiled, input.citations?.length ? input.citations : citationsFromLinks(links));
  const brandCitationCount = citations.filter((c) => c.is_brand).length;
  const sentiment = scorePassages(passages, input.language);

  return {
    mentioned: brand !== null,
    mention_count: brand?.mention_count ?? 0,
    first_mention_offset: brand?.first_offset ?? null,
    mention_position: brand?.position ?? null,
    list_rank: brand?.list_rank ?? null,
    competitor_mentions: summaries
      .filter((s) => s !== brand)
      .map(({ entity_id, ...rest }) => ({ competitor_id: entity_id, ...rest })),
    citations,
    citation_count: citations.length,
    brand_citation_count: brandCitationCount,
    sources: buildSources(compiled, citations, input.sources ?? []),
    sentiment: sentiment?.label ?? null,
    sentiment_score: sentiment?.score ?? null,
    sentiment_passages: sentiment?.passages ?? [],
    visibility_score: visibilityScore({
      mentioned: brand !== null,
      mention_position: brand?.position ?? null,
      brand_cited: brandCitationCount > 0,
    }),
    position_adjusted_word_count: round(pawc[0] ?? 0),
    word_count_share: round(pawcShare[0] ?? 0),
    mentions,
  };
}

function requiredBrand(brand: Entity | undefined): Entity {
  if (!brand) throw new TypeError("analyzeAnswer needs `compiled` or `brand`");
  return brand;
}
