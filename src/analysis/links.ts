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

const URL_BODY = String.raw`(?:https?:\/\/|www\.)[^\s<>"'\x60()\[\]{}|]+(?:\([^\s<>()]*\)[^\s<>"'\x60()\[\]{}|]*)*`;
const TOKENS = new RegExp(
  [
    // 1 label, 2 destination: [label](url "title")
    String.raw`\[([^\]\n]*)\]\(\s*<?(${URL_BODY})>?(?:\s+"[^"\n]*")?\s*\)`,
    // 3 reference definition: [1]: url
    String.raw`^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*<?(${URL_BODY})>?`,
    // 4 bare URL
    `(${URL_BODY})`,
    // 5 bare host name
    String.raw`(?<![\p{L}\p{N}._%+\-\/])((?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,24})(?![\p{L}\p{N}_\-]|\.[\p{L}\p{N}])`,
  ].join("|"),
  "gmu",
);
const TRAILING_PUNCTUATION = /[.,;:!?'"*_~]+$/;

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

function urlToken(url: string, start: number, hidden: boolean, label: string | null): LinkToken {
  const [hostStart, hostEnd] = hostSpan(url, start);
  return { start, end: start + url.length, hostStart, hostEnd, hidden, url, label };
}

export function scanLinks(text: string): LinkToken[] {
  const tokens: LinkToken[] = [];
  for (const m of text.matchAll(TOKENS)) {
    const at = m.index!;
    if (m[2] !== undefined) {
      const destStart = at + m[0].indexOf(m[2], m[1]!.length + 2);
      tokens.push(urlToken(m[2], destStart, true, m[1]!));
    } else if (m[3] !== undefined) {
      tokens.push(urlToken(m[3], at + m[0].lastIndexOf(m[3]), true, null));
    } else if (m[4] !== undefined) {
      let url = m[4].replace(TRAILING_PUNCTUATION, "");
      if (url.endsWith(")") && !url.includes("(")) url = url.slice(0, -1);
      tokens.push(urlToken(url, at, false, null));
    } else if (m[5] !== undefined && isKnownHost(m[5])) {
      tokens.push({ start: at, end: at + m[5].length, hostStart: at, hostEnd: at + m[5].length, hidden: false, url: null, label: null });
    }
  }
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
