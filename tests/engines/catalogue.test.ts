/**
 * Issue #15: the model catalogue (data, not code), retired models refused with their replacement,
 * an upstream "no such model" as a permanent error naming the replacement, MODELS_FILE, and the
 * Perplexity Agent API.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CATALOGUED_PLATFORMS,
  createEngineRegistry,
  EngineError,
  loadEngineConfig,
  modelStatus,
  shippedModels,
  type Answer,
  type PlatformId,
} from '../../src/engines';
import { FAKE_KEYS } from '../fakes/upstream';
import { rejection, useFakeUpstream } from './harness';

const up = useFakeUpstream();
/** Dates in these tests are compared with a fixed day, so they do not change meaning as time passes. */
const NOW = new Date('2026-11-23T12:00:00Z');
const AFTER_DEC_11 = new Date('2026-12-12T12:00:00Z');

const dir = mkdtempSync(join(tmpdir(), 'aw-models-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function modelsFile(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

const src = { url: 'https://example.com/models', checked: '2026-11-20' };

function registryAt(env: Record<string, string | undefined>, now = NOW) {
  return createEngineRegistry(loadEngineConfig(env, { now }), { now: () => now });
}

function configError(env: Record<string, string | undefined>, now = NOW): EngineError {
  try {
    loadEngineConfig(env, { now });
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).kind).toBe('config');
    return error as EngineError;
  }
  throw new Error('expected a configuration error');
}

describe('the shipped catalogue', () => {
  const catalogue = shippedModels();

  test('every platform has a default that works today, and every fact has a source (URL and date checked)', () => {
    for (const p of CATALOGUED_PLATFORMS) {
      const platform = catalogue.platforms[p];
      expect(modelStatus(catalogue, platform.default, '2026-11-23').status).toBe('active');
      expect(platform.source.url).toStartWith('https://');
      for (const m of platform.models) {
        expect(m.source.url).toStartWith('https://');
        expect(m.source.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
    }
  });

  test('the retired defaults of issue #15 are retired, with their replacements', () => {
    const st = (m: string, day = '2026-11-23') => modelStatus(catalogue, m, day);
    expect(st('grok-4-fast-reasoning')).toMatchObject({ platform: 'grok', status: 'retired', retiresOn: '2026-05-15', replacement: 'grok-4.3' });
    expect(st('grok-3')).toMatchObject({ status: 'retired', replacement: 'grok-4.3' });
    expect(st('gemini-2.0-flash')).toMatchObject({ platform: 'gemini', status: 'retired', retiresOn: '2026-06-01' });
    for (const m of ['claude-opus-4-1', 'claude-opus-4-0', 'claude-sonnet-4-0', 'claude-3-7-sonnet-latest', 'claude-3-5-haiku-latest']) {
      expect(st(m)).toMatchObject({ platform: 'claude', status: 'retired' });
    }
    // An alias (a dated snapshot) shares its model's status.
    expect(st('claude-3-5-haiku-20241022')).toMatchObject({ status: 'retired', replacement: 'claude-haiku-4-5' });
    // Deprecated until the date, retired from it on.
    expect(st('gemini-2.5-flash')).toMatchObject({ status: 'deprecated', retiresOn: '2026-12-01' });
    expect(st('gpt-5-mini')).toMatchObject({ status: 'deprecated', replacement: 'gpt-6.1-terra' });
    expect(st('gpt-5-mini', '2026-12-11').status).toBe('retired');
    expect(st('no-such-model').status).toBe('unknown');
    expect(st('grok-3').message).toBe(
      'grok-3 was retired by xAI on 2026-05-15; use grok-4.3 instead (source: https://docs.x.ai/developers/migration/may-15-retirement, checked 2026-11-23)',
    );
  });

  test('the defaults moved to current models', () => {
    const registry = registryAt({});
    expect(Object.fromEntries(CATALOGUED_PLATFORMS.map((p) => [p, registry.defaultModel(p)]))).toEqual({
      chatgpt: 'gpt-6.1-terra',
      perplexity: 'sonar',
      gemini: 'gemini-3.8-flash',
      claude: 'claude-sonnet-5-5',
      grok: 'grok-4.3',
    });
  });
});

describe('registry.modelStatus: what /api/tracking/start asks before accepting a model', () => {
  const registry = registryAt({ XAI_API_KEY: 'k', OPENAI_API_KEY: 'k', OPENAI_COMPATIBLE_MODEL: 'qwen2.5:7b' });

  test('a retired model: its platform, the date, the replacement and a message naming it', () => {
    expect(registry.platformOfModel('grok-3')).toBe('grok');
    const st = registry.modelStatus('grok-3');
    expect(st).toMatchObject({ platform: 'grok', status: 'retired', retiresOn: '2026-05-15', replacement: 'grok-4.3' });
    expect(st.message).toContain('use grok-4.3');
    expect(st.source?.url).toBe('https://docs.x.ai/developers/migration/may-15-retirement');
  });

  test('retired models are not offered; deprecated ones are, until their day', () => {
    expect(registry.knownModels('grok')).toContain('grok-4.3');
    expect(registry.knownModels('grok')).not.toContain('grok-3');
    expect(registry.knownModels('chatgpt')).toContain('gpt-5-mini');
    expect(registryAt({}, AFTER_DEC_11).knownModels('chatgpt')).not.toContain('gpt-5-mini');
    expect(registryAt({}, AFTER_DEC_11).modelStatus('gpt-5-mini').status).toBe('retired');
  });

  test('active, deprecated, unknown; the SERP surfaces and the compatible model are active', () => {
    expect(registry.modelStatus('grok-4.3')).toMatchObject({ platform: 'grok', status: 'active' });
    expect(registry.modelStatus('gpt-5-mini')).toMatchObject({ platform: 'chatgpt', status: 'deprecated', retiresOn: '2026-12-11' });
    expect(registry.modelStatus('grok-17')).toMatchObject({ platform: 'grok', status: 'unknown' });
    expect(registry.modelStatus('copilot')).toMatchObject({ platform: 'copilot', status: 'active' });
    expect(registry.modelStatus('qwen2.5:7b')).toMatchObject({ platform: 'openai-compatible', status: 'active' });
    expect(registry.modelStatus('perplexity/sonar')).toMatchObject({ platform: 'perplexity', status: 'active' });
  });

  test('asking a retired model fails at once, permanently, naming the replacement; nothing is sent', async () => {
    const r = createEngineRegistry(loadEngineConfig(up.fake.env(), { now: NOW }), { now: () => NOW });
    const e = await rejection(r.engine('grok').ask({ prompt: 'x', model: 'grok-3' }));
    expect([e.kind, e.permanent, e.code, e.model, e.replacement]).toEqual(['rejected', true, 'model_retired', 'grok-3', 'grok-4.3']);
    expect(e.message).toContain('grok-4.3');
    expect(up.fake.requests).toHaveLength(0);
  });
});

describe('a configured <P>_MODEL that is retired', () => {
  test('XAI_MODEL=grok-3 is a configuration error naming the variable and grok-4.3', () => {
    const e = configError({ XAI_API_KEY: 'k', XAI_MODEL: 'grok-3' });
    expect(e.variable).toBe('XAI_MODEL');
    expect(e.message).toContain('XAI_MODEL');
    expect(e.message).toContain('set XAI_MODEL=grok-4.3');
  });

  test('an alias counts, and every retired variable is named at once', () => {
    const e = configError({ ANTHROPIC_MODEL: 'claude-3-5-haiku-20241022', GEMINI_MODEL: 'gemini-2.0-flash' });
    expect(e.message).toContain('ANTHROPIC_MODEL');
    expect(e.message).toContain('claude-haiku-4-5');
    expect(e.message).toContain('GEMINI_MODEL');
  });

  test('a deprecated model still loads, with a warning; an unknown one loads silently', () => {
    const config = loadEngineConfig({ OPENAI_MODEL: 'gpt-5-mini', XAI_MODEL: 'grok-9' }, { now: NOW });
    expect(config.platforms.chatgpt.model).toBe('gpt-5-mini');
    expect(config.warnings).toEqual([expect.stringContaining('OPENAI_MODEL: gpt-5-mini is deprecated by OpenAI and stops working on 2026-12-11; use gpt-6.1-terra')]);
    expect(config.platforms.grok.model).toBe('grok-9');
  });

  test('the server refuses to start (exit 2) naming XAI_MODEL and grok-4.3', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aw-retired-'));
    try {
      const proc = Bun.spawn([process.execPath, 'src/main.ts', 'serve'], {
        cwd: `${import.meta.dir}/../..`,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DATA_DIR: dataDir, PORT: '0', XAI_API_KEY: 'k', XAI_MODEL: 'grok-3' },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      expect(code).toBe(2);
      expect(stderr).toContain('XAI_MODEL');
      expect(stderr).toContain('grok-4.3');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('an upstream "no such model" is a permanent error naming the model and the replacement', () => {
  // Each provider answers with its own body (tests/fakes/upstream.ts modelNotFoundResponse).
  const cases: Array<{ platform: PlatformId; model: string; replacement?: string; status: number; env?: Record<string, string> }> = [
    { platform: 'chatgpt', model: 'gpt-5-mini', replacement: 'gpt-6.1-terra', status: 404 },
    { platform: 'claude', model: 'claude-sonnet-4-5', replacement: 'claude-sonnet-5-5', status: 404 },
    { platform: 'gemini', model: 'gemini-2.5-flash', replacement: 'gemini-3.5-flash-lite', status: 404 },
    { platform: 'grok', model: 'grok-9', replacement: 'grok-4.3', status: 404 },
    { platform: 'perplexity', model: 'sonar-huge', replacement: 'sonar', status: 400 },
    { platform: 'perplexity', model: 'perplexity/sonar-huge', replacement: 'sonar', status: 400, env: { PERPLEXITY_API: 'agent' } },
    { platform: 'openai-compatible', model: 'llama9', status: 404 },
  ];
  for (const c of cases) {
    test(`${c.platform}${c.env ? ' (Agent API)' : ''}: HTTP ${c.status} for ${c.model}`, async () => {
      up.fake.setBehavior(c.platform, { modelNotFound: true });
      const r = registryAt({ ...up.fake.env(), ...c.env });
      const e = await rejection(r.engine(c.platform).ask({ prompt: 'x', model: c.model }));
      expect([e.kind, e.permanent, e.code, e.status, e.model]).toEqual(['rejected', true, 'model_not_found', c.status, c.model]);
      expect(e.message).toContain(`"${c.model}"`);
      if (c.replacement) {
        expect(e.replacement).toBe(c.replacement);
        expect(e.message).toContain(c.replacement);
      } else expect(e.message).toContain('answerwatch doctor');
      expect(up.fake.requestsFor(c.platform)).toHaveLength(1);
    });
  }

  test("a model the fake does not list ('unlisted') fails, a listed one answers", async () => {
    up.fake.setBehavior('grok', { modelNotFound: 'unlisted' });
    const r = registryAt(up.fake.env());
    expect((await r.engine('grok').ask({ prompt: 'x' })).platform).toBe('grok');
    const e = await rejection(r.engine('grok').ask({ prompt: 'x', model: 'grok-4.99' }));
    expect(e.code).toBe('model_not_found');
    expect(e.message).toContain('run `answerwatch models`');
  });

  test('other 4xx stay plain rejections', async () => {
    up.fake.setBehavior('chatgpt', { status: 400, body: { error: { message: "Unknown parameter: 'foo'.", type: 'invalid_request_error', param: 'foo', code: 'unknown_parameter' } } });
    const e = await rejection(registryAt(up.fake.env()).engine('chatgpt').ask({ prompt: 'x' }));
    expect([e.kind, e.code]).toEqual(['rejected', undefined]);
  });
});

describe('MODELS_FILE', () => {
  const override = {
    version: 1,
    platforms: {
      grok: {
        default: 'grok-5',
        source: src,
        models: [
          { id: 'grok-5', source: src },
          { id: 'grok-4.3', retires: '2026-12-31', replacement: 'grok-5', source: src },
        ],
      },
    },
  };

  test('entries merge over the shipped ones: new default and models added, a same-id entry replaced, the rest kept', () => {
    const registry = registryAt({ MODELS_FILE: modelsFile('ok.json', override), XAI_API_KEY: 'k' });
    expect(registry.defaultModel('grok')).toBe('grok-5');
    expect(registry.knownModels('grok')).toEqual(expect.arrayContaining(['grok-5', 'grok-4.3', 'grok-4.20-non-reasoning']));
    expect(registry.modelStatus('grok-4.3')).toMatchObject({ status: 'deprecated', retiresOn: '2026-12-31', replacement: 'grok-5', source: src });
    // Shipped facts the file does not touch stay.
    expect(registry.modelStatus('grok-3')).toMatchObject({ status: 'retired', replacement: 'grok-4.3' });
    expect(registry.defaultModel('claude')).toBe('claude-sonnet-5-5');
    // After grok-4.3's day, a replacement chain ends at a model that works.
    const later = registryAt({ MODELS_FILE: modelsFile('ok.json', override) }, new Date('2027-01-02T00:00:00Z'));
    expect(later.modelStatus('grok-3').replacement).toBe('grok-5');
  });

  test('"replace": true drops the shipped models of that platform', () => {
    const file = modelsFile('replace.json', { platforms: { grok: { replace: true, models: [{ id: 'grok-4.3', source: src }] } } });
    const registry = registryAt({ MODELS_FILE: file });
    expect(registry.knownModels('grok')).toEqual(['grok-4.3']);
    expect(registry.modelStatus('grok-3').status).toBe('unknown');
  });

  test('a bad file is one configuration error naming the file and every bad field', () => {
    const file = modelsFile('bad.json', {
      platforms: {
        grok: { models: [{ id: 'grok-5', retires: 'May 15', source: src }, { id: 'grok-6' }] },
        bard: { default: 'bard-1' },
        claude: { default: 'claude-next' },
      },
    });
    const e = configError({ MODELS_FILE: file });
    expect(e.variable).toBe('MODELS_FILE');
    expect(e.message).toContain(`${file}: platforms.grok.models[0].retires: expected a date YYYY-MM-DD, got "May 15"`);
    expect(e.message).toContain(`${file}: platforms.grok.models[1].source: expected {"url": "https://…", "checked": "YYYY-MM-DD"}, got nothing`);
    expect(e.message).toContain(`${file}: platforms.bard: unknown platform`);
    expect(e.message).toContain(`${file}: platforms.claude.source:`);
  });

  test('a retired default, a missing file and invalid JSON are named precisely', () => {
    const retired = modelsFile('retired-default.json', { platforms: { grok: { default: 'grok-3', source: src } } });
    expect(configError({ MODELS_FILE: retired }).message).toContain(`${retired}: platforms.grok.default: grok-3 was retired by xAI on 2026-05-15; use grok-4.3`);
    expect(configError({ MODELS_FILE: join(dir, 'missing.json') }).message).toContain(`${join(dir, 'missing.json')}: cannot be read (ENOENT)`);
    const broken = modelsFile('broken.json', '{"platforms": {');
    expect(configError({ MODELS_FILE: broken }).message).toContain(`${broken}: not valid JSON`);
  });
});

describe('perplexity through the Agent API (PERPLEXITY_API=agent, the default)', () => {
  const agentEnv = () => ({ ...up.fake.env(), PERPLEXITY_API: 'agent' });

  test('the default when PERPLEXITY_API is unset; sonar when asked; anything else is a configuration error', () => {
    expect(loadEngineConfig({ PERPLEXITY_API_KEY: 'k' }).platforms.perplexity.api).toBe('agent');
    expect(loadEngineConfig({ PERPLEXITY_API: 'sonar' }).platforms.perplexity.api).toBe('sonar');
    expect(configError({ PERPLEXITY_API: 'chat' }).message).toContain('PERPLEXITY_API: expected one of agent, sonar, got "chat"');
  });

  test('POST /v1/agent: bearer key, perplexity/sonar with web_search forced, country and language in their fields', async () => {
    const r = registryAt(agentEnv());
    const a = (await r.engine('perplexity').ask({ prompt: 'best project management tool', region: 'de', language: 'de' })) as Answer;
    const req = up.fake.requestsFor('perplexity')[0]!;
    expect([req.method, req.fullPath, req.headers.authorization]).toEqual(['POST', '/perplexity/v1/agent', `Bearer ${FAKE_KEYS.perplexity}`]);
    expect(req.body).toEqual({
      model: 'perplexity/sonar',
      input: 'best project management tool',
      tools: [{ type: 'web_search', user_location: { country: 'DE' } }],
      tool_choice: { type: 'web_search' },
      language_preference: 'de',
    });
    expect(a).toMatchObject({ platform: 'perplexity', surface: 'api', model: 'perplexity/sonar', searchQueries: ['best project management tool 2026'] });
    expect(a.usage).toEqual({ inputTokens: 3007, outputTokens: 36, totalTokens: 3043, searchRequests: 1 });
  });

  test('[n] cites the search result with id n; tracking parameters stripped; uncited results are sources', async () => {
    const a = (await registryAt(agentEnv()).engine('perplexity').ask({ prompt: 'x' })) as Answer;
    expect(a.text).toBe('The most recommended tools are Acme and Globex.[1] Acme suits small teams best.[2][1]');
    expect(a.citations.map((c: any) => [c.position, c.url, a.text.slice(c.start, c.end)])).toEqual([
      [1, 'https://www.example-reviews.com/pm-tools', '[1]'],
      [2, 'https://acme.com/blog/planning', '[2]'],
      [1, 'https://www.example-reviews.com/pm-tools', '[1]'],
    ]);
    expect(a.sources.map((s: any) => [s.position, s.url, s.cited])).toEqual([
      [1, 'https://www.example-reviews.com/pm-tools', true],
      [2, 'https://acme.com/blog/planning', true],
      [3, 'https://globex.com/compare', false],
    ]);
  });

  test('the Sonar tiers run as presets (no forced search); a language without an ISO 639-1 code is a system line', async () => {
    const r = registryAt(agentEnv());
    await r.engine('perplexity').ask({ prompt: 'x', model: 'sonar-deep-research' });
    await r.engine('perplexity').ask({ prompt: 'x', model: 'sonar-pro', region: 'FR', language: 'yue' });
    const [deep, pro] = up.fake.requestsFor('perplexity').map((q) => q.body);
    expect(deep).toEqual({ preset: 'medium', input: 'x' });
    expect(pro).toMatchObject({ preset: 'low', tools: [{ type: 'web_search', user_location: { country: 'FR' } }] });
    expect((pro as any).tool_choice).toBeUndefined();
    expect((pro as any).input[0].role).toBe('system');
  });

  test('a cut-off run is truncated, a failed run (HTTP 200, status failed) transient, a refused key auth', async () => {
    up.fake.setBehavior('perplexity', { truncated: true });
    expect((await rejection(registryAt(agentEnv()).engine('perplexity').ask({ prompt: 'x' }))).kind).toBe('truncated');
    up.fake.setBehavior('perplexity', { body: { id: 'resp_1', object: 'response', status: 'failed', error: { message: 'model error', type: 'internal_error' }, output: [] } });
    const failed = await rejection(registryAt(agentEnv()).engine('perplexity').ask({ prompt: 'x' }));
    expect([failed.kind, failed.permanent]).toEqual(['transient', false]);
    expect(failed.message).toContain('model error');
    up.fake.setBehavior('perplexity', { status: 401 });
    const auth = await rejection(registryAt(agentEnv()).engine('perplexity').ask({ prompt: 'x' }));
    expect([auth.kind, auth.variable]).toEqual(['auth', 'PERPLEXITY_API_KEY']);
  });

  test('PERPLEXITY_API=sonar keeps the chat-completions endpoint', async () => {
    await registryAt({ ...up.fake.env(), PERPLEXITY_API: 'sonar' }).engine('perplexity').ask({ prompt: 'x' });
    expect(up.fake.requestsFor('perplexity')[0]!.path).toBe('/chat/completions');
  });
});
