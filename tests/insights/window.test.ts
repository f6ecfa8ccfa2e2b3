// The buckets a window is read from (src/insights/window.ts): by week, whole ISO weeks by their
// Monday and the partial weeks at the edges by day; by month (and for totals), whole months and the
// days at the edges. Every day of the window is covered exactly once, whatever its start and length.
import { expect, test } from "bun:test";
import { addDays, daysBetween, periodOf, periodsOf, rangesFor, type BucketRange } from "../../src/insights/window";

/** The days a list of bucket ranges covers, each as often as it is covered. */
function daysOf(ranges: BucketRange[]): string[] {
  const days: string[] = [];
  for (const r of ranges) {
    if (r.table === "daily") for (let d = r.from; d <= r.to; d = addDays(d, 1)) days.push(d);
    else if (r.table === "weekly")
      for (let monday = r.from; monday <= r.to; monday = addDays(monday, 7)) {
        expect(periodOf(monday, "week")).toBe(monday);
        for (let i = 0; i < 7; i++) days.push(addDays(monday, i));
      }
    else for (let d = `${r.from}-01`; d.slice(0, 7) <= r.to; d = addDays(d, 1)) days.push(d);
  }
  return days.sort();
}

test("by day, by week and by month the buckets cover every day of the window once", () => {
  for (let start = 0; start < 35; start++)
    for (const length of [1, 2, 6, 7, 8, 13, 14, 15, 31, 45, 62, 100, 400]) {
      const from = addDays("2025-12-01", start);
      const to = addDays(from, length - 1);
      const every = Array.from({ length: daysBetween(from, to) }, (_, i) => addDays(from, i));
      for (const by of ["day", "week", "month", "total"] as const) expect([by, from, to, daysOf(rangesFor({ from, to }, by))]).toEqual([by, from, to, every]);
    }
});

test("a year by week reads whole weeks but for the edges", () => {
  const ranges = rangesFor({ from: "2025-11-27", to: "2026-11-26" }, "week");
  expect(ranges).toEqual([
    { table: "daily", from: "2025-11-27", to: "2025-11-30" },
    { table: "weekly", from: "2025-12-01", to: "2026-11-16" },
    { table: "daily", from: "2026-11-23", to: "2026-11-26" },
  ]);
});

test("periodsOf lists each day's period once, in order, for every start and length", () => {
  for (let start = 0; start < 35; start++)
    for (const length of [1, 2, 6, 7, 8, 13, 31, 45, 366, 400]) {
      const from = addDays("2023-12-01", start);
      const to = addDays(from, length - 1);
      for (const by of ["day", "week", "month"] as const) {
        // Independently: every day of the window, mapped to its period, repeats dropped.
        const expected: string[] = [];
        for (let i = 0; i < length; i++) {
          const p = periodOf(addDays(from, i), by);
          if (expected.at(-1) !== p) expected.push(p);
        }
        expect([by, from, to, periodsOf({ from, to }, by)]).toEqual([by, from, to, expected]);
      }
    }
  // An empty window lists nothing.
  for (const by of ["day", "week", "month"] as const) expect(periodsOf({ from: "2026-01-02", to: "2026-01-01" }, by)).toEqual([]);
});
