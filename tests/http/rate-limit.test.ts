// The in-memory sliding-window limiter (src/http/rate-limit.ts) under a flood of keys (review
// finding): memory stays bounded, a flood costs each hit a few steps rather than a walk over every
// key, asking leaves nothing behind, and the keys still within their window keep their counts.
import { expect, test } from "bun:test";
import { addressKey, createRateLimiter } from "../../src/http/rate-limit";

test("a flood of distinct live keys never holds more than maxKeys, and each hit stays cheap", () => {
  const limiter = createRateLimiter({ limit: 3, windowMs: 60_000, now: () => 1_000, maxKeys: 1_000 });
  let most = 0;
  const started = performance.now();
  for (let i = 0; i < 200_000; i++) {
    expect(limiter.hit(`flood-${i}`)).toBe(true);
    most = Math.max(most, limiter.keys());
  }
  expect(most).toBeLessThanOrEqual(1_000);
  // A walk over every key on every hit past the cap made this quadratic (~10⁸ steps here); bounded, it is ~10⁶.
  expect(performance.now() - started).toBeLessThan(5_000);
  // The newest keys keep their counts: a key at its limit is refused.
  for (let i = 0; i < 3; i++) limiter.hit("busy");
  expect(limiter.hit("busy")).toBe(false);
});

test("keys whose window has passed go first; live ones keep their counts; asking adds no key", () => {
  let t = 0;
  const limiter = createRateLimiter({ limit: 2, windowMs: 1_000, now: () => t, maxKeys: 100 });
  for (let i = 0; i < 60; i++) limiter.hit(`old-${i}`);
  t = 2_000;
  for (let i = 0; i < 60; i++) {
    limiter.hit(`new-${i}`);
    limiter.hit(`new-${i}`);
  }
  expect(limiter.keys()).toBe(60);
  for (let i = 0; i < 60; i++) expect(limiter.allows(`new-${i}`)).toBe(false);
  for (let i = 0; i < 1_000; i++) expect(limiter.allows(`never-${i}`)).toBe(true);
  expect(limiter.keys()).toBe(60);
});

test("addressKey: IPv4 as it is, IPv6 by its /64 however it is written", () => {
  expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
  expect(addressKey("2001:db8::1")).toBe(addressKey("2001:0db8:0000:0000:ffff::259"));
  expect(addressKey("2001:db8:0:1::1")).not.toBe(addressKey("2001:db8::1"));
});
