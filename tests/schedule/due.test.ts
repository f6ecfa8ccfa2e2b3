import { expect, test } from "bun:test";
import { DUE_TOLERANCE_MS, failedRetryAt, failedRetryDelay, isDue, nextDue } from "../../src/schedule/due";

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

test("monthly follows the calendar: the same day next month, or the last day of a shorter month (Jan 31 → Feb 28, not Mar 3)", () => {
  expect(nextDue("monthly", new Date("2026-01-15T08:00:00Z"))!.toISOString()).toBe("2026-02-15T08:00:00.000Z");
  expect(nextDue("monthly", new Date("2026-01-31T08:00:00Z"))!.toISOString()).toBe("2026-02-28T08:00:00.000Z");
  expect(nextDue("monthly", new Date("2028-01-31T08:00:00Z"))!.toISOString()).toBe("2028-02-29T08:00:00.000Z");
  expect(nextDue("monthly", new Date("2026-03-31T08:00:00Z"))!.toISOString()).toBe("2026-04-30T08:00:00.000Z");
  expect(nextDue("monthly", new Date("2026-12-31T23:00:00Z"))!.toISOString()).toBe("2027-01-31T23:00:00.000Z");
});

test("a daily check keeps CRON_TZ's wall clock across daylight saving: 06:00 in Berlin stays 06:00 on a 23- and a 25-hour day", () => {
  // 2026-03-29: clocks go forward (06:00 CET = 05:00Z, then 06:00 CEST = 04:00Z); 2026-10-25: back.
  expect(nextDue("daily", new Date("2026-03-28T05:00:00Z"), "Europe/Berlin")!.toISOString()).toBe("2026-03-29T04:00:00.000Z");
  expect(nextDue("daily", new Date("2026-10-24T04:00:00Z"), "Europe/Berlin")!.toISOString()).toBe("2026-10-25T05:00:00.000Z");
  expect(nextDue("weekly", new Date("2026-03-25T05:00:00Z"), "Europe/Berlin")!.toISOString()).toBe("2026-04-01T04:00:00.000Z");
  expect(nextDue("daily", new Date("2026-03-28T05:00:00Z"), "UTC")!.toISOString()).toBe("2026-03-29T05:00:00.000Z");
  // A check at 02:00 (a time the spring-forward day skips) comes at 03:00 that day, not at 01:00.
  expect(nextDue("daily", new Date("2026-03-28T01:00:02Z"), "Europe/Berlin")!.toISOString()).toBe("2026-03-29T01:00:02.000Z");
  // So the tick of the short day finds it due (with UTC arithmetic it would wait for the next day's).
  const stamped = { platform: "chatgpt", is_enabled: 1, check_frequency: "daily", last_checked_at: "2026-03-28T05:00:00.500Z" };
  expect(isDue(stamped, new Date("2026-03-29T04:00:00.200Z"), "Europe/Berlin")).toBe(true);
  expect(isDue(stamped, new Date("2026-03-29T04:00:00.200Z"), "UTC")).toBe(false);
});

test("a check stamped at its tick is due at the same tick a period later, not one tick earlier", () => {
  const hourly = { platform: "chatgpt", is_enabled: 1, check_frequency: "hourly", last_checked_at: "2026-03-31T09:00:00.400Z" };
  expect(isDue(hourly, new Date("2026-03-31T10:00:00.100Z"))).toBe(true);
  const daily = { ...hourly, check_frequency: "daily" };
  expect(isDue(daily, new Date("2026-04-01T08:00:00.100Z"))).toBe(false);
  expect(isDue(daily, new Date("2026-04-01T09:00:00.100Z"))).toBe(true);
});

test("after a run with no unit done, the platform waits for retry_at whatever its last check", () => {
  const schedule = { platform: "chatgpt", is_enabled: 1, check_frequency: "daily", last_checked_at: ago(3 * D), retry_at: new Date(now.getTime() + 2 * H).toISOString() };
  expect(isDue(schedule, now)).toBe(false);
  expect(isDue({ ...schedule, last_checked_at: null }, now)).toBe(false);
  expect(isDue(schedule, new Date(now.getTime() + 2 * H))).toBe(true);
  expect(isDue({ ...schedule, retry_at: null }, now)).toBe(true);
});

test("the wait after failed runs doubles from an hour, capped at the platform's interval", () => {
  expect([1, 2, 3, 4, 5, 6, 50].map((n) => failedRetryDelay("daily", n, now) / H)).toEqual([1, 2, 4, 8, 16, 24, 24]);
  expect([1, 2, 3].map((n) => failedRetryDelay("hourly", n, now) / H)).toEqual([1, 1, 1]);
  expect(failedRetryDelay("weekly", 9, now) / H).toBe(168);
  expect(failedRetryAt("daily", 0, "2026-03-02T09:00:00.000Z")).toBe("2026-03-02T10:00:00.000Z");
});
