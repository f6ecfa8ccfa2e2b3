/**
 * Acceptance 2: the requests the fake upstream recorded carry the right path, auth header, model,
 * web-search tool or SERP parameters, and the region/language.
 */
import { describe, expect, test } from 'bun:test';
import { COMPAT_MODEL, FAKE_KEYS, readFixture, type RecordedRequest } from '../fakes/upstream';
import { rejection, useFakeUpstream } from './harness';

const up = useFakeUpstream();
const PROMPT = 'best project management tool';

async function only(platform: Parameters<typeof up.ask>[0], request: Parameters<typeof up.ask>[1], opts?: Parameters<typeof up.ask>[2]): Promise<RecordedRequest> {
  await up.ask(platform, { prompt: PROMPT, ...request }, opts);
  const reqs = up.fake.requestsFor(platform);
  expect(reqs).toHaveLength(1);
  return reqs[0]!;
}

describe('API platforms', () => {
  test('chatgpt: POST /v1/responses, bearer key, web_search with the user location, language line', async () => {
    const r = await only('chatgpt', { region: 'de', language: 'de' });
    expect([r.method, r.fullPath]).toEqual(['POST', '/openai/v1/responses']);
    expect(r.headers.authorization).toBe(`Bearer ${FAKE_KEYS.openai}`);
    expect(r.body).toEqual({
      model: 'gpt-6.1-terra',
      input: [
        { role: 'system', content: 'Answer in German.' },
        { role: 'user', content: PROMPT },
      ],
      tools: [{ type: 'web_search', user_location: { type: 'approximate', country: 'DE' } }],
      // The sources each search returned, for retrieved vs cited.
      include: ['web_search_call.action.sources'],
    });
  });

  test('chatgpt: no region, no language: the bare prompt and tool', async () => {
    const r = await only('chatgpt', { model: 'gpt-4.1' });
    expect(r.body).toEqual({ model: 'gpt-4.1', input: PROMPT, tools: [{ type: 'web_search' }], include: ['web_search_call.action.sources'] });
  });

  test('grok: an upstream that refuses web_search.user_location gets the call once more with the country as a line', async () => {
    up.fake.setBehavior('grok', {
      respond: async (req) =>
        (req.body as any).tools[0].user_location
          ? Response.json({ code: 'Client specified an invalid argument', error: 'user_location is not supported' }, { status: 400 })
          : Response.json(JSON.parse(await readFixture('xai-responses-web-search.json'))),
    });
    const answer = await up.ask('grok', { region: 'DE', language: 'de' });
    expect('text' in answer && answer.text.length).toBeGreaterThan(0);
    const [first, second] = up.fake.requestsFor('grok');
    expect((first!.body as any).tools[0].user_location).toEqual({ type: 'approximate', country: 'DE' });
    expect((second!.body as any).tools).toEqual([{ type: 'web_search' }]);
    expect((second!.body as any).input[0]).toEqual({ role: 'system', content: 'Answer in German. The user is in Germany.' });
    // Any other refusal is not retried.
    up.fake.setBehavior('grok', { status: 400 });
    await expect(up.ask('grok', { region: 'DE' })).rejects.toMatchObject({ kind: 'rejected' });
    expect(up.fake.requestsFor('grok')).toHaveLength(3);
  });

  test('grok: POST /v1/responses with web_search and the approximate user location, language line', async () => {
    const r = await only('grok', { region: 'US', language: 'en' });
    expect(r.fullPath).toBe('/xai/v1/responses');
    expect(r.headers.authorization).toBe(`Bearer ${FAKE_KEYS.xai}`);
    expect(r.body).toEqual({
      model: 'grok-4.3',
      input: [
        { role: 'system', content: 'Answer in English.' },
        { role: 'user', content: PROMPT },
      ],
      tools: [{ type: 'web_search', user_location: { type: 'approximate', country: 'US' } }],
    });
  });

  test('claude: POST /v1/messages, x-api-key and version, web_search_20250305 with the user location', async () => {
    const r = await only('claude', { region: 'FR', language: 'fr' });
    expect(r.fullPath).toBe('/anthropic/v1/messages');
    expect(r.headers['x-api-key']).toBe(FAKE_KEYS.anthropic);
    expect(r.headers['anthropic-version']).toBe('2023-06-01');
    expect(r.body).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: 4096,
      system: 'Answer in French.',
      messages: [{ role: 'user', content: PROMPT }],
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5, user_location: { type: 'approximate', country: 'FR' } }],
    });
  });

  test('gemini: POST /models/{model}:generateContent, x-goog-api-key, google_search tool, language instruction', async () => {
    const r = await only('gemini', { model: 'gemini-2.5-pro', region: 'US', language: 'es' });
    expect(r.fullPath).toBe('/gemini/v1beta/models/gemini-2.5-pro:generateContent');
    expect(r.headers['x-goog-api-key']).toBe(FAKE_KEYS.gemini);
    expect(r.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
      tools: [{ google_search: {} }],
      systemInstruction: { parts: [{ text: 'Answer in Spanish.' }] },
    });
  });

  test('perplexity: POST /chat/completions, bearer key, user_location country and language fields (no instruction line)', async () => {
    const r = await only('perplexity', { model: 'sonar-pro', region: 'gb', language: 'en' });
    expect(r.fullPath).toBe('/perplexity/chat/completions');
    expect(r.headers.authorization).toBe(`Bearer ${FAKE_KEYS.perplexity}`);
    expect(r.body).toEqual({
      model: 'sonar-pro',
      messages: [{ role: 'user', content: PROMPT }],
      search_language_filter: ['en'],
      language_preference: 'en',
      web_search_options: { user_location: { country: 'GB' } },
    });
  });

  test('perplexity: a language with no ISO 639-1 code falls back to the instruction line', async () => {
    const r = await only('perplexity', { language: 'tlh' });
    expect(r.body).toEqual({
      model: 'sonar',
      messages: [
        { role: 'system', content: 'Answer in Klingon.' },
        { role: 'user', content: PROMPT },
      ],
    });
  });

  test('openai-compatible: POST /chat/completions with the configured model', async () => {
    const r = await only('openai-compatible', {});
    expect(r.fullPath).toBe('/compat/v1/chat/completions');
    expect(r.headers.authorization).toBe(`Bearer ${FAKE_KEYS.compat}`);
    expect(r.body).toEqual({ model: COMPAT_MODEL, messages: [{ role: 'user', content: PROMPT }] });
  });

  test('openai-compatible without a key sends no Authorization (Ollama, vLLM)', async () => {
    const r = await only('openai-compatible', {}, { env: { OPENAI_COMPATIBLE_API_KEY: '' } });
    expect(r.headers.authorization).toBeUndefined();
  });
});

describe('SERP platforms', () => {
  test('google-ai-overview via SerpApi: GET /search.json engine=google with q, location, gl, hl and api_key', async () => {
    const r = await only('google-ai-overview', { region: 'GB', language: 'en' });
    expect([r.method, r.fullPath]).toEqual(['GET', '/serpapi/search.json']);
    expect(r.query).toEqual({ engine: 'google', q: PROMPT, location: 'United Kingdom', gl: 'uk', hl: 'en', api_key: FAKE_KEYS.serpapi });
  });

  test('google-ai-mode via SerpApi: engine=google_ai_mode, hl as SerpApi spells it', async () => {
    const r = await only('google-ai-mode', { region: 'US', language: 'pt-BR' });
    expect(r.query).toEqual({ engine: 'google_ai_mode', q: PROMPT, location: 'United States', gl: 'us', hl: 'pt-br', api_key: FAKE_KEYS.serpapi });
  });

  test('SerpApi: an unknown region or language is left out, not sent as typed', async () => {
    const r = await only('google-ai-mode', { region: 'XX', language: 'tlh' });
    expect(r.query).toEqual({ engine: 'google_ai_mode', q: PROMPT, api_key: FAKE_KEYS.serpapi });
  });

  test('google-ai-overview via DataForSEO: POST organic live advanced, Basic auth, location_code and language_code', async () => {
    const r = await only('google-ai-overview', { region: 'DE', language: 'de' }, { googleSerp: 'dataforseo' });
    expect([r.method, r.fullPath]).toEqual(['POST', '/dataforseo/v3/serp/google/organic/live/advanced']);
    expect(r.headers.authorization).toBe(`Basic ${btoa(`${FAKE_KEYS.dataforseoLogin}:${FAKE_KEYS.dataforseoPassword}`)}`);
    expect(r.body).toEqual([{ keyword: PROMPT, location_code: 2276, language_code: 'de', load_async_ai_overview: true }]);
  });

  test('google-ai-mode via DataForSEO: POST ai_mode live advanced, US English by default', async () => {
    const r = await only('google-ai-mode', {}, { googleSerp: 'dataforseo' });
    expect(r.fullPath).toBe('/dataforseo/v3/serp/google/ai_mode/live/advanced');
    expect(r.body).toEqual([{ keyword: PROMPT, location_code: 2840, language_code: 'en' }]);
  });

  test('DataForSEO: a region or language it has no code for is refused before any call', async () => {
    for (const request of [{ region: 'XX' }, { region: 'RU' }, { language: 'tlh' }]) {
      const error = await rejection(up.ask('google-ai-mode', { prompt: PROMPT, ...request }, { googleSerp: 'dataforseo' }));
      expect(error).toMatchObject({ kind: 'rejected', permanent: true, platform: 'google-ai-mode' });
      expect(error.message).toContain(request.region ?? request.language);
    }
    expect(up.fake.requestsFor('google-ai-mode')).toHaveLength(0);
  });

  test('copilot via SearchApi: GET /search engine=bing_copilot, bearer key, language in the query', async () => {
    const r = await only('copilot', { region: 'US', language: 'ko' });
    expect([r.method, r.fullPath]).toEqual(['GET', '/searchapi/api/v1/search']);
    expect(r.headers.authorization).toBe(`Bearer ${FAKE_KEYS.searchapi}`);
    expect(r.query).toEqual({ engine: 'bing_copilot', q: `${PROMPT}\nAnswer in Korean.` });
  });
});
