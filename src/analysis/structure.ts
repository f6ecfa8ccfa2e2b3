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
export function segmenterFor(language: string | undefined, granularity: "word" | "sentence"): Intl.Segmenter {
  const key = `${language ?? ""}|${granularity}`;
  let segmenter = segmenters.get(key);
  if (!segmenter) segmenters.set(key, (segmenter = new Intl.Segmenter(language || undefined, { granularity })));
  return segmenter;
}

/**
 * Sentences of the answer: one unit per table row or heading, Intl.Segmenter sentences elsewhere.
 * `text` should come through withoutUrls so that no link is cut.
 */
export function sentenceUnits(text: string, lines: readonly Line[], language?: string): SentenceUnit[] {
  const segmenter = segmenterFor(language, "sentence");
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
    for (const s of segmenter.segment(text.slice(contentStart, line.end))) {
      const unit = { start: contentStart + s.index, end: contentStart + s.index + s.segment.length };
      if (pending) pending.end = unit.end;
      else pending = unit;
      if (!ABBREVIATION_END.test(text.slice(pending.start, pending.end))) {
        units.push(pending);
        pending = null;
      }
    }
    if (pending) units.push(pending);
  }
  return units.filter((u) => text.slice(u.start, u.end).trim() !== "");
}
