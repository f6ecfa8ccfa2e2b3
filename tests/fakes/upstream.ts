/**
 * A fake of every engine upstream on one Bun.serve (127.0.0.1, ephemeral port). Each provider lives
 * under its own path prefix so one server can stand in for all of them at once; `env()` gives the
 * variables that point the engines at it. It serves the recorded answers in shared/fixtures/engines
 * unedited and the built ones in tests/fixtures/engines, records every request, and can be told per
 * platform to be slow, fail, hang, or answer garbage.
 */
import { join } from 'node:path';
import type { PlatformId } from '../../src/engines/types';

export const RECORDED_FIXTURES = join(import.meta.dir, '../../../shared/fixtures/engines');
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
  /** Wait this long before answering (aborted early if the client goes away). */
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
}

export interface FakeUpstreamOptions {
  /** Initial behaviours per platform; '*' applies to every platform without its own. */
  behaviors?: Partial<Record<PlatformId | '*', Behavior>>;
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
  /** Engine variables pointing every platform at this fake. */
  env(opts?: { googleSerp?: 'serpapi' | 'dataforseo' }): Record<string, string>;
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

function classify(provider: FakeProvider, path: string, query: URLSearchParams): PlatformId | undefined {
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
      return path === '/chat/completions' ? 'perplexity' : undefined;
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

/** Marks an answer as cut off by the output-token limit, each provider its own way. */
function truncate(provider: FakeProvider, json: Record<string, any>): unknown {
  const copy = structuredClone(json);
  if (provider === 'openai' || provider === 'xai') {
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
  const requests: RecordedRequest[] = [];
  const inFlight = new Map<string, number>();
  const highWater = new Map<string, number>();
  const bump = (key: string, by: number) => {
    const n = (inFlight.get(key) ?? 0) + by;
    inFlight.set(key, n);
    if (n > (highWater.get(key) ?? 0)) highWater.set(key, n);
  };

  async function answer(req: RecordedRequest, b: Behavior, signal: AbortSignal): Promise<Response> {
    if (b.latencyMs) await sleep(b.latencyMs, signal);
    if (b.hang) {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return new Response(null, { status: 499 });
    }
    if (b.respond) return b.respond(req);
    if (b.stallBody) {
      const stream = new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"id": "resp_stalled",')) });
      return new Response(stream, { headers: { 'content-type': 'application/json' } });
    }
    const headers = { ...(b.retryAfter ? { 'retry-after': b.retryAfter } : {}), ...b.headers };
    if (b.status && b.status >= 400) return jsonResponse(b.body ?? errorBody(req, b.status, b), b.status, headers);
    if (b.malformed) return jsonResponse('{"id": "resp_partial", "output": [{"type": "message", "content": [', 200, headers);
    if (b.body !== undefined) return jsonResponse(b.body, b.status ?? 200, headers);
    const text = await readFixture(b.fixture ?? defaultFixture(req));
    return jsonResponse(b.truncated ? truncate(req.provider, JSON.parse(text)) : text, 200, headers);
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    // Hanging requests must stay open as long as the client waits.
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const match = (Object.entries(PREFIXES) as Array<[FakeProvider, string]>).find(
        ([, prefix]) => url.pathname === prefix || url.pathname.startsWith(`${prefix}/`),
      );
      const path = match ? url.pathname.slice(match[1].length) : url.pathname;
      const platform = match ? classify(match[0], path, url.searchParams) : undefined;
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
        return await answer(recorded, behaviors.get(platform) ?? behaviors.get('*') ?? {}, request.signal);
      } finally {
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
    reset() {
      behaviors.clear();
      requests.length = 0;
      inFlight.clear();
      highWater.clear();
    },
    inFlight: (platform) => inFlight.get(platform ?? '*') ?? 0,
    highWater: (platform) => highWater.get(platform ?? '*') ?? 0,
    env(opts = {}) {
      const env: Record<string, string> = {
        DATAFORSEO_LOGIN: FAKE_KEYS.dataforseoLogin,
        DATAFORSEO_PASSWORD: FAKE_KEYS.dataforseoPassword,
        GOOGLE_SERP_PROVIDER: opts.googleSerp ?? 'serpapi',
        OPENAI_COMPATIBLE_MODEL: COMPAT_MODEL,
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
