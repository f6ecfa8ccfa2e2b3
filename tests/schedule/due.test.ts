import { expect, test } from "bun:test";
import { DUE_TOLERANCE_MS, isDue, nextDue } from "../../src/schedule/due";

const now = new Date("2026-03-31T12:00:00.000Z");
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const H = 3_600_000;
const D = 24 * H;

test.each([
  ["hourly", ago(2 * H), true],
  ["hourly", ago(10 * 60_000), false],
  ["hourly", ago(H - DUE_TOLERANCE_MS + 1000), true],
  ["daily", ago(25 * H), true],
  ["daily", ago(3 * H), false],
  ["weekly", ago(8 * D), true],
  ["weekly", ago(2 * D), false],
  ["monthly", ago(40 * D), true],
  ["monthly", ago(10 * D), false],
  ["manual", null, false],
  ["manual", ago(400 * D), false],
  ["daily", null, true],
] as const)("%s checked at %s is due: %s", (frequency, last, due) => {
  expect(isDue({ platform: "chatgpt", is_enabled: 1, check_frequency: frequency, last_checked_at: last }, now)).toBe(due);
});

test("a disabled platform is never due", () => {
  expect(isDue({ platform: "chatgpt", is_enabled: 0, check_frequency: "hourly", last_checked_at: null }, now)).toBe(false);
});

test("monthly follows the calendar: Jan 31 → Mar 3 in a non-leap year (JavaScript month arithmetic)", () => {
  expect(nextDue("monthly", new Date("2026-01-15T08:00:00Z"))!.toISOString()).toBe("2026-02-15T08:00:00.000Z");
});
