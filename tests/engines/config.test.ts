import { describe, expect, test } from 'bun:test';
import { createEngineRegistry, EngineError, engineVariables, loadEngineConfig, PLATFORM_IDS } from '../../src/engines';
import { rejection } from './harness';

function configError(env: Record<string, string>): EngineError {
  try {
    loadEngineConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    return error as EngineError;
  }
  throw new Error('expected a configuration error');
}

describe('loadEngineConfig', () => {
  test('an empty environment: nothing configured, each platform names the variable to set', () => {
    const registry = createEngineRegistry(loadEngineConfig({}));
    expect(Object.fromEntries(registry.status().map((s) => [s.platform, s.missing]))).toEqual({
      chatgpt: 'OPENAI_API_KEY',
      perplexity: 'PERPLEXITY_API_KEY',
      gemini: 'GEMINI_API_KEY',
      claude: 'ANTHROPIC_API_KEY',
      grok: 'XAI_API_KEY',
      'google-ai-overview': 'SERPAPI_API_KEY (or DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD)',
      'google-ai-mode': 'SERPAPI_API_KEY (or DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD)',
      copilot: 'SEARCHAPI_API_KEY',
      'openai-compatible': 'OPENAI_COMPATIBLE_MODEL',
    });
    expect(registry.status().every((s) => !s.configured)).toBe(true);
  });

  test('defaults: base URLs, models, timeout, concurrency and rate', () => {
    const { platforms } = loadEngineConfig({ OPENAI_API_KEY: 'k' });
    expect(platforms.chatgpt).toMatchObject({
      provider: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-6.1-terra',
      timeoutMs: 120_000,
      concurrency: 4,
      rpm: 60,
      apiKey: 'k',
    });
    expect(platforms.chatgpt.missing).toBeUndefined();
    expect(platforms.gemini.baseUrl).toBe('https://generativelanguage.googleapis.com/v1beta');
    expect(platforms['openai-compatible'].baseUrl).toBe('http://localhost:11434/v1');
  });

  test('per-platform overrides, trailing slash trimmed, empty values treated as unset', () => {
    const { platforms } = loadEngineConfig({
      ANTHROPIC_API_KEY: 'a',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999/v1/',
      ANTHROPIC_MODEL: 'claude-opus-5-5',
      ANTHROPIC_TIMEOUT_MS: '5000',
      ANTHROPIC_CONCURRENCY: '2',
      ANTHROPIC_RPM: '0',
      XAI_API_KEY: '',
      XAI_MODEL: '  ',
    });
    expect(platforms.claude).toMatchObject({ baseUrl: 'http://127.0.0.1:9999/v1', model: 'claude-opus-5-5', timeoutMs: 5000, concurrency: 2, rpm: 0 });
    expect(platforms.grok.missing).toBe('XAI_API_KEY');
    expect(platforms.grok.model).toBe('grok-4.3');
  });

  test('invalid values are one error naming every offending variable', () => {
    const e = configError({ OPENAI_TIMEOUT_MS: 'soon', GEMINI_CONCURRENCY: '0', SERPAPI_BASE_URL: 'ftp://x', GOOGLE_SERP_PROVIDER: 'bing', PERPLEXITY_RPM: '-1' });
    expect([e.kind, e.permanent, e.variable]).toEqual(['config', true, 'OPENAI_TIMEOUT_MS']);
    for (const name of ['OPENAI_TIMEOUT_MS', 'GEMINI_CONCURRENCY', 'SERPAPI_BASE_URL', 'GOOGLE_SERP_PROVIDER', 'PERPLEXITY_RPM']) {
      expect(e.message).toContain(name);
    }
    // The Google surfaces share the SerpApi variables: the problem is reported once.
    expect(e.message.split('SERPAPI_BASE_URL').length).toBe(2);
  });

  test('Google surfaces: SerpApi when its key is set, else DataForSEO, or as GOOGLE_SERP_PROVIDER says', () => {
    const both = { SERPAPI_API_KEY: 's', DATAFORSEO_LOGIN: 'l', DATAFORSEO_PASSWORD: 'p' };
    expect(loadEngineConfig(both).platforms['google-ai-mode'].provider).toBe('serpapi');
    expect(loadEngineConfig({ DATAFORSEO_LOGIN: 'l', DATAFORSEO_PASSWORD: 'p' }).platforms['google-ai-overview']).toMatchObject({
      provider: 'dataforseo',
      baseUrl: 'https://api.dataforseo.com',
      login: 'l',
      password: 'p',
    });
    expect(loadEngineConfig({ ...both, GOOGLE_SERP_PROVIDER: 'dataforseo' }).platforms['google-ai-overview'].provider).toBe('dataforseo');
    expect(loadEngineConfig({ DATAFORSEO_LOGIN: 'l' }).platforms['google-ai-overview'].missing).toBe('DATAFORSEO_PASSWORD');
    expect(loadEngineConfig({ GOOGLE_SERP_PROVIDER: 'serpapi', DATAFORSEO_LOGIN: 'l', DATAFORSEO_PASSWORD: 'p' }).platforms['google-ai-mode'].missing).toBe('SERPAPI_API_KEY');
  });

  test('openai-compatible is configured by its model; the key is optional', () => {
    const { platforms } = loadEngineConfig({ OPENAI_COMPATIBLE_MODEL: 'qwen2.5:7b', OPENAI_COMPATIBLE_BASE_URL: 'http://vllm:8000/v1' });
    expect(platforms['openai-compatible']).toMatchObject({ model: 'qwen2.5:7b', baseUrl: 'http://vllm:8000/v1' });
    expect(platforms['openai-compatible'].missing).toBeUndefined();
  });

  test('a retired <P>_MODEL is refused naming the variable and the replacement (XAI_MODEL=grok-3 → grok-4.3)', () => {
    const e = configError({ XAI_API_KEY: 'k', XAI_MODEL: 'grok-3' });
    expect([e.kind, e.permanent, e.variable]).toEqual(['config', true, 'XAI_MODEL']);
    expect(e.message).toStartWith('invalid engine configuration: XAI_MODEL: grok-3 was retired by xAI on 2026-05-15; use grok-4.3 instead');
    expect(e.message).toContain('set XAI_MODEL=grok-4.3');
    // The old defaults of issue #15 are refused the same way.
    for (const [variable, model, replacement] of [
      ['XAI_MODEL', 'grok-4-fast-reasoning', 'grok-4.3'],
      ['GEMINI_MODEL', 'gemini-2.0-flash', 'gemini-3.5-flash'],
      ['ANTHROPIC_MODEL', 'claude-opus-4-1', 'claude-opus-5-5'],
    ]) {
      const err = configError({ [variable!]: model! });
      expect(err.variable).toBe(variable);
      expect(err.message).toContain(replacement!);
    }
  });

  test('engineVariables lists every variable the loader reads', () => {
    const names = engineVariables().map((v) => v.name);
    for (const suffix of ['API_KEY', 'BASE_URL', 'TIMEOUT_MS', 'CONCURRENCY', 'RPM']) {
      for (const prefix of ['OPENAI', 'PERPLEXITY', 'GEMINI', 'ANTHROPIC', 'XAI', 'SERPAPI', 'SEARCHAPI', 'OPENAI_COMPATIBLE']) {
        expect(names).toContain(`${prefix}_${suffix}`);
      }
    }
    expect(names).toEqual(
      expect.arrayContaining(['DATAFORSEO_LOGIN', 'DATAFORSEO_PASSWORD', 'DATAFORSEO_BASE_URL', 'GOOGLE_SERP_PROVIDER', 'OPENAI_MODEL', 'OPENAI_COMPATIBLE_MODEL', 'MODELS_FILE', 'PERPLEXITY_API']),
    );
    // The defaults shown come from the catalogue.
    expect(engineVariables().find((v) => v.name === 'XAI_MODEL')?.default).toBe('grok-4.3');
  });

  test('the README lists every variable', async () => {
    const readme = await Bun.file(`${import.meta.dir}/../../src/engines/README.md`).text();
    for (const v of engineVariables()) expect(readme).toContain(v.name);
  });
});

describe('registry', () => {
  const registry = createEngineRegistry(loadEngineConfig({ OPENAI_API_KEY: 'k', OPENAI_COMPATIBLE_MODEL: 'mistral-nemo', ANTHROPIC_MODEL: 'claude-opus-5-5' }));

  test('platform ids, default models and known models', () => {
    expect(registry.platforms).toEqual(PLATFORM_IDS);
    expect(registry.defaultModel('perplexity')).toBe('sonar');
    expect(registry.defaultModel('claude')).toBe('claude-opus-5-5');
    expect(registry.knownModels('perplexity')).toContain('sonar-pro');
    expect(registry.knownModels('openai-compatible')).toEqual(['mistral-nemo']);
    expect(registry.knownModels('google-ai-mode')).toEqual(['google-ai-mode']);
  });

  test('platformOfModel: known ids, dated ids by family, the configured compatible model, unknown', () => {
    expect(registry.platformOfModel('gpt-4o')).toBe('chatgpt');
    expect(registry.platformOfModel('gpt-5-mini-2025-08-07')).toBe('chatgpt');
    expect(registry.platformOfModel('o3')).toBe('chatgpt');
    expect(registry.platformOfModel('sonar-reasoning-pro')).toBe('perplexity');
    expect(registry.platformOfModel('gemini-2.5-pro')).toBe('gemini');
    expect(registry.platformOfModel('claude-sonnet-4-20250514')).toBe('claude');
    expect(registry.platformOfModel('grok-4')).toBe('grok');
    expect(registry.platformOfModel('google-ai-overview')).toBe('google-ai-overview');
    expect(registry.platformOfModel('copilot')).toBe('copilot');
    expect(registry.platformOfModel('mistral-nemo')).toBe('openai-compatible');
    expect(registry.platformOfModel('llama-9000')).toBeUndefined();
  });

  test('configured platforms, and the variable to set for the others', () => {
    expect(registry.isConfigured('chatgpt')).toBe(true);
    expect(registry.isConfigured('openai-compatible')).toBe(true);
    expect(registry.isConfigured('gemini')).toBe(false);
    expect(registry.missingVariable('gemini')).toBe('GEMINI_API_KEY');
    expect(registry.status().find((s) => s.platform === 'copilot')).toEqual({
      platform: 'copilot',
      surface: 'serp',
      provider: 'searchapi',
      configured: false,
      defaultModel: 'copilot',
      missing: 'SEARCHAPI_API_KEY',
    });
  });

  test('engine() of an unconfigured platform is a config error naming the variable', async () => {
    const e = await rejection(Promise.resolve().then(() => registry.engine('gemini')));
    expect([e.kind, e.variable, e.platform]).toEqual(['config', 'GEMINI_API_KEY', 'gemini']);
    expect(e.message).toBe('gemini is not configured: set GEMINI_API_KEY');
  });

  test('engine() of a configured platform says its surface and default model', () => {
    const e = registry.engine('chatgpt');
    expect([e.platform, e.surface, e.defaultModel]).toEqual(['chatgpt', 'api', 'gpt-6.1-terra']);
  });
});
