// The beacon t.js sends, validated field by field: the body is public input, so anything that is
// not exactly the expected shape is a 400 (never a 5xx, never a row).
import { AppError } from "../http/errors";
import { MAX_KEY_TEXT_BYTES, TRACKING_CODE } from "../common/limits";

export interface Beacon {
  trackingCode: string;
  url: URL;
  referrer: URL | null;
  language: string | null;
  screen: string | null;
  /** The browser says Do-Not-Track or Global Privacy Control. */
  optOut: boolean;
}

export const MAX_BEACON_BYTES = 8 * 1024;
const MAX_URL = 2048;
const LANGUAGE = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8}){0,6}$/;
const SCREEN = /^\d{1,5}x\d{1,5}$/;
const PAGE_SCHEMES = new Set(["http:", "https:"]);
const REFERRER_SCHEMES = new Set(["http:", "https:", "android-app:"]);

function invalid(message: string): AppError {
  return new AppError(400, "invalid_beacon", message);
}

function optionalString(body: Record<string, unknown>, key: string): string | null {
  const value = body[key];
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string") throw invalid(`${key} must be a string`);
  return value;
}

function parseUrl(value: string, key: string, schemes: Set<string>): URL {
  if (value.length > MAX_URL) throw invalid(`${key} is longer than ${MAX_URL} characters`);
  const url = URL.parse(value);
  if (!url || !schemes.has(url.protocol) || !url.hostname) throw invalid(`${key} must be an absolute ${[...schemes].join("/")} URL`);
  // Parsing percent-encodes a path: 2,048 characters of another script grow to ~18 KB, past what
  // a database index holds (the landing page is a key), which on Postgres failed every beacon
  // written beside it.
  if (url.pathname.length > MAX_KEY_TEXT_BYTES) throw invalid(`${key}'s path is longer than ${MAX_KEY_TEXT_BYTES} bytes once percent-encoded`);
  return url;
}

export function parseBeacon(text: string): Beacon {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError(400, "bad_json", "The beacon is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("The beacon must be a JSON object");
  const fields = body as Record<string, unknown>;

  const trackingCode = fields.brand;
  if (typeof trackingCode !== "string" || !TRACKING_CODE.test(trackingCode)) throw invalid("brand must be a tracking code");
  const url = optionalString(fields, "url");
  if (url === null) throw invalid("url is required");
  const referrer = optionalString(fields, "referrer");
  const language = optionalString(fields, "language");
  if (language !== null && !LANGUAGE.test(language)) throw invalid("language must be a language tag");
  const screen = optionalString(fields, "screen");
  if (screen !== null && !SCREEN.test(screen)) throw invalid("screen must look like 1280x720");
  const optOut = fields.dnt ?? false;
  if (typeof optOut !== "boolean") throw invalid("dnt must be a boolean");

  return {
    trackingCode,
    url: parseUrl(url, "url", PAGE_SCHEMES),
    referrer: referrer === null ? null : parseUrl(referrer, "referrer", REFERRER_SCHEMES),
    language,
    screen,
    optOut,
  };
}
