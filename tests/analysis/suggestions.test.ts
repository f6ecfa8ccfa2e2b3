import { expect, test } from "bun:test";
import { analyzeAnswer, buildSuggestions, compileEntities, type SuggestionAnswer } from "../../src/analysis";
import { priorityOf } from "../../src/analysis/suggestions";

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

test("one suggestion per (type, key), most urgent first; two answers are never more than low", () => {
  expect(suggestions.map((s) => `${s.type}/${s.key}/${s.priority}`)).toEqual([
    // every one rests on one or two answers
    "citation_outreach/domain:g2.com/low",
    "content_gap/prompt:p1/low",
    "owned_content/prompt:p2/low",
    "sentiment/prompt:p2/low",
  ]);
  expect(buildSuggestions({ brand, answers: [...answers, ...answers] }).length).toBe(suggestions.length);
});

test("content gap: evidence lists prompts, platforms and competitors", () => {
  const gap = byKey["content_gap/prompt:p1"]!;
  expect(gap.evidence).toEqual({
    prompt_ids: ["p1"],
    prompts: 1,
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

test("a domain cited across many prompts lists the first 20 of them and counts them all, each answer once", () => {
  // 45 prompts, each answered twice on one platform, every answer citing g2.com twice.
  const many = Array.from({ length: 90 }, (_, i) => answer(`q${String(i % 45).padStart(2, "0")}`, "chatgpt", "Globex leads.", ["https://g2.com/a", "https://g2.com/b"]));
  const outreach = buildSuggestions({ brand, answers: many }).find((s) => s.key === "domain:g2.com")!;
  const ids = [...new Set(many.map((a) => a.prompt_id))].sort();
  expect(outreach.evidence.prompts).toBe(ids.length);
  expect(outreach.evidence.prompt_ids).toEqual(ids.slice(0, 20));
  expect(outreach.evidence.answers).toBe(many.length);
  expect(outreach.detail).toContain(`cited in ${many.length} answer(s) across ${ids.length} prompt(s)`);
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
  expect(gaps.map((s) => [s.key, s.priority])).toEqual([["prompt:q1", "low"]]);
  expect(gaps[0]!.evidence).toEqual({ prompt_ids: ["q1"], prompts: 1, platforms: ["chatgpt", "claude"], answers: 2, urls: ["https://acme.com/pricing", "https://acme.com/features"] });
  // The analysis marks each source: the cited ones are exactly the citations.
  const analysis = gapAnswers[0]!.analysis;
  expect(analysis.sources!.map((s) => [s.normalized_url, s.cited, s.is_brand])).toEqual([
    ["https://g2.com/a", true, false],
    ["https://acme.com/pricing", false, true],
    ["https://other.org/x", false, false],
  ]);
});

test("priority follows the evidence: the Wilson lower bound of the share of answers, and n", () => {
  // Checked against wilson() computed here: 5/5 → 0.566, 10/12 → 0.552, 9/12 → 0.468, 3/3 → 0.439, 6/12 → 0.254, 2/2 → 0.342 (n too small).
  expect(priorityOf(5, 5)).toBe("high");
  expect(priorityOf(10, 12)).toBe("high");
  expect(priorityOf(9, 12)).toBe("medium");
  expect(priorityOf(3, 3)).toBe("medium");
  expect(priorityOf(6, 12)).toBe("medium");
  expect(priorityOf(2, 2)).toBe("low");
  expect(priorityOf(2, 12)).toBe("low");
  expect(priorityOf(0, 0)).toBe("low");
  // A gap found in six answers of one prompt on three platforms is high; its title quotes the prompt.
  const many = ["chatgpt", "perplexity", "gemini"].flatMap((p) => [answer("p9", p, "Globex leads."), answer("p9", p, "Initech and Globex.")]);
  const gap = buildSuggestions({ brand, answers: many }).find((s) => s.type === "content_gap")!;
  expect(gap.priority).toBe("high");
  expect(gap.title).toBe('Globex, Initech appear for "prompt p9 text", Acme does not');
  // Without a text, the title still shows no id.
  const bare = buildSuggestions({ brand, answers: [{ ...answer("0b9d8c1e-1111-4222-8333-944455556666", "chatgpt", "Globex."), prompt_text: undefined }] })[0]!;
  expect(bare.title).not.toContain("0b9d8c1e");
});
