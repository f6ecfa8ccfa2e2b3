/**
 * Finds the URL-like parts of an answer in one regex pass: markdown link destinations and
 * reference definitions (hidden when rendered), bare URLs, and bare host names.
 */
import { isKnownHost } from "./urls";

export interface LinkToken {
  start: number;
  end: number;
  /** Host part inside [start, end) (equal to start/end for a bare host). */
  hostStart: number;
  hostEnd: number;
  /** Link destinations are not shown to a reader, so nothing inside them is a mention. */
  hidden: boolean;
  /** The link target, for citations; null for a bare host name such as "acme.com". */
  url: string | null;
  /** Markdown link label, when the token is a link destination. */
  label: string | null;
}

const URL_BODY = String.raw`[^\s<>"'\x60()\[\]{}|]+(?:\([^\s<>()]*\)[^\s<>"'\x60()\[\]{}|]*)*`;
const URL_START = /https?:\/\/|www\./gi;
const URL_AT = new RegExp(`(?:https?:\\/\\/|www\\.)${URL_BODY}`, "iy");
const REFERENCE_DEFINITION_BEFORE = /^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*<?$/;
const HOST_SHAPE = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,24}$/u;
const HOST_CHAR = /[\p{L}\p{N}]/u;
const TRAILING_PUNCTUATION = ".,;:!?'\"*_~";
/** A host name is at most 253 characters: a longer run of host characters is not one. */
const MAX_HOST = 253;

/** `url` without the punctuation that ends a sentence after it; a loop, as /[…]+$/ rescanned a run from each of its characters. */
function withoutTrailingPunctuation(url: string): string {
  let end = url.length;
  while (end > 0 && TRAILING_PUNCTUATION.includes(url[end - 1]!)) end--;
  return url.slice(0, end);
}

function isAlnum(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
  return HOST_CHAR.test(String.fromCharCode(code)) || (code >= 0xd800 && code <= 0xdfff);
}
const isHostPart = (code: number) => code === 45 || code === 46 || isAlnum(code);

function hostSpan(url: string, offset: number): [number, number] {
  const schemeEnd = url.indexOf("://");
  let from = schemeEnd >= 0 ? schemeEnd + 3 : 0;
  let to = from;
  for (let c = url.charCodeAt(to); to < url.length && c !== 47 && c !== 63 && c !== 35; c = url.charCodeAt(++to));
  const at = url.lastIndexOf("@", to - 1);
  if (at >= from) from = at + 1;
  const colon = url.indexOf(":", from);
  if (colon >= 0 && colon < to) to = colon;
  return [offset + from, offset + to];
}

/** True when the URL at `start` is the destination of a markdown link: "[label](" precedes it. */
function isLinkDestination(text: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && (text[i] === " " || text[i] === "\t" || text[i] === "<")) i--;
  return i >= 1 && text[i] === "(" && text[i - 1] === "]";
}

/** True when the URL at `start` follows "[1]: " at the start of its line. */
function isReferenceDefinition(text: string, lineStart: number, start: number): boolean {
  let i = lineStart;
  while (i < start && i - lineStart < 3 && (text[i] === " " || text[i] === "\t")) i++;
  return text[i] === "[" && REFERENCE_DEFINITION_BEFORE.test(text.slice(lineStart, start));
}

function urlToken(text: string, start: number, body: string): LinkToken {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  let url = body;
  let hidden = false;
  let label: string | null = null;
  if (isLinkDestination(text, start)) {
    hidden = true;
    const close = text.lastIndexOf("](", start);
    const open = text.lastIndexOf("[", close);
    if (open >= lineStart) label = text.slice(open + 1, close);
  } else if (isReferenceDefinition(text, lineStart, start)) {
    hidden = true;
  } else {
    url = withoutTrailingPunctuation(url);
    if (url.endsWith(")") && !url.includes("(")) url = url.slice(0, -1);
  }
  const [hostStart, hostEnd] = hostSpan(url, start);
  return { start, end: start + url.length, hostStart, hostEnd, hidden, url, label };
}

/**
 * A bare host name ("docs.acme.com") around the dot at `dot`, or null; `runEnd` is where the run of
 * host characters holding the dot ends. Every dot of that run gives the same answer, so the caller
 * goes on from there (walking the run again from each of its dots was quadratic: "a." × 20,000 took 8 s).
 */
function hostAround(text: string, dot: number): { host: LinkToken | null; runEnd: number } {
  // Each walk stops past MAX_HOST: a longer run is no host, and a call costs O(MAX_HOST) even when
  // the caller cannot skip the run (a URL starting inside it).
  let start = dot;
  while (start > 0 && dot - start <= MAX_HOST && isHostPart(text.charCodeAt(start - 1))) start--;
  let end = dot + 1;
  while (end < text.length && end - dot <= MAX_HOST && isHostPart(text.charCodeAt(end))) end++;
  const runEnd = end;
  const none = { host: null, runEnd };
  if (dot - start > MAX_HOST || end - dot > MAX_HOST) return none;
  while (start < end && !isAlnum(text.charCodeAt(start))) start++;
  while (end > start && !isAlnum(text.charCodeAt(end - 1))) end--;
  // "%acme.com", "/acme.com", "x_acme.com", "-acme.com" are parts of something else.
  const before = start > 0 ? text[start - 1]! : "";
  if (before && "._%+-/".includes(before)) return none;
  if (end < text.length && text[end] === "_") return none;
  if (end - start > MAX_HOST) return none;
  const host = text.slice(start, end);
  if (!HOST_SHAPE.test(host) || !isKnownHost(host)) return none;
  return { host: { start, end, hostStart: start, hostEnd: end, hidden: false, url: null, label: null }, runEnd };
}

/** Links and host names of an answer, sorted and disjoint. */
export function scanLinks(text: string): LinkToken[] {
  const urls: LinkToken[] = [];
  // Most answers have few links: look for the literal markers before running any regex.
  if (text.includes("://") || /www\./i.test(text)) {
    // Fresh regex objects: their lastIndex is per-call state.
    const starts = new RegExp(URL_START.source, URL_START.flags);
    const urlAt = new RegExp(URL_AT.source, URL_AT.flags);
    for (let m = starts.exec(text); m; m = starts.exec(text)) {
      urlAt.lastIndex = m.index;
      const body = urlAt.exec(text)?.[0];
      if (!body) continue;
      const token = urlToken(text, m.index, body);
      urls.push(token);
      starts.lastIndex = Math.max(starts.lastIndex, token.end);
    }
  }
  const tokens: LinkToken[] = [];
  let next = 0;
  for (let dot = text.indexOf("."); dot >= 0; dot = text.indexOf(".", dot + 1)) {
    while (next < urls.length && urls[next]!.end <= dot) tokens.push(urls[next++]!);
    if (next < urls.length && urls[next]!.start <= dot) {
      dot = urls[next]!.end - 1; // skip the rest of the URL
      continue;
    }
    if (dot === 0 || !isAlnum(text.charCodeAt(dot - 1)) || !isAlnum(text.charCodeAt(dot + 1))) continue;
    const { host, runEnd } = hostAround(text, dot);
    if (!host || (next < urls.length && host.end > urls[next]!.start)) {
      // The run's other dots would give the same; a URL starting inside it is still met above.
      if (!host && (next >= urls.length || urls[next]!.start >= runEnd)) dot = runEnd - 1;
      continue;
    }
    tokens.push(host);
    dot = host.end;
  }
  while (next < urls.length) tokens.push(urls[next++]!);
  return tokens;
}

/** The token that contains [start, end), if any (tokens are sorted and disjoint). */
export function tokenAt(tokens: readonly LinkToken[], start: number, end: number): LinkToken | null {
  let lo = 0;
  let hi = tokens.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = tokens[mid]!;
    if (t.end <= start) lo = mid + 1;
    else if (t.start >= end) hi = mid - 1;
    else return t;
  }
  return null;
}
