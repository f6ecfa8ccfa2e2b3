// Issue #27, against the compiled binary's demo (`answerwatch demo --keep`) in Debian's chromium:
// the overview says what changed without any filter — the demo's significant moves on ChatGPT and
// Perplexity, each with its interval and n, equal to insights_overview filtered to that platform —
// the headline reads non-branded prompts, every interval is text, and no page shows an id.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { chromium, type Browser, type Page } from "playwright-core";
import { ROOT, tempDir } from "../helpers/app";
import { buildBinary } from "../helpers/binary";

const ARTIFACTS = join(ROOT, "tests/artifacts/web");
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
let demo: Bun.Subprocess<"ignore", "pipe", "pipe">;
let url: string;
let browser: Browser;
let page: Page;
let sb: SupabaseClient;
let brandId: string;

beforeAll(async () => {
  const dir = tempDir("aw-dash-");
  mkdirSync(join(dir, "tmp"));
  copyFileSync(buildBinary(), join(dir, "answerwatch"));
  demo = Bun.spawn([join(dir, "answerwatch"), "demo", "--keep", "--port", "0"], { cwd: dir, env: { PATH: "/usr/bin:/bin", TMPDIR: join(dir, "tmp") }, stdout: "pipe", stderr: "pipe" });
  let out = "";
  const reader = demo.stdout.getReader();
  const decoder = new TextDecoder();
  for (const deadline = Date.now() + 60_000; !/data:\s+\S+\n/.test(out); ) {
    if (Date.now() > deadline) throw new Error(`the demo did not come up: ${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`the demo exited: ${out}`);
    out += decoder.decode(value);
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
  url = out.match(/dashboard:\s+(http:\/\/127\.0\.0\.1:\d+)\/\n/)![1]!;
  const [, email, password] = out.match(/sign in:\s+(\S+)\s+password: (\S+)/)!;
  sb = createClient(url, out.match(/anon key:\s+(\S+)/)![1]!, { auth: { persistSession: false, autoRefreshToken: false } });
  await sb.auth.signInWithPassword({ email: email!, password: password! });
  brandId = ((await sb.from("brands").select("id")).data as { id: string }[])[0]!.id;
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${url}/login`);
  await page.getByLabel("E-mail").fill(email!);
  await page.getByLabel("Password").fill(password!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${url}/`);
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  demo?.kill("SIGTERM");
  await demo?.exited;
});

const pct = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(1)} %`);
const pts = (d: number) => `${d >= 0 ? "+" : "−"}${Math.abs(d * 100).toFixed(1)} pts`;

test("the overview, unfiltered, names ChatGPT's and Perplexity's significant moves with their intervals and n, as insights_overview computes them per platform", async () => {
  await page.goto(`${url}/b/${brandId}/overview`);
  await page.locator(".what-changed").waitFor();
  // The headline is non-branded, and says so; the switch shows it.
  expect(await page.getByText("answers to non-branded prompts").count()).toBe(1);
  expect(await page.getByRole("button", { name: "non-branded" }).getAttribute("aria-pressed")).toBe("true");
  const moves = await page.locator(".what-changed li").allInnerTexts();
  for (const [platform, verdict] of [["chatgpt", "up"], ["perplexity", "down"]] as const) {
    // Computed here through another path: the overview filtered to that one platform.
    const one = (await sb.rpc("insights_overview", { p_brand_id: brandId, p_platforms: [platform], p_branded: false })).data as any;
    const change = one.visibility_rate.change;
    expect([platform, change.verdict]).toEqual([platform, verdict]);
    const line = moves.find((m) => m.includes(`Visibility on ${platform}:`));
    expect(line).toBeDefined();
    expect(line).toContain(`${pts(change.delta)} (95 % CI ${pts(change.ci_low)} to ${pts(change.ci_high)})`);
    expect(line).toContain(`now ${pct(one.visibility_rate.value)}`);
    expect(line).toContain(`n ${change.n_current} vs ${change.n_previous}`);
    // The platform strip: rate, interval as text, n and verdict without hovering.
    const cell = page.locator(`.platform-cell[data-platform="${platform}"]`);
    const text = await cell.innerText();
    expect(text).toContain(pct(one.visibility_rate.value));
    expect(text).toContain(`95 % CI ${pct(one.visibility_rate.ci_low)} – ${pct(one.visibility_rate.ci_high)}`);
    expect(text).toContain(`n = ${one.visibility_rate.n}`);
    expect(text).toContain(verdict);
  }
  // The pooled headline's interval is text too.
  const pooled = (await sb.rpc("insights_overview", { p_brand_id: brandId, p_branded: false })).data as any;
  expect(await page.locator('.kpi[data-kpi="Visibility rate"]').innerText()).toContain(`95 % CI ${pct(pooled.visibility_rate.ci_low)} – ${pct(pooled.visibility_rate.ci_high)}`);
  await page.screenshot({ path: join(ARTIFACTS, "overview-demo-1280.png"), fullPage: true });
  // All prompts one click away, in the URL.
  await page.getByRole("button", { name: "all", exact: true }).click();
  await page.waitForURL(/branded=all/);
  await page.getByText("answers to all prompts").waitFor();
}, 60_000);

test("no page shows an id: overview, prompts, competitors, sources, suggestions, AI traffic, AI crawlers, runs, settings", async () => {
  for (const tab of ["overview", "prompts", "competitors", "sources", "suggestions", "traffic", "crawlers", "runs", "settings"]) {
    await page.goto(`${url}/b/${brandId}/${tab}`);
    await page.locator("main h1").waitFor();
    await page.waitForLoadState("networkidle");
    // Opened evidence included: what a click shows counts as visible text.
    for (const d of await page.locator("details").all()) await d.evaluate((el) => ((el as HTMLDetailsElement).open = true));
    const text = await page.locator("main").innerText();
    expect([tab, text.match(UUID)?.[0] ?? null]).toEqual([tab, null]);
  }
  // Suggestion titles quote prompts; none is "high" on fewer than five answers.
  const suggestions = (await sb.from("suggestions").select("title, priority, evidence").eq("brand_id", brandId)).data as { title: string; priority: string; evidence: { answers: number } }[];
  expect(suggestions.length).toBeGreaterThan(0);
  for (const s of suggestions) {
    expect(s.title).not.toMatch(UUID);
    if (s.priority === "high") expect(s.evidence.answers).toBeGreaterThanOrEqual(5);
  }
}, 60_000);
