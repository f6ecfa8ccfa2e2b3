import { expect, test } from "bun:test";
import { analyzeAnswer, buildSuggestions, compileEntities, type SuggestionAnswer } from "../../src/analysis";

const brand = { id: "acme", kind: "brand" as const, name: "Acme", domains: ["acme.com"] };
const compiled = compileEntities(brand, [
  { id: "globex", kind: "competitor", name: "Globex", domains: ["globex.io"] },
  { id: "initech", kind: "competitor", name: "Initech" },
]);
const answer = (prompt_id: string, platform: string, text: string, urls: string[] = []): SuggestionAnswer => ({
  prompt_id,
  prompt_text: `prompt ${prompt_id} text`,
  platform,
  analysis: analyzeAnswer({ text, compiled, citations: urls.map((url) => ({ url })) }),
});

const answers = [
  // p1: competitors named, brand not, on two platforms; g2.com cited and never next to the brand.
  answer("p1", "chatgpt", "Globex and Initech are the usual picks.", ["https://www.g2.com/a", "https://globex.io/"]),
  answer("p1", "perplexity", "Globex leads.", ["https://g2.com/b?utm_source=x"]),
  // p2: brand named, only third-party sites cited; negative tone on one platform.
  answer("p2", "chatgpt", "Acme is slow and buggy.", ["https://www.capterra.com/x"]),
  answer("p2", "gemini", "Acme is a fine tool.", ["https://techradar.com/y"]),
  // p3: brand named and its site cited: nothing to suggest.
  answer("p3", "chatgpt", "Acme is great.", ["https://acme.com/"]),
  // p4: brand named by a model that cites nothing: no owned-content suggestion.
  answer("p4", "openai-compatible", "Acme exists."),
];
const suggestions = buildSuggestions({ brand, answers });
const byKey = Object.fromEntries(suggestions.map((s) => [`${s.type}/${s.key}`, s]));

test("one suggestion per (type, key), most urgent first", () => {
  expect(suggestions.map((s) => `${s.type}/${s.key}/${s.priority}`)).toEqual([
    // gap on 2/2 answers with 2 competitors; named on 2 platforms, never cited; score <= -0.5
    "content_gap/prompt:p1/high",
    "owned_content/prompt:p2/high",
    "sentiment/prompt:p2/high",
    // cited in 2 answers of one prompt, next to competitors
    "citation_outreach/domain:g2.com/medium",
  ]);
  expect(buildSuggestions({ brand, answers: [...answers, ...answers] }).length).toBe(suggestions.length);
});

test("content gap: evidence lists prompts, platforms and competitors", () => {
  const gap = byKey["content_gap/prompt:p1"]!;
  expect(gap.evidence).toEqual({
    prompt_ids: ["p1"],
    platforms: ["chatgpt", "perplexity"],
    answers: 2,
    competitors: [
      { competitor_id: "globex", name: "Globex", answers: 2 },
      { competitor_id: "initech", name: "Initech", answers: 1 },
    ],
  });
  expect(gap.title).toBe('Globex, Initech appear for "prompt p1 text", Acme does not');
});

test("citation outreach: third-party domains only (not competitors), canonical URLs as evidence", () => {
  const outreach = byKey["citation_outreach/domain:g2.com"]!;
  expect(outreach.evidence.urls).toEqual(["https://g2.com/a", "https://g2.com/b"]);
  expect(byKey["citation_outreach/domain:globex.io"]).toBeUndefined();
  // capterra and techradar were cited next to the brand: no outreach.
  expect(byKey["citation_outreach/domain:capterra.com"]).toBeUndefined();
});

test("owned content and sentiment carry their evidence", () => {
  expect(byKey["owned_content/prompt:p2"]!.evidence.urls).toEqual(["https://capterra.com/x", "https://techradar.com/y"]);
  const sentiment = byKey["sentiment/prompt:p2"]!;
  expect(sentiment.evidence.platforms).toEqual(["chatgpt"]);
  expect(sentiment.evidence.passages).toEqual(["it is slow and buggy."]);
  expect(sentiment.evidence.sentiment_scores![0]!).toBeLessThan(-0.05);
});

test("no answers, no suggestions", () => {
  expect(buildSuggestions({ brand, answers: [] })).toEqual([]);
});

test("cited gap: the brand's own pages were retrieved but not cited; a cited own page or none retrieved suggests nothing", () => {
  const withSources = (prompt_id: string, platform: string, text: string, cited: string[], retrievedOnly: string[]): SuggestionAnswer => ({
    prompt_id,
    platform,
    analysis: analyzeAnswer({
      text,
      compiled,
      citations: cited.map((url) => ({ url })),
      sources: [...cited.map((url) => ({ url, cited: true })), ...retrievedOnly.map((url) => ({ url, cited: false }))],
    }),
  });
  const gapAnswers = [
    withSources("q1", "chatgpt", "Globex is the pick.", ["https://g2.com/a"], ["https://www.acme.com/pricing", "https://other.org/x"]),
    withSources("q1", "claude", "Acme and Globex.", ["https://g2.com/b"], ["https://acme.com/pricing?utm_source=x", "https://acme.com/features"]),
    // Read and cited: no gap. Retrieved nothing of the brand's: no gap.
    withSources("q2", "chatgpt", "Acme.", ["https://acme.com/"], ["https://acme.com/blog"]),
    withSources("q3", "chatgpt", "Globex.", ["https://g2.com/c"], ["https://other.org/y"]),
  ];
  const gaps = buildSuggestions({ brand, answers: gapAnswers }).filter((s) => s.type === "cited_gap");
  expect(gaps.map((s) => [s.key, s.priority])).toEqual([["prompt:q1", "high"]]);
  expect(gaps[0]!.evidence).toEqual({ prompt_ids: ["q1"], platforms: ["chatgpt", "claude"], answers: 2, urls: ["https://acme.com/pricing", "https://acme.com/features"] });
  // The analysis marks each source: the cited ones are exactly the citations.
  const analysis = gapAnswers[0]!.analysis;
  expect(analysis.sources!.map((s) => [s.normalized_url, s.cited, s.is_brand])).toEqual([
    ["https://g2.com/a", true, false],
    ["https://acme.com/pricing", false, true],
    ["https://other.org/x", false, false],
  ]);
});
