/**
 * Text folding for matching: NFKD compatibility decomposition with combining marks dropped
 * (diacritics folded), lower-cased, dashes unified to "-", apostrophes to "'", whitespace runs
 * collapsed to one space. The folded text keeps, for every UTF-16 unit, the offset of the
 * original character it came from, so matches report offsets in the caller's text.
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

export interface FoldedText {
  /** Folded, lower-cased UTF-16 units. */
  readonly codes: Uint16Array;
  /** For each unit, the UTF-16 offset of the original character it came from. */
  readonly origin: Int32Array;
  readonly length: number;
}

/** Folds a whole answer in one linear pass, keeping the offset map (ASCII takes a fast path). */
export function foldText(text: string): FoldedText {
  let capacity = text.length + 16;
  let codes = new Uint16Array(capacity);
  let origin = new Int32Array(capacity);
  let n = 0;
  const cache = new Map<number, string>();
  const grow = () => {
    capacity *= 2;
    const c = new Uint16Array(capacity);
    c.set(codes);
    const o = new Int32Array(capacity);
    o.set(origin);
    codes = c;
    origin = o;
  };
  for (let i = 0; i < text.length; ) {
    const unit = text.charCodeAt(i);
    if (unit < 128) {
      let code = unit;
      if (code >= 65 && code <= 90) code += 32;
      else if (code === 9 || code === 10 || code === 13 || code === 12 || code === 11) code = 32;
      else if (code === 96) code = 39;
      i++;
      if (code === 32 && (n === 0 || codes[n - 1] === 32)) continue;
      if (n >= capacity) grow();
      codes[n] = code;
      origin[n++] = i - 1;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    let folded = cache.get(cp);
    if (folded === undefined) {
      folded = foldCodePoint(String.fromCodePoint(cp), false);
      cache.set(cp, folded);
    }
    for (let k = 0; k < folded.length; k++) {
      const code = folded.charCodeAt(k);
      if (code === 32 && (n === 0 || codes[n - 1] === 32)) continue;
      if (n >= capacity) grow();
      codes[n] = code;
      origin[n++] = i;
    }
    i += width;
  }
  return { codes, origin, length: n };
}

/** Original end offset of a folded span ending before unit `end` (includes trailing marks that were dropped). */
export function originalEnd(text: string, folded: FoldedText, end: number): number {
  let o = folded.origin[end - 1]!;
  o += text.codePointAt(o)! > 0xffff ? 2 : 1;
  while (o < text.length && COMBINING_MARK.test(text[o]!)) o++;
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
