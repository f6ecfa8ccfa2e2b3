import type { Citation, Source } from './types';
import { isWebUrl } from '../analysis/urls';

/** A place in the text that cites a source. */
export interface CitedSpan {
  url: string;
  title?: string;
  /** The upstream's own number for the source, when it numbers them. */
  position?: number;
  start?: number;
  end?: number;
}

/** A source the upstream retrieved for the answer (searched, read, listed), cited in the text or not. */
export interface ListedSource {
  url: string;
  title?: string;
  position?: number;
}

/**
 * Removes utm_* parameters. OpenAI appends utm_source=openai (or chatgpt.com) to the pages it cites,
 * which would otherwise make one page look like several to the analysis.
 */
export function stripTracking(url: string): string {
  // Most URLs carry no utm_ key; skip the parse for them. A key can only decode to "utm_" from those
  // letters, a %-escape, or with tabs and newlines (which the URL parser drops) in between.
  return /utm_|%|[\t\n\r]/i.test(url) ? withoutUtmKeys(url) : url;
}

/** stripTracking without the shortcut: parses every URL. */
export function withoutUtmKeys(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const keys = [...parsed.searchParams.keys()].filter((k) => k.toLowerCase().startsWith('utm_'));
  if (keys.length === 0) return url;
  for (const k of keys) parsed.searchParams.delete(k);
  return parsed.toString();
}

/**
 * The answer's `citations` (the cited spans, in the order given) and `sources` (every source, one
 * per URL: the listed ones in the upstream's order, then any cited source the list lacks; each
 * marked cited or not). Positions are the upstream's numbers when given, else the order of first
 * appearance.
 */
export function buildCitations(citedSpans: CitedSpan[], listedSources: ListedSource[] = []): { citations: Citation[]; sources: Source[] } {
  // Only web pages are sources: a `javascript:` or `data:` URL an answer carries is dropped here,
  // so it is never stored, counted or rendered as a link (README: Security).
  const cited = citedSpans.filter((s) => isWebUrl(s.url));
  const listed = listedSources.filter((s) => isWebUrl(s.url));
  const titles = new Map<string, string>();
  for (const s of [...listed, ...cited]) {
    const url = stripTracking(s.url);
    if (s.title && !titles.has(url)) titles.set(url, s.title);
  }
  const ranks = new Map<string, number>();
  let next = 1;
  const rank = (url: string, given?: number): number => {
    if (given !== undefined) return given;
    let r = ranks.get(url);
    if (r === undefined) {
      r = next++;
      ranks.set(url, r);
    }
    return r;
  };

  const citations: Citation[] = [];
  const citedUrls = new Set<string>();
  for (const s of cited) {
    const url = stripTracking(s.url);
    citedUrls.add(url);
    const c: Citation = { url, title: s.title || titles.get(url) || '', position: rank(url, s.position) };
    if (s.start !== undefined && s.end !== undefined) {
      c.start = s.start;
      c.end = s.end;
    }
    citations.push(c);
  }
  const sources: Source[] = [];
  const seen = new Set<string>();
  const add = (url: string, position: number) => {
    if (seen.has(url)) return;
    seen.add(url);
    sources.push({ url, title: titles.get(url) ?? '', position, cited: citedUrls.has(url) });
  };
  for (const s of listed) add(stripTracking(s.url), rank(stripTracking(s.url), s.position));
  for (const c of citations) add(c.url, c.position);
  return { citations, sources };
}

/** One entry per URL (its first), for consumers that count sources rather than citations. */
export function uniqueSources(citations: Citation[]): Citation[] {
  const seen = new Set<string>();
  return citations.filter((c) => (seen.has(c.url) ? false : (seen.add(c.url), true)));
}

/** Perplexity-style numeric markers "[3]" with their spans. */
export function findMarkers(text: string): Array<{ n: number; start: number; end: number }> {
  return [...text.matchAll(/\[(\d{1,3})\]/g)].map((m) => ({ n: Number(m[1]), start: m.index, end: m.index + m[0].length }));
}

/**
 * Markdown links and bare URLs in free text, for upstreams that cite only inside the prose
 * (OpenAI-compatible chat models). A URL inside a markdown link is counted once, as the link.
 */
export function findLinks(text: string): CitedSpan[] {
  const out: CitedSpan[] = [];
  const taken: Array<[number, number]> = [];
  // A label stops at the next "[" and a destination at the next "(": from each "[" of "[[[…" the
  // former pattern scanned to the end of the text (quadratic: 20 KB of them took 1.5 s).
  for (const m of text.matchAll(/\[([^[\]\n]*)\]\((https?:\/\/[^\s()]+)\)/g)) {
    out.push({ url: m[2]!, title: m[1]!.trim(), start: m.index, end: m.index + m[0].length });
    taken.push([m.index, m.index + m[0].length]);
  }
  // Both lists come in text order: one pointer walks the links.
  let link = 0;
  for (const m of text.matchAll(/https?:\/\/[^\s<>()[\]"'`]+/g)) {
    while (link < taken.length && taken[link]![1] <= m.index) link++;
    if (link < taken.length && m.index >= taken[link]![0]) continue;
    let end = m[0].length;
    while (end > 0 && '.,;:!?'.includes(m[0][end - 1]!)) end--;
    const url = m[0].slice(0, end);
    out.push({ url, title: '', start: m.index, end: m.index + url.length });
  }
  return out.sort((a, b) => a.start! - b.start!);
}

/** Gemini reports grounding segments in UTF-8 bytes; JavaScript strings index UTF-16 code units. */
export function utf8OffsetToIndex(text: string, byteOffset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byteOffset) {
    const cp = text.codePointAt(i)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp >= 0x10000 ? 2 : 1;
  }
  return i;
}

/** OpenAI annotation indices count code points (Python string indices); convert to UTF-16. */
export function codePointOffsetToIndex(text: string, codePoints: number): number {
  let i = 0;
  for (let n = 0; n < codePoints && i < text.length; n++) i += text.codePointAt(i)! >= 0x10000 ? 2 : 1;
  return i;
}

/**
 * The `url_citation` annotations of one Responses-format output_text part (OpenAI, xAI, Perplexity's
 * Agent API), with their code-point offsets turned into UTF-16 offsets in the whole answer, whose
 * text the part starts at `partStart`.
 */
export function urlCitations(annotations: unknown, partText: string, partStart: number): CitedSpan[] {
  const out: CitedSpan[] = [];
  for (const raw of Array.isArray(annotations) ? annotations : []) {
    const ann = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : undefined;
    const url = typeof ann?.url === 'string' ? ann.url : undefined;
    if (!ann || ann.type !== 'url_citation' || !url) continue;
    const s = typeof ann.start_index === 'number' ? ann.start_index : undefined;
    const e = typeof ann.end_index === 'number' ? ann.end_index : undefined;
    out.push({
      url,
      title: typeof ann.title === 'string' ? ann.title : undefined,
      ...(s !== undefined && e !== undefined ? { start: partStart + codePointOffsetToIndex(partText, s), end: partStart + codePointOffsetToIndex(partText, e) } : {}),
    });
  }
  return out;
}

/** Reasoning models served over chat completions (sonar-reasoning, DeepSeek-R1) prefix their thoughts. */
export function stripThinking(text: string): string {
  return text.replace(/^\s*<think>[\s\S]*?<\/think>\s*/, '');
}

/** Appends unique, non-empty queries in order. */
export function addQueries(into: string[], ...queries: unknown[]): void {
  for (const q of queries) {
    if (typeof q === 'string' && q.trim() !== '' && !into.includes(q)) into.push(q);
  }
}
