// backends: sqlite, postgres
// Filters on an insights RPC's rows (review finding): like/ilike patterns are matched without a
// regular expression and held to the SQL path's limits. A pattern of thirty `*` used to become a
// backtracking regex run on each of ten years of daily rows — minutes of one thread's CPU for any
// caller holding the public anon key. Now it answers 54001 at once, and patterns within the limits
// match as LIKE does.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { likeMatches } from "../../src/platform/rest/computed-rows";
import { testServer } from "../helpers/app";
import type { Server } from "./helpers";

let server: Server;
beforeAll(async () => void (server = await testServer()));
afterAll(() => server.stop());

/** GET an insights RPC as the anonymous caller (no brand it may read: the trend still lists every day). */
async function anonTrend(query: string): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${server.url}/rest/v1/rpc/insights_trend?p_brand_id=${crypto.randomUUID()}&p_from=2016-01-01&p_to=2025-12-31&${query}`, { headers: { apikey: server.secrets.anonKey } });
  return { status: res.status, body: await res.json(), ms: performance.now() - started };
}

test("thirty wildcards on ten years of rows answer at once: in a row they are one (and match nothing here), apart they are refused with 54001; so are a pattern too long and an in-list too large", async () => {
  const attack = await anonTrend(`period=like.${"*".repeat(30)}Z`);
  expect({ status: attack.status, rows: (attack.body as unknown[]).length }).toEqual({ status: 200, rows: 0 });
  expect(attack.ms).toBeLessThan(2_000);
  const apart = await anonTrend(`period=like.${"*0".repeat(30)}Z`);
  expect({ status: apart.status, code: (apart.body as { code: string }).code }).toEqual({ status: 400, code: "54001" });
  expect(((await anonTrend(`period=ilike.${"a".repeat(300)}`)).body as { code: string }).code).toBe("54001");
  const many = Array.from({ length: 1_001 }, (_, i) => `d${i}`).join(",");
  expect(((await anonTrend(`period=in.(${many})`)).body as { code: string }).code).toBe("54023");
});

test("patterns within the limits filter the rows as LIKE does, worst cases included", async () => {
  const all = (await anonTrend("")).body as { period: string }[];
  expect(all.length).toBe(3_653);
  for (const [pattern, keep] of [
    ["2016-0*", (p: string) => p.startsWith("2016-0")],
    ["*-02-2_", (p: string) => /-02-2\d$/.test(p)],
    ["%1_-%", (p: string) => /1.-/.test(p)],
    ["2020-02-29", (p: string) => p === "2020-02-29"],
    // Four wildcards (the most allowed) that never match: the walk still ends in value × pattern steps.
    ["*0*0*0*Z", () => false],
  ] as const) {
    const got = await anonTrend(`period=like.${encodeURIComponent(pattern)}`);
    expect({ pattern, status: got.status }).toEqual({ pattern, status: 200 });
    expect((got.body as { period: string }[]).map((r) => r.period)).toEqual(all.map((r) => r.period).filter(keep));
    expect(got.ms).toBeLessThan(2_000);
  }
  const insensitive = await anonTrend("period=ilike.2017-12-*");
  expect((insensitive.body as { period: string }[]).length).toBe(all.filter((r) => r.period.startsWith("2017-12-")).length);
});

test("likeMatches agrees with LIKE read as a regular expression, over random values and patterns", () => {
  const alphabet = ["a", "b", "_", "%", "*", "-"];
  const pick = (n: number, from: string[]) => Array.from({ length: n }, () => from[Math.floor(Math.random() * from.length)]).join("");
  const reference = (value: string, pattern: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\-]/g, "\\$&").replace(/[*%]/g, ".*").replace(/_/g, ".")}$`, "s").test(value);
  for (let i = 0; i < 5_000; i++) {
    const value = pick(Math.floor(Math.random() * 9), ["a", "b", "-", "_", "%"]);
    const pattern = pick(Math.floor(Math.random() * 7), alphabet);
    expect({ value, pattern, match: likeMatches(value, pattern) }).toEqual({ value, pattern, match: reference(value, pattern) });
  }
});
