// A change compares only the (prompt, platform) pairs answered in both windows, each weighing the
// same in both. Pooled by raw answers, a pair with more answers in one window re-weighted the rate:
// prompts added near the end of the previous window, or a platform switched to hourly checks, read
// as a large significant move although no prompt's rate changed.
import { expect, test } from "bun:test";
import { RESULT_MEASURES, type ResultSumsRow } from "../../src/insights/store";
import { visibilityChangeOf } from "../../src/insights/service";

const row = (prompt: string, platform: string, results: number, mentioned: number): ResultSumsRow => ({
  ...(Object.fromEntries(RESULT_MEASURES.map((m) => [m, 0])) as Record<(typeof RESULT_MEASURES)[number], number>),
  prompt_id: prompt,
  platform,
  reported_model: "m",
  results,
  mentioned,
});

test("prompts added three days before the previous window ended: no prompt's rate moved, and neither does the change (pooled, it read −40.9 points, down)", () => {
  const always = Array.from({ length: 10 }, (_, i) => `always-${i}`);
  const never = Array.from({ length: 10 }, (_, i) => `new-${i}`);
  const before = [...always.map((p) => row(p, "chatgpt", 30, 30)), ...never.map((p) => row(p, "chatgpt", 3, 0))];
  const now = [...always.map((p) => row(p, "chatgpt", 30, 30)), ...never.map((p) => row(p, "chatgpt", 30, 0))];
  const { change, current, previous } = visibilityChangeOf(now, before);
  expect(change.delta).toBeCloseTo(0, 12);
  expect(change.verdict).toBe("within_noise");
  // Each pair counted with its fewer answers: 10 × 30 + 10 × 3 in both windows.
  expect([current.n, previous.n]).toEqual([330, 330]);
});

test("a platform switched from daily to hourly checks, each platform's rate unchanged: no move (pooled, it read −18.4 points, down)", () => {
  const prompts = Array.from({ length: 50 }, (_, i) => `p${i}`);
  // ChatGPT names the brand in 20 % of answers, Perplexity in 60 %, in both windows.
  const before = prompts.flatMap((p) => [row(p, "chatgpt", 30, 6), row(p, "perplexity", 30, 18)]);
  const now = prompts.flatMap((p) => [row(p, "chatgpt", 750, 150), row(p, "perplexity", 30, 18)]);
  const { change } = visibilityChangeOf(now, before);
  expect(change.delta).toBeCloseTo(0, 12);
  expect(change.verdict).toBe("within_noise");
});

test("a real move within each pair is still found, whatever the pairs' answer counts", () => {
  const prompts = Array.from({ length: 40 }, (_, i) => `p${i}`);
  // Every prompt goes from 2 in 10 to 8 in 10 of its answers; the current window has three times as many.
  const before = prompts.map((p) => row(p, "chatgpt", 10, 2));
  const now = prompts.map((p) => row(p, "chatgpt", 30, 24));
  const { change } = visibilityChangeOf(now, before);
  expect(change.delta).toBeCloseTo(0.6, 12);
  expect(change.verdict).toBe("up");
});

test("the n a change reports are whole, though weighted counts are fractions (citations scaled by their pair's answers) or a hair off one", () => {
  // 1 answer now, 49 before: 49 × (1/49) is 0.9999999999999999 in floating point.
  const { current, previous } = visibilityChangeOf([row("p", "chatgpt", 1, 1)], [row("p", "chatgpt", 49, 20)]);
  expect([current.n, previous.n]).toEqual([1, 1]);
});
