// backends: sqlite, postgres
// "What changed" reads the platforms', topics' and competitors' changes together, so their
// verdicts are Holm's over all of them: with five engines and nothing moved, testing each at 95 %
// would list a false move in about a fifth of periods. A strong move is still called; a move
// significant only on its own is not. The expected verdicts are computed here from the raw
// answers, with this file's own Newcombe interval and a normal table's critical values.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { signedUpClient } from "../helpers/supabase";
import type { Harness } from "../contracts/harness";

let server: Awaited<ReturnType<typeof testServer>>;
let db: Harness;
beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

const DAY = 86_400_000;
const dayAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();

function wilson(x: number, n: number, z: number) {
  const p = x / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return { p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
/** Newcombe's hybrid score interval (method 10) for x1/n1 − x2/n2 at z. */
function newcombe(x1: number, n1: number, x2: number, n2: number, z: number) {
  const [a, b] = [wilson(x1, n1, z), wilson(x2, n2, z)];
  const delta = a.p - b.p;
  return { delta, low: delta - Math.hypot(a.p - a.low, b.high - b.p), high: delta + Math.hypot(a.high - a.p, b.p - b.low) };
}
const excludes0 = (c: { low: number; high: number }) => c.low > 0 || c.high < 0;
/** Φ⁻¹(1 − 0.05 / 2m) for m = 1…6, from a normal table. */
const CRITICAL = [1.959964, 2.241403, 2.39398, 2.497705, 2.575829, 2.638257];

test("five engines, one prompt: the strong move is called, the one significant alone is not, and the three still ones are noise", async () => {
  const owner = await signedUpClient(server.url, server.secrets.anonKey, "Family");
  const [{ organization_id }] = await db.inspect<{ organization_id: string }>("SELECT organization_id FROM organization_members WHERE user_id = ?", owner.user.id);
  const brandId = await db.fixtures.brand(organization_id!);
  const promptId = await db.fixtures.prompt(brandId, "Which tool is best?");
  // Answers naming the brand, of 20, in the previous 30 days and in the last 30 (the default windows).
  const WORLD: Record<string, [before: number, now: number]> = { chatgpt: [0, 16], perplexity: [5, 12], gemini: [10, 10], claude: [10, 10], grok: [10, 10] };
  for (const [platform, [before, now]] of Object.entries(WORLD))
    for (let i = 0; i < 20; i++) {
      await db.fixtures.result({ brandId, promptId, platform, createdAt: dayAgo(35 + (i % 20)), mentioned: i < before });
      await db.fixtures.result({ brandId, promptId, platform, createdAt: dayAgo(2 + (i % 20)), mentioned: i < now });
    }

  // Holm's step-down from the raw counts: the k-th strongest change (by the z at which its
  // interval stops excluding 0) is called at the critical value for m − k, while every stronger one was.
  const strength = (before: number, now: number) => {
    let [lo, hi] = [0, 40];
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (excludes0(newcombe(now, 20, before, 20, mid))) lo = mid;
      else hi = mid;
    }
    return lo;
  };
  const order = Object.entries(WORLD).sort(([, a], [, b]) => strength(...b) - strength(...a));
  const expected: Record<string, string> = {};
  let calling = true;
  for (const [k, [platform, [before, now]]] of order.entries()) {
    const c = newcombe(now, 20, before, 20, CRITICAL[order.length - k - 1]!);
    calling &&= excludes0(c);
    expected[platform] = calling ? (c.delta > 0 ? "up" : "down") : "within_noise";
  }
  // The point of the test: Perplexity's own 95 % interval excludes 0, Holm's does not.
  expect(excludes0(newcombe(12, 20, 5, 20, CRITICAL[0]!))).toBe(true);
  expect(expected).toEqual({ chatgpt: "up", perplexity: "within_noise", gemini: "within_noise", claude: "within_noise", grok: "within_noise" });

  const { data, error } = await owner.sb.rpc("insights_overview", { p_brand_id: brandId });
  expect(error).toBeNull();
  const rows = (data as { by_platform: { platform: string; visibility_rate: { value: number; change: { verdict: string; delta: number; p_value: number; p_adjusted: number; family_size: number } } }[] }).by_platform;
  expect(Object.fromEntries(rows.map((r) => [r.platform, r.visibility_rate.change.verdict]))).toEqual(expected);
  for (const r of rows) {
    const [before, now] = WORLD[r.platform]!;
    expect([r.platform, r.visibility_rate.value, r.visibility_rate.change.family_size]).toEqual([r.platform, now / 20, 5]);
    expect(r.visibility_rate.change.delta).toBeCloseTo((now - before) / 20, 12);
  }
  const perplexity = rows.find((r) => r.platform === "perplexity")!.visibility_rate.change;
  // Its z ≈ 2.26 lies between the table's 0.025 (2.241403) and 0.02 (2.326348) two-sided points;
  // four changes at least as weak stand behind it, so Holm multiplies its p-value by 4.
  expect(perplexity.p_value > 0.02 && perplexity.p_value < 0.025).toBe(true);
  expect(perplexity.p_adjusted).toBeCloseTo(4 * perplexity.p_value, 12);
  // One topic group is the whole: no member of the family, and its change keeps the 95 % verdict.
  const topics = (data as { by_topic: { visibility_rate: { change: { family_size: number | null } } }[] }).by_topic;
  expect(topics.length).toBe(1);
  expect(topics[0]!.visibility_rate.change.family_size).toBeNull();
});

test("the family is every platform, every topic when there are two or more, and every competitor there before the previous window; one added since is no member", async () => {
  const owner = await signedUpClient(server.url, server.secrets.anonKey, "Family members");
  const [{ organization_id }] = await db.inspect<{ organization_id: string }>("SELECT organization_id FROM organization_members WHERE user_id = ?", owner.user.id);
  const brandId = await db.fixtures.brand(organization_id!);
  const [pricing, support] = [await db.fixtures.topic(brandId, "Pricing"), await db.fixtures.topic(brandId, "Support")];
  const prompts = [await db.fixtures.prompt(brandId, "How much does it cost?", pricing), await db.fixtures.prompt(brandId, "Who answers tickets fastest?", support)];
  const early = await db.fixtures.competitor(brandId, "Incumbent", null, dayAgo(400));
  const late = await db.fixtures.competitor(brandId, "Latecomer", null, dayAgo(5));
  for (const promptId of prompts)
    for (const platform of ["chatgpt", "perplexity"])
      for (let i = 0; i < 4; i++) {
        await db.fixtures.result({ brandId, promptId, platform, createdAt: dayAgo(40 + i), mentioned: i < 2, competitors: [{ competitorId: early, mentionCount: 1, position: 2 }] });
        await db.fixtures.result({ brandId, promptId, platform, createdAt: dayAgo(2 + i), mentioned: i < 3, competitors: i < 2 ? [{ competitorId: late, mentionCount: 1, position: 1 }] : [] });
      }
  const { data, error } = await owner.sb.rpc("insights_overview", { p_brand_id: brandId });
  expect(error).toBeNull();
  type Change = { p_value: number | null; p_adjusted: number | null; family_size: number | null };
  const o = data as { by_platform: { platform: string; visibility_rate: { change: Change } }[]; by_topic: { topic_id: string; visibility_rate: { change: Change } }[]; by_competitor: { name: string; visibility_rate: { change: Change } }[] };
  const sizes = {
    platforms: Object.fromEntries(o.by_platform.map((r) => [r.platform, r.visibility_rate.change.family_size])),
    topics: Object.fromEntries(o.by_topic.map((r) => [r.topic_id === pricing ? "Pricing" : "Support", r.visibility_rate.change.family_size])),
    competitors: Object.fromEntries(o.by_competitor.map((r) => [r.name, r.visibility_rate.change.family_size])),
  };
  // Two platforms, two topics and Incumbent: five tested together.
  expect(sizes).toEqual({ platforms: { chatgpt: 5, perplexity: 5 }, topics: { Pricing: 5, Support: 5 }, competitors: { Incumbent: 5, Latecomer: null } });
  for (const r of [...o.by_platform, ...o.by_topic, ...o.by_competitor.filter((c) => c.name === "Incumbent")]) expect(r.visibility_rate.change.p_value).toBeNumber();
  expect(o.by_competitor.find((c) => c.name === "Latecomer")!.visibility_rate.change).toMatchObject({ p_value: null, p_adjusted: null, family_size: null });
});
