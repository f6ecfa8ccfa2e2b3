/**
 * Text folding for matching: NFKD compatibility decomposition with combining marks dropped
 * (diacritics folded), lower-cased, dashes unified to "-", apostrophes to "'", whitespace runs
 * collapsed to one space. Answers are folded on the fly while they are scanned (entities.ts), so
 * matches report offsets in the caller's text.
 */

// Letters with a stroke or ligatures that NFKD does not decompose but readers treat as the base letter.
const EXTRA_FOLDS: Readonly<Record<string, string>> = {
  ß: "ss", ẞ: "ss", ø: "o", Ø: "O", ł: "l", Ł: "L", đ: "d", Đ: "D", ħ: "h", Ħ: "H",
  æ: "ae", Æ: "AE", œ: "oe", Œ: "OE", ı: "i", ς: "σ",
};
const COMBINING_MARK = /\p{M}/u;
const COMBINING_MARKS = /\p{M}/gu;
const WHITESPACE = /\s/u;
const DASH = /\p{Pd}/u;
const APOSTROPHES = new Set(["'", "\u2019", "\u2018", "\u02BC", "\u2032", "\u00B4", "`"]);

/** Folds one code point; returns "" for marks and " " for any whitespace. */
function foldCodePoint(ch: string, keepCase: boolean): string {
  if (WHITESPACE.test(ch)) return " ";
  if (APOSTROPHES.has(ch)) return "'";
  if (DASH.test(ch)) return "-";
  const extra = EXTRA_FOLDS[ch];
  let folded = extra ?? ch.normalize("NFKD").replace(COMBINING_MARKS, "");
  if (!keepCase) folded = folded.toLowerCase();
  return folded;
}

/** Folds a short string (an alias, a sentence); `keepCase` keeps letter case for case-sensitive aliases. */
export function foldString(text: string, keepCase = false): string {
  let out = "";
  for (const ch of text) {
    const f = foldCodePoint(ch, keepCase);
    if (f === " " && (out === "" || out.endsWith(" "))) continue;
    out += f;
  }
  return out.trimEnd();
}

// Folds of the non-ASCII characters answers use most (Latin, Greek, Cyrillic, general
// punctuation), computed once at load; other characters go through a per-call cache.
const LOW_FOLDS_END = 0x530;
const LOW_FOLDS: readonly string[] = Array.from({ length: LOW_FOLDS_END }, (_, cp) => foldCodePoint(String.fromCodePoint(cp), false));
const PUNCTUATION_FOLDS: readonly string[] = Array.from({ length: 0x70 }, (_, i) => foldCodePoint(String.fromCodePoint(0x2000 + i), false));

/** Folds one code point (lower-cased) from the load-time tables or the caller's cache. */
export function foldCached(cp: number, cache: Map<number, string>): string {
  if (cp < LOW_FOLDS_END) return LOW_FOLDS[cp]!;
  if (cp >= 0x2000 && cp < 0x2070) return PUNCTUATION_FOLDS[cp - 0x2000]!;
  let folded = cache.get(cp);
  if (folded === undefined) {
    folded = foldCodePoint(String.fromCodePoint(cp), false);
    cache.set(cp, folded);
  }
  return folded;
}

/** Folded ASCII units: lower case, whitespace to space, backtick to apostrophe. */
export const ASCII_FOLD: Readonly<Uint8Array> = Uint8Array.from({ length: 128 }, (_, c) =>
  c >= 65 && c <= 90 ? c + 32 : c >= 9 && c <= 13 ? 32 : c === 96 ? 39 : c,
);

/** First folded unit of the text from `offset` on, skipping characters that fold to nothing; -1 at the end. */
export function foldedUnitAt(text: string, offset: number, cache: Map<number, string>): number {
  for (let i = offset; i < text.length; ) {
    const code = text.charCodeAt(i);
    if (code < 128) return ASCII_FOLD[code]!;
    const cp = text.codePointAt(i)!;
    const folded = foldCached(cp, cache);
    if (folded.length > 0) return folded.charCodeAt(0);
    i += cp > 0xffff ? 2 : 1;
  }
  return -1;
}

/** End offset of the character at `offset`, including combining marks that follow it. */
export function characterEnd(text: string, offset: number): number {
  let o = offset + (text.codePointAt(offset)! > 0xffff ? 2 : 1);
  while (o < text.length && text.charCodeAt(o) >= 0x300 && COMBINING_MARK.test(text[o]!)) o++;
  return o;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
// Scripts written without spaces between words: any neighbour is a boundary there.
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

export function isWordUnit(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
  if (code >= 0xd800 && code <= 0xdfff) return true; // astral letters (rare); err towards "no boundary"
  return WORD_CHAR.test(String.fromCharCode(code));
}

export function isUnspacedUnit(code: number): boolean {
  return code >= 0x0e00 && UNSPACED_SCRIPT.test(String.fromCharCode(code));
}

/** Unicode word boundary between two adjacent folded units (-1 = text edge). */
export function isBoundary(before: number, after: number): boolean {
  if (before < 0 || after < 0) return true;
  if (!isWordUnit(before) || !isWordUnit(after)) return true;
  return isUnspacedUnit(before) || isUnspacedUnit(after);
}
