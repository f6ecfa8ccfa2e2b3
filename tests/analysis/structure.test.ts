import { describe, expect, test } from "bun:test";
import { analyzeAnswer, type Entity } from "../../src/analysis";
import { wordCount } from "../../src/analysis/analyze";
import { analyzeLines, asciiSentenceEnds, sentenceUnits, UNTAILORED_SENTENCE_LANGUAGES } from "../../src/analysis/structure";

const acme: Entity = { id: "acme", kind: "brand", name: "Acme" };
const beta: Entity = { id: "beta", kind: "competitor", name: "Beta" };
const rank = (text: string) => analyzeAnswer({ text, brand: acme, competitors: [beta] });

describe("list rank", () => {
  test("numbered list: the item's ordinal, even when every item is written '1.'", () => {
    expect(rank("Top tools:\n1. Beta – fast\n2. Acme – simple").list_rank).toBe(2);
    expect(rank("1. Beta\n1. Gamma\n1. Acme").list_rank).toBe(3);
  });
  test("bulleted list, with continuation lines and nested items counted under their parent", () => {
    const text = "- **Beta**\n  - pricing: $10\n  - made by the Beta team\n- **Acme**\n  continues here\n- Gamma";
    const r = rank(text);
    expect(r.list_rank).toBe(2);
    expect(r.competitor_mentions[0]!.list_rank).toBe(1);
  });
  test("numbered headings (### 1. Name) rank like list items, sections included", () => {
    const text = "### 1. Beta\nGood.\n\n### 2. Gamma\nFine, better than Acme.\n\n### 3. Acme\nNice.";
    expect(rank(text).list_rank).toBe(3);
  });
  test("an item that names the brand in its lead outranks an earlier passing mention", () => {
    expect(rank("1. Beta: a cheaper alternative to Acme\n2. Acme: the original").list_rank).toBe(2);
    expect(rank("1. Beta: a cheaper alternative to Acme\n2. Gamma").list_rank).toBe(1);
  });
  test("prose, tables and a new list after a paragraph", () => {
    expect(rank("Acme is good.").list_rank).toBeNull();
    expect(rank("| Tool | Price |\n|---|---|\n| Beta | 1 |\n| Acme | 2 |").list_rank).toBeNull();
    expect(rank("1. Beta\n2. Gamma\n\nSome text.\n\n1. Acme").list_rank).toBe(1);
  });
});

describe("sentences", () => {
  test("URLs and abbreviations do not cut sentences; each table row is a unit", () => {
    const r = rank("See https://acme.example/a?b=1. Acme, e.g. the app, is great.\n| Acme | ok |");
    expect(r.sentiment_passages).toEqual(["it, e.g. the app, is great.", "| it | ok |"]);
  });
  test("a following sentence that names nobody is still about the brand, on the same line only", () => {
    expect(rank("Acme is a CRM. It is excellent.\nIt is terrible.").sentiment_passages).toEqual(["it is a CRM. ", "It is excellent."]);
  });
  test("in a sentence naming several entities only the brand's clauses are scored", () => {
    expect(rank("Beta is terrible, but Acme is excellent.").sentiment_passages).toEqual(["but it is excellent."]);
    expect(rank("Unlike Beta, Acme never crashes.").sentiment).toBe("positive");
  });
});

// Printable-ASCII lines are cut by asciiSentenceEnds instead of Intl.Segmenter; these tests hold
// it to the segmenter, character for character, in every language it is used for.
describe("sentence ends without ICU", () => {
  // Deterministic pseudo-random strings, dense in the characters the break rules look at.
  function randomStrings(seed: number, count: number, alphabet: string, maxLength: number): string[] {
    let s = seed;
    const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(next() * maxLength) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(""));
  }
  const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("") + "\t";
  const DENSE = `aAbZ19 .!?"'()[]{},-:;$#*_/&\t`;
  const icuEnds = (segmenter: Intl.Segmenter, s: string) => [...segmenter.segment(s)].map((x) => x.index + x.segment.length);

  test.each(UNTAILORED_SENTENCE_LANGUAGES)("%p: the same sentence ends as Intl.Segmenter", (language) => {
    const segmenter = new Intl.Segmenter(language || undefined, { granularity: "sentence" });
    const samples = [...randomStrings(language.length + 1, 3000, DENSE, 16), ...randomStrings(99, 500, PRINTABLE, 60), "", "U.S. Army. e.g. this. 3.5 pts! (Really?) Yes.\t'Quoted.' Next"];
    const differing = samples.filter((s) => icuEnds(segmenter, s).join() !== asciiSentenceEnds(s).join());
    expect(differing).toEqual([]);
  });

  test("Greek ends questions with ';', so it keeps ICU", () => {
    const greek = new Intl.Segmenter("el", { granularity: "sentence" });
    expect(icuEnds(greek, "Ti; Nai.")).not.toEqual(asciiSentenceEnds("Ti; Nai."));
    expect(UNTAILORED_SENTENCE_LANGUAGES).not.toContain("el");
  });

  test("sentence units and word counts are those of Intl.Segmenter, the abbreviation regex and the Unicode word regex", () => {
    // The implementation before the ASCII paths, kept here as the reference.
    const ABBREVIATION = /(?<![\p{L}\p{N}])(?:e\.g|i\.e|vs|etc|approx|incl|dr|mr|mrs|ms|inc|ltd|co|z\.b|bzw|ca|p\.ex|cf|resp|\p{Lu})\.\s*$/iu;
    const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’\-]*/gu;
    const MARKUP = /^[ \t]*(?:#{1,6}[ \t]+|>[ \t]*|(?:[-*+•‣◦▪]|\d{1,3}[.)])[ \t]+)*/;
    function referenceUnits(text: string, language: string | undefined) {
      const segmenter = new Intl.Segmenter(language, { granularity: "sentence" });
      const units: { start: number; end: number }[] = [];
      for (const line of analyzeLines(text)) {
        const raw = text.slice(line.start, line.end);
        if (raw.trim() === "" || /^[ \t|:\-]+$/.test(raw)) continue;
        const contentStart = line.start + MARKUP.exec(raw)![0].length;
        if (/^[ \t]*\|/.test(raw) || /^[ \t]{0,3}(#{1,6})[ \t]/.test(raw)) {
          units.push({ start: contentStart, end: line.end });
          continue;
        }
        let pending: { start: number; end: number } | null = null;
        for (const s of segmenter.segment(text.slice(contentStart, line.end))) {
          const unit = { start: contentStart + s.index, end: contentStart + s.index + s.segment.length };
          if (pending) pending.end = unit.end;
          else pending = unit;
          if (!ABBREVIATION.test(text.slice(pending.start, pending.end))) {
            units.push(pending);
            pending = null;
          }
        }
        if (pending) units.push(pending);
      }
      return units.filter((u) => text.slice(u.start, u.end).trim() !== "");
    }
    const words = ["Acme", "is", "great", "e.g.", "vs.", "U.S.", "Inc.", "3.5", "(see", "notes)", "fast!", "slow?", "the", "Mr.", "approx.", "x...", "End.", "A.", "b.", "Café.", "Ünïcode", "𝐀.", "'tis", "well-known", "it’s", "https://acme.com/a?b=1", "\u00a0", " \t", "漢字。", "Ok.)"];
    const prefixes = ["", "- ", "1. ", "2) ", "### ", "> ", "| ", "  - ", "**"];
    let seed = 5;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T,>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    for (let i = 0; i < 1500; i++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(prefixes) + Array.from({ length: Math.floor(next() * 14) }, () => pick(words)).join(pick([" ", " ", "  ", ""]))).join(pick(["\n", "\r\n"]));
      for (const language of ["en", undefined, "el", "ja"]) {
        const units = sentenceUnits(text, analyzeLines(text), language);
        expect(units).toEqual(referenceUnits(text, language));
        for (const u of units) {
          const part = text.slice(u.start, u.end);
          // Scripts without spaces go to the word segmenter either way.
          if (!/\p{Script=Han}/u.test(part)) expect(wordCount(part, language)).toBe(part.replace(/https?:\/\/\S+/g, " ").match(WORD)?.length ?? 0);
        }
      }
    }
  });
});
