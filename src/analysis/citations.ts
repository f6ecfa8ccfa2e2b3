/** Citations: canonical URL, registrable domain, position and attribution to brand or competitor. */
import type { CompiledEntities } from "./entities";
import type { LinkToken } from "./links";
import { canonicalizeUrl, hostBelongsTo, isWebUrl } from "./urls";

export interface CitationInput {
  url: string;
  title?: string | null;
  /** 1-based position as the engine listed it; defaults to the order given. */
  position?: number;
}

export interface Citation {
  position: number;
  url: string;
  normalized_url: string;
  domain: string | null;
  host: string | null;
  title: string | null;
  is_brand: boolean;
  competitor_id: string | null;
}

/** Entity index owning `host` (most specific domain wins), or -1. */
export function ownerOfHost(compiled: CompiledEntities, host: string | null): number {
  if (!host) return -1;
  for (const { domain, entity } of compiled.domainOwners) if (hostBelongsTo(host, domain)) return entity;
  return -1;
}

/** Links in the text become citations when the engine returned none (markdown links, bare URLs). */
export function citationsFromLinks(links: readonly LinkToken[]): CitationInput[] {
  return links
    .filter((t) => t.url !== null)
    .map((t, i) => ({ url: t.url!, title: t.label || null, position: i + 1 }));
}

/**
 * Sources kept of one answer, and the longest URL and title: each source is a row and a URL lookup
 * on the writer; an answer (or a page it quotes) that lists thousands adds only the first ones.
 */
export const MAX_CITATIONS = 200;
export const MAX_CITATION_URL_CHARS = 2048;
export const MAX_CITATION_TITLE_CHARS = 500;

/**
 * Canonicalizes and attributes citations. The same page cited twice counts once, at its first
 * position, so counts and shares are about sources rather than repeated footnotes.
 */
export function buildCitations(compiled: CompiledEntities, inputs: readonly CitationInput[]): Citation[] {
  const ordered = inputs
    .map((c, i) => ({ ...c, position: c.position ?? i + 1 }))
    // Only web pages count as sources, whatever path wrote the answer (README: Security).
    .filter((c) => isWebUrl(c.url) && c.url.length <= MAX_CITATION_URL_CHARS)
    .sort((a, b) => a.position - b.position);
  const byUrl = new Map<string, Citation>();
  // Engines repeat a source once per footnote; canonicalizing it again would only find it taken.
  const seenRaw = new Set<string>();
  for (const c of ordered) {
    if (byUrl.size >= MAX_CITATIONS) break;
    if (seenRaw.has(c.url)) continue;
    seenRaw.add(c.url);
    const canonical = canonicalizeUrl(c.url);
    if (byUrl.has(canonical.normalized_url)) continue;
    const owner = ownerOfHost(compiled, canonical.host);
    byUrl.set(canonical.normalized_url, {
      position: c.position,
      url: c.url.trim(),
      normalized_url: canonical.normalized_url,
      domain: canonical.domain,
      host: canonical.host,
      title: c.title?.trim().slice(0, MAX_CITATION_TITLE_CHARS) || null,
      is_brand: owner === 0,
      competitor_id: owner > 0 ? compiled.entities[owner]!.id : null,
    });
  }
  return distinctPositions([...byUrl.values()]);
}

/**
 * Two different pages an engine gave the same number keep their order, the later one moving past
 * the highest position: a result's citations have distinct positions (Ansvisor's key, and the
 * unique index on citations).
 */
function distinctPositions<T extends { position: number }>(citations: T[]): T[] {
  const taken = new Set<number>();
  let highest = Math.max(0, ...citations.map((c) => c.position));
  return citations.map((c) => {
    if (!taken.has(c.position)) {
      taken.add(c.position);
      return c;
    }
    taken.add(++highest);
    return { ...c, position: highest };
  });
}

/** A source as the engine retrieved it (cited in the text or not). */
export interface SourceInput extends CitationInput {
  cited?: boolean;
}

export interface AnalyzedSource extends Citation {
  /** The answer's text cites it (it is among the citations). */
  cited: boolean;
}

/**
 * Every source the engine retrieved, canonical and attributed like citations, one per page: the
 * retrieved ones in the engine's order, then any citation the engine did not list. `cited` follows
 * the citations themselves, so the sources are always a superset of them.
 */
export function buildSources(compiled: CompiledEntities, citations: readonly Citation[], retrieved: readonly SourceInput[]): AnalyzedSource[] {
  const cited = new Set(citations.map((c) => c.normalized_url));
  const listed = buildCitations(compiled, retrieved);
  const seen = new Set(listed.map((s) => s.normalized_url));
  return [...listed, ...citations.filter((c) => !seen.has(c.normalized_url))].map((s) => ({ ...s, cited: cited.has(s.normalized_url) }));
}
