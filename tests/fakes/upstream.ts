/**
 * A fake of every engine upstream on one Bun.serve (127.0.0.1, ephemeral port). Each provider lives
 * under its own path prefix so one server can stand in for all of them at once; `env()` gives the
 * variables that point the engines at it. It serves the recorded answers in tests/fixtures/engines/recorded
 * unedited and the built ones in tests/fixtures/engines, records every request, and can be told per
 * platform to be slow, fail, hang, or answer garbage.
 */
import { join } from 'node:path';
import { CATALOGUED_PLATFORMS, dayOf, modelStatus, shippedModels, type CataloguedPlatform } from '../../src/engines/catalogue';
import type { PlatformId } from '../../src/engines/types';

export const RECORDED_FIXTURES = join(import.meta.dir, '../fixtures/engines/recorded');
export const BUILT_FIXTURES = join(import.meta.dir, '../fixtures/engines');

export type FakeProvider = 'openai' | 'xai' | 'anthropic' | 'gemini' | 'perplexity' | 'serpapi' | 'dataforseo' | 'searchapi' | 'compat';

/** Path prefix of each provider on the fake; the engines' *_BASE_URL point here. */
export const PREFIXES: Record<FakeProvider, string> = {
  openai: '/openai/v1',
  xai: '/xai/v1',
  anthropic: '/anthropic/v1',
  gemini: '/gemini/v1beta',
  perplexity: '/perplexity',
  serpapi: '/serpapi',
  dataforseo: '/dataforseo',
  searchapi: '/searchapi/api/v1',
  compat: '/compat/v1',
};

/** Credentials `env()` sets, so tests can check the auth the engines send. */
export const FAKE_KEYS = {
  openai: 'sk-test-openai',
  xai: 'xai-test-key',
  anthropic: 'sk-ant-test',
  gemini: 'gemini-test-key',
  perplexity: 'pplx-test-key',
  serpapi: 'serpapi-test-key',
  dataforseoLogin: 'dfs-login',
  dataforseoPassword: 'dfs-password',
  searchapi: 'searchapi-test-key',
  compat: 'compat-test-key',
} as const;

/** The engines' variable prefix of each provider. */
const ENV_PREFIXES: Record<FakeProvider, string> = {
  openai: 'OPENAI',
  xai: 'XAI',
  anthropic: 'ANTHROPIC',
  gemini: 'GEMINI',
  perplexity: 'PERPLEXITY',
  serpapi: 'SERPAPI',
  dataforseo: 'DATAFORSEO',
  searchapi: 'SEARCHAPI',
  compat: 'OPENAI_COMPATIBLE',
};

export const COMPAT_MODEL = 'llama3.1:8b';

export interface RecordedRequest {
  platform: PlatformId;
  provider: FakeProvider;
  method: string;
  /** Path after the provider prefix, e.g. "/responses". */
  path: string;
  fullPath: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  query: Record<string, string>;
  /** Parsed JSON body (undefined for GET or a non-JSON body). */
  body: unknown;
  at: number;
}

export interface Behavior {
  /**
   * Answer this long after the request arrived (aborted early if the client goes away): reading the
   * body is inside it, as a real upstream's work is in its latency (the fixture, read once, after).
   */
  latencyMs?: number;
  /** Answer this status with the provider's own error body. */
  status?: number;
  /** Retry-After header value on the error. */
  retryAfter?: string;
  /** Google RetryInfo retryDelay ("7s") in a Gemini error body. */
  retryDelay?: string;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Replace the body: an object is sent as JSON, a string as is. Combine with `status` freely. */
  body?: unknown;
  /** Serve this fixture (file name, built fixtures first, then the recorded ones). */
  fixture?: string;
  /** 200 with JSON cut in the middle. */
  malformed?: boolean;
  /** The default answer, marked as stopped by the output-token limit in the provider's own way. */
  truncated?: boolean;
  /** Never answer (until the client aborts or the fake stops). */
  hang?: boolean;
  /** Send the status and headers and the start of the body, then stall. */
  stallBody?: boolean;
  /** Full control: build the response yourself. */
  respond?: (req: RecordedRequest) => Response | Promise<Response>;
  /**
   * Answer a generation call with the provider's own "no such model" error (status and body as
   * the provider sends them): always (`true`), or only for a model the fake's models list lacks
   * (`'unlisted'`).
   */
  modelNotFound?: boolean | 'unlisted';
}

export interface FakeUpstreamOptions {
  /** Initial behaviours per platform; '*' applies to every platform without its own. */
  behaviors?: Partial<Record<PlatformId | '*', Behavior>>;
  /** The models each provider lists (GET /models and friends); defaults to the catalogue's usable models. */
  models?: Partial<Record<FakeProvider, string[]>>;
}

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  requestsFor(platform: PlatformId): RecordedRequest[];
  setBehavior(platform: PlatformId | '*', behavior: Behavior | undefined): void;
  /** Forget behaviours, requests and counters. */
  reset(): void;
  inFlight(platform?: PlatformId): number;
  /** Most requests ever in flight at once (for one platform, or all). */
  highWater(platform?: PlatformId): number;
  /** Requests answered and their mean time from arrival to answer (benchmarks report it beside their ideal). */
  answerTimes(): { count: number; meanMs: number };
  /** Set the models a provider lists (its models endpoint, and `modelNotFound: 'unlisted'`). */
  setModels(provider: FakeProvider, ids: string[]): void;
  /**
   * Engine variables pointing every platform at this fake. Perplexity is asked through Sonar
   * (PERPLEXITY_API=sonar, the recorded fixtures); pass `perplexityApi: 'agent'` for the Agent API.
   */
  env(opts?: { googleSerp?: 'serpapi' | 'dataforseo'; perplexityApi?: 'sonar' | 'agent' }): Record<string, string>;
  stop(): Promise<void>;
}

export async function readFixture(name: string): Promise<string> {
  for (const dir of [BUILT_FIXTURES, RECORDED_FIXTURES]) {
    const file = Bun.file(join(dir, name));
    if (await file.exists()) return file.text();
  }
  throw new Error(`no fixture named ${name}`);
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A DataForSEO answer whose error sits inside HTTP 200, on the task (as the API reports most). */
export function dataForSeoTaskError(code: number, message: string): unknown {
  return {
    version: '0.1.20250526',
    status_code: 20000,
    status_message: 'Ok.',
    time: '0.1 sec.',
    cost: 0,
    tasks_count: 1,
    tasks_error: 1,
    tasks: [{ id: '09011023-0000-0139-0000-000000000000', status_code: code, status_message: message, cost: 0, result_count: 0, result: null }],
  };
}

/** Routes that describe the account or its models rather than answer a prompt (the doctor's). */
function metaRoute(provider: FakeProvider, path: string, method: string): boolean {
  if (method !== 'GET') return false;
  switch (provider) {
    case 'openai':
    case 'xai':
    case 'compat':
      return path === '/models' || path.startsWith('/models/') || path === '/language-models';
    case 'anthropic':
    case 'gemini':
      return path === '/models' || /^\/models\/[^/:]+$/.test(path);
    case 'perplexity':
      return path === '/v1/models' || path.startsWith('/v1/responses/');
    case 'serpapi':
      return path === '/account.json';
    case 'dataforseo':
      return path === '/v3/appendix/user_data';
    case 'searchapi':
      return path === '/me';
  }
}

const META_PLATFORM: Record<FakeProvider, PlatformId> = {
  openai: 'chatgpt',
  xai: 'grok',
  anthropic: 'claude',
  gemini: 'gemini',
  perplexity: 'perplexity',
  compat: 'openai-compatible',
  serpapi: 'google-ai-overview',
  dataforseo: 'google-ai-overview',
  searchapi: 'copilot',
};

function classify(provider: FakeProvider, path: string, query: URLSearchParams, method = 'POST'): PlatformId | undefined {
  if (metaRoute(provider, path, method)) return META_PLATFORM[provider];
  switch (provider) {
    case 'openai':
      return path === '/responses' ? 'chatgpt' : undefined;
    case 'xai':
      return path === '/responses' ? 'grok' : undefined;
    case 'anthropic':
      return path === '/messages' ? 'claude' : undefined;
    case 'gemini':
      return /^\/models\/[^/]+:generateContent$/.test(path) ? 'gemini' : undefined;
    case 'perplexity':
      return path === '/chat/completions' || path === '/v1/agent' || path === '/v1/responses' ? 'perplexity' : undefined;
    case 'compat':
      return path === '/chat/completions' ? 'openai-compatible' : undefined;
    case 'serpapi': {
      if (path !== '/search.json') return undefined;
      const engine = query.get('engine');
      return engine === 'google_ai_mode' ? 'google-ai-mode' : engine === 'google' || engine === 'google_ai_overview' ? 'google-ai-overview' : undefined;
    }
    case 'dataforseo':
      return path === '/v3/serp/google/organic/live/advanced'
        ? 'google-ai-overview'
        : path === '/v3/serp/google/ai_mode/live/advanced'
          ? 'google-ai-mode'
          : undefined;
    case 'searchapi':
      return path === '/search' && query.get('engine') === 'bing_copilot' ? 'copilot' : undefined;
  }
}

const isAgent = (req: RecordedRequest) => req.provider === 'perplexity' && (req.path === '/v1/agent' || req.path === '/v1/responses');

/**
 * A Perplexity Agent API answer in the documented shape (the `search_results` output item, `[n]` =
 * result id n, usage with tool_calls_details), modelled on the live capture Vercel's AI SDK
 * publishes (packages/perplexity/src/__fixtures__/agent-web-search.json, 2026-09-25), shortened.
 */
export function perplexityAgentAnswer(model = 'perplexity/sonar'): Record<string, unknown> {
  return {
    id: 'resp_8762b9bb-2d06-44a4-b68c-412dc85b24db',
    object: 'response',
    created_at: 1790374547,
    completed_at: 1790374549,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model,
    output: [
      {
        type: 'search_results',
        queries: ['best project management tool 2026'],
        results: [
          { id: 1, url: 'https://www.example-reviews.com/pm-tools?utm_source=perplexity', title: 'The 10 best project management tools', snippet: 'Asana, Linear and Jira lead…', date: '2026-09-01', last_updated: '2026-09-20', source: 'web' },
          { id: 2, url: 'https://acme.com/blog/planning', title: 'Acme: planning for teams', snippet: 'Acme plans…', last_updated: '2026-09-18', source: 'web' },
          { id: 3, url: 'https://globex.com/compare', title: 'Globex vs the rest', snippet: 'A comparison…', last_updated: '2026-09-11', source: 'web' },
        ],
      },
      {
        type: 'message',
        id: 'msg_944a7d76-2a88-40fa-9c78-213a372e8d24',
        role: 'assistant',
        status: 'completed',
        content: [
          {
            type: 'output_text',
            annotations: [],
            text: 'The most recommended tools are Acme and Globex.[1] Acme suits small teams best.[2][1]',
          },
        ],
      },
    ],
    usage: {
      input_tokens: 3007,
      output_tokens: 36,
      total_tokens: 3043,
      tool_calls_details: { search_web: { invocation: 1, cost_usd: 0.001 } },
      cost: { currency: 'USD', input_cost: 0, output_cost: 0.00002, tool_calls_cost: 0.001, total_cost: 0.00119 },
    },
  };
}

/** The answer each route gives when nothing else is asked for. */
function defaultFixture(req: RecordedRequest): string {
  switch (req.provider) {
    case 'openai':
      return 'openai-responses-web-search.json';
    case 'xai':
      return 'xai-responses-web-search.json';
    case 'anthropic':
      return 'anthropic-messages-web-search.json';
    case 'gemini':
      return 'gemini-generate-grounded.json';
    case 'perplexity':
      return 'perplexity-sonar-citations.json';
    case 'compat':
      return 'openai-compatible-chat.json';
    case 'searchapi':
      return 'searchapi-bing-copilot.json';
    case 'serpapi':
      return req.query.engine === 'google_ai_mode'
        ? 'serpapi-google-ai-mode.json'
        : req.query.engine === 'google_ai_overview'
          ? 'serpapi-google-ai-overview-deferred.json'
          : 'serpapi-google-ai-overview.json';
    case 'dataforseo':
      return req.platform === 'google-ai-mode' ? 'dataforseo-google-ai-mode.json' : 'dataforseo-google-organic-ai-overview.json';
  }
}

/** Each wire format's error body, so adapters are tested against what they will really see. */
function errorBody(req: RecordedRequest, status: number, b: Behavior): unknown {
  const message = status === 401 ? 'Incorrect API key provided.' : status === 429 ? 'Rate limit reached.' : `Upstream error ${status}.`;
  switch (req.provider) {
    case 'anthropic':
      return {
        type: 'error',
        error: {
          type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error',
          message,
        },
      };
    case 'gemini': {
      const googleStatus = status === 429 ? 'RESOURCE_EXHAUSTED' : status === 403 ? 'PERMISSION_DENIED' : status === 401 ? 'UNAUTHENTICATED' : status >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT';
      const details = b.retryDelay ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: b.retryDelay }] : [];
      return { error: { code: status, message, status: googleStatus, details } };
    }
    case 'serpapi':
    case 'searchapi':
      return { error: message };
    case 'dataforseo':
      return { version: '0.1.20250526', status_code: status * 100, status_message: message, time: '0 sec.', cost: 0, tasks_count: 0, tasks_error: 0, tasks: [] };
    default:
      return {
        error: {
          message,
          type: status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_request_error' : 'server_error',
          param: null,
          code: status === 401 ? 'invalid_api_key' : null,
        },
      };
  }
}

/** The model a generation request names (Gemini puts it in the path). */
function requestedModel(req: RecordedRequest): string | undefined {
  if (req.provider === 'gemini') return decodeURIComponent(/^\/models\/([^/:]+)/.exec(req.path)?.[1] ?? '') || undefined;
  const body = req.body as { model?: unknown; preset?: unknown } | undefined;
  return typeof body?.model === 'string' ? body.model : undefined;
}

/** Each provider's own "no such model" answer: status and body as the provider sends them. */
export function modelNotFoundResponse(provider: FakeProvider, model: string): Response {
  switch (provider) {
    case 'openai':
      return jsonResponse({ error: { message: `The model \`${model}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', param: null, code: 'model_not_found' } }, 404);
    case 'anthropic':
      return jsonResponse({ type: 'error', error: { type: 'not_found_error', message: `model: ${model}` }, request_id: 'req_011CbzRugheav4hCSLt618Z7' }, 404);
    case 'gemini':
      return jsonResponse(
        { error: { code: 404, message: `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`, status: 'NOT_FOUND' } },
        404,
      );
    case 'xai':
      return jsonResponse(
        {
          code: 'Some requested entity was not found',
          error: `The model ${model} does not exist or your team 0f4c1e7a-2c55-4a39-9e2e-7d1c9b6f1a20 does not have access to it. Please ensure you're using the correct API key. If you believe this is a mistake, please contact support and quote your team ID and the model name.`,
        },
        404,
      );
    case 'perplexity':
      return jsonResponse({ error: { message: `Invalid model '${model}'. Permitted models can be found in the documentation at https://docs.perplexity.ai/docs/getting-started/models.`, type: 'invalid_model', code: 400 } }, 400);
    case 'compat':
      return jsonResponse({ error: { message: `model "${model}" not found, try pulling it first`, type: 'api_error', param: null, code: null } }, 404);
    default:
      return jsonResponse({ error: `no model ${model}` }, 404);
  }
}

const PROVIDER_OF_PLATFORM: Record<CataloguedPlatform, FakeProvider> = { chatgpt: 'openai', perplexity: 'perplexity', gemini: 'gemini', claude: 'anthropic', grok: 'xai' };

/** What each provider lists by default: the shipped catalogue's models (ids and aliases) that are not retired today. */
function defaultModels(): Record<FakeProvider, string[]> {
  const catalogue = shippedModels();
  const today = dayOf(new Date());
  const lists: Record<FakeProvider, string[]> = { openai: [], xai: [], anthropic: [], gemini: [], perplexity: [], serpapi: [], dataforseo: [], searchapi: [], compat: [COMPAT_MODEL] };
  for (const p of CATALOGUED_PLATFORMS) {
    for (const m of catalogue.platforms[p].models) {
      if (modelStatus(catalogue, m.id, today).status !== 'retired') lists[PROVIDER_OF_PLATFORM[p]].push(m.id, ...m.aliases);
    }
  }
  // Perplexity's list is the Agent API's provider-prefixed slugs.
  lists.perplexity = ['perplexity/sonar', 'openai/gpt-6.1-terra', 'anthropic/claude-sonnet-5-5', 'google/gemini-3.8-flash'];
  return lists;
}

/** The account and model endpoints, each provider's own shape. */
function metaAnswer(req: RecordedRequest, models: Record<FakeProvider, string[]>): Response {
  const list = models[req.provider];
  const one = /^\/models\/([^/:]+)$/.exec(req.path)?.[1];
  switch (req.provider) {
    case 'openai':
    case 'xai':
    case 'compat':
      if (one) return list.includes(decodeURIComponent(one)) ? jsonResponse({ id: decodeURIComponent(one), object: 'model', created: 1760000000, owned_by: req.provider }) : modelNotFoundResponse(req.provider, decodeURIComponent(one));
      return jsonResponse({ object: 'list', data: list.map((id) => ({ id, object: 'model', created: 1760000000, owned_by: req.provider })) });
    case 'anthropic':
      if (one) {
        const id = decodeURIComponent(one);
        return list.includes(id) ? jsonResponse({ type: 'model', id, display_name: id, created_at: '2026-09-29T00:00:00Z' }) : modelNotFoundResponse('anthropic', id);
      }
      return jsonResponse({ data: list.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-09-29T00:00:00Z' })), has_more: false, first_id: list[0] ?? null, last_id: list.at(-1) ?? null });
    case 'gemini':
      if (one) {
        const id = decodeURIComponent(one);
        return list.includes(id)
          ? jsonResponse({ name: `models/${id}`, displayName: id, supportedGenerationMethods: ['generateContent', 'countTokens'] })
          : jsonResponse({ error: { code: 404, message: `models/${id} is not found for API version v1beta, or is not supported for generateContent.`, status: 'NOT_FOUND' } }, 404);
      }
      return jsonResponse({ models: list.map((id) => ({ name: `models/${id}`, displayName: id, supportedGenerationMethods: ['generateContent'] })) });
    case 'perplexity':
      if (req.path.startsWith('/v1/responses/')) return jsonResponse({ error: { message: 'response not found', type: 'not_found', code: 404 } }, 404);
      return jsonResponse({ object: 'list', data: list.map((id) => ({ id, object: 'model', owned_by: id.split('/')[0] })) });
    case 'serpapi':
      return jsonResponse({ account_id: '5ac54d6adefb2f1dba1663f5', account_status: 'Active', plan_id: 'bigdata', plan_name: 'Big Data Plan', searches_per_month: 30000, plan_searches_left: 5958, extra_credits: 0, total_searches_left: 5958, this_month_usage: 24042 });
    case 'dataforseo':
      return jsonResponse({
        version: '0.1.20250526',
        status_code: 20000,
        status_message: 'Ok.',
        time: '0.01 sec.',
        cost: 0,
        tasks_count: 1,
        tasks_error: 0,
        tasks: [{ id: '11231757-1535-0216-0000-1b5b1b4b7c4d', status_code: 20000, status_message: 'Ok.', cost: 0, result_count: 1, result: [{ login: FAKE_KEYS.dataforseoLogin, money: { total: 100, balance: 42.5 } }] }],
      });
    case 'searchapi':
      return jsonResponse({ account: { current_month_usage: 1200, monthly_allowance: 10000, remaining_credits: 8800 } });
  }
}

/** Marks an answer as cut off by the output-token limit, each provider its own way. */
function truncate(provider: FakeProvider, json: Record<string, any>, agent = false): unknown {
  const copy = structuredClone(json);
  if (provider === 'openai' || provider === 'xai' || agent) {
    copy.status = 'incomplete';
    copy.incomplete_details = { reason: 'max_output_tokens' };
  } else if (provider === 'anthropic') copy.stop_reason = 'max_tokens';
  else if (provider === 'gemini') copy.candidates[0].finishReason = 'MAX_TOKENS';
  else if (provider === 'perplexity' || provider === 'compat') copy.choices[0].finish_reason = 'length';
  return copy;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const behaviors = new Map<PlatformId | '*', Behavior>(Object.entries(options.behaviors ?? {}) as Array<[PlatformId | '*', Behavior]>);
  const initialModels = () => ({ ...defaultModels(), ...options.models });
  let models: Record<FakeProvider, string[]> = initialModels();
  const requests: RecordedRequest[] = [];
  const inFlight = new Map<string, number>();
  const highWater = new Map<string, number>();
  const bump = (key: string, by: number) => {
    const n = (inFlight.get(key) ?? 0) + by;
    inFlight.set(key, n);
    if (n > (highWater.get(key) ?? 0)) highWater.set(key, n);
  };

  // Each fixture read once: a benchmark's thousands of answers would otherwise each read a file.
  const fixtures = new Map<string, Promise<string>>();
  const fixture = (name: string) => {
    let text = fixtures.get(name);
    if (!text) fixtures.set(name, (text = readFixture(name)));
    return text;
  };
  const answered = { count: 0, totalMs: 0 };

  async function answer(req: RecordedRequest, b: Behavior, signal: AbortSignal, arrivedAt: number): Promise<Response> {
    if (b.latencyMs) await sleep(Math.max(0, b.latencyMs - (performance.now() - arrivedAt)), signal);
    if (b.hang) {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return new Response(null, { status: 499 });
    }
    if (b.respond) return b.respond(req);
    const meta = metaRoute(req.provider, req.path, req.method);
    if (!meta && b.modelNotFound) {
      const model = requestedModel(req) ?? '';
      if (b.modelNotFound === true || !models[req.provider].includes(model)) return modelNotFoundResponse(req.provider, model);
    }
    if (b.stallBody) {
      const stream = new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"id": "resp_stalled",')) });
      return new Response(stream, { headers: { 'content-type': 'application/json' } });
    }
    const headers = { ...(b.retryAfter ? { 'retry-after': b.retryAfter } : {}), ...b.headers };
    if (b.status && b.status >= 400) return jsonResponse(b.body ?? errorBody(req, b.status, b), b.status, headers);
    if (b.malformed) return jsonResponse('{"id": "resp_partial", "output": [{"type": "message", "content": [', 200, headers);
    if (b.body !== undefined) return jsonResponse(b.body, b.status ?? 200, headers);
    if (meta) return metaAnswer(req, models);
    if (isAgent(req) && !b.fixture) {
      const body = perplexityAgentAnswer();
      return jsonResponse(b.truncated ? truncate(req.provider, body, true) : body, 200, headers);
    }
    const text = await fixture(b.fixture ?? defaultFixture(req));
    return jsonResponse(b.truncated ? truncate(req.provider, JSON.parse(text), isAgent(req)) : text, 200, headers);
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    // Hanging requests must stay open as long as the client waits.
    idleTimeout: 0,
    async fetch(request) {
      const arrivedAt = performance.now();
      const url = new URL(request.url);
      const match = (Object.entries(PREFIXES) as Array<[FakeProvider, string]>).find(
        ([, prefix]) => url.pathname === prefix || url.pathname.startsWith(`${prefix}/`),
      );
      const path = match ? url.pathname.slice(match[1].length) : url.pathname;
      const platform = match ? classify(match[0], path, url.searchParams, request.method) : undefined;
      if (!match || !platform) return jsonResponse({ error: `no fake route for ${request.method} ${url.pathname}` }, 404);

      const raw = await request.text();
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = {
        platform,
        provider: match[0],
        method: request.method,
        path,
        fullPath: url.pathname,
        headers: Object.fromEntries([...request.headers].map(([k, v]) => [k.toLowerCase(), v])),
        query: Object.fromEntries(url.searchParams),
        body,
        at: Date.now(),
      };
      requests.push(recorded);
      bump(platform, 1);
      bump('*', 1);
      try {
        return await answer(recorded, behaviors.get(platform) ?? behaviors.get('*') ?? {}, request.signal, arrivedAt);
      } finally {
        answered.count++;
        answered.totalMs += performance.now() - arrivedAt;
        bump(platform, -1);
        bump('*', -1);
      }
    },
  });

  const base = `http://127.0.0.1:${server.port}`;
  return {
    url: base,
    requests,
    requestsFor: (platform) => requests.filter((r) => r.platform === platform),
    setBehavior(platform, behavior) {
      if (behavior) behaviors.set(platform, behavior);
      else behaviors.delete(platform);
    },
    setModels(provider, ids) {
      models[provider] = [...ids];
    },
    reset() {
      behaviors.clear();
      models = initialModels();
      requests.length = 0;
      inFlight.clear();
      highWater.clear();
      answered.count = answered.totalMs = 0;
    },
    inFlight: (platform) => inFlight.get(platform ?? '*') ?? 0,
    highWater: (platform) => highWater.get(platform ?? '*') ?? 0,
    answerTimes: () => ({ count: answered.count, meanMs: answered.count ? answered.totalMs / answered.count : 0 }),
    env(opts = {}) {
      const env: Record<string, string> = {
        DATAFORSEO_LOGIN: FAKE_KEYS.dataforseoLogin,
        DATAFORSEO_PASSWORD: FAKE_KEYS.dataforseoPassword,
        GOOGLE_SERP_PROVIDER: opts.googleSerp ?? 'serpapi',
        OPENAI_COMPATIBLE_MODEL: COMPAT_MODEL,
        PERPLEXITY_API: opts.perplexityApi ?? 'sonar',
      };
      for (const [provider, prefix] of Object.entries(ENV_PREFIXES) as Array<[FakeProvider, string]>) {
        env[`${prefix}_BASE_URL`] = base + PREFIXES[provider];
        if (provider !== 'dataforseo') env[`${prefix}_API_KEY`] = FAKE_KEYS[provider];
      }
      return env;
    },
    async stop() {
      await server.stop(true);
    },
  };
}
