/** The platform ids a tracking job can ask (DESIGN §7). */
export const PLATFORM_IDS = [
  'chatgpt',
  'perplexity',
  'gemini',
  'claude',
  'grok',
  'google-ai-overview',
  'google-ai-mode',
  'copilot',
  'openai-compatible',
] as const;

export type PlatformId = (typeof PLATFORM_IDS)[number];

export function isPlatformId(value: string): value is PlatformId {
  return (PLATFORM_IDS as readonly string[]).includes(value);
}

/**
 * One source the answer cites.
 *
 * There is one entry per place the upstream ties a source to the text (an OpenAI annotation, a Claude
 * text block's citation, a Perplexity `[n]` marker, a Gemini grounding support, a SERP block's
 * reference), in the order the upstream gives them. A source cited twice appears twice, with the
 * same `position`; `uniqueSources()` folds the list to one entry per URL. Sources the engine
 * retrieved but the text does not cite are in `Answer.sources` only.
 */
export interface Citation {
  /** The source URL, tracking parameters (utm_*, …) removed. */
  url: string;
  /** Page title as the upstream reports it ('' when it gives none). */
  title: string;
  /** 1-based rank of the source: the upstream's own number when it has one, else order of first citation. */
  position: number;
  /** UTF-16 offsets (JavaScript string indices) into `Answer.text` of the cited span or marker. */
  start?: number;
  end?: number;
}

/**
 * One source the engine retrieved for the answer (searched, read, listed), one entry per URL in the
 * upstream's order: `cited` when the text cites it, false for a source consulted but not cited.
 * `Answer.sources` ⊇ the URLs of `Answer.citations`.
 */
export interface Source {
  url: string;
  title: string;
  /** 1-based: the upstream's own number when it has one, else the order it was retrieved in. */
  position: number;
  cited: boolean;
}

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  /** Web searches the upstream ran for this answer, when it says. */
  searchRequests?: number;
}

/**
 * Why the answer ended. Truncated answers ('length') are never returned: they raise an
 * `EngineError` of kind 'truncated' instead.
 */
export type FinishReason = 'stop' | 'content_filter' | 'other';

export interface Answer {
  platform: PlatformId;
  surface: 'api' | 'serp';
  /** The model as the upstream reports it (falls back to the requested one). */
  model: string;
  text: string;
  citations: Citation[];
  /** Everything the engine retrieved, cited or not (see Source). */
  sources: Source[];
  /** Queries the engine searched the web with (fan-out), in order, without duplicates. */
  searchQueries: string[];
  usage: Usage;
  finishReason: FinishReason;
}

/**
 * A SERP page that shows no AI answer for the query. This is not an answer with zero mentions:
 * there is nothing to measure, and a tracking job should record it as such.
 */
export interface NoSurface {
  noSurface: true;
  platform: PlatformId;
  surface: 'serp';
  model: string;
  /** Short human-readable reason (e.g. "no AI Overview on the results page"). */
  reason: string;
}

export type AskResult = Answer | NoSurface;

export function isNoSurface(result: AskResult): result is NoSurface {
  return (result as NoSurface).noSurface === true;
}

export interface AskRequest {
  prompt: string;
  /** Defaults to the platform's configured model. */
  model?: string;
  /** ISO 3166-1 alpha-2 country code, e.g. "US". */
  region?: string;
  /** BCP 47 language tag, e.g. "en" or "pt-BR". */
  language?: string;
  signal?: AbortSignal;
}

export interface Engine {
  platform: PlatformId;
  surface: 'api' | 'serp';
  defaultModel: string;
  ask(request: AskRequest): Promise<AskResult>;
}
