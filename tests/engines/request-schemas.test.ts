/**
 * Issue #15: what each adapter sends (captured by the fake upstream) is valid against a schema of the
 * provider's own request specification (tests/fixtures/engines/schemas, provenance in its README:
 * OpenAI's extracted mechanically from its OpenAPI document, the others written from the provider's
 * OpenAPI or official SDK types), for no locale, DE/de and awkward locales, and carries the exact
 * locale values each provider's own lists use.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import googleGeoTargets from '../../src/engines/data/locales/google-geotargets-countries.json';
import iso3166 from '../../src/engines/data/locales/iso-3166-1.json';
import serpApiCountries from '../../src/engines/data/locales/serpapi-google-countries.json';
import serpApiLanguages from '../../src/engines/data/locales/serpapi-google-languages.json';
import { dataForSeoLanguage, dataForSeoLocation, serpApiLanguage } from '../../src/engines/locale';
import type { PlatformId } from '../../src/engines/types';
import { COMPAT_MODEL, type RecordedRequest } from '../fakes/upstream';
import { rejection, useFakeUpstream } from './harness';

const up = useFakeUpstream();
const PROMPT = 'best project management tool';
const SCHEMAS = join(import.meta.dir, '../fixtures/engines/schemas');

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<string, ValidateFunction>();

async function validator(file: string, def?: string): Promise<ValidateFunction> {
  const key = `${file}#${def ?? ''}`;
  if (!validators.has(key)) {
    const schema = await Bun.file(join(SCHEMAS, file)).json();
    if (!ajv.getSchema(schema.$id)) ajv.addSchema(schema);
    validators.set(key, ajv.compile({ $ref: def ? `${schema.$id}#/$defs/${def}` : schema.$id }));
  }
  return validators.get(key)!;
}

async function expectValid(file: string, value: unknown, def?: string): Promise<void> {
  const validate = await validator(file, def);
  const ok = validate(value);
  if (!ok) console.error(file, JSON.stringify(value), ajv.errorsText(validate.errors, { separator: '\n' }));
  expect(ok).toBe(true);
}

/** One call; the first request it made (SerpApi may follow up with a deferred AI Overview). */
async function ask(platform: PlatformId, request: { region?: string; language?: string }, googleSerp?: 'serpapi' | 'dataforseo'): Promise<RecordedRequest> {
  await up.ask(platform, { prompt: PROMPT, ...request }, googleSerp ? { googleSerp } : {});
  const reqs = up.fake.requestsFor(platform);
  expect(reqs.length).toBeGreaterThanOrEqual(1);
  return reqs[0]!;
}

interface Locale {
  name: string;
  request: { region?: string; language?: string };
  /** ISO 3166-1 alpha-2 sent to OpenAI, xAI, Anthropic, Perplexity. */
  country?: string;
  /** The instruction line, where no language field exists. */
  line?: string;
  /** ISO 639-1 sent to Perplexity. */
  iso639?: string;
  serpapi: Record<string, string>;
  dataforseo: { location_code: number; language_code: string };
}

const LOCALES: Locale[] = [
  { name: 'no locale', request: {}, serpapi: {}, dataforseo: { location_code: 2840, language_code: 'en' } },
  {
    name: 'DE, de',
    request: { region: 'DE', language: 'de' },
    country: 'DE',
    line: 'Answer in German.',
    iso639: 'de',
    serpapi: { location: 'Germany', gl: 'de', hl: 'de' },
    dataforseo: { location_code: 2276, language_code: 'de' },
  },
  {
    name: 'HK, zh-HK',
    request: { region: 'HK', language: 'zh-HK' },
    country: 'HK',
    line: 'Answer in Chinese (Hong Kong SAR China).',
    iso639: 'zh',
    serpapi: { location: 'Hong Kong', gl: 'hk', hl: 'zh-tw' },
    dataforseo: { location_code: 2344, language_code: 'zh-TW' },
  },
  {
    name: 'BA, bs',
    request: { region: 'BA', language: 'bs' },
    country: 'BA',
    line: 'Answer in Bosnian.',
    iso639: 'bs',
    serpapi: { location: 'Bosnia and Herzegovina', gl: 'ba', hl: 'bs' },
    dataforseo: { location_code: 2070, language_code: 'bs' },
  },
  {
    name: 'CI, fr',
    request: { region: 'ci', language: 'fr' },
    country: 'CI',
    line: 'Answer in French.',
    iso639: 'fr',
    serpapi: { location: "Cote d'Ivoire", gl: 'ci', hl: 'fr' },
    dataforseo: { location_code: 2384, language_code: 'fr' },
  },
  {
    name: 'BR, pt-BR',
    request: { region: 'BR', language: 'pt-BR' },
    country: 'BR',
    line: 'Answer in Brazilian Portuguese.',
    iso639: 'pt',
    serpapi: { location: 'Brazil', gl: 'br', hl: 'pt-br' },
    dataforseo: { location_code: 2076, language_code: 'pt' },
  },
];

const location = (l: Locale) => (l.country ? { user_location: { type: 'approximate', country: l.country } } : {});
const systemThenUser = (l: Locale) =>
  l.line
    ? [
        { role: 'system', content: l.line },
        { role: 'user', content: PROMPT },
      ]
    : [{ role: 'user', content: PROMPT }];

for (const l of LOCALES) {
  describe(`requests match the provider's schema: ${l.name}`, () => {
    test('chatgpt (OpenAI CreateResponse, extracted from the OpenAPI document)', async () => {
      const r = await ask('chatgpt', l.request);
      await expectValid('openai-create-response.schema.json', r.body);
      expect(r.body).toEqual({
        model: 'gpt-6.1-terra',
        input: l.line ? systemThenUser(l) : PROMPT,
        tools: [{ type: 'web_search', ...location(l) }],
        include: ['web_search_call.action.sources'],
      });
    });

    test('grok (xAI ModelRequest, web_search user_location)', async () => {
      const r = await ask('grok', l.request);
      await expectValid('xai-create-response.schema.json', r.body);
      expect(r.body).toEqual({ model: 'grok-4.3', input: l.line ? systemThenUser(l) : PROMPT, tools: [{ type: 'web_search', ...location(l) }] });
    });

    test('claude (Anthropic MessageCreateParams, web_search_20250305 user_location)', async () => {
      const r = await ask('claude', l.request);
      await expectValid('anthropic-messages.schema.json', r.body);
      expect(r.body).toEqual({
        model: 'claude-sonnet-5-5',
        max_tokens: 4096,
        ...(l.line ? { system: l.line } : {}),
        messages: [{ role: 'user', content: PROMPT }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5, ...location(l) }],
      });
    });

    test('gemini (generateContent; no region field, language as system instruction)', async () => {
      const r = await ask('gemini', l.request);
      expect(r.path).toBe('/models/gemini-3.8-flash:generateContent');
      await expectValid('gemini-generate-content.schema.json', r.body);
      expect(r.body).toEqual({
        contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
        tools: [{ google_search: {} }],
        ...(l.line ? { systemInstruction: { parts: [{ text: l.line }] } } : {}),
      });
    });

    test('perplexity (Sonar chat completions: user_location, search_language_filter, language_preference)', async () => {
      const r = await ask('perplexity', l.request);
      await expectValid('perplexity-chat-completions.schema.json', r.body);
      expect(r.body).toEqual({
        model: 'sonar',
        messages: [{ role: 'user', content: PROMPT }],
        ...(l.iso639 ? { search_language_filter: [l.iso639], language_preference: l.iso639 } : {}),
        ...(l.country ? { web_search_options: { user_location: { country: l.country } } } : {}),
      });
    });

    test('openai-compatible (OpenAI CreateChatCompletionRequest, extracted; language line only)', async () => {
      const r = await ask('openai-compatible', l.request);
      await expectValid('openai-create-chat-completion.schema.json', r.body);
      expect(r.body).toEqual({ model: COMPAT_MODEL, messages: systemThenUser(l) });
    });

    test('copilot (SearchApi bing_copilot: q only, language line in it)', async () => {
      const r = await ask('copilot', l.request);
      await expectValid('searchapi-bing-copilot.schema.json', r.query);
      expect(r.query).toEqual({ engine: 'bing_copilot', q: l.line ? `${PROMPT}\n${l.line}` : PROMPT });
    });

    for (const platform of ['google-ai-overview', 'google-ai-mode'] as const) {
      test(`${platform} via SerpApi (location, gl, hl from SerpApi's lists)`, async () => {
        const r = await ask(platform, l.request, 'serpapi');
        await expectValid('serpapi-google-search.schema.json', r.query);
        expect(r.query).toEqual({
          engine: platform === 'google-ai-mode' ? 'google_ai_mode' : 'google',
          q: PROMPT,
          ...l.serpapi,
          api_key: r.query.api_key!,
        });
      });

      test(`${platform} via DataForSEO (location_code, language_code)`, async () => {
        const r = await ask(platform, l.request, 'dataforseo');
        const def = platform === 'google-ai-mode' ? 'ai_mode' : 'organic';
        await expectValid('dataforseo-serp-google-live-advanced.schema.json', r.body);
        await expectValid('dataforseo-serp-google-live-advanced.schema.json', (r.body as unknown[])[0], def);
        expect(r.body).toEqual([
          { keyword: PROMPT, ...l.dataforseo, ...(platform === 'google-ai-overview' ? { load_async_ai_overview: true } : {}) },
        ]);
      });
    }
  });
}

describe('locales the tables do not know are not sent', () => {
  const request = { region: 'XX', language: 'tlh' };

  test('API platforms: no user location; the language as an instruction line (Perplexity too)', async () => {
    for (const platform of ['chatgpt', 'grok', 'claude', 'perplexity'] as const) {
      const r = await ask(platform, request);
      expect(JSON.stringify(r.body)).not.toContain('XX');
      expect(JSON.stringify(r.body)).not.toContain('user_location');
      expect(JSON.stringify(r.body)).toContain('Answer in Klingon.');
      expect(JSON.stringify(r.body)).not.toContain('"tlh"');
    }
  });

  test('SerpApi: no location, gl or hl', async () => {
    const r = await ask('google-ai-overview', request, 'serpapi');
    await expectValid('serpapi-google-search.schema.json', r.query);
    expect(r.query).toEqual({ engine: 'google', q: PROMPT, api_key: r.query.api_key! });
  });

  test('DataForSEO (location and language required): refused before any call, naming the value', async () => {
    const error = await rejection(up.ask('google-ai-overview', { prompt: PROMPT, ...request }, { googleSerp: 'dataforseo' }));
    expect(error).toMatchObject({ kind: 'rejected', permanent: true });
    expect(error.message).toContain('"XX"');
    expect(up.fake.requestsFor('google-ai-overview')).toHaveLength(0);
  });

  test('region spellings: "uk" is GB; lower case is read as the ISO code', async () => {
    const r = await ask('grok', { region: 'uk' });
    expect((r.body as { tools: unknown[] }).tools).toEqual([{ type: 'web_search', user_location: { type: 'approximate', country: 'GB' } }]);
  });
});

describe('locale tables', () => {
  const geo = googleGeoTargets as Record<string, { id: number; name?: string }>;
  const iso = iso3166 as Record<string, string>;

  test('Google geo target ids of countries are 2000 + the ISO 3166-1 numeric code; the ids cited by the issue', () => {
    for (const [code, target] of Object.entries(geo)) expect([code, target.id]).toEqual([code, 2000 + Number(iso[code])]);
    const cited = { US: 2840, DE: 2276, HK: 2344, BA: 2070, CI: 2384, TR: 2792, BR: 2076, GB: 2826 };
    for (const [code, id] of Object.entries(cited)) expect(dataForSeoLocation(code)).toBe(id);
  });

  test('every code in the tables is an ISO 3166-1 country (SerpApi also lists Google\'s "uk" and the retired "an")', () => {
    for (const code of Object.keys(geo)) expect(iso[code]).toBeDefined();
    for (const gl of serpApiCountries) expect(iso[gl.toUpperCase()] !== undefined || ['uk', 'an'].includes(gl)).toBe(true);
  });

  test('SerpApi hl and DataForSEO language_code for variants and legacy codes', () => {
    expect(serpApiLanguages).toContain('pt-br');
    const hl = { 'pt-BR': 'pt-br', 'pt-PT': 'pt-pt', 'pt': 'pt', 'zh': 'zh-cn', 'zh-CN': 'zh-cn', 'zh-Hans': 'zh-cn', 'zh-TW': 'zh-tw', 'zh-Hant-HK': 'zh-tw', 'es-419': 'es-419', 'es-MX': 'es', 'en-US': 'en', 'he': 'iw', 'jv': 'jw', 'fil': 'tl', 'nb': 'no', 'PT_br': 'pt-br' };
    for (const [tag, code] of Object.entries(hl)) expect([tag, serpApiLanguage(tag)]).toEqual([tag, code]);
    const dfs = { 'pt-BR': 'pt', 'zh-HK': 'zh-TW', 'zh': 'zh-CN', 'iw': 'he', 'en-GB': 'en', 'fil': 'tl' };
    for (const [tag, code] of Object.entries(dfs)) expect([tag, dataForSeoLanguage(tag)]).toEqual([tag, code]);
    for (const tag of ['tlh', 'x', '', 'english']) expect(serpApiLanguage(tag) ?? dataForSeoLanguage(tag)).toBeUndefined();
  });

  test('DataForSEO has no location in Russia and Belarus', () => {
    expect(dataForSeoLocation('RU')).toBeUndefined();
    expect(dataForSeoLocation('BY')).toBeUndefined();
  });
});

describe('the schemas refuse what the providers refuse (so a pass above means something)', () => {
  const refused = async (file: string, value: unknown, def?: string) => expect((await validator(file, def))(value)).toBe(false);
  const location = { type: 'approximate', country: 'DE' };

  test('unknown top-level fields, unknown tool fields, countries that are not ISO codes', async () => {
    const openai = { model: 'gpt-5-mini', input: PROMPT, tools: [{ type: 'web_search', user_location: location }] };
    await expectValid('openai-create-response.schema.json', openai);
    await refused('openai-create-response.schema.json', { ...openai, region: 'DE' });
    await refused('openai-create-response.schema.json', { ...openai, tools: [{ type: 'web_search', user_location: { ...location, language: 'de' } }] });
    await refused('openai-create-chat-completion.schema.json', { model: 'm', messages: [{ role: 'user', content: PROMPT }], language: 'de' });

    const xai = { model: 'grok-4', input: PROMPT, tools: [{ type: 'web_search', user_location: location }] };
    await expectValid('xai-create-response.schema.json', xai);
    await refused('xai-create-response.schema.json', { ...xai, tools: [{ type: 'web_search', user_location: { type: 'approximate', country: 'Germany' } }] });
    await refused('xai-create-response.schema.json', { ...xai, tools: [{ type: 'web_search', user_location: { country: 'DE' } }] });

    await refused('anthropic-messages.schema.json', {
      model: 'claude',
      max_tokens: 10,
      messages: [{ role: 'user', content: PROMPT }],
      tools: [{ type: 'web_search_20250305', name: 'web_search', user_location: { type: 'approximate', country: 'de' } }],
    });
    await refused('gemini-generate-content.schema.json', { contents: [{ role: 'user', parts: [{ text: PROMPT }] }], tools: [{ google_search: { region: 'DE' } }] });
  });

  test('locale codes in the wrong format for the provider', async () => {
    const pplx = { model: 'sonar', messages: [{ role: 'user', content: PROMPT }] };
    await refused('perplexity-chat-completions.schema.json', { ...pplx, search_language_filter: ['pt-BR'] });
    await refused('perplexity-chat-completions.schema.json', { ...pplx, web_search_options: { user_location: { country: 'Germany' } } });
    await refused('serpapi-google-search.schema.json', { engine: 'google', q: PROMPT, hl: 'pt-BR', api_key: 'k' });
    await refused('serpapi-google-search.schema.json', { engine: 'google', q: PROMPT, gl: 'xx', api_key: 'k' });
    await refused('serpapi-google-search.schema.json', { engine: 'google', q: PROMPT, location: 'Germany', uule: 'w+x', api_key: 'k' });
    await refused('dataforseo-serp-google-live-advanced.schema.json', [{ keyword: PROMPT, location_code: '2276', language_code: 'de' }]);
    await refused('dataforseo-serp-google-live-advanced.schema.json', [{ keyword: PROMPT, location_code: 2276 }]);
    await refused('dataforseo-serp-google-live-advanced.schema.json', { keyword: PROMPT, location_code: 2276, language_code: 'de', load_async_ai_overview: true }, 'ai_mode');
    await refused('searchapi-bing-copilot.schema.json', { engine: 'bing_copilot', q: PROMPT, gl: 'de' });
  });
});
