// Issue #27, against the compiled binary's demo (`answerwatch demo --keep`) in Debian's chromium:
// the overview says what changed without any filter — the demo's significant moves on ChatGPT and
// Perplexity, each with its interval and n, equal to insights_overview filtered to that platform —
// the headline reads non-branded prompts, every interval is text, and no page shows an id.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { chromium, type Browser, type Page } from "playwright-core";
import { appPages, openPage, signIn } from "../../scripts/app-pages";
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
let login: { email: string; password: string };

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
  login = { email: email!, password: password! };
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
  // The moves were tested together: the list says how many (which changes are members: tests/insights/family.test.ts).
  const size = pooled.by_platform[0].visibility_rate.change.family_size;
  expect(size).toBeGreaterThan(1);
  expect(await page.locator(".what-changed [data-family]").innerText()).toContain(`${size} changes tested together`);
  expect(await page.locator('.kpi[data-kpi="Visibility rate"]').innerText()).toContain(`95 % CI ${pct(pooled.visibility_rate.ci_low)} – ${pct(pooled.visibility_rate.ci_high)}`);
  await page.screenshot({ path: join(ARTIFACTS, "overview-demo-1280.png"), fullPage: true });
  // All prompts one click away, in the URL.
  await page.getByRole("button", { name: "all", exact: true }).click();
  await page.waitForURL(/branded=all/);
  await page.getByText("answers to all prompts").waitFor();
}, 60_000);

test("the competitors page shows each one's visibility change and verdict as the overview tests it, the brand's over the prompts answered in both windows", async () => {
  const overview = (await sb.rpc("insights_overview", { p_brand_id: brandId, p_branded: false })).data as any;
  const board = (await sb.rpc("insights_competitors", { p_brand_id: brandId, p_branded: false })).data as { entity_id: string; name: string; is_brand: boolean }[];
  await page.goto(`${url}/b/${brandId}/competitors`);
  await page.locator('td[data-col="change"]').first().waitFor();
  const verdicts = { up: "up", down: "down", within_noise: "within noise", insufficient_data: "not enough data" } as Record<string, string>;
  let compared = 0;
  for (const r of board) {
    const change = r.is_brand ? overview.visibility_rate.change : overview.by_competitor.find((c: any) => c.competitor_id === r.entity_id).visibility_rate.change;
    const cell = page.locator("table").first().locator("tr", { hasText: r.name }).first().locator('td[data-col="change"]');
    await cell.filter({ hasNotText: "…" }).waitFor();
    const text = await cell.innerText();
    expect([r.name, text]).toEqual([r.name, `${change.delta === null ? "—" : pts(change.delta)} · ${verdicts[change.verdict]}`]);
    if (change.delta !== null) compared++;
  }
  expect(compared).toBeGreaterThan(1);
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

test("every page at 1280 and 375 px, light and dark: no horizontal overflow, no serious or critical axe-core violation, legends never '--', rates with their intervals as text", async () => {
  const axe = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
  const promptId = ((await sb.from("prompts").select("id").eq("brand_id", brandId).limit(1)).data as { id: string }[])[0]!.id;
  const problems: string[] = [];
  mkdirSync(join(ARTIFACTS, "pages"), { recursive: true });
  for (const scheme of ["light", "dark"] as const) {
    // bypassCSP: axe-core is injected into the page; the app's own CSP is tested in app.test.ts.
    const context = await browser.newContext({ colorScheme: scheme, bypassCSP: true, viewport: { width: 1280, height: 900 } });
    const p = await context.newPage();
    await signIn(p, url, login.email, login.password);
    for (const page of appPages(brandId, promptId)) {
      for (const width of [1280, 375]) {
        await p.setViewportSize({ width, height: width === 375 ? 812 : 900 });
        await openPage(p, url, page);
        const where = `${page.name} ${width}px ${scheme}`;
        // Wider than the screen: the document scrolls sideways (tables scroll inside their own box).
        const wide = await p.evaluate(() => {
          const over = document.documentElement.scrollWidth - window.innerWidth;
          if (over <= 1) return null;
          const culprits = [...document.querySelectorAll("body *")].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest(".scroll-x, .u-wrap, pre"));
          return `${over}px wider than the screen: ${culprits.slice(-3).map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`).join(", ")}`;
        });
        if (wide) problems.push(`${where}: ${wide}`);
        for (const legend of await p.locator(".chart-legend").allInnerTexts()) if (legend.includes("--")) problems.push(`${where}: legend reads ${legend}`);
        if ((await p.locator(".u-legend").count()) > 0) problems.push(`${where}: uPlot's own legend is shown`);
        await p.screenshot({ path: join(ARTIFACTS, "pages", `${page.name}-${width}-${scheme}.png`) });
        const figures = p.locator(".chart-figure");
        for (let i = 0; i < (await figures.count()); i++) await figures.nth(i).screenshot({ path: join(ARTIFACTS, "pages", `${page.name}-chart${i}-${width}-${scheme}.png`) });
        if (width !== 1280) continue;
        await p.evaluate(axe);
        const violations = await p.evaluate(async () => {
          const result = await (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe.run(document, { resultTypes: ["violations"] });
          return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
        });
        for (const v of violations) problems.push(`${where}: ${v}`);
      }
    }
    await context.close();
  }
  expect(problems).toEqual([]);
}, 600_000);

test("charts: each point's interval is a band, hovering snaps to a period with data and shows its value, interval and n; rate tables show intervals as text", async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${url}/b/${brandId}/overview`);
  await page.locator(".chart canvas").first().waitFor();
  await page.waitForLoadState("networkidle");
  const legend = page.locator(".chart-legend").first();
  expect(await legend.locator(".chart-legend-when").innerText()).toBe("Whole window");
  // At rest: each platform's window rate, interval and n, as the platform strip has them.
  const pooled = (await sb.rpc("insights_overview", { p_brand_id: brandId, p_branded: false })).data as any;
  for (const row of pooled.by_platform) expect(await legend.locator(`[data-series="${row.platform}"]`).innerText()).toContain(`n = ${row.visibility_rate.n.toLocaleString("en")}`);
  // Hover across the chart: every position names a period and values with intervals and n (or says there is no data).
  await page.locator(".chart").first().scrollIntoViewIfNeeded();
  const box = (await page.locator(".chart .u-over").first().boundingBox())!;
  const trend = (await sb.rpc("insights_trend", { p_brand_id: brandId, p_branded: false, p_interval: "day", p_group_by: "platform" })).data as any[];
  const withData = new Set(trend.filter((r) => r.answers > 0).map((r) => r.period));
  for (const f of [0.05, 0.3, 0.5, 0.7, 0.95]) {
    await page.mouse.move(box.x + box.width * f, box.y + box.height / 2, { steps: 3 });
    await page.waitForFunction(() => document.querySelector(".chart-legend-when")?.textContent !== "Whole window", undefined, { timeout: 3000 });
    const when = await legend.locator(".chart-legend-when").innerText();
    expect([when, withData.has(when)]).toEqual([when, true]);
    const text = await legend.innerText();
    expect(text).not.toContain("--");
    const row = trend.find((r) => r.period === when && r.answers > 0)!;
    expect(await legend.locator(`[data-series="${row.group}"]`).innerText()).toContain(`n = ${row.answers}`);
  }
  // The data table under the chart lists every point with its interval.
  expect(await page.locator(".chart-data tbody tr").count()).toBe(new Set(trend.map((r) => r.period)).size);
  // Competitors: each visibility with its interval as text, equal to the RPC's.
  const competitors = (await sb.rpc("insights_competitors", { p_brand_id: brandId, p_branded: false })).data as any[];
  const shown = await page.locator('td[data-col="visibility_rate"]').allInnerTexts();
  for (const c of competitors) expect(shown.some((t) => t.includes(`${(c.ci_low * 100).toFixed(1)} % – ${(c.ci_high * 100).toFixed(1)} %`))).toBe(true);
}, 60_000);
