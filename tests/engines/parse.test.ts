/**
 * Acceptance 1: every platform's fixtures parse into the exact text and citation list checked by
 * hand, with the fan-out queries where the platform exposes them.
 */
import { describe, expect, test } from 'bun:test';
import { isNoSurface, uniqueSources, type Answer, type AskResult } from '../../src/engines';
import { stripTracking, withoutUtmKeys } from '../../src/engines/citations';
import { jsonResponse, readFixture } from '../fakes/upstream';
import { useFakeUpstream } from './harness';

const up = useFakeUpstream();

function asAnswer(r: AskResult): Answer {
  if (isNoSurface(r)) throw new Error(`expected an answer, got no surface: ${r.reason}`);
  return r;
}

/** The cited text of each citation, to check spans by their content rather than by numbers alone. */
function spans(a: Answer): Array<[number, string]> {
  return a.citations.filter((c) => c.start !== undefined).map((c) => [c.position, a.text.slice(c.start, c.end)]);
}

describe('chatgpt (OpenAI Responses, recorded)', () => {
  test('text is the output_text; url_citation annotations in order, utm_source=openai stripped', async () => {
    const a = asAnswer(await up.ask('chatgpt'));
    const recorded = JSON.parse(await readFixture('openai-responses-web-search.json'));
    expect(a.text).toBe(recorded.output.at(-1).content[0].text);
    expect(a.text.startsWith('Short answer first — yes.')).toBe(true);
    expect(a.model).toBe('gpt-5-mini-2025-08-07');
    const verge = 'https://www.theverge.com/podcast/838932/openai-chatgpt-code-red-vergecast';
    const techstartups = 'https://techstartups.com/2025/12/05/technology-news-today-the-latest-in-tech-ai-startup-news-december-5-2025/';
    const vercel = 'https://vercel.com/blog/series-f';
    expect(a.citations.map((c) => [c.position, c.url, c.start, c.end])).toEqual([
      [1, verge, 426, 517],
      [2, techstartups, 647, 778],
      [3, 'https://www.investopedia.com/5-things-to-know-before-the-stock-market-opens-december-5-2025-11862701', 907, 1047],
      [4, vercel, 1295, 1343],
      [5, 'https://www.sentinelone.com/vulnerability-database/cve-2025-49826/', 1489, 1594],
      [1, verge, 1835, 1926],
      [6, 'https://www.wired.com/story/the-big-interview-2025-recap', 2009, 2080],
      [2, techstartups, 2210, 2341],
      [7, 'https://www.bloomberg.com/news/articles/2025-09-30/vercel-notches-9-3-billion-valuation-in-latest-ai-funding-round', 2502, 2635],
      [4, vercel, 2774, 2822],
    ]);
    expect(a.citations[2]!.title).toBe('5 Things to Know Before the Stock Market Opens');
    expect(a.text.slice(1295, 1343)).toBe('([vercel.com](https://vercel.com/blog/series-f))');
    expect(a.citations.some((c) => c.url.includes('utm_source'))).toBe(false);
    expect(uniqueSources(a.citations).map((c) => c.position)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Only the `search` action carries a query; open_page and find_in_page do not.
    expect(a.searchQueries).toEqual(['tech news today December 5 2025']);
    expect(a.usage).toEqual({ inputTokens: 19681, outputTokens: 3773, totalTokens: 23454, searchRequests: 1 });
    expect(a.finishReason).toBe('stop');
    expect(a.surface).toBe('api');
  });
});

describe('claude (Anthropic Messages, recorded)', () => {
  test('answer joined from its text blocks; each block cites its own span', async () => {
    const a = asAnswer(await up.ask('claude'));
    // Text before and after a search is two paragraphs; blocks split by citations run on.
    expect(a.text.startsWith('Let me search for more specific tech news from today (September 26, 2024).\n\nBased on the search results, here are')).toBe(true);
    expect(a.text).toContain('**FTX Case Update:**\nCaroline Ellison, Sam Bankman-Fried');
    expect(a.text).toContain('web control.\n\n- Chinese AI firm DeepSeek');
    expect(a.text.endsWith('specific breaking stories from September 26, 2024.')).toBe(true);
    expect(a.text.length).toBe(1876);
    const crescendo = 'https://www.crescendo.ai/news/latest-ai-news-and-updates';
    expect(a.citations.map((c) => [c.position, c.url, c.start, c.end])).toEqual([
      [1, 'https://acecomments.mu.nu/?post=411647', 239, 433],
      [2, crescendo, 689, 945],
      [2, crescendo, 949, 1340],
    ]);
    expect(spans(a).map(([, t]) => t.slice(0, 40))).toEqual([
      "Caroline Ellison, Sam Bankman-Fried's ri",
      'Anthropic has launched a Chrome extensio',
      'Chinese AI firm DeepSeek has unveiled it',
    ]);
    expect(a.citations[0]!.title).toBe('Daily Tech News 26 September 2024');
    expect(a.searchQueries).toEqual(['tech news today September 26 2024', '"September 26 2024" tech news breaking']);
    expect(a.model).toBe('claude-sonnet-4-20250514');
    expect(a.usage.searchRequests).toBe(2);
  });

  test('a paused turn is resumed and both parts make the answer', async () => {
    let call = 0;
    up.fake.setBehavior('claude', {
      respond: () =>
        jsonResponse(
          call++ === 0
            ? { model: 'claude-sonnet-4-5', stop_reason: 'pause_turn', content: [{ type: 'server_tool_use', id: 's1', name: 'web_search', input: { query: 'q1' } }], usage: { input_tokens: 10, output_tokens: 1 } }
            : { model: 'claude-sonnet-4-5', stop_reason: 'end_turn', content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 20, output_tokens: 2 } },
        ),
    });
    const a = asAnswer(await up.ask('claude'));
    expect(a.text).toBe('Done.');
    expect(a.searchQueries).toEqual(['q1']);
    expect(a.usage.inputTokens).toBe(30);
    const second = up.fake.requestsFor('claude')[1]!.body as any;
    expect(second.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'server_tool_use', id: 's1', name: 'web_search', input: { query: 'q1' } }] });
  });
});

describe('perplexity (Sonar)', () => {
  test('recorded: [n] markers map to citations[n-1]; an unmarked source is a source, not a citation', async () => {
    const a = asAnswer(await up.ask('perplexity'));
    const recorded = JSON.parse(await readFixture('perplexity-sonar-citations.json'));
    expect(a.text).toBe(recorded.choices[0].message.content);
    const c = recorded.citations as string[];
    expect(a.citations.map((x) => [x.position, x.url, x.start])).toEqual([
      [2, c[1], 196],
      [3, c[2], 199],
      [5, c[4], 202],
      [7, c[6], 205],
      [2, c[1], 343],
      [3, c[2], 346],
      [5, c[4], 349],
      [7, c[6], 402],
      [6, c[5], 471],
      [1, c[0], 530],
      [1, c[0], 736],
      [2, c[1], 739],
      [5, c[4], 873],
    ]);
    expect(a.sources.map((x) => [x.position, x.url, x.cited])).toEqual(c.map((url, i) => [i + 1, url, i !== 3]));
    expect(spans(a).every(([n, t]) => t === `[${n}]`)).toBe(true);
    expect(a.searchQueries).toEqual([]);
    expect(a.model).toBe('sonar');
  });

  test('built: search_results give titles; markers map; tracking parameters stripped', async () => {
    up.fake.setBehavior('perplexity', { fixture: 'perplexity-sonar-search-results.json' });
    const a = asAnswer(await up.ask('perplexity'));
    expect(a.text).toBe(
      'For small teams, Linear and Jira are the most recommended issue trackers[1][2]. Linear is praised for speed and keyboard-driven workflows[1], while Jira offers deeper customization for larger organizations[2][3].',
    );
    const linear = ['https://linear.app/method', 'The Linear Method – Principles & Practices'];
    const jira = ['https://www.atlassian.com/software/jira/guides/getting-started/overview', 'Jira overview | Atlassian'];
    expect(a.citations.map((x) => [x.position, x.url, x.title, x.start !== undefined])).toEqual([
      [1, ...linear, true],
      [2, ...jira, true],
      [1, ...linear, true],
      [2, ...jira, true],
      [3, 'https://www.g2.com/categories/project-management', 'Best Project Management Software | G2', true],
    ]);
    expect(a.sources.map((x) => [x.position, x.title, x.cited])).toEqual([
      [1, linear[1], true],
      [2, jira[1], true],
      [3, 'Best Project Management Software | G2', true],
      [4, 'The 6 best bug tracking tools in 2025 | Zapier', false],
    ]);
    expect(a.model).toBe('sonar-pro');
    expect(a.usage).toEqual({ inputTokens: 18, outputTokens: 96, totalTokens: 114 });
  });

  test('a reasoning model’s <think> block is not part of the answer', async () => {
    up.fake.setBehavior('perplexity', {
      respond: () =>
        jsonResponse({
          model: 'sonar-reasoning',
          citations: ['https://a.example/'],
          choices: [{ finish_reason: 'stop', message: { content: '<think>Let me weigh [9] sources.</think>\nAcme leads[1].' } }],
        }),
    });
    const a = asAnswer(await up.ask('perplexity'));
    expect(a.text).toBe('Acme leads[1].');
    expect(a.citations).toEqual([{ url: 'https://a.example/', title: '', position: 1, start: 10, end: 13 }]);
  });
});

describe('gemini (generateContent + google_search, built)', () => {
  test('grounding supports (UTF-8 byte offsets) become UTF-16 spans; chunks are the sources', async () => {
    const a = asAnswer(await up.ask('gemini'));
    const s1 = 'Spain won Euro 2024, defeating England 2–1 in the final in Berlin.';
    const s2 = 'Mikel Oyarzabal scored the late winner, and Spain’s coach Luis de la Fuente lifted a record fourth European title.';
    expect(a.text).toBe(`${s1} ${s2}`);
    const redirect = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/';
    expect(a.citations).toEqual([
      { url: `${redirect}AbF9wXE1aljazeera`, title: 'aljazeera.com', position: 1, start: 0, end: 66 },
      { url: `${redirect}AbF9wXE1aljazeera`, title: 'aljazeera.com', position: 1, start: 67, end: 181 },
      { url: `${redirect}AbF9wXG2uefa`, title: 'uefa.com', position: 2, start: 67, end: 181 },
    ]);
    // Every grounding chunk was retrieved; the one no support points at is not cited.
    expect(a.sources).toEqual([
      { url: `${redirect}AbF9wXE1aljazeera`, title: 'aljazeera.com', position: 1, cited: true },
      { url: `${redirect}AbF9wXG2uefa`, title: 'uefa.com', position: 2, cited: true },
      { url: `${redirect}AbF9wXH3wikipedia`, title: 'wikipedia.org', position: 3, cited: false },
    ]);
    expect(spans(a).map(([, t]) => t)).toEqual([s1, s2, s2]);
    expect(a.searchQueries).toEqual(['who won euro 2024', 'euro 2024 final score']);
    expect(a.model).toBe('gemini-2.5-flash');
    expect(a.usage).toEqual({ inputTokens: 9, outputTokens: 41, totalTokens: 150, searchRequests: 2 });
  });
});

describe('grok (xAI Responses, recorded)', () => {
  test('url_citation annotations without offsets; the query comes from the tool arguments', async () => {
    const a = asAnswer(await up.ask('grok'));
    const recorded = JSON.parse(await readFixture('xai-responses-web-search.json'));
    expect(a.text).toBe(recorded.output[1].content[0].text);
    expect(a.citations).toEqual([
      { url: 'https://www.ibm.com/think/topics/explainable-ai', title: '', position: 1 },
      { url: 'https://x.ai/company', title: '', position: 2 },
      { url: 'https://en.wikipedia.org/wiki/XAI_%28company%29', title: '', position: 3 },
      { url: 'https://x.ai/', title: '', position: 4 },
      { url: 'https://www.owkin.com/a-z-of-ai-for-healthcare/xai', title: '', position: 5 },
    ]);
    expect(a.searchQueries).toEqual(['what is xAI']);
    expect(a.model).toBe('grok-4-fast-reasoning');
  });
});

const DROP_TEXT =
  'Drop shipping is a retail method where a store sells products without keeping them in stock: the supplier ships each order straight to the customer.\n\nHow to start\n\n- Choose a niche: Research a specific market and its competitors.\n- Find a supplier: Sign an agreement with a manufacturer or wholesaler.';

describe('google-ai-overview via SerpApi (built)', () => {
  const expected = (a: Answer) => {
    expect(a.text).toBe(DROP_TEXT);
    expect(a.citations.map((c) => [c.position, c.url, a.text.slice(c.start, c.end).slice(0, 20)])).toEqual([
      [1, 'https://www.shopify.com/blog/what-is-dropshipping', 'Drop shipping is a r'],
      [2, 'https://en.wikipedia.org/wiki/Drop_shipping', 'Drop shipping is a r'],
      [3, 'https://www.oberlo.com/start-dropshipping', '- Choose a niche: Re'],
      [1, 'https://www.shopify.com/blog/what-is-dropshipping', '- Find a supplier: S'],
      [3, 'https://www.oberlo.com/start-dropshipping', '- Find a supplier: S'],
    ]);
    expect(a.citations[3]!.title).toBe('What Is Dropshipping? How It Works & Pros and Cons - Shopify');
    // A reference no block points at was shown as a source, not cited.
    expect(a.sources.map((x) => [x.position, x.url, x.cited])).toEqual([
      [1, 'https://www.shopify.com/blog/what-is-dropshipping', true],
      [2, 'https://en.wikipedia.org/wiki/Drop_shipping', true],
      [3, 'https://www.oberlo.com/start-dropshipping', true],
      [4, 'https://www.investopedia.com/terms/d/drop-shipping.asp', false],
    ]);
    expect(a.surface).toBe('serp');
    expect(a.model).toBe('google-ai-overview');
  };

  test('an overview inline on the results page', async () => {
    expected(asAnswer(await up.ask('google-ai-overview')));
  });

  test('a deferred overview is fetched with its page_token', async () => {
    up.fake.setBehavior('google-ai-overview', {
      respond: async (req) =>
        jsonResponse(
          await readFixture(req.query.engine === 'google' ? 'serpapi-google-page-token.json' : 'serpapi-google-ai-overview-deferred.json'),
        ),
    });
    expected(asAnswer(await up.ask('google-ai-overview')));
    const second = up.fake.requestsFor('google-ai-overview')[1]!;
    expect(second.query).toEqual({ engine: 'google_ai_overview', page_token: 'KIVu-nictZPPbtswDMbvfQrBp0QdW2', api_key: 'serpapi-test-key' });
  });

  test('a results page without an AI Overview is no surface, not an empty answer', async () => {
    up.fake.setBehavior('google-ai-overview', { fixture: 'serpapi-google-no-ai-overview.json' });
    const r = await up.ask('google-ai-overview');
    expect(r).toEqual({ noSurface: true, platform: 'google-ai-overview', surface: 'serp', model: 'google-ai-overview', reason: 'no AI Overview on the results page' });
  });

  test('"no results" inside HTTP 200 is no surface', async () => {
    up.fake.setBehavior('google-ai-overview', { body: { search_metadata: { status: 'Success' }, error: "Google hasn't returned any results for this query." } });
    expect(isNoSurface(await up.ask('google-ai-overview'))).toBe(true);
  });
});

describe('google-ai-mode via SerpApi (built)', () => {
  test('text_blocks and references', async () => {
    const a = asAnswer(await up.ask('google-ai-mode'));
    expect(a.text).toBe(
      'For most small businesses, HubSpot and Pipedrive are the strongest starting points.\n\n- HubSpot: free plan, marketing and sales in one place.\n- Pipedrive: visual sales pipeline, simple setup.',
    );
    expect(a.citations.map((c) => [c.position, c.url, c.start, c.end])).toEqual([
      [1, 'https://zapier.com/blog/best-crm-app/', 0, 83],
      [2, 'https://www.hubspot.com/products/crm', 85, 140],
      [1, 'https://zapier.com/blog/best-crm-app/', 141, 190],
      [3, 'https://www.pipedrive.com/', 141, 190],
    ]);
    expect(a.searchQueries).toEqual([]);
  });

  test('reconstructed_markdown is the fallback when there are no blocks', async () => {
    up.fake.setBehavior('google-ai-mode', { body: { reconstructed_markdown: '**Acme** is best.', references: [] } });
    expect(asAnswer(await up.ask('google-ai-mode')).text).toBe('**Acme** is best.');
  });
});

describe('google surfaces via DataForSEO (built)', () => {
  test('AI Overview item of the organic SERP: elements joined, element references cite them', async () => {
    const a = asAnswer(await up.ask('google-ai-overview', {}, { googleSerp: 'dataforseo' }));
    expect(a.text).toBe(
      'Drop shipping is a retail method where a store sells products without keeping them in stock.\n\n**How to start:**\n- Choose a niche and research competitors.',
    );
    expect(a.citations.map((c) => [c.position, c.url, c.start, c.end])).toEqual([
      [1, 'https://www.shopify.com/blog/what-is-dropshipping', 0, 92],
      [2, 'https://en.wikipedia.org/wiki/Drop_shipping', 0, 92],
      [3, 'https://www.oberlo.com/start-dropshipping', 94, 154],
    ]);
    expect(a.sources.at(-1)).toEqual({ url: 'https://www.investopedia.com/terms/d/drop-shipping.asp', title: 'Drop Shipping Explained', position: 4, cited: false });
  });

  test('AI Mode', async () => {
    const a = asAnswer(await up.ask('google-ai-mode', {}, { googleSerp: 'dataforseo' }));
    expect(a.text).toBe('For most small businesses, HubSpot and Pipedrive are the strongest starting points.\n\n- **HubSpot**: free plan.');
    expect(a.citations.map((c) => [c.position, c.url, c.start])).toEqual([
      [1, 'https://zapier.com/blog/best-crm-app/', 0],
      [2, 'https://www.hubspot.com/products/crm', 85],
      [1, 'https://zapier.com/blog/best-crm-app/', 85],
    ]);
  });

  test('an organic SERP without an ai_overview item is no surface', async () => {
    up.fake.setBehavior('google-ai-overview', { fixture: 'dataforseo-google-organic-no-ai-overview.json' });
    const r = await up.ask('google-ai-overview', {}, { googleSerp: 'dataforseo' });
    expect(isNoSurface(r) && r.reason).toBe('no AI answer on the results page');
  });
});

describe('copilot (SearchApi bing_copilot, built)', () => {
  test('markdown is the text; reference_links are the sources, numbered as given', async () => {
    const a = asAnswer(await up.ask('copilot'));
    expect(a.text).toBe(
      '## What is a blockchain?\n\nA blockchain is a shared, append-only ledger that records transactions across many computers.\n\n- Decentralized: no single party controls the ledger.\n- Immutable: recorded blocks cannot be changed.',
    );
    expect(a.citations).toEqual([
      { url: 'https://www.ibm.com/think/topics/blockchain', title: 'What Is Blockchain? | IBM', position: 1 },
      { url: 'https://en.wikipedia.org/wiki/Blockchain', title: 'Blockchain - Wikipedia', position: 2 },
      { url: 'https://www.investopedia.com/terms/b/blockchain.asp', title: 'Blockchain Facts: What Is It, How It Works - Investopedia', position: 3 },
    ]);
    expect(a.surface).toBe('serp');
  });

  test('no markdown answer is no surface', async () => {
    up.fake.setBehavior('copilot', { body: { search_metadata: { status: 'Success' }, text_blocks: [], reference_links: [] } });
    expect(isNoSurface(await up.ask('copilot'))).toBe(true);
  });
});

describe('openai-compatible (chat completions, built)', () => {
  test('markdown links and bare URLs in the text are the citations', async () => {
    const a = asAnswer(await up.ask('openai-compatible'));
    expect(a.text).toBe(
      'Popular open-source analytics tools include [Plausible](https://plausible.io/docs) and Matomo (https://matomo.org/). See also https://umami.is/docs, and Plausible again: https://plausible.io/docs.',
    );
    expect(spans(a)).toEqual([
      [1, '[Plausible](https://plausible.io/docs)'],
      [2, 'https://matomo.org/'],
      [3, 'https://umami.is/docs'],
      [1, 'https://plausible.io/docs'],
    ]);
    expect(a.citations[0]!.title).toBe('Plausible');
    expect(a.citations[3]!.title).toBe('Plausible');
    expect(a.model).toBe('llama3.1:8b');
  });

  test('OpenRouter url_citation annotations win over links in the text', async () => {
    up.fake.setBehavior('openai-compatible', {
      body: {
        model: 'openai/gpt-4o:online',
        choices: [
          {
            finish_reason: 'stop',
            message: {
              content: 'Acme is popular (https://ignored.example).',
              annotations: [{ type: 'url_citation', url_citation: { url: 'https://acme.example/?utm_source=openrouter', title: 'Acme', start_index: 0, end_index: 4 } }],
            },
          },
        ],
      },
    });
    expect(asAnswer(await up.ask('openai-compatible')).citations).toEqual([{ url: 'https://acme.example/', title: 'Acme', position: 1, start: 0, end: 4 }]);
  });
});

describe('stripTracking', () => {
  test('gives what parsing every URL gives, for keys spelled, escaped or split in any way', () => {
    const urls = [
      'https://acme.example/a?utm_source=openai',
      'https://acme.example/a?UTM_Medium=x&b=1',
      'https://acme.example/a?%75tm_source=x',
      'https://acme.example/a?u%74m_source=x&c=2',
      'https://acme.example/a?ut\tm_source=x',
      'https://acme.example/a?utm\n_source=x',
      'https://acme.example/a?b=1#utm_source=x',
      'https://Acme.example/a?b=1',
      'https://acme.example/a b?c=1',
      'not a url utm_source',
      'https://acme.example/%7Ea?x=%20',
      'https://acme.example/a?utm=1&utmx=2',
    ];
    for (const url of urls) expect(stripTracking(url)).toBe(withoutUtmKeys(url));
  });
});
