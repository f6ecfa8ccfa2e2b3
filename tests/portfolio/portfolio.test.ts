// backends: sqlite, postgres
// The agency portfolio (issue #31), GET /api/portfolio: every brand of every organization the caller
// belongs to, with non-branded visibility and its interval, the change and its verdict, share of
// voice, the last run, a sparkline and what changed. Every number is checked against what this file
// computes from the rows it wrote itself (Wilson and Newcombe from src/analysis/stats.ts, the counts
// from the rows); who sees which brands; bad input; the cap; the request's time.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { holm, newcombe, wilson, type ChangeCounts } from "../../src/analysis/stats";
import { portfolio } from "../../src/portfolio/service";
import { storesFor } from "../../src/stores";
import type { InsightsStore } from "../../src/insights/store";
import { testServer } from "../helpers/app";
import { json, serverDb, settled, writeResults, type ServerDb } from "../helpers/server-db";
import { signedUpClient } from "../helpers/supabase";

type Server = Awaited<ReturnType<typeof testServer>>;
let server: Server;
let db: ServerDb;

const DAY_MS = 86_400_000;
const TODAY = new Date().toISOString().slice(0, 10);
const dayOf = (offset: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) + offset * DAY_MS).toISOString().slice(0, 10);
/** The default window: the 30 days up to today; the previous one: the 30 before. */
const CURRENT = { from: dayOf(-29), to: TODAY };
const PREVIOUS = { from: dayOf(-59), to: dayOf(-30) };

interface Person {
  userId: string;
  token: string;
  orgId: string;
}
let alpha: Person; // owns Agency Alpha, viewer in Agency Beta
let beta: Person; // owns Agency Beta only

/** One answer as written: which brand, prompt and platform, when, whether it names the brand, and the rival's mentions. */
interface Answer {
  brand: BrandName;
  prompt: "p1" | "p2" | "branded";
  platform: string;
  day: string;
  mentioned: boolean;
  mentionCount: number;
  rivalMentions: number;
}

type BrandName = "Northwind" | "Contoso" | "Fabrikam";
/**
 * Per (non-branded prompt, platform) and window: 10 answers, the first `prev`/`curr` naming the
 * brand, the last `rivalPrev`/`rivalCurr` naming the rival. Northwind rises, Contoso falls, Fabrikam
 * stays where it was; each also has a branded prompt (which the portfolio leaves out).
 */
const SPECS: Record<BrandName, { org: "alpha" | "beta"; prev: number; curr: number; rivalPrev: number; rivalCurr: number }> = {
  Northwind: { org: "alpha", prev: 2, curr: 8, rivalPrev: 4, rivalCurr: 1 },
  Contoso: { org: "alpha", prev: 8, curr: 3, rivalPrev: 3, rivalCurr: 3 },
  Fabrikam: { org: "beta", prev: 5, curr: 5, rivalPrev: 3, rivalCurr: 3 },
};
const brands = {} as Record<BrandName, { id: string; prompts: Record<Answer["prompt"], string>; rival: string; pricing: string }>;
const ANSWERS: Answer[] = [];

function makeAnswers(): Answer[] {
  const out: Answer[] = [];
  for (const [brand, spec] of Object.entries(SPECS) as [BrandName, (typeof SPECS)[BrandName]][]) {
    for (const [window, named, rivals, base] of [["prev", spec.prev, spec.rivalPrev, -31], ["curr", spec.curr, spec.rivalCurr, -1]] as const) {
      for (const prompt of ["p1", "p2"] as const)
        for (const platform of ["chatgpt", "perplexity"])
          for (let i = 0; i < 10; i++)
            out.push({ brand, prompt, platform, day: dayOf(base - ((i * 3 + (prompt === "p2" ? 1 : 0)) % 20)), mentioned: i < named, mentionCount: i < named ? (i % 3 === 0 ? 2 : 1) : 0, rivalMentions: i >= 10 - rivals ? (i % 2 ? 1 : 2) : 0 });
      // The branded prompt names the brand in every current answer and in none before: left out, it moves nothing.
      for (let i = 0; i < 10; i++) out.push({ brand, prompt: "branded", platform: "chatgpt", day: dayOf(base - i), mentioned: window === "curr", mentionCount: window === "curr" ? 3 : 0, rivalMentions: 0 });
    }
  }
  // A pair answered in the current window only: in the visibility, not in the change.
  for (let i = 0; i < 4; i++) out.push({ brand: "Northwind", prompt: "p2", platform: "gemini", day: dayOf(-2 - i), mentioned: i === 0, mentionCount: i === 0 ? 1 : 0, rivalMentions: 0 });
  return out;
}

async function signUp(organization: string): Promise<Person> {
  const { sb, session, user } = await signedUpClient(server.url, server.secrets.anonKey, organization);
  const { data } = await sb.from("organizations").select("id");
  return { userId: user.id, token: session.access_token, orgId: (data as { id: string }[])[0]!.id };
}

async function api(path: string, token?: string) {
  const res = await fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
  alpha = await signUp("Agency Alpha");
  beta = await signUp("Agency Beta");
  // Any role will do: a viewer of Beta sees Beta's brands.
  await db.fixtures.member(beta.orgId, alpha.userId, "viewer");
  for (const [name, spec] of Object.entries(SPECS) as [BrandName, (typeof SPECS)[BrandName]][]) {
    const id = await db.fixtures.brand((spec.org === "alpha" ? alpha : beta).orgId, name);
    const pricing = await db.fixtures.topic(id, "Pricing");
    await db.fixtures.topic(id, "Unused");
    brands[name] = {
      id,
      pricing,
      // Added before the history below (a competitor's change compares windows begun after it was added).
      rival: await db.fixtures.competitor(id, "Rival", "rival.example", "2020-01-01T00:00:00.000Z"),
      prompts: {
        p1: await db.fixtures.prompt(id, "Which project tool is cheapest for a small team?", pricing),
        p2: await db.fixtures.prompt(id, "Which project tool do agencies recommend?"),
        branded: await db.fixtures.prompt(id, `Is ${name} a good project tool?`),
      },
    };
  }
  // is_branded is the server's to keep (on Postgres a moment after the write).
  const branded = async () => (await db.inspect<{ n: number }>("SELECT count(*) AS n FROM prompts WHERE is_branded = ?", db.backend === "postgres" ? true : 1)).map((r) => Number(r.n));
  expect(await settled(branded, [3])).toEqual([3]);

  ANSWERS.push(...makeAnswers());
  await writeResults(
    server,
    ANSWERS.map((a, i) => ({
      key: { id: crypto.randomUUID(), jobId: null, brandId: brands[a.brand].id, promptId: brands[a.brand].prompts[a.prompt], platform: a.platform, model: "m", region: "", createdAt: `${a.day}T${String(8 + (i % 10)).padStart(2, "0")}:00:00.000Z` },
      values: {
        surface: "api", response: "x", mentioned: a.mentioned ? 1 : 0, mention_count: a.mentionCount, mention_position: a.mentioned ? 1 : null,
        competitor_mentions: JSON.stringify(a.rivalMentions ? [{ competitor_id: brands[a.brand].rival, name: "Rival", mention_count: a.rivalMentions, position: 2 }] : []),
        citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: a.mentioned ? 70 : 0, search_queries: "[]", details: "{}",
      },
    })),
  );

  // Runs: Northwind's older one finished, its newer one is running (2 units done, 1 failed, 2 to go); Contoso never ran.
  const job = async (brand: BrandName, status: string, createdAt: string, units: string[], finishedAt: string | null) => {
    const org = SPECS[brand].org === "alpha" ? alpha.orgId : beta.orgId;
    const [row] = await db.inspect<{ id: string }>(
      `INSERT INTO jobs (type, brand_id, organization_id, status, data, progress, run_at, created_at, started_at, finished_at) VALUES ('tracking', ?, ?, ?, ${json(db)}, ${json(db)}, ?, ?, ?, ?) RETURNING id`,
      brands[brand].id, org, status, "{}", JSON.stringify({ phase: status === "active" ? "querying" : status === "completed" ? "done" : status, completed: 0, total: units.length }), createdAt, createdAt, createdAt, finishedAt,
    );
    for (const [seq, unit] of units.entries())
      await db.inspect("INSERT INTO job_units (job_id, seq, brand_id, prompt_id, platform, model, status) VALUES (?, ?, ?, ?, 'chatgpt', 'm', ?)", row!.id, seq, brands[brand].id, brands[brand].prompts.p1, unit);
    return row!.id;
  };
  const hour = 3_600_000;
  await job("Northwind", "completed", new Date(Date.now() - 48 * hour).toISOString(), ["done", "done"], new Date(Date.now() - 47 * hour).toISOString());
  await job("Northwind", "active", new Date(Date.now() - hour).toISOString(), ["done", "done", "failed", "pending", "pending"], null);
  await job("Fabrikam", "failed", new Date(Date.now() - 5 * hour).toISOString(), ["failed"], new Date(Date.now() - 4 * hour).toISOString());
}, 120_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
});

// ---- what the numbers must be, from the rows written above ------------------------------------

const inWindow = (w: { from: string; to: string }) => (a: Answer) => a.day >= w.from && a.day <= w.to;
const named = (rows: Answer[]) => rows.filter((a) => a.mentioned).length;
const pairOf = (a: Answer) => `${a.prompt}|${a.platform}`;
const shareOfVoice = (rows: Answer[]) => {
  const own = rows.reduce((s, a) => s + a.mentionCount, 0);
  const all = own + rows.reduce((s, a) => s + a.rivalMentions, 0);
  return all ? own / all : null;
};

/** Only the (prompt, platform) pairs answered in both windows: the change's rows. */
function compared(rows: Answer[]) {
  const now = rows.filter(inWindow(CURRENT));
  const before = rows.filter(inWindow(PREVIOUS));
  const both = new Set(now.map(pairOf).filter((p) => before.some((b) => pairOf(b) === p)));
  return { now: now.filter((a) => both.has(pairOf(a))), before: before.filter((a) => both.has(pairOf(a))) };
}

function changeOf(rows: Answer[]) {
  const c = compared(rows);
  const counts: ChangeCounts = { x1: named(c.now), n1: c.now.length, x2: named(c.before), n2: c.before.length };
  return { ...newcombe(counts.x1, counts.n1, counts.x2, counts.n2), n_current: c.now.length, n_previous: c.before.length, counts };
}

function expected(brand: BrandName) {
  const rows = ANSWERS.filter((a) => a.brand === brand && a.prompt !== "branded");
  const now = rows.filter(inWindow(CURRENT));
  const before = rows.filter(inWindow(PREVIOUS));
  const c = compared(rows);
  const sovNow = shareOfVoice(c.now);
  const sovBefore = shareOfVoice(c.before);
  const points = [];
  for (let d = CURRENT.from; d <= CURRENT.to; d = new Date(Date.parse(`${d}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)) {
    const that = now.filter((a) => a.day === d);
    points.push({ period: d, value: that.length ? named(that) / that.length : null, n: that.length });
  }
  // What changed: by platform and by topic over the pairs answered in both windows, by competitor over all answers.
  // Every platform, both topics and the rival tested together (Holm's step-down, tests/analysis/stats.test.ts).
  const family: { kind: string; label: string; delta: number | null; counts: ChangeCounts }[] = [];
  for (const platform of [...new Set(now.map((a) => a.platform))]) {
    const ch = changeOf(rows.filter((a) => a.platform === platform));
    family.push({ kind: "platform", label: platform, delta: ch.delta, counts: ch.counts });
  }
  for (const [prompt, topic] of [["p1", "Pricing"], ["p2", "prompts without a topic"]] as const) {
    const ch = changeOf(rows.filter((a) => a.prompt === prompt));
    family.push({ kind: "topic", label: `topic “${topic}”`, delta: ch.delta, counts: ch.counts });
  }
  const rival = { x1: now.filter((a) => a.rivalMentions > 0).length, n1: now.length, x2: before.filter((a) => a.rivalMentions > 0).length, n2: before.length };
  family.push({ kind: "competitor", label: "competitor Rival", delta: rival.n1 && rival.n2 ? rival.x1 / rival.n1 - rival.x2 / rival.n2 : null, counts: rival });
  const verdicts = holm(family.map((m) => m.counts));
  const moves = family.filter((_, i) => verdicts[i]!.verdict === "up" || verdicts[i]!.verdict === "down").map(({ kind, label, delta }) => ({ kind, label, delta: delta! }));
  const order: Record<string, number> = { platform: 0, topic: 1, competitor: 2 };
  moves.sort((a, b) => order[a.kind]! - order[b.kind]! || Math.abs(b.delta) - Math.abs(a.delta) || a.label.localeCompare(b.label));
  return {
    visibility: wilson(named(now), now.length),
    change: changeOf(rows),
    shareOfVoice: { value: shareOfVoice(now), n: now.length, delta: sovNow !== null && sovBefore !== null ? sovNow - sovBefore : null },
    points,
    // The previous window's rate over all its answers: the sparkline's dashed reference line.
    previous: before.length ? named(before) / before.length : null,
    moves: moves.map((m) => ({ ...m, direction: m.delta > 0 ? "up" : "down" })),
  };
}

const close = (actual: number | null, wanted: number | null, what: string) => {
  if (wanted === null || actual === null) expect({ what, actual }).toEqual({ what, actual: wanted });
  else expect({ what, diff: Math.abs(actual - wanted) < 1e-9 }).toEqual({ what, diff: true });
};

// ---- the cases --------------------------------------------------------------------------------

test("a member of two organizations sees their three brands, each with organization, visibility and interval, change and verdict, share of voice, sparkline and what changed — every number as the rows make it", async () => {
  const { status, body } = await api("/api/portfolio", alpha.token);
  expect(status).toBe(200);
  expect(body.window).toEqual(CURRENT);
  expect(body.previous).toEqual(PREVIOUS);
  expect(body.truncated).toBe(false);
  expect(body.complete).toBe(true);
  expect(body.organizations).toEqual([{ id: alpha.orgId, name: "Agency Alpha" }, { id: beta.orgId, name: "Agency Beta" }]);
  // By organization name, then brand name.
  expect(body.brands.map((b: any) => [b.brand.name, b.organization.name])).toEqual([["Contoso", "Agency Alpha"], ["Northwind", "Agency Alpha"], ["Fabrikam", "Agency Beta"]]);
  for (const row of body.brands) {
    const name = row.brand.name as BrandName;
    const want = expected(name);
    expect(row.brand).toEqual({ id: brands[name].id, name, is_active: true });
    expect(row.organization.id).toBe(SPECS[name].org === "alpha" ? alpha.orgId : beta.orgId);
    expect(row.computed).toBe(true);
    // Visibility: value, interval, n.
    expect([name, row.visibility.n]).toEqual([name, want.visibility.n]);
    close(row.visibility.value, want.visibility.value, `${name} visibility`);
    close(row.visibility.ci_low, want.visibility.ci_low, `${name} visibility ci_low`);
    close(row.visibility.ci_high, want.visibility.ci_high, `${name} visibility ci_high`);
    // The change over the pairs answered in both windows.
    expect([name, row.change.verdict, row.change.n_current, row.change.n_previous]).toEqual([name, want.change.verdict, want.change.n_current, want.change.n_previous]);
    close(row.change.delta, want.change.delta, `${name} change`);
    close(row.change.ci_low, want.change.ci_low, `${name} change ci_low`);
    close(row.change.ci_high, want.change.ci_high, `${name} change ci_high`);
    // Share of voice and its change.
    expect([name, row.share_of_voice.n]).toEqual([name, want.shareOfVoice.n]);
    close(row.share_of_voice.value, want.shareOfVoice.value, `${name} share of voice`);
    close(row.share_of_voice.delta, want.shareOfVoice.delta, `${name} share of voice change`);
    // One point a day over a 30-day window.
    expect(row.sparkline.interval).toBe("day");
    expect(row.sparkline.points.map((p: any) => [p.period, p.n])).toEqual(want.points.map((p) => [p.period, p.n]));
    for (const [i, p] of want.points.entries()) close(row.sparkline.points[i].value, p.value, `${name} sparkline ${p.period}`);
    close(row.sparkline.previous, want.previous, `${name} sparkline's previous window`);
    // What changed: the significant moves, in their order.
    expect([name, row.what_changed.map((m: any) => [m.kind, m.label, m.direction])]).toEqual([name, want.moves.map((m) => [m.kind, m.label, m.direction])]);
    for (const [i, m] of want.moves.entries()) close(row.what_changed[i].delta, m.delta, `${name} move ${m.label}`);
  }
  // The three stories: up, down, flat; the branded prompt (all answers naming the brand now, none before) moved none of them.
  const verdicts = Object.fromEntries(body.brands.map((b: any) => [b.brand.name, b.change.verdict]));
  expect(verdicts).toEqual({ Northwind: "up", Contoso: "down", Fabrikam: "within_noise" });
  const northwind = body.brands.find((b: any) => b.brand.name === "Northwind");
  expect(northwind.visibility.n).toBe(44);
  expect(northwind.change.n_current).toBe(40);
  expect(northwind.what_changed.map((m: any) => m.label)).toEqual(["chatgpt", "perplexity", "topic “Pricing”", "topic “prompts without a topic”", "competitor Rival"]);
  expect(body.brands.find((b: any) => b.brand.name === "Fabrikam").what_changed).toEqual([]);
}, 60_000);

test("the last run is each brand's newest tracking job with its progress (none for a brand that never ran)", async () => {
  const { body } = await api("/api/portfolio", alpha.token);
  const run = (name: BrandName) => body.brands.find((b: any) => b.brand.name === name).last_run;
  expect(run("Northwind")).toMatchObject({ status: "active", progress: { phase: "querying", completed: 3, total: 5 }, finished_at: null });
  expect(run("Contoso")).toBeNull();
  expect(run("Fabrikam")).toMatchObject({ status: "failed", progress: { phase: "failed", completed: 1, total: 1 } });
  expect(Date.parse(run("Fabrikam").finished_at)).toBeGreaterThan(Date.parse(run("Fabrikam").created_at));
});

test("a user of one organization sees only its brands; ?organization_id narrows to one of the caller's organizations, and someone else's reads as not found", async () => {
  const onlyBeta = await api("/api/portfolio", beta.token);
  expect(onlyBeta.status).toBe(200);
  expect(onlyBeta.body.organizations).toEqual([{ id: beta.orgId, name: "Agency Beta" }]);
  expect(onlyBeta.body.brands.map((b: any) => b.brand.name)).toEqual(["Fabrikam"]);
  // The same brand, the same numbers, whoever asks.
  const both = await api("/api/portfolio", alpha.token);
  expect(onlyBeta.body.brands[0]).toEqual(both.body.brands.find((b: any) => b.brand.name === "Fabrikam"));

  const narrowed = await api(`/api/portfolio?organization_id=${beta.orgId}`, alpha.token);
  expect(narrowed.body.brands.map((b: any) => b.brand.name)).toEqual(["Fabrikam"]);
  expect(narrowed.body.organizations.length).toBe(2);
  expect(narrowed.body.organization_id).toBe(beta.orgId);
  const foreign = await api(`/api/portfolio?organization_id=${alpha.orgId}`, beta.token);
  expect(foreign.status).toBe(404);
  expect(foreign.body).toEqual({ success: false, error: { code: "not_found", message: "Organization not found" } });
});

test("an API key sees only its organization's brands", async () => {
  const made = await fetch(`${server.url}/api/keys`, { method: "POST", headers: { authorization: `Bearer ${alpha.token}`, "content-type": "application/json" }, body: JSON.stringify({ name: "portfolio", organization_id: alpha.orgId, role: "viewer" }) });
  expect(made.status).toBe(200);
  const { secret } = (await made.json()) as { secret: string };
  const { status, body } = await api("/api/portfolio", secret);
  expect(status).toBe(200);
  expect(body.organizations).toEqual([{ id: alpha.orgId, name: "Agency Alpha" }]);
  expect(body.brands.map((b: any) => b.brand.name)).toEqual(["Contoso", "Northwind"]);
  // Not even when it names the other organization.
  expect((await api(`/api/portfolio?organization_id=${beta.orgId}`, secret)).status).toBe(404);
});

test("without a bearer: 401 in the /api shape", async () => {
  const { status, body } = await api("/api/portfolio");
  expect(status).toBe(401);
  expect(body.success).toBe(false);
  expect(body.error.code).toBe("unauthorized");
});

test("bad dates, windows, limits and organization ids are 400s that say what is wrong", async () => {
  for (const [query, words] of [
    ["from=2026-02-30", "from is not a calendar date"],
    ["to=yesterday", "to must be a date (YYYY-MM-DD)"],
    ["from=2026-1-01", "from must be a date (YYYY-MM-DD)"],
    ["from=1999-12-31&to=2000-01-10", "from must fall between 2000-01-01 and 2999-12-31"],
    ["from=2026-03-10&to=2026-03-01", "from (2026-03-10) is after to (2026-03-01)"],
    ["from=2000-01-01&to=2020-01-01", "at most 3660 days"],
    ["limit=0", "limit must be a whole number from 1 to 200"],
    ["limit=201", "limit must be a whole number from 1 to 200"],
    ["limit=2.5", "limit must be a whole number from 1 to 200"],
    ["organization_id=nope", "organization_id must be a UUID"],
  ] as const) {
    const { status, body } = await api(`/api/portfolio?${query}`, alpha.token);
    expect([query, status, body.success]).toEqual([query, 400, false]);
    expect([query, body.error.message]).toEqual([query, expect.stringContaining(words)]);
  }
  // A window of its own: weekly points past 45 days, and the numbers of that window.
  const { status, body } = await api(`/api/portfolio?from=${dayOf(-89)}&to=${TODAY}`, alpha.token);
  expect(status).toBe(200);
  const northwind = body.brands.find((b: any) => b.brand.name === "Northwind");
  expect(northwind.sparkline.interval).toBe("week");
  const rows = ANSWERS.filter((a) => a.brand === "Northwind" && a.prompt !== "branded" && a.day >= dayOf(-89));
  expect(northwind.visibility.n).toBe(rows.length);
  expect(northwind.sparkline.points.reduce((s: number, p: any) => s + p.n, 0)).toBe(rows.length);
  // Every week's Monday, from the one holding the window's first day.
  for (const p of northwind.sparkline.points) expect(new Date(`${p.period}T00:00:00Z`).getUTCDay()).toBe(1);
  // Past two years, a point a month.
  const long = await api(`/api/portfolio?from=${dayOf(-799)}&to=${TODAY}`, alpha.token);
  const monthly = long.body.brands.find((b: any) => b.brand.name === "Northwind").sparkline;
  expect(monthly.interval).toBe("month");
  expect(monthly.points.every((p: any) => /^\d{4}-\d{2}$/.test(p.period))).toBe(true);
  expect(monthly.points.reduce((s: number, p: any) => s + p.n, 0)).toBe(rows.length);
});

test("the cap: ?limit cuts the list and says so; past 200 brands the list stops at 200, truncated", async () => {
  const two = await api("/api/portfolio?limit=2", alpha.token);
  expect(two.body.brands.map((b: any) => b.brand.name)).toEqual(["Contoso", "Northwind"]);
  expect([two.body.truncated, two.body.limit]).toEqual([true, 2]);
  const three = await api("/api/portfolio?limit=3", alpha.token);
  expect([three.body.brands.length, three.body.truncated]).toEqual([3, false]);

  const big = await signUp("Agency Big");
  const values = Array.from({ length: 201 }, (_, i) => [big.orgId, `Brand ${String(i).padStart(3, "0")}`, `brand-${i}`]);
  await db.inspect(`INSERT INTO brands (organization_id, name, slug) VALUES ${values.map(() => "(?, ?, ?)").join(", ")}`, ...values.flat());
  const { status, body } = await api("/api/portfolio", big.token);
  expect(status).toBe(200);
  expect([body.brands.length, body.truncated, body.limit, body.complete]).toEqual([200, true, 200, true]);
  expect(body.brands[0].brand.name).toBe("Brand 000");
  expect(body.brands[199].brand.name).toBe("Brand 199");
  // A brand with no answers: n 0, no rate, no change, flat empty sparkline.
  expect(body.brands[0]).toMatchObject({ visibility: { value: null, n: 0 }, change: { delta: null, verdict: "insufficient_data" }, what_changed: [], last_run: null });
  expect(body.brands[0].sparkline.points.length).toBe(30);
}, 120_000);

test("past the request's time the brands not reached come without numbers, and the answer says it is incomplete", async () => {
  const stores = storesFor(server.backend);
  // Time runs out once a second brand's reads have begun.
  const seen = new Set<string>();
  const insights: InsightsStore = new Proxy(stores.insights, {
    get(target, key) {
      const value = (target as any)[key];
      return typeof value !== "function" ? value : (input: any, ...rest: unknown[]) => {
        const brandId = typeof input === "string" ? input : (input?.query?.brandId ?? input?.brandId);
        if (brandId) seen.add(brandId);
        return value.call(target, input, ...rest);
      };
    },
  });
  const answer = await portfolio({ store: stores.portfolio, insights, timeoutMs: 1000, clock: () => (seen.size > 1 ? 1e12 : 0) }, { organizationIds: [alpha.orgId, beta.orgId], organizationId: null, window: CURRENT, limit: 200 });
  expect(answer.complete).toBe(false);
  expect(answer.brands.map((b) => [b.brand.name, b.computed])).toEqual([["Contoso", true], ["Northwind", false], ["Fabrikam", false]]);
  expect(answer.brands[1]!.visibility).toBeNull();
  expect(answer.brands[2]!.sparkline).toBeNull();
  // Names, organizations and runs still listed.
  expect(answer.brands[1]!.last_run?.status).toBe("active");
  expect(answer.brands[0]!.visibility!.n).toBe(expected("Contoso").visibility.n);
});
