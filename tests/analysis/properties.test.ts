import { expect, test } from "bun:test";
import fc from "fast-check";
import { analyzeAnswer, canonicalizeUrl, compileEntities, findMentions, type Entity } from "../../src/analysis";

const brand: Entity = { id: "acme", kind: "brand", name: "Acme", aliases: ["Acme Cloud", { text: "ACM", caseSensitive: true }], domains: ["acme.com"] };
const competitors: Entity[] = [
  { id: "coke", kind: "competitor", name: "Coca-Cola", aliases: [{ text: "Coke", caseSensitive: true }], domains: ["coca-cola.com"] },
  { id: "att", kind: "competitor", name: "AT&T", domains: ["att.com"] },
  { id: "monday", kind: "competitor", name: "monday.com" },
  { id: "cpp", kind: "competitor", name: "C++" },
  { id: "cloud", kind: "competitor", name: "Cloud", caseSensitive: true },
  { id: "acmeco", kind: "competitor", name: "Acme Cloud Suite" },
];

// Fragments that exercise names, look-alikes, URLs, markdown and Unicode, mixed with random text.
const fragment = fc.oneof(
  fc.constantFrom(
    "Acme", "acme", "ACME", "Acme's", "**Acme**", "Acme Cloud", "Acme Cloud Suite", "ACM", "Acmé", "Coca-Cola", "Coca Cola", "Coke",
    "coke", "AT&T", "monday.com", "C++", "Cloud", "cloud", "acme.com", "docs.acme.com", "acme.com.evil.io", "notacme.com",
    "https://acme.com/acme?utm_source=x", "[Acme](https://acme.com/p)", "https://www.g2.com/acme", "\n1. ", "\n- ", "\n\n", ". ",
    ", ", " but ", "great", "not good", "华为", "|", "## ", "e.g.", "(", ")",
  ),
  fc.string({ maxLength: 12 }),
);
const answerText = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(" "));
// Text that names nobody on its own: checked against the same matcher rather than assumed.
const compiledAll = compileEntities(brand, competitors);
const neutralText = fc.array(fc.oneof(fc.constantFrom("the", "tools", "are", "great", "\n- item", ". ", "https://example.org/x", "**bold**", "émigré"), fc.string({ maxLength: 10 })), { maxLength: 20 })
  .map((parts) => parts.join(" "))
  .filter((t) => findMentions(compiledAll, t).length === 0);

const brandFields = (text: string, cs: Entity[]) => {
  const r = analyzeAnswer({ text, brand, competitors: cs });
  return { mentioned: r.mentioned, mention_count: r.mention_count, first: r.first_mention_offset, list_rank: r.list_rank, brand_citations: r.brand_citation_count };
};

test("reordering the competitor list changes no count of the brand", () => {
  fc.assert(
    fc.property(answerText, fc.shuffledSubarray(competitors, { minLength: competitors.length }), (text, shuffled) => {
      expect(brandFields(text, shuffled)).toEqual(brandFields(text, competitors));
    }),
    { numRuns: 300 },
  );
});

test("appending text that names no entity changes no count or position of the brand", () => {
  fc.assert(
    fc.property(answerText, neutralText, (text, suffix) => {
      const before = analyzeAnswer({ text, brand, competitors });
      const after = analyzeAnswer({ text: `${text}\n\n${suffix}`, brand, competitors });
      expect([after.mentioned, after.mention_count, after.first_mention_offset, after.mention_position]).toEqual([
        before.mentioned, before.mention_count, before.first_mention_offset, before.mention_position,
      ]);
      expect(after.competitor_mentions.map((c) => [c.competitor_id, c.mention_count, c.position])).toEqual(
        before.competitor_mentions.map((c) => [c.competitor_id, c.mention_count, c.position]),
      );
    }),
    { numRuns: 300 },
  );
});

test("analysis is deterministic, whether entities are compiled once or per call", () => {
  fc.assert(
    fc.property(answerText, (text) => {
      const once = analyzeAnswer({ text, compiled: compiledAll });
      expect(analyzeAnswer({ text, compiled: compiledAll })).toEqual(once);
      expect(analyzeAnswer({ text, brand, competitors })).toEqual(once);
    }),
    { numRuns: 200 },
  );
});

test("mentions are disjoint, ordered, point into the text, and counts add up", () => {
  fc.assert(
    fc.property(answerText, (text) => {
      const mentions = findMentions(compiledAll, text);
      for (let i = 0; i < mentions.length; i++) {
        const m = mentions[i]!;
        expect(text.slice(m.start, m.end)).toBe(m.text);
        if (i > 0) expect(m.start).toBeGreaterThanOrEqual(mentions[i - 1]!.end);
      }
      const r = analyzeAnswer({ text, compiled: compiledAll });
      expect(r.mention_count + r.competitor_mentions.reduce((a, c) => a + c.mention_count, 0)).toBe(mentions.length);
      expect(r.visibility_score).toBeGreaterThanOrEqual(0);
      expect(r.visibility_score).toBeLessThanOrEqual(100);
      if (r.sentiment_score !== null) expect(Math.abs(r.sentiment_score)).toBeLessThanOrEqual(1);
      const positions = [r.mention_position, ...r.competitor_mentions.map((c) => c.position)].filter((p) => p !== null).sort();
      expect(positions).toEqual(positions.map((_, i) => i + 1));
    }),
    { numRuns: 300 },
  );
});

test("canonical URLs are idempotent", () => {
  fc.assert(
    fc.property(fc.webUrl({ withFragments: true, withQueryParameters: true }), (url) => {
      const once = canonicalizeUrl(url).normalized_url;
      expect(canonicalizeUrl(once).normalized_url).toBe(once);
    }),
    { numRuns: 300 },
  );
});
