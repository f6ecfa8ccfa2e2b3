import type { PlatformId } from './types';

/**
 * - auth: the upstream refused the credentials or the account (401, 403, billing); fix `variable`.
 * - rate_limit: 429 or an in-body rate limit; wait `retryAfterMs` when known.
 * - transient: 5xx, timeout, connection refused or reset; retrying may succeed.
 * - malformed: the body is not the JSON the wire format promises.
 * - truncated: the answer stopped at the output-token limit.
 * - aborted: the caller's AbortSignal fired.
 * - rejected: the upstream refused the request itself (unknown model, bad parameter: 400/404/422).
 *   `code` says more when known: `model_not_found` (the upstream does not know the model) or
 *   `model_retired` (the catalogue says it is retired, so the call was not made); both carry `model`
 *   and, when the catalogue knows one, `replacement`.
 * - config: our own configuration is missing or invalid (names the variable).
 */
export type EngineErrorKind =
  | 'auth'
  | 'rate_limit'
  | 'transient'
  | 'malformed'
  | 'truncated'
  | 'aborted'
  | 'rejected'
  | 'config';

/** A finer reason within a kind, for callers that act on it (tracking names the replacement). */
export type EngineErrorCode = 'model_not_found' | 'model_retired';

/** Kinds worth retrying later with the same request. */
const RETRYABLE: ReadonlySet<EngineErrorKind> = new Set(['rate_limit', 'transient', 'aborted']);

export interface EngineErrorInit {
  kind: EngineErrorKind;
  message: string;
  platform?: PlatformId;
  /** The environment variable to fix (auth and config errors). */
  variable?: string;
  retryAfterMs?: number;
  status?: number;
  /** A short excerpt of the offending body (malformed and truncated answers). */
  excerpt?: string;
  code?: EngineErrorCode;
  /** The model the error is about (model_not_found, model_retired). */
  model?: string;
  /** The model to use instead, from the catalogue. */
  replacement?: string;
  cause?: unknown;
}

export class EngineError extends Error {
  readonly kind: EngineErrorKind;
  /** True when retrying the same call cannot succeed until something is changed. */
  readonly permanent: boolean;
  readonly platform?: PlatformId;
  readonly variable?: string;
  readonly retryAfterMs?: number;
  readonly status?: number;
  readonly excerpt?: string;
  readonly code?: EngineErrorCode;
  readonly model?: string;
  readonly replacement?: string;

  constructor(init: EngineErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'EngineError';
    this.kind = init.kind;
    this.permanent = !RETRYABLE.has(init.kind);
    this.platform = init.platform;
    this.variable = init.variable;
    this.retryAfterMs = init.retryAfterMs;
    this.status = init.status;
    this.excerpt = init.excerpt;
    this.code = init.code;
    this.model = init.model;
    this.replacement = init.replacement;
  }

  toJSON(): Record<string, unknown> {
    return {
      kind: this.kind,
      permanent: this.permanent,
      message: this.message,
      platform: this.platform,
      variable: this.variable,
      retryAfterMs: this.retryAfterMs,
      status: this.status,
      excerpt: this.excerpt,
      code: this.code,
      model: this.model,
      replacement: this.replacement,
    };
  }
}

export function isEngineError(value: unknown): value is EngineError {
  return value instanceof EngineError;
}

const EXCERPT_CHARS = 200;

export function excerptOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

export function malformed(platform: PlatformId, what: string, body: unknown): EngineError {
  const text = typeof body === 'string' ? body : JSON.stringify(body) ?? String(body);
  return new EngineError({
    kind: 'malformed',
    platform,
    message: `${platform}: malformed answer (${what})`,
    excerpt: excerptOf(text),
  });
}

export function truncated(platform: PlatformId, reason: string, text: string): EngineError {
  return new EngineError({
    kind: 'truncated',
    platform,
    message: `${platform}: the answer was cut off (${reason})`,
    excerpt: excerptOf(text.slice(-EXCERPT_CHARS)),
  });
}

/* ------------------------------------------------------------------------------------------------
 * Retry hints. Every provider says "wait" differently; the queue only wants milliseconds.
 * ---------------------------------------------------------------------------------------------- */

/** Go-style durations as OpenAI sends them in x-ratelimit-reset-*: "20ms", "1s", "6m0s", "1h2m3.5s". */
function parseDuration(value: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (const m of value.matchAll(re)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    consumed += m[0].length;
  }
  return consumed > 0 && consumed === value.length ? Math.ceil(total) : undefined;
}

/** A reset hint: seconds to wait, an epoch in seconds, a duration, or a date. */
function parseReset(value: string, now: number): number | undefined {
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) {
    const n = Number(v);
    // Large numbers are epoch seconds (x-ratelimit-reset on many APIs), small ones are a delay.
    return n > 1e9 ? Math.max(0, Math.ceil(n * 1000 - now)) : Math.ceil(n * 1000);
  }
  const duration = parseDuration(v);
  if (duration !== undefined) return duration;
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Retry-After: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
function parseRetryAfter(value: string, now: number): number | undefined {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** google.rpc.RetryInfo inside a Google error body: {"error":{"details":[{"@type":"…RetryInfo","retryDelay":"37s"}]}}. */
function googleRetryDelay(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const rec = d as { '@type'?: unknown; retryDelay?: unknown };
    if (typeof rec['@type'] === 'string' && rec['@type'].endsWith('google.rpc.RetryInfo') && typeof rec.retryDelay === 'string') {
      return parseDuration(rec.retryDelay);
    }
  }
  return undefined;
}

/**
 * The wait an upstream asks for, in ms: retry-after-ms, then Retry-After, then Google's RetryInfo,
 * then the longest x-ratelimit-reset-* / anthropic-ratelimit-*-reset (the exhausted limit is not
 * named, and waiting for the longest one is the only wait sure to be enough).
 */
export function retryAfterMs(headers: Headers, body: unknown, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const ra = headers.get('retry-after');
  if (ra !== null) {
    const v = parseRetryAfter(ra, now);
    if (v !== undefined) return v;
  }
  const google = googleRetryDelay(body);
  if (google !== undefined) return google;
  let longest: number | undefined;
  headers.forEach((value, name) => {
    const n = name.toLowerCase();
    if (n.startsWith('x-ratelimit-reset') || (n.startsWith('anthropic-ratelimit-') && n.endsWith('-reset'))) {
      const v = parseReset(value, now);
      if (v !== undefined && (longest === undefined || v > longest)) longest = v;
    }
  });
  return longest;
}
