// Every formula of the README ("Metrics and formulas"), with the same worked numbers.
import { describe, expect, test } from "bun:test";
import {
  analyzeAnswer,
  averagePosition,
  citationShare,
  periodKey,
  positionAdjustedWordCounts,
  scorePassages,
  sentimentLabel,
  shareOfVoice,
  summarizeBy,
  summarizeResults,
  visibilityRate,
  visibilityScore,
  type ResultRow,
} from "../../src/analysis";

const acme = { id: "acme", kind: "brand" as const, name: "Acme", domains: ["acme.com"] };
const beta = { id: "beta", kind: "competitor" as const, name: "Beta" };
const gamma = { id: "gamma", kind: "competitor" as const, name: "Gamma" };

describe("visibility_score = round(100 × (0.5·M + 0.3·M/P + 0.2·C))", () => {
  test.each([
    [true, 1, true, 100],
    [true, 2, false, 65],
    [true, 3, true, 80],
    [false, null, true, 20],
    [false, null, false, 0],
  ] as const)("named=%p position=%p cited=%p -> %p", (mentioned, position, cited, expected) => {
    expect(visibilityScore({ mentioned, mention_position: position, brand_cited: cited })).toBe(expected);
  });

  test("analyzeAnswer applies it: named second, not cited -> 65", () => {
    const r = analyzeAnswer({ text: "Beta is popular. Acme is newer.", brand: acme, competitors: [beta] });
    expect(r.mention_position).toBe(2);
    expect(r.brand_citation_count).toBe(0);
    expect(r.visibility_score).toBe(65);
  });
});

describe("mention_position = 1 + number of other named entities whose first mention is earlier", () => {
  test("Beta and Gamma before Acme -> Acme is 3rd; later repeats do not matter", () => {
    const r = analyzeAnswer({ text: "Beta and Gamma lead the market; Acme is third. Beta again, and Acme again.", brand: acme, competitors: [beta, gamma] });
    expect(r.mention_position).toBe(3);
    expect(r.mention_count).toBe(2);
    expect(r.competitor_mentions.map((c) => [c.competitor_id, c.position, c.mention_count])).toEqual([
      ["beta", 1, 2],
      ["gamma", 2, 1],
    ]);
  });
});

describe("GEO position-adjusted word count: Σ words(s)·exp(−i/(N−1)) / k(s)", () => {
  // 3 sentences (N = 3): weights 1, e^-0.5 = 0.60653, e^-1 = 0.36788.
  const sentences = [
    { words: 10, entities: [0] }, // Acme
    { words: 8, entities: [0, 1] }, // Acme and Beta share it
    { words: 6, entities: [1] }, // Beta
  ];
  test("Acme = 10·1 + 8·0.60653/2 = 12.4261; Beta = 8·0.60653/2 + 6·0.36788 = 4.6334", () => {
    const [a, b] = positionAdjustedWordCounts(sentences, 2);
    expect(a).toBeCloseTo(12.4261, 4);
    expect(b).toBeCloseTo(4.6334, 4);
  });
  test("one sentence has weight 1; a sentence naming nobody counts for nobody", () => {
    expect(positionAdjustedWordCounts([{ words: 7, entities: [0] }], 1)).toEqual([7]);
    expect(positionAdjustedWordCounts([{ words: 7, entities: [] }, { words: 3, entities: [0] }], 1)).toEqual([3 * Math.exp(-1)]);
  });
  test("analyzeAnswer: same three sentences -> 12.4261 (share 0.7284) and 4.6334 (share 0.2716)", () => {
    const r = analyzeAnswer({
      text: "Acme makes fast and simple tools for busy small teams. Acme and Beta both offer free plans today. Beta also has a mobile app.",
      brand: acme,
      competitors: [beta],
    });
    expect(r.position_adjusted_word_count).toBe(12.4261);
    expect(r.word_count_share).toBe(0.7284);
    expect(r.competitor_mentions[0]!.position_adjusted_word_count).toBe(4.6334);
    expect(r.competitor_mentions[0]!.word_count_share).toBe(0.2716);
  });
});

describe("sentiment score = mean VADER compound of the brand's passages; label by ±0.05", () => {
  test("'Acme is great.' 0.6249 and 'Acme is expensive.' −0.3612 -> mean 0.1319, positive", () => {
    const result = scorePassages(["Acme is great.", "Acme is expensive."])!;
    expect(result.score).toBe(0.1319);
    expect(result.label).toBe("positive");
    const r = analyzeAnswer({ text: "Acme is great. Acme is expensive.", brand: acme });
    expect([r.sentiment, r.sentiment_score]).toEqual(["positive", 0.1319]);
  });
  test("thresholds", () => {
    expect(sentimentLabel(0.05)).toBe("positive");
    expect(sentimentLabel(0.0499)).toBe("neutral");
    expect(sentimentLabel(-0.0499)).toBe("neutral");
    expect(sentimentLabel(-0.05)).toBe("negative");
    expect(scorePassages([])).toBeNull();
  });
});

// Four answers of one brand; README "Aggregates" uses the same rows.
const rows: ResultRow[] = [
  { brand_id: "acme", platform: "chatgpt", created_at: "2025-03-03T10:00:00Z", mentioned: true, mention_count: 2, mention_position: 1, competitor_mentions: [{ competitor_id: "beta", name: "Beta", mention_count: 1 }], citation_count: 3, brand_citation_count: 1, visibility_score: 100, sentiment_score: 0.5 },
  { brand_id: "acme", platform: "perplexity", created_at: "2025-03-04T10:00:00Z", mentioned: true, mention_count: 1, mention_position: 3, competitor_mentions: [{ competitor_id: "beta", name: "Beta", mention_count: 2 }, { competitor_id: "gamma", name: "Gamma", mention_count: 1 }], citation_count: 2, brand_citation_count: 0, visibility_score: 60, sentiment_score: -0.1 },
  { brand_id: "acme", platform: "chatgpt", created_at: "2025-03-10T10:00:00Z", mentioned: false, mention_count: 0, mention_position: null, competitor_mentions: [{ competitor_id: "beta", name: "Beta", mention_count: 1 }], citation_count: 4, brand_citation_count: 0, visibility_score: 0, sentiment_score: null },
  { brand_id: "acme", platform: "perplexity", created_at: "2025-03-11T10:00:00Z", mentioned: false, mention_count: 0, mention_position: null, competitor_mentions: [], citation_count: 1, brand_citation_count: 1, visibility_score: 20, sentiment_score: null },
];

describe("aggregates over the four example rows", () => {
  test("visibility rate = mentioned answers / answers = 2/4 = 0.5 (n 4)", () => {
    expect(visibilityRate(rows)).toEqual({ value: 0.5, n: 4, mentioned: 2 });
  });
  test("share of voice = brand mentions / all mentions = 3/(3+4+1) = 0.375 (n 4)", () => {
    const sov = shareOfVoice(rows, "acme");
    expect([sov.value, sov.n, sov.brand_mentions, sov.total_mentions]).toEqual([0.375, 4, 3, 8]);
    expect(sov.entities.map((e) => [e.entity_id, e.mentions, e.share])).toEqual([
      ["beta", 4, 0.5],
      ["acme", 3, 0.375],
      ["gamma", 1, 0.125],
    ]);
  });
  test("average position = mean position where named = (1+3)/2 = 2 (n 2)", () => {
    expect(averagePosition(rows)).toEqual({ value: 2, n: 2 });
  });
  test("citation share = brand citations / citations = 2/10 = 0.2 (n 10)", () => {
    expect(citationShare(rows)).toEqual({ value: 0.2, n: 10, brand_citations: 2 });
  });
  test("summary: average visibility_score (100+60+0+20)/4 = 45, average sentiment (0.5−0.1)/2 = 0.2 (n 2)", () => {
    const s = summarizeResults(rows);
    expect(s.n).toBe(4);
    expect(s.average_visibility_score).toEqual({ value: 45, n: 4 });
    expect(s.average_sentiment.value).toBeCloseTo(0.2, 10);
    expect(s.average_sentiment.n).toBe(2);
  });
  test("no rows: every value is null with n 0", () => {
    const s = summarizeResults([]);
    expect([s.visibility_rate.value, s.share_of_voice.value, s.average_position.value, s.citation_share.value]).toEqual([null, null, null, null]);
    expect(s.visibility_rate.n).toBe(0);
  });
  test("per platform: chatgpt 1/2 visible, perplexity 1/2; per ISO week: W10 2/2, W11 0/2", () => {
    const byPlatform = summarizeBy(rows, ["platform"]);
    expect(byPlatform.map((g) => [g.key.platform, g.summary.visibility_rate.value, g.summary.n])).toEqual([
      ["chatgpt", 0.5, 2],
      ["perplexity", 0.5, 2],
    ]);
    const byWeek = summarizeBy(rows, ["brand", "period"], "week");
    expect(byWeek.map((g) => [g.key.brand, g.key.period, g.summary.visibility_rate.value, g.summary.citation_share.value])).toEqual([
      ["acme", "2025-W10", 1, 0.2],
      ["acme", "2025-W11", 0, 0.2],
    ]);
  });
  test("period keys (UTC): day, ISO week across the year boundary, month", () => {
    expect(periodKey("2025-03-03T23:30:00-02:00", "day")).toBe("2025-03-04");
    expect(periodKey("2024-12-30T00:00:00Z", "week")).toBe("2025-W01");
    expect(periodKey("2021-01-03T00:00:00Z", "week")).toBe("2020-W53");
    expect(periodKey("2025-03-31T12:00:00Z", "month")).toBe("2025-03");
  });
});
