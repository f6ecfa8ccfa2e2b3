import { EngineError, excerptOf, malformed, retryAfterMs } from './errors';
import { textUpTo } from '../http/body';
import type { PlatformId } from './types';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What every upstream call needs besides the request itself. */
export interface CallContext {
  platform: PlatformId;
  fetch: FetchLike;
  timeoutMs: number;
  /** The variable to name when the upstream refuses the credentials. */
  authVariable: string;
  signal?: AbortSignal;
  /** The model the call asks for, named when the upstream does not know it. */
  model?: string;
  /** What to do instead of an unknown model (from the catalogue): advice, and the replacement when known. */
  modelAdvice?: (model: string) => { advice: string; replacement?: string };
}

export interface JsonRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
}

function aborted(ctx: CallContext, cause?: unknown): EngineError {
  return new EngineError({ kind: 'aborted', platform: ctx.platform, message: `${ctx.platform}: call aborted`, cause });
}

/** Maps a failure of fetch or of reading the body to aborted / timeout / connection errors. */
function networkError(ctx: CallContext, timeout: AbortSignal, error: unknown): EngineError {
  if (ctx.signal?.aborted) return aborted(ctx, error);
  if (timeout.aborted) {
    return new EngineError({
      kind: 'transient',
      platform: ctx.platform,
      message: `${ctx.platform}: no answer within ${ctx.timeoutMs} ms`,
      cause: error,
    });
  }
  const code = (error as { code?: unknown })?.code;
  // SerpApi takes its key in the URL, and runtimes may quote the URL in network errors.
  const detail = (error instanceof Error ? error.message : String(error)).replace(/(api_key=)[^&\s]+/g, '$1***');
  return new EngineError({
    kind: 'transient',
    platform: ctx.platform,
    message: `${ctx.platform}: connection failed${typeof code === 'string' ? ` (${code})` : ''}: ${detail}`,
    cause: error,
  });
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The upstream's own words, whatever envelope it uses. */
function upstreamMessage(body: unknown, text: string): string {
  const b = body as { error?: unknown; message?: unknown; detail?: unknown } | undefined;
  const e = b?.error as { message?: unknown } | string | undefined;
  const candidate =
    (typeof e === 'object' && e !== null && typeof e.message === 'string' && e.message) ||
    (typeof e === 'string' && e) ||
    (typeof b?.message === 'string' && b.message) ||
    (typeof b?.detail === 'string' && b.detail) ||
    text;
  return excerptOf(candidate);
}

function bodyMentions(body: unknown, text: string, ...needles: string[]): boolean {
  const hay = (typeof body === 'object' && body !== null ? JSON.stringify(body) : text).toLowerCase();
  return needles.some((n) => hay.includes(n));
}

/** Words of an upstream saying it has no such model (OpenAI, xAI, Ollama and other chat servers). */
const NO_SUCH_MODEL =
  /\bmodel\b.{0,160}?(?:not found|does not exist|do(?:es)? not exist|is not available|no longer available|has been (?:retired|deprecated|discontinued))|\b(?:invalid|unknown|unsupported) model\b/i;

/**
 * Each provider's own "no such model" answer: OpenAI 404 (or 400) `code: model_not_found`, Anthropic
 * 404 `not_found_error`, Gemini 404 `NOT_FOUND` for models/…, xAI 404/400 "The model … does not
 * exist", Perplexity 400 `invalid_model` ("Invalid model '…'"), Ollama 404 'model "…" not found'.
 */
function isModelNotFound(status: number, body: unknown, text: string, detail: string): boolean {
  if (status !== 400 && status !== 404) return false;
  const b = body as { error?: unknown; type?: unknown; code?: unknown } | undefined;
  const e = (typeof b?.error === 'object' && b?.error !== null ? b.error : {}) as { code?: unknown; type?: unknown; status?: unknown; message?: unknown };
  if (e.code === 'model_not_found' || b?.code === 'model_not_found' || e.type === 'invalid_model') return true;
  if (status === 404 && e.type === 'not_found_error') return true;
  if (status === 404 && e.status === 'NOT_FOUND' && /models\//.test(String(e.message ?? ''))) return true;
  const words = typeof b?.error === 'string' ? b.error : detail;
  return NO_SUCH_MODEL.test(words) || (body === undefined && NO_SUCH_MODEL.test(text));
}

/**
 * One status → error mapping for every HTTP upstream. Provider quirks that show through the body
 * (Gemini's 400 for a bad key, OpenAI's 429 for an empty balance) are recognised here so that every
 * adapter gets them.
 */
export function httpError(ctx: CallContext, status: number, headers: Headers, text: string): EngineError {
  const body = tryParse(text);
  const detail = upstreamMessage(body, text);
  const base = { platform: ctx.platform, status };
  const auth = (why: string) =>
    new EngineError({
      ...base,
      kind: 'auth',
      variable: ctx.authVariable,
      message: `${ctx.platform}: ${why} (HTTP ${status}); check ${ctx.authVariable}: ${detail}`,
    });

  if (status === 401 || status === 403) return auth('the upstream refused the credentials');
  if (status === 402) return auth('the upstream account cannot pay for this call');
  if (status === 400 && bodyMentions(body, text, 'api_key_invalid', 'api key not valid', 'invalid api key', 'invalid_api_key')) {
    return auth('the upstream refused the API key');
  }
  if (status === 429) {
    // A spent balance answers 429 too, but waiting will not refill it.
    if (bodyMentions(body, text, 'insufficient_quota', 'run out of searches', 'exceeded your current quota')) {
      return auth('the upstream account has no quota left');
    }
    return new EngineError({
      ...base,
      kind: 'rate_limit',
      retryAfterMs: retryAfterMs(headers, body),
      message: `${ctx.platform}: rate limited (HTTP 429): ${detail}`,
    });
  }
  if (status === 408 || status === 425 || status >= 500) {
    return new EngineError({
      ...base,
      kind: 'transient',
      retryAfterMs: retryAfterMs(headers, body),
      message: `${ctx.platform}: upstream error (HTTP ${status}): ${detail}`,
    });
  }
  if (isModelNotFound(status, body, text, detail)) {
    const model = ctx.model ?? 'the requested model';
    const hint = ctx.modelAdvice?.(model) ?? { advice: 'run `answerwatch models` to see the known models' };
    return new EngineError({
      ...base,
      kind: 'rejected',
      code: 'model_not_found',
      model: ctx.model,
      replacement: hint.replacement,
      message: `${ctx.platform}: the upstream does not know the model "${model}" (HTTP ${status}): ${detail}; ${hint.advice}`,
    });
  }
  return new EngineError({ ...base, kind: 'rejected', message: `${ctx.platform}: request refused (HTTP ${status}): ${detail}` });
}

/** The largest body read from an engine: an answer with its citations is tens of kilobytes; past this it is not read on. */
export const MAX_ENGINE_BODY_BYTES = 8 << 20;
const MAX_ERROR_BODY_BYTES = 64 << 10;

/**
 * Sends one JSON request and returns the parsed body. Aborts at once when the caller's signal fires,
 * gives up after `ctx.timeoutMs`, and turns every failure into an EngineError.
 */
export async function callJson(ctx: CallContext, req: JsonRequest): Promise<unknown> {
  if (ctx.signal?.aborted) throw aborted(ctx);
  const timeout = AbortSignal.timeout(ctx.timeoutMs);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  if (req.body !== undefined) headers['content-type'] = 'application/json';

  let response: Response;
  let text: string | null;
  try {
    response = await ctx.fetch(req.url, {
      method: req.method ?? (req.body === undefined ? 'GET' : 'POST'),
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal,
    });
    // An error page is read for its first words only, and stays the error it is (a 503 is retried).
    text = await textUpTo(response.body, response.ok ? MAX_ENGINE_BODY_BYTES : MAX_ERROR_BODY_BYTES);
  } catch (error) {
    throw networkError(ctx, timeout, error);
  }
  if (!response.ok) throw httpError(ctx, response.status, response.headers, text ?? '');
  if (text === null) throw malformed(ctx.platform, `the body is over ${MAX_ENGINE_BODY_BYTES} bytes`, '');
  const parsed = tryParse(text);
  if (parsed === undefined) throw malformed(ctx.platform, 'the body is not JSON', text);
  return parsed;
}
