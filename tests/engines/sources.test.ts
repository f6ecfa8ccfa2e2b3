/**
 * Issue #15, acceptance 3: every platform's answers (the recorded ones in tests/fixtures/engines/recorded and the
 * documented-shape ones here) carry `sources` — everything the engine retrieved — beside
 * `citations`, with sources ⊇ citations and the retrieved-only ones marked `cited: false`. The
 * expected source URLs are read from each raw upstream body in the test, independently of the
 * adapters.
 */
import { describe, expect, test } from 'bun:test';
import { isNoSurface, type Answer, type AskResult, type PlatformId } from '../../src/engines';
import { stripTracking } from '../../src/engines/citations';
import { readFixture } from '../fakes/upstream';
import { useFakeUpstream } from './harness';

const up = useFakeUpstream();

function asAnswer(r: AskResult): Answer {
  if (isNoSurface(r)) throw new Error(`expected an answer, got no surface: ${r.reason}`);
  return r;
}

/** The invariant every answer keeps. */
function expectSuperset(a: Answer): void {
  const urls = a.sources.map((s) => s.url);
  expect(new Set(urls).size).toBe(urls.length);
  const cited = new Set(a.citations.map((c) => c.url));
  for (const c of cited) expect(a.sources.find((s) => s.url === c)?.cited).toBe(true);
  for (const s of a.sources) expect(s.cited).toBe(cited.has(s.url));
}

const unique = (urls: string[]) => [...new Set(urls.map(stripTracking))];

/** What each raw body says was retrieved, walked here without the adapters' code. */
const retrievedIn: Partial<Record<PlatformId, (body: any) => string[]>> = {
  chatgpt: (b) =>
    b.output.flatMap((o: any) =>
      o.type === 'web_search_call' ? [...(o.action?.sources ?? []).map((s: any) => s.url), ...(o.action?.url ? [o.action.url] : [])] : [],
    ),
  claude: (b) => b.content.flatMap((c: any) => (c.type === 'web_search_tool_result' ? c.content.map((r: any) => r.url) : [])),
  perplexity: (b) => b.citations,
  gemini: (b) => b.candidates[0].groundingMetadata.groundingChunks.map((c: any) => c.web.uri),
};

const cases: [PlatformId, string, { googleSerp?: 'serpapi' | 'dataforseo' }?][] = [
  ['chatgpt', 'openai-responses-web-search.json'],
  ['claude', 'anthropic-messages-web-search.json'],
  ['perplexity', 'perplexity-sonar-citations.json'],
  ['gemini', 'gemini-generate-grounded.json'],
];

describe('sources ⊇ citations, retrieved-only marked', () => {
  test.each(cases)('%s: the sources are what the raw body retrieved, each cited or not', async (platform, fixture) => {
    const a = asAnswer(await up.ask(platform));
    expectSuperset(a);
    const retrieved = unique(retrievedIn[platform]!(JSON.parse(await readFixture(fixture))));
    // Every retrieved URL is a source; sources add only cited URLs the retrieval list lacked.
    expect(a.sources.slice(0, retrieved.length).map((s) => s.url)).toEqual(retrieved);
    expect(a.sources.slice(retrieved.length).every((s) => s.cited)).toBe(true);
  });

  test('chatgpt: the recorded answer read more pages than it cited', async () => {
    const a = asAnswer(await up.ask('chatgpt'));
    const retrievedOnly = a.sources.filter((s) => !s.cited);
    expect(retrievedOnly.length).toBeGreaterThan(0);
    expect(a.sources.length).toBeGreaterThan(new Set(a.citations.map((c) => c.url)).size);
  });

  test('claude: every web_search_result is a source; text citations are a subset', async () => {
    const a = asAnswer(await up.ask('claude'));
    expect(a.sources.filter((s) => s.cited).length).toBe(new Set(a.citations.map((c) => c.url)).size);
    expect(a.sources.some((s) => !s.cited)).toBe(true);
  });

  test.each([
    ['grok', undefined],
    ['google-ai-overview', 'serpapi'],
    ['google-ai-overview', 'dataforseo'],
    ['google-ai-mode', 'serpapi'],
    ['google-ai-mode', 'dataforseo'],
    ['copilot', undefined],
    ['openai-compatible', undefined],
  ] as const)('%s (%s) keeps the invariant', async (platform, googleSerp) => {
    const a = asAnswer(await up.ask(platform, {}, googleSerp ? { googleSerp } : {}));
    expectSuperset(a);
    expect(a.sources.length).toBeGreaterThan(0);
  });

  test('copilot: its reference links are what it cites', async () => {
    const a = asAnswer(await up.ask('copilot'));
    const body = JSON.parse(await readFixture('searchapi-bing-copilot.json'));
    expect(a.citations.map((c) => c.url)).toEqual(unique(body.reference_links.map((r: any) => r.link)));
    expect(a.sources.every((s) => s.cited)).toBe(true);
  });
});
