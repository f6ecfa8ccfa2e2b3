/**
 * Suggestions from one run's answers: content gaps, citation outreach, owned content, cited gaps
 * and sentiment issues, one item per (type, key) with its evidence and a priority.
 */
import type { AnswerAnalysis } from "./analyze";
import { groupBy } from "./group";
import { wilson } from "./stats";

export type SuggestionType = "content_gap" | "citation_outreach" | "owned_content" | "cited_gap" | "sentiment";
export type SuggestionPriority = "high" | "medium" | "low";

export interface SuggestionEvidence {
  /** The first MAX_PROMPT_IDS of the prompts, by id: a domain cited across a whole run would list them all. */
  prompt_ids: string[];
  /** How many prompts the answers came from. */
  prompts: number;
  platforms: string[];
  /** Answers the suggestion rests on, and the answers of the same prompts (or citing the domain). */
  answers: number;
  competitors?: { competitor_id: string; name: string; answers: number }[];
  domain?: string;
  urls?: string[];
  passages?: string[];
  sentiment_scores?: number[];
}

export interface Suggestion {
  type: SuggestionType;
  key: string;
  title: string;
  detail: string;
  evidence: SuggestionEvidence;
  priority: SuggestionPriority;
}

export interface SuggestionAnswer {
  prompt_id: string;
  prompt_text?: string;
  platform: string;
  analysis: Pick<AnswerAnalysis, "mentioned" | "competitor_mentions" | "citations" | "brand_citation_count" | "sentiment" | "sentiment_score" | "sentiment_passages"> &
    Partial<Pick<AnswerAnalysis, "sources">>;
}

export interface BuildSuggestionsInput {
  brand: { name: string };
  answers: readonly SuggestionAnswer[];
}

const PRIORITY_ORDER: Record<SuggestionPriority, number> = { high: 0, medium: 1, low: 2 };
const MAX_EXAMPLES = 5;
const MAX_PROMPT_IDS = 20;

const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];
const sortedUnique = (values: Iterable<string>): string[] => unique(values).sort();


/** The prompt as people wrote it (shortened to 80 characters), never its id. */
/**
 * Priority from the evidence (README "Suggestions"): `k` of `n` answers show the problem. High needs
 * at least 5 answers and a Wilson 95 % lower bound of k/n of 0.5 or more; medium at least 3 answers
 * and a lower bound of 0.2; anything else is low. Two answers never make "high".
 */
export function priorityOf(k: number, n: number): SuggestionPriority {
  const low = n > 0 ? (wilson(k, n).ci_low ?? 0) : 0;
  if (n >= 5 && low >= 0.5) return "high";
  if (n >= 3 && low >= 0.2) return "medium";
  return "low";
}

function promptLabel(answers: readonly SuggestionAnswer[]): string {
  const text = answers.find((a) => a.prompt_text)?.prompt_text?.trim();
  if (!text) return "one of the brand's prompts";
  return `"${text.length > 80 ? `${text.slice(0, 79).trimEnd()}…` : text}"`;
}

function baseEvidence(answers: readonly SuggestionAnswer[]): SuggestionEvidence {
  const promptIds = sortedUnique(answers.map((a) => a.prompt_id));
  return { prompt_ids: promptIds.slice(0, MAX_PROMPT_IDS), prompts: promptIds.length, platforms: sortedUnique(answers.map((a) => a.platform)), answers: answers.length };
}

/** Competitors named in answers where the brand is not, per prompt. */
function contentGaps(brand: string, byPrompt: Map<string, SuggestionAnswer[]>): Suggestion[] {
  const out: Suggestion[] = [];
  for (const [promptId, answers] of byPrompt) {
    const gaps = answers.filter((a) => !a.analysis.mentioned && a.analysis.competitor_mentions.length > 0);
    if (gaps.length === 0) continue;
    const competitors = new Map<string, { competitor_id: string; name: string; answers: number }>();
    for (const a of gaps)
      for (const c of a.analysis.competitor_mentions) {
        const entry = competitors.get(c.competitor_id) ?? { competitor_id: c.competitor_id, name: c.name, answers: 0 };
        entry.answers++;
        competitors.set(c.competitor_id, entry);
      }
    const list = [...competitors.values()].sort((a, b) => b.answers - a.answers || a.name.localeCompare(b.name));
    out.push({
      type: "content_gap",
      key: `prompt:${promptId}`,
      title: `${list.map((c) => c.name).slice(0, 3).join(", ")} appear for ${promptLabel(answers)}, ${brand} does not`,
      detail: `In ${gaps.length} of ${answers.length} answers the engines named competitors but not ${brand}. Publish content that answers this prompt directly and compares ${brand} with them.`,
      evidence: { ...baseEvidence(gaps), competitors: list },
      priority: priorityOf(gaps.length, answers.length),
    });
  }
  return out;
}

/** Third-party domains the engines cite while never naming the brand in those answers. */
function citationOutreach(brand: string, answers: readonly SuggestionAnswer[]): Suggestion[] {
  // A Set per domain: a domain cited in every answer of a large run would make a list's lookups quadratic.
  const citing = new Map<string, { answers: Set<SuggestionAnswer>; urls: string[] }>();
  for (const a of answers)
    for (const c of a.analysis.citations) {
      if (!c.domain || c.is_brand || c.competitor_id) continue;
      const entry = citing.get(c.domain) ?? { answers: new Set(), urls: [] };
      entry.answers.add(a);
      entry.urls.push(c.normalized_url);
      citing.set(c.domain, entry);
    }
  const out: Suggestion[] = [];
  for (const [domain, { answers: citedSet, urls }] of citing) {
    const citedIn = [...citedSet];
    if (citedIn.some((a) => a.analysis.mentioned)) continue;
    const evidence = { ...baseEvidence(citedIn), domain, urls: unique(urls).slice(0, MAX_EXAMPLES) };
    const withCompetitors = citedIn.filter((a) => a.analysis.competitor_mentions.length > 0).length;
    out.push({
      type: "citation_outreach",
      key: `domain:${domain}`,
      title: `Get ${brand} covered on ${domain}`,
      detail: `${domain} was cited in ${citedIn.length} answer(s) across ${evidence.prompts} prompt(s), none of which named ${brand}${withCompetitors ? `; ${withCompetitors} of them named competitors` : ""}.`,
      evidence,
      // Every answer citing it left the brand out: the evidence is how many there are.
      priority: priorityOf(citedIn.length, citedIn.length),
    });
  }
  return out;
}

/** The brand is named but the engines cite other sites, never the brand's own, per prompt. */
function ownedContent(brand: string, byPrompt: Map<string, SuggestionAnswer[]>): Suggestion[] {
  const out: Suggestion[] = [];
  for (const [promptId, answers] of byPrompt) {
    const named = answers.filter((a) => a.analysis.mentioned);
    // Engines that cite nothing at all say nothing about the brand's site.
    const withSources = named.filter((a) => a.analysis.citations.length > 0);
    if (withSources.length === 0 || withSources.some((a) => a.analysis.brand_citation_count > 0)) continue;
    const evidence = { ...baseEvidence(withSources), urls: unique(withSources.flatMap((a) => a.analysis.citations.map((c) => c.normalized_url))).slice(0, MAX_EXAMPLES) };
    out.push({
      type: "owned_content",
      key: `prompt:${promptId}`,
      title: `${brand} is named for ${promptLabel(answers)} but its own site is never cited`,
      detail: `${withSources.length} answer(s) named ${brand} and cited other sources only. Give the engines a page on ${brand}'s site that answers this prompt (facts, pricing, comparisons) so they can cite it.`,
      evidence,
      priority: priorityOf(withSources.length, answers.length),
    });
  }
  return out;
}

/**
 * The engines read the brand's own pages for a prompt but cited other sources: the page was found
 * and judged not worth citing, so it is the page (not its findability) that needs work.
 */
function citedGaps(brand: string, byPrompt: Map<string, SuggestionAnswer[]>): Suggestion[] {
  const out: Suggestion[] = [];
  for (const [promptId, answers] of byPrompt) {
    const gaps = answers.filter((a) => a.analysis.brand_citation_count === 0 && (a.analysis.sources ?? []).some((s) => s.is_brand && !s.cited));
    if (gaps.length === 0) continue;
    const urls = unique(gaps.flatMap((a) => (a.analysis.sources ?? []).filter((s) => s.is_brand && !s.cited).map((s) => s.normalized_url)));
    const evidence = { ...baseEvidence(gaps), urls: urls.slice(0, MAX_EXAMPLES) };
    out.push({
      type: "cited_gap",
      key: `prompt:${promptId}`,
      title: `The engines read ${brand}'s pages for ${promptLabel(answers)} but did not cite them`,
      detail: `In ${gaps.length} of ${answers.length} answers the engine retrieved ${urls.length} of ${brand}'s own page(s) and cited other sources instead. Make those pages answer the prompt directly — a clear statement, facts and figures near the top — so they are worth citing.`,
      evidence,
      priority: priorityOf(gaps.length, answers.length),
    });
  }
  return out;
}

/** Answers whose tone toward the brand is negative, per prompt. */
function sentimentIssues(brand: string, byPrompt: Map<string, SuggestionAnswer[]>): Suggestion[] {
  const out: Suggestion[] = [];
  for (const [promptId, answers] of byPrompt) {
    const negative = answers.filter((a) => a.analysis.sentiment === "negative");
    if (negative.length === 0) continue;
    const scores = negative.map((a) => a.analysis.sentiment_score ?? 0);
    out.push({
      type: "sentiment",
      key: `prompt:${promptId}`,
      title: `Negative tone about ${brand} for ${promptLabel(answers)}`,
      detail: `${negative.length} of ${answers.length} answers spoke about ${brand} negatively. Check the claims in the passages and publish corrections or answers to the criticism where it is outdated.`,
      evidence: { ...baseEvidence(negative), passages: unique(negative.flatMap((a) => a.analysis.sentiment_passages)).slice(0, MAX_EXAMPLES), sentiment_scores: scores },
      priority: priorityOf(negative.length, answers.length),
    });
  }
  return out;
}

/** All suggestions of a run, one per (type, key), most urgent first. */
export function buildSuggestions({ brand, answers }: BuildSuggestionsInput): Suggestion[] {
  const byPrompt = groupBy(answers, (a) => a.prompt_id);
  const all = [
    ...contentGaps(brand.name, byPrompt),
    ...citationOutreach(brand.name, answers),
    ...ownedContent(brand.name, byPrompt),
    ...citedGaps(brand.name, byPrompt),
    ...sentimentIssues(brand.name, byPrompt),
  ];
  const deduplicated = [...new Map(all.map((s) => [`${s.type}\u0000${s.key}`, s])).values()];
  return deduplicated.sort(
    (a, b) => PRIORITY_ORDER[a.priority] - PRIORITY_ORDER[b.priority] || a.type.localeCompare(b.type) || a.key.localeCompare(b.key),
  );
}
