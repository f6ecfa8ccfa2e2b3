import type { PlatformConfig } from '../config';
import type { CallContext } from '../http';
import { uniqueSources } from '../citations';
import type { Answer, AskResult, FinishReason, PlatformId, Source, Usage } from '../types';

/** The request an adapter sees: model resolved, signal carried by the CallContext. */
export interface AdapterRequest {
  prompt: string;
  model: string;
  region?: string;
  language?: string;
}

export type Adapter = (req: AdapterRequest, ctx: CallContext, cfg: PlatformConfig) => Promise<AskResult>;

/* Wire bodies are untyped JSON; these readers keep the adapters free of casts and crashes. */
export type Json = Record<string, unknown>;

export function obj(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Usage with the undefined fields dropped, so the JSON stays small and stable. */
export function usage(u: Usage): Usage {
  return Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)) as Usage;
}

export function answer(
  platform: PlatformId,
  surface: 'api' | 'serp',
  fields: Omit<Answer, 'platform' | 'surface' | 'finishReason' | 'usage' | 'sources'> & { finishReason?: FinishReason; usage?: Usage; sources?: Source[] },
): Answer {
  return {
    platform,
    surface,
    model: fields.model,
    text: fields.text,
    citations: fields.citations,
    // An upstream that reports only what it cites retrieved exactly that.
    sources: fields.sources ?? uniqueSources(fields.citations).map((c) => ({ url: c.url, title: c.title, position: c.position, cited: true })),
    searchQueries: fields.searchQueries,
    usage: usage(fields.usage ?? {}),
    finishReason: fields.finishReason ?? 'stop',
  };
}

/** Joins text pieces, returning each piece's UTF-16 span in the joined text. */
export class TextBuilder {
  text = '';

  /** Appends `piece` after `separator` (skipped at the start) and returns its span. */
  add(piece: string, separator = ''): { start: number; end: number } {
    if (this.text !== '' && piece !== '') this.text += separator;
    const start = this.text.length;
    this.text += piece;
    return { start, end: this.text.length };
  }
}
