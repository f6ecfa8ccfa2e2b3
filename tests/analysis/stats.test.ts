// Wilson and Newcombe against published worked values, and properties any such interval must have.
import { describe, expect, test } from "bun:test";
import { excludingZ, holm, newcombe, twoSidedP, wilson, zFor } from "../../src/analysis/stats";
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

describe("a family of changes read together (Holm's step-down)", () => {
  // Two-sided Bonferroni critical values Φ⁻¹(1 − 0.05 / 2m), from a normal table.
  const TABLE = [1.959964, 2.241403, 2.39398, 2.497705, 2.575829, 2.638257, 2.69011, 2.734369];
  test("zFor gives the table's critical values (exactly Z95 at 0.05)", () => {
    expect(zFor(0.05)).toBe(1.959964);
    TABLE.forEach((z, i) => expect(Math.abs(zFor(0.05 / (i + 1)) - z)).toBeLessThan(2e-6));
  });
  test("a change's p-value is its interval inverted: at the z it gives, a bound touches 0; under 0.05 exactly when the 95 % interval excludes 0", () => {
    const { int } = seededRandom(7);
    for (let i = 0; i < 1500; i++) {
      const [n1, n2] = [1 + int(120), 1 + int(120)];
      const [x1, x2] = [int(n1 + 1), int(n2 + 1)];
      const z = excludingZ({ x1, n1, x2, n2 });
      const c95 = newcombe(x1, n1, x2, n2);
      if (x1 / n1 === x2 / n2) {
        expect(z).toBe(0);
        continue;
      }
      if (z < 40) {
        const at = newcombe(x1, n1, x2, n2, z);
        expect(Math.abs(c95.delta! > 0 ? at.ci_low! : at.ci_high!)).toBeLessThan(1e-9);
      }
      // Away from the boundary (the fit of erfc is good to ~1e-7).
      if (Math.abs(z - 1.959964) > 1e-4) expect([x1, n1, x2, n2, twoSidedP(z) < 0.05]).toEqual([x1, n1, x2, n2, c95.verdict !== "within_noise"]);
    }
  });
  test("a family of one is the 95 % interval's own verdict", () => {
    const { int } = seededRandom(11);
    for (let i = 0; i < 1000; i++) {
      const [n1, n2] = [int(80), int(80)];
      const c = { x1: int(n1 + 1), n1, x2: int(n2 + 1), n2 };
      expect([c, holm([c])[0]!.verdict]).toEqual([c, newcombe(c.x1, c.n1, c.x2, c.n2).verdict]);
    }
  });
  test("adjusted p-values are Holm's textbook ones, and a change is called exactly when its adjusted p-value is under 0.05", () => {
    const { int } = seededRandom(12);
    for (let i = 0; i < 300; i++) {
      const family = Array.from({ length: 1 + int(9) }, () => {
        const [n1, n2] = [int(60), int(60)];
        return { x1: int(n1 + 1), n1, x2: int(n2 + 1), n2 };
      });
      const out = holm(family);
      const tested = out.map((o, i) => ({ ...o, i })).filter((o) => o.p_value !== null);
      // Sorted by p ascending: p̃(k) = max over j ≤ k of min(1, (m − j) p(j)), j from 0.
      const sorted = [...tested].sort((a, b) => a.p_value! - b.p_value!);
      let running = 0;
      for (const [k, o] of sorted.entries()) {
        running = Math.max(running, Math.min(1, (sorted.length - k) * o.p_value!));
        expect(o.p_adjusted).toBeCloseTo(running, 9);
        if (Math.abs(running - 0.05) > 1e-5) expect([o.i, o.verdict === "up" || o.verdict === "down"]).toEqual([o.i, running < 0.05]);
      }
      for (const [j, o] of out.entries()) if (o.p_value === null) expect([j, o.verdict]).toEqual([j, "insufficient_data"]);
    }
  });
  test("nothing moved, ten groups each month: a false move in ~5 % of months with Holm, in ~40 % tested one by one", () => {
    const { random: next } = seededRandom(2027);
    const binomial = (n: number, p: number) => {
      let x = 0;
      for (let i = 0; i < n; i++) if (next() < p) x++;
      return x;
    };
    let [holmMonths, naiveMonths] = [0, 0];
    const MONTHS = 1500;
    for (let month = 0; month < MONTHS; month++) {
      const family = Array.from({ length: 10 }, () => ({ x1: binomial(60, 0.3), n1: 60, x2: binomial(60, 0.3), n2: 60 }));
      if (holm(family).some((v) => v.verdict === "up" || v.verdict === "down")) holmMonths++;
      if (family.some((c) => newcombe(c.x1, c.n1, c.x2, c.n2).verdict !== "within_noise")) naiveMonths++;
    }
    // Binomial(1500, 0.05) stays under 0.07 with overwhelming probability; the seed makes it fixed.
    expect(holmMonths / MONTHS).toBeLessThan(0.07);
    expect(naiveMonths / MONTHS).toBeGreaterThan(0.25);
  });
  test("a strong move is still called beside many still groups; a move significant alone is not, among five", () => {
    const still = { x1: 10, n1: 20, x2: 10, n2: 20 };
    const strong = { x1: 16, n1: 20, x2: 0, n2: 20 };
    const alone = { x1: 12, n1: 20, x2: 5, n2: 20 };
    expect(newcombe(12, 20, 5, 20).verdict).toBe("up");
    const [a, b, ...rest] = holm([strong, alone, still, still, still]);
    expect(a!.verdict).toBe("up");
    expect(b!.verdict).toBe("within_noise");
    // 12/20 against 5/20 crosses 0 at z ≈ 2.26: between the table's 0.025 and 0.02 two-sided points.
    expect(b!.p_value! > 0.02 && b!.p_value! < 0.025).toBe(true);
    expect(rest.map((r) => r.verdict)).toEqual(["within_noise", "within_noise", "within_noise"]);
  });
});
