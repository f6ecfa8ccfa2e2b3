// Wilson and Newcombe against published worked values, and properties any such interval must have.
import { describe, expect, test } from "bun:test";
import { newcombe, wilson } from "../../src/analysis/stats";
import { seededRandom } from "../helpers/random";

const round4 = (v: number | null) => (v === null ? null : Math.round(v * 10_000) / 10_000);

describe("Wilson score interval (95 %)", () => {
  test("81 of 263 → [0.2553, 0.3662] (Newcombe 1998a's worked example)", () => {
    const w = wilson(81, 263);
    expect([round4(w.ci_low), round4(w.ci_high)]).toEqual([0.2553, 0.3662]);
    expect(w.n).toBe(263);
  });
  test("15 of 148 → [0.0624, 0.1605]; 0 of 20 → [0, 0.1611]; 1 of 29 → [0.0061, 0.1718] (Newcombe 1998a, Table II)", () => {
    for (const [x, n, lo, hi] of [[15, 148, 0.0624, 0.1605], [0, 20, 0, 0.1611], [1, 29, 0.0061, 0.1718]] as const) {
      const w = wilson(x, n);
      expect([x, n, round4(w.ci_low), round4(w.ci_high)]).toEqual([x, n, lo, hi]);
    }
  });
  test("n = 0 has no value and no interval", () => {
    expect(wilson(0, 0)).toEqual({ value: null, n: 0, ci_low: null, ci_high: null });
  });
});

describe("Newcombe's hybrid score interval for p1 − p2 (method 10)", () => {
  // Newcombe 1998b, Table II, method 10.
  const PUBLISHED: [number, number, number, number, number, number][] = [
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
    [10, 10, 0, 20, 0.6791, 1],
    [10, 10, 0, 10, 0.6075, 1],
  ];
  test.each(PUBLISHED)("%i/%i − %i/%i → [%d, %d]", (x1, n1, x2, n2, lo, hi) => {
    const c = newcombe(x1, n1, x2, n2);
    expect([round4(c.ci_low), round4(c.ci_high)]).toEqual([lo, hi]);
  });
  test("verdicts: up when the interval is above 0, down below, within_noise across, insufficient_data without answers", () => {
    expect(newcombe(56, 70, 48, 80).verdict).toBe("up");
    expect(newcombe(48, 80, 56, 70).verdict).toBe("down");
    expect(newcombe(5, 56, 0, 29).verdict).toBe("within_noise");
    expect(newcombe(5, 10, 0, 0).verdict).toBe("insufficient_data");
    expect(newcombe(0, 0, 5, 10)).toEqual({ delta: null, ci_low: null, ci_high: null, verdict: "insufficient_data" });
  });
});

describe("properties", () => {
  const { int } = seededRandom(2026);
  test("the interval holds its point and stays in [0, 1]; more trials at the same rate narrow it", () => {
    for (let i = 0; i < 2000; i++) {
      const n = 1 + int(500);
      const x = int(n + 1);
      const w = wilson(x, n);
      expect(w.ci_low! <= w.value! + 1e-12 && w.value! <= w.ci_high! + 1e-12).toBe(true);
      expect(w.ci_low! >= 0 && w.ci_high! <= 1).toBe(true);
      const wider = wilson(x * 4, n * 4);
      expect(wider.ci_high! - wider.ci_low!).toBeLessThan(w.ci_high! - w.ci_low!);
    }
  });
  test("swapping the windows mirrors the change: delta and bounds negate, up and down trade places", () => {
    const mirror = { up: "down", down: "up", within_noise: "within_noise", insufficient_data: "insufficient_data" } as const;
    for (let i = 0; i < 2000; i++) {
      const n1 = int(200);
      const n2 = int(200);
      const x1 = int(n1 + 1);
      const x2 = int(n2 + 1);
      const a = newcombe(x1, n1, x2, n2);
      const b = newcombe(x2, n2, x1, n1);
      expect(b.verdict).toBe(mirror[a.verdict]);
      if (a.delta === null) continue;
      expect(b.delta).toBeCloseTo(-a.delta, 12);
      expect(b.ci_low).toBeCloseTo(-a.ci_high!, 12);
      expect(b.ci_high).toBeCloseTo(-a.ci_low!, 12);
      expect(a.ci_low! <= a.delta && a.delta <= a.ci_high!).toBe(true);
    }
  });
});
