/**
 * Markdown structure of an answer as a reader sees it: which list item (and its rank) each
 * line belongs to, and the sentence units used by sentiment and the GEO word count.
 */

export interface Line {
  start: number;
  end: number;
  /** 1-based rank of the outermost list item (or numbered heading) holding this line, else null. */
  rank: number | null;
  /** Where this item's lead (its title: the text before ":" or a dash) ends, on the item's first line. */
  leadEnd: number | null;
}

const LIST_ITEM = /^([ \t]*)(?:[-*+•‣◦▪]|\d{1,3}[.)])[ \t]+/;
const NUMBERED_HEADING = /^[ \t]{0,3}(#{1,6})[ \t]+(?:\*\*)?\d{1,3}[.)][ \t]+/;
const HEADING = /^[ \t]{0,3}(#{1,6})[ \t]/;
const TABLE_ROW = /^[ \t]*\|/;
const LEAD_SEPARATOR = /:|\s[-–—]\s|\.\s/;

function indentWidth(s: string): number {
  return s.replace(/\t/g, "    ").length;
}

function leadEnd(text: string, contentStart: number, lineEnd: number): number {
  const content = text.slice(contentStart, lineEnd);
  const at = content.search(LEAD_SEPARATOR);
  return contentStart + (at >= 0 ? at : content.length);
}

export function analyzeLines(text: string): Line[] {
  const lines: Line[] = [];
  const lists: { indent: number; count: number }[] = [];
  let headingList: { level: number; count: number } | null = null;
  let previousBlank = false;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const raw = text.slice(start, end).replace(/\r$/, "");
    let lead: number | null = null;
    const numberedHeading = NUMBERED_HEADING.exec(raw);
    const heading = HEADING.exec(raw);
    const item = LIST_ITEM.exec(raw);
    if (numberedHeading) {
      const level = numberedHeading[1]!.length;
      headingList = headingList && headingList.level === level ? { level, count: headingList.count + 1 } : { level, count: 1 };
      lists.length = 0;
      lead = start + raw.length;
    } else if (heading) {
      // A plain heading of the same or a higher level closes a numbered-heading sequence.
      if (headingList && heading[1]!.length <= headingList.level) headingList = null;
      lists.length = 0;
    } else if (item) {
      const indent = indentWidth(item[1]!);
      while (lists.length && lists[lists.length - 1]!.indent > indent) lists.pop();
      const top = lists[lists.length - 1];
      if (top && top.indent === indent) top.count++;
      else lists.push({ indent, count: 1 });
      lead = leadEnd(text, start + item[0].length, start + raw.length);
    } else if (raw.trim() === "") {
      previousBlank = true;
    } else if (TABLE_ROW.test(raw) || (previousBlank && !/^[ \t]{2,}/.test(raw))) {
      lists.length = 0;
    }
    if (raw.trim() !== "") previousBlank = false;
    const rank = headingList ? headingList.count : lists.length ? lists[0]!.count : null;
    lines.push({ start, end, rank, leadEnd: lead });
    start = end + 1;
  }
  return lines;
}

export function lineIndexAt(lines: readonly Line[], offset: number): number {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * List rank of an entity from the offsets of its mentions: the rank of the first item whose lead
 * names it ("2. **Acme** – ..."), else of the first item that names it anywhere.
 */
export function listRank(lines: readonly Line[], offsets: readonly number[]): number | null {
  let fallback: number | null = null;
  for (const offset of offsets) {
    const line = lines[lineIndexAt(lines, offset)]!;
    if (line.rank === null) continue;
    if (line.leadEnd !== null && offset < line.leadEnd) return line.rank;
    fallback ??= line.rank;
  }
  return fallback;
}

export interface SentenceUnit {
  start: number;
  end: number;
}

const MARKUP_PREFIX = /^[ \t]*(?:#{1,6}[ \t]+|>[ \t]*|(?:[-*+•‣◦▪]|\d{1,3}[.)])[ \t]+)*/;
const TABLE_SEPARATOR = /^[ \t|:\-]+$/;
// Segments ending in these are not sentence ends ("e.g. Acme", "vs. Acme").
const ABBREVIATION_END = /(?<![\p{L}\p{N}])(?:e\.g|i\.e|vs|etc|approx|incl|dr|mr|mrs|ms|inc|ltd|co|z\.b|bzw|ca|p\.ex|cf|resp|\p{Lu})\.\s*$/iu;

/**
 * ABBREVIATION_END on the segment's last characters: a "$"-anchored regex is otherwise tried at
 * every position of the segment. The longest abbreviation with its dot is 7 code units ("approx."),
 * and 2 more keep the character before it (a letter or digit there, even a surrogate pair, forbids the match).
 */
function endsWithAbbreviation(segment: string): boolean {
  let end = segment.length;
  while (end > 0 && /\s/.test(segment[end - 1]!)) end--;
  return ABBREVIATION_END.test(segment.slice(Math.max(0, end - 9), end));
}

/** URLs replaced by letters of the same length, so "?" or "." inside a link ends no sentence. */
export function withoutUrls(text: string, spans: readonly { start: number; end: number }[]): string {
  let out = "";
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + "x".repeat(s.end - s.start);
    at = s.end;
  }
  return out + text.slice(at);
}

// Intl.Segmenter objects are immutable and costly to build; one per language and granularity.
const segmenters = new Map<string, Intl.Segmenter>();
/** A tag Intl refuses (en_US, stored before languages were checked) reads as no language: a failed unit costs its paid call. */
function newSegmenter(language: string | undefined, granularity: "word" | "sentence"): Intl.Segmenter {
  try {
    return new Intl.Segmenter(language || undefined, { granularity });
  } catch {
    return new Intl.Segmenter(undefined, { granularity });
  }
}

export function segmenterFor(language: string | undefined, granularity: "word" | "sentence"): Intl.Segmenter {
  const key = `${language ?? ""}|${granularity}`;
  let segmenter = segmenters.get(key);
  if (!segmenter) segmenters.set(key, (segmenter = newSegmenter(language, granularity)));
  return segmenter;
}

// UAX #29 sentence-break classes of printable ASCII; whatever is not listed is Other.
const enum SB {
  Other,
  Sp,
  Lower,
  Upper,
  Numeric,
  ATerm,
  STerm,
  Close,
  SContinue,
}
const SB_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  SB_CLASS[c] =
    ch === "\t" || ch === " " ? SB.Sp
    : ch >= "a" && ch <= "z" ? SB.Lower
    : ch >= "A" && ch <= "Z" ? SB.Upper
    : ch >= "0" && ch <= "9" ? SB.Numeric
    : ch === "." ? SB.ATerm
    : ch === "!" || ch === "?" ? SB.STerm
    : `"'()[]{}`.includes(ch) ? SB.Close
    : ",-:;".includes(ch) ? SB.SContinue
    : SB.Other;
}
const PRINTABLE_ASCII = /^[\t\x20-\x7e]*$/;
// Languages whose ICU sentence rules are the untailored UAX #29 ones (Greek, for one, ends questions
// with ";"). tests/analysis/structure.test.ts checks asciiSentenceEnds against Intl.Segmenter for each.
export const UNTAILORED_SENTENCE_LANGUAGES = ["", "en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "nb", "no", "fi", "pl", "cs", "tr", "ru"];

/**
 * Where Intl.Segmenter's sentences end in printable-ASCII text, computed with the UAX #29 rules
 * directly: a line needs no ICU call, which was most of the cost of analysing an answer.
 */
export function asciiSentenceEnds(s: string): number[] {
  const ends: number[] = [];
  const n = s.length;
  const cls = (i: number) => SB_CLASS[s.charCodeAt(i)]!;
  for (let t = 0; t < n; t++) {
    const c = cls(t);
    if (c !== SB.ATerm && c !== SB.STerm) continue;
    // A break can only follow a terminator, its closing punctuation and its spaces (SB9-SB11).
    let k = t + 1;
    while (k < n && cls(k) === SB.Close) k++;
    while (k < n && cls(k) === SB.Sp) k++;
    if (k >= n) break;
    const next = cls(k);
    if (c === SB.ATerm && k === t + 1) {
      if (next === SB.Numeric) continue; // SB6: "3.5"
      if (next === SB.Upper && t > 0 && (cls(t - 1) === SB.Upper || cls(t - 1) === SB.Lower)) continue; // SB7: "U.S"
    }
    if (c === SB.ATerm) {
      // SB8: no break when the next letter is lower case ("e.g. the app").
      let j = k;
      while (j < n) {
        const x = cls(j);
        if (x === SB.Lower || x === SB.Upper || x === SB.ATerm || x === SB.STerm) break;
        j++;
      }
      if (j < n && cls(j) === SB.Lower) continue;
    }
    if (next === SB.SContinue || next === SB.ATerm || next === SB.STerm) continue; // SB8a
    ends.push(k); // SB11
    t = k - 1;
  }
  if (n > 0) ends.push(n);
  return ends;
}

/** [start, end) of each sentence of one line's content, as Intl.Segmenter would cut it. */
function sentencesOf(content: string, segmenter: Intl.Segmenter, asciiRules: boolean): number[] {
  if (asciiRules && PRINTABLE_ASCII.test(content)) return asciiSentenceEnds(content);
  const ends: number[] = [];
  for (const s of segmenter.segment(content)) ends.push(s.index + s.segment.length);
  return ends;
}

/**
 * Sentences of the answer: one unit per table row or heading, Intl.Segmenter sentences elsewhere.
 * `text` should come through withoutUrls so that no link is cut.
 */
export function sentenceUnits(text: string, lines: readonly Line[], language?: string): SentenceUnit[] {
  const segmenter = segmenterFor(language, "sentence");
  const asciiRules = UNTAILORED_SENTENCE_LANGUAGES.includes((language ?? "").split(/[-_]/)[0]!.toLowerCase());
  const units: SentenceUnit[] = [];
  for (const line of lines) {
    const raw = text.slice(line.start, line.end);
    if (raw.trim() === "" || TABLE_SEPARATOR.test(raw)) continue;
    const contentStart = line.start + MARKUP_PREFIX.exec(raw)![0].length;
    if (TABLE_ROW.test(raw) || HEADING.test(raw)) {
      units.push({ start: contentStart, end: line.end });
      continue;
    }
    let pending: SentenceUnit | null = null;
    let from = 0;
    for (const end of sentencesOf(text.slice(contentStart, line.end), segmenter, asciiRules)) {
      const unit = { start: contentStart + from, end: contentStart + end };
      from = end;
      if (pending) pending.end = unit.end;
      else pending = unit;
      if (!endsWithAbbreviation(text.slice(pending.start, pending.end))) {
        units.push(pending);
        pending = null;
      }
    }
    if (pending) units.push(pending);
  }
  return units.filter((u) => text.slice(u.start, u.end).trim() !== "");
}
