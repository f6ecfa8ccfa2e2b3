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
const LINK_DESTINATION_BEFORE = /\]\([ \t]*<?$/;
const REFERENCE_DEFINITION_BEFORE = /^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*<?$/;
const HOST_SHAPE = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,24}$/u;
const HOST_CHAR = /[\p{L}\p{N}]/u;
const TRAILING_PUNCTUATION = /[.,;:!?'"*_~]+$/;

function isAlnum(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
  return HOST_CHAR.test(String.fromCharCode(code)) || (code >= 0xd800 && code <= 0xdfff);
}
const isHostPart = (code: number) => code === 45 || code === 46 || isAlnum(code);

function hostSpan(url: string, offset: number): [number, number] {
  const schemeEnd = url.indexOf("://");
  let from = schemeEnd >= 0 ? schemeEnd + 3 : 0;
  const rest = url.slice(from);
  const stop = rest.search(/[\/?#]/);
  const authority = stop >= 0 ? rest.slice(0, stop) : rest;
  const at = authority.lastIndexOf("@");
  if (at >= 0) from += at + 1;
  const hostText = authority.slice(at + 1).replace(/:\d*$/, "");
  return [offset + from, offset + from + hostText.length];
}

function urlToken(text: string, start: number, body: string): LinkToken {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const before = text.slice(Math.max(lineStart, start - 200), start);
  let url = body;
  let hidden = false;
  let label: string | null = null;
  if (LINK_DESTINATION_BEFORE.test(before)) {
    hidden = true;
    const close = start - before.length + before.lastIndexOf("](");
    const open = text.lastIndexOf("[", close);
    if (open >= lineStart) label = text.slice(open + 1, close);
  } else if (REFERENCE_DEFINITION_BEFORE.test(text.slice(lineStart, start))) {
    hidden = true;
  } else {
    url = url.replace(TRAILING_PUNCTUATION, "");
    if (url.endsWith(")") && !url.includes("(")) url = url.slice(0, -1);
  }
  const [hostStart, hostEnd] = hostSpan(url, start);
  return { start, end: start + url.length, hostStart, hostEnd, hidden, url, label };
}

/** A bare host name ("docs.acme.com") around the dot at `dot`, or null. */
function hostAround(text: string, dot: number): LinkToken | null {
  let start = dot;
  while (start > 0 && isHostPart(text.charCodeAt(start - 1))) start--;
  let end = dot + 1;
  while (end < text.length && isHostPart(text.charCodeAt(end))) end++;
  while (start < end && !isAlnum(text.charCodeAt(start))) start++;
  while (end > start && !isAlnum(text.charCodeAt(end - 1))) end--;
  // "%acme.com", "/acme.com", "x_acme.com", "-acme.com" are parts of something else.
  const before = start > 0 ? text[start - 1]! : "";
  if (before && "._%+-/".includes(before)) return null;
  if (end < text.length && text[end] === "_") return null;
  const host = text.slice(start, end);
  if (!HOST_SHAPE.test(host) || !isKnownHost(host)) return null;
  return { start, end, hostStart: start, hostEnd: end, hidden: false, url: null, label: null };
}

/** Links and host names of an answer, sorted and disjoint. */
export function scanLinks(text: string): LinkToken[] {
  const urls: LinkToken[] = [];
  let covered = 0;
  for (const m of text.matchAll(URL_START)) {
    if (m.index! < covered) continue;
    URL_AT.lastIndex = m.index!;
    const body = URL_AT.exec(text)?.[0];
    if (!body) continue;
    const token = urlToken(text, m.index!, body);
    urls.push(token);
    covered = token.end;
  }
  const tokens: LinkToken[] = [];
  let next = 0;
  for (let dot = text.indexOf("."); dot >= 0; dot = text.indexOf(".", dot + 1)) {
    while (next < urls.length && urls[next]!.end <= dot) tokens.push(urls[next++]!);
    if (next < urls.length && urls[next]!.start <= dot) continue;
    if (dot === 0 || !isAlnum(text.charCodeAt(dot - 1)) || !isAlnum(text.charCodeAt(dot + 1))) continue;
    const host = hostAround(text, dot);
    if (!host || (next < urls.length && host.end > urls[next]!.start)) continue;
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
