import { describe, expect, test } from "bun:test";
import { analyzeAnswer, buildSentimentJudgePrompt, lexiconScore, parseSentimentJudgeReply } from "../../src/analysis";

const brand = { id: "b", kind: "brand" as const, name: "Acme" };
const label = (text: string, language?: string) => analyzeAnswer({ text, brand, language }).sentiment;

describe("lexicon sentiment toward the brand", () => {
  test("negation flips the label", () => {
    expect(label("Acme is reliable.")).toBe("positive");
    expect(label("Acme is not reliable.")).toBe("negative");
    expect(label("Acme has no hidden fees.")).toBe("positive");
  });
  test("review words VADER lacks are scored through proxies", () => {
    expect(lexiconScore("Acme is expensive and buggy.")).toBeLessThan(-0.05);
    expect(lexiconScore("Acme is intuitive and affordable.")).toBeGreaterThan(0.05);
  });
  test("descriptive words VADER scores are neutral in answers ('tools like', 'supports', 'Yes' cells)", () => {
    expect(label("Acme supports SSO, like most tools.")).toBe("neutral");
    expect(label("| Acme | Yes | Yes |")).toBe("neutral");
  });
  test("other languages through their proxy table, negation included", () => {
    expect(label("Acme est très fiable.", "fr")).toBe("positive");
    expect(label("Acme n'est pas fiable.", "fr")).toBe("negative");
    expect(label("Acme ist nicht gut.", "de")).toBe("negative");
    expect(label("Die Software von Acme ist gut.", "de")).toBe("positive");
    expect(label("Acme es muy caro.", "es")).toBe("negative");
  });
  test("the brand's own name carries no sentiment (Best Buy, Dollar General)", () => {
    expect(analyzeAnswer({ text: "Best Buy is an electronics retailer.", brand: { ...brand, name: "Best Buy" } }).sentiment).toBe("neutral");
  });
  test("a factual answer is neutral; the score stays in [-1, 1]", () => {
    const r = analyzeAnswer({ text: "Acme was founded in 2012 and is based in Berlin.", brand });
    expect([r.sentiment, r.sentiment_score]).toEqual(["neutral", 0]);
    const strong = analyzeAnswer({ text: "Acme is the best!!! Acme is amazing, wonderful, excellent!!!", brand });
    expect(strong.sentiment_score!).toBeLessThanOrEqual(1);
    expect(strong.sentiment_score!).toBeGreaterThan(0.8);
  });
});

describe("model judge (pure parts: prompt and reply)", () => {
  test("the prompt names the brand and numbers the passages", () => {
    const prompt = buildSentimentJudgePrompt("Acme", ["Acme is slow.", " Acme is cheap. "]);
    expect(prompt.system).toContain('"label"');
    expect(prompt.user).toBe("Brand: Acme\n\nPassages that mention it:\n1. Acme is slow.\n2. Acme is cheap.");
  });
  test("replies: JSON, fenced JSON, clamped scores, missing score, garbage", () => {
    expect(parseSentimentJudgeReply('{"label":"negative","score":-0.4}')).toEqual({ label: "negative", score: -0.4 });
    expect(parseSentimentJudgeReply('Sure:\n```json\n{"label": "Positive", "score": 3}\n```')).toEqual({ label: "positive", score: 1 });
    expect(parseSentimentJudgeReply('{"label":"neutral"}')).toEqual({ label: "neutral", score: 0 });
    expect(parseSentimentJudgeReply('{"label":"mixed","score":0}')).toBeNull();
    expect(parseSentimentJudgeReply("I think it is positive")).toBeNull();
    expect(parseSentimentJudgeReply("{not json}")).toBeNull();
  });
  test("a reply whose label and score disagree is labelled by its score, with the lexicon's cut-offs (±0.05), the score to 4 decimals", () => {
    expect(parseSentimentJudgeReply('{"label":"positive","score":-0.3}')).toEqual({ label: "negative", score: -0.3 });
    expect(parseSentimentJudgeReply('{"label":"negative","score":0.02}')).toEqual({ label: "neutral", score: 0.02 });
    expect(parseSentimentJudgeReply('{"label":"neutral","score":0.123456}')).toEqual({ label: "positive", score: 0.1235 });
  });
});
