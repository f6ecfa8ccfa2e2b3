// backends: sqlite, postgres
// The web app (issue #19) in Debian's Chromium driven by playwright-core, against the compiled
// binary started from an empty directory, with fake engine upstreams: sign-up → onboarding → a run →
// every page, its numbers compared with what the insights RPCs return for the same filters (read
// here through supabase-js as the same user). Screenshots of every page at 1280 and 375 px go to
// tests/artifacts/ (not committed).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "bun";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { openaiAnswer, perplexityAnswer } from "../fakes/answers";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { ROOT, TEST_BACKEND } from "../helpers/app";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp";
import { secretsOf, startBinary, type StartedBinary } from "../helpers/binary";

const ARTIFACTS = join(ROOT, TEST_BACKEND === "postgres" ? "tests/artifacts/web-postgres" : "tests/artifacts/web");
const EMAIL = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
const PASSWORD = "correct-horse-battery";
const PROMPTS = ["What is the best customer analytics tool for a startup?", "Which analytics platform has the best cohort reports?", "Is Lumenly good for product teams?"];

let fake: FakeUpstream;
let sink: SmtpSink;
let bin: StartedBinary;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let sb: SupabaseClient;
let anonKey: string;
let brandId: string;
/** Every URL the browser asked for: none may leave the server's origin. */
const requested: string[] = [];
/** What Chromium reported against the Content-Security-Policy, on any page of any context. */
const cspViolations: string[] = [];
const watchCsp = (p: Page) => {
  p.on("console", (m) => /Content Security Policy|Refused to (load|execute|apply|frame|connect)/i.test(m.text()) && cspViolations.push(`${p.url()}: ${m.text()}`));
  p.on("pageerror", (e) => /Content Security Policy/i.test(String(e)) && cspViolations.push(`${p.url()}: ${e}`));
};

const answerFor = (prompt: string, i: number) => {
  const named = i % 3 !== 1;
  return {
    // Markdown, as engines write it, with HTML that must stay text on the page.
    text: `## Picks\n\n- ${named ? "**Lumenly** leads for product teams, ahead of Quantia." : "Quantia and Metricsly are the usual picks."}\n- For ${prompt.toLowerCase()} compare [pricing](https://lumenly.example/pricing) and cohort reports.\n\nMetricsly is cheaper. <img src=x onerror="window.__pwned=1">`,
    query: prompt.toLowerCase(),
    cites: [
      { url: "https://lumenly.example/pricing", title: "Lumenly pricing" },
      { url: "https://www.reddit.com/r/analytics/comments/abc/best_tools", title: "Best analytics tools?" },
      { url: "https://quantia.example/compare", title: "Quantia vs others" },
    ],
  };
};

beforeAll(async () => {
  fake = await startFakeUpstream();
  let asks = 0;
  const respond = (build: (a: ReturnType<typeof answerFor>) => unknown) => (req: { body: unknown }) => {
    const prompt = PROMPTS.find((p) => JSON.stringify(req.body).includes(p)) ?? PROMPTS[0]!;
    return Response.json(build(answerFor(prompt, asks++)));
  };
  fake.setBehavior("chatgpt", { respond: respond(openaiAnswer) });
  fake.setBehavior("perplexity", { respond: respond(perplexityAnswer) });
  const env = Object.fromEntries(Object.entries(fake.env()).filter(([k]) => /^(OPENAI|PERPLEXITY)_/.test(k) || k === "PERPLEXITY_API"));
  sink = await startSmtpSink();
  bin = await startBinary({ ...env, WEBHOOK_ALLOW_PRIVATE: "true", SMTP_URL: sink.url });
  anonKey = (await (await fetch(`${bin.url}/api/app-config`)).json()).anonKey;
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  context.on("request", (r) => requested.push(r.url()));
  context.on("page", watchCsp);
  page = await context.newPage();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  bin?.proc.kill("SIGTERM");
  await fake?.stop();
  await sink?.stop();
});

/** A second browser context signed in as `email`, on its home page. */
async function signedInContext(email: string): Promise<{ context: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  ctx.on("request", (r) => requested.push(r.url()));
  ctx.on("page", watchCsp);
  const p = await ctx.newPage();
  await p.goto(`${bin.url}/login`);
  await p.getByLabel("E-mail").fill(email);
  await p.getByLabel("Password").fill(PASSWORD);
  await p.getByRole("button", { name: "Sign in" }).click();
  await p.waitForURL(`${bin.url}/`);
  return { context: ctx, page: p };
}

async function shoot(name: string) {
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: join(ARTIFACTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: join(ARTIFACTS, `${name}-375.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The value `read` gives once it equals `expected`, or its last value after 10 s (the page reloads its data). */
async function settle(read: () => Promise<string>, expected: string): Promise<string> {
  let last = "";
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await Bun.sleep(100)) if ((last = await read()) === expected) break;
  return last;
}

const pctText = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(1)} %`);
/** A rate cell: the rate, and its 95 % interval under it as text. */
const rateText = (r: { visibility_rate: number | null; ci_low: number | null; ci_high: number | null }) => (r.visibility_rate === null ? "—" : `${pctText(r.visibility_rate)}\n${pctText(r.ci_low)} – ${pctText(r.ci_high)}`);
const csvNumber = (v: number) => String(Math.round(v * 1e6) / 1e6);

test("sign up, onboarding and a first run through the app", async () => {
  await page.goto(`${bin.url}/`);
  await page.waitForURL(/\/login/);
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByLabel("E-mail").fill(EMAIL);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByLabel("Organization").fill("Lumenly team");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(/\/onboarding/);
  await shoot("onboarding");
  await page.getByLabel("Brand name").fill("Lumenly");
  await page.getByLabel("Website").fill("https://lumenly.example");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Competitors").fill("Quantia, quantia.example\nMetricsly, metricsly.example, Metrics.ly");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Topic").fill("Buying");
  await page.getByLabel("Prompts").fill(PROMPTS.join("\n"));
  await page.getByRole("button", { name: "Next" }).click();
  // Only the two platforms the fake answers for this test.
  for (const box of await page.getByRole("checkbox").all()) {
    const value = await box.getAttribute("value");
    if ((await box.isEnabled()) && (await box.isChecked()) !== (value === "chatgpt" || value === "perplexity")) await box.click();
  }
  await page.getByLabel("Samples").fill("2");
  await page.getByRole("button", { name: "Create the brand" }).click();
  await page.getByRole("button", { name: "Run now" }).click();
  await page.getByText(/completed — 12 of 12 questions done/).waitFor({ timeout: 60_000 });
  await page.getByRole("button", { name: "Go to the overview" }).click();
  await page.waitForURL(/\/b\/[0-9a-f-]+\/overview/);
  brandId = page.url().match(/\/b\/([0-9a-f-]+)\//)![1]!;
  sb = createClient(bin.url, anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
  expect((await sb.auth.signInWithPassword({ email: EMAIL, password: PASSWORD })).error).toBeNull();
  const { data: results } = await sb.from("prompt_results").select("platform, sample").eq("brand_id", brandId);
  expect(results).toHaveLength(12);
}, 120_000);

test("the overview shows the numbers insights_overview and insights_competitors return, and filters change the URL and the numbers", async () => {
  await page.goto(`${bin.url}/b/${brandId}/overview`);
  await page.locator(".kpi").first().waitFor();
  const today = new Date().toISOString().slice(0, 10);
  const from30 = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
  // The overview's headline reads non-branded prompts unless told otherwise (one of the three is branded).
  const overview = (await sb.rpc("insights_overview", { p_brand_id: brandId, p_from: from30, p_to: today, p_branded: false })).data;
  expect(overview.answers).toBe(8);
  const kpi = (label: string) => page.locator(`[data-kpi="${label}"] .kpi-value`).innerText();
  expect(await kpi("Visibility rate")).toBe(pctText(overview.visibility_rate.value));
  expect(await kpi("Citation share")).toBe(pctText(overview.citation_share.value));
  expect(await kpi("Share of voice")).toBe(pctText(overview.share_of_voice.value));
  expect(await page.locator('[data-kpi="Visibility rate"] .kpi-value').getAttribute("title")).toContain(`n = ${overview.visibility_rate.n}`);
  const competitors = (await sb.rpc("insights_competitors", { p_brand_id: brandId, p_from: from30, p_to: today, p_branded: false })).data as { name: string; visibility_rate: number; ci_low: number; ci_high: number }[];
  for (const c of competitors) {
    const row = page.locator("tr", { has: page.locator(`td[data-col="name"]`, { hasText: c.name }) }).first();
    expect(await row.locator('td[data-col="visibility_rate"]').innerText()).toBe(rateText(c));
  }
  // No answers before this window: nothing to compare, said as such (not "within noise").
  expect(await page.locator(".what-changed").innerText()).toContain("Nothing to compare yet");
  // Every answer is from today: no one-point chart, the words say why.
  expect(await page.locator("[data-one-period]").getAttribute("data-one-period")).toBe(today);
  await shoot("overview");

  // Filters: the platform and "all prompts" go into the URL, and the numbers follow.
  await page.getByLabel("Platform").selectOption("perplexity");
  await page.waitForURL(/platform=perplexity/);
  await page.getByRole("button", { name: "all", exact: true }).click();
  await page.waitForURL(/branded=all/);
  const perplexity = (await sb.rpc("insights_overview", { p_brand_id: brandId, p_from: from30, p_to: today, p_platforms: ["perplexity"] })).data;
  expect(await settle(() => kpi("Visibility rate"), pctText(perplexity.visibility_rate.value))).toBe(pctText(perplexity.visibility_rate.value));
  expect(perplexity.answers).toBe(6);
  await page.getByRole("button", { name: "non-branded" }).click();
  await page.waitForURL(/branded=false/);
  const nonBranded = (await sb.rpc("insights_overview", { p_brand_id: brandId, p_from: from30, p_to: today, p_platforms: ["perplexity"], p_branded: false })).data;
  expect(await settle(() => kpi("Visibility rate"), pctText(nonBranded.visibility_rate.value))).toBe(pctText(nonBranded.visibility_rate.value));
  // A shared link opens the same view.
  const shared = page.url();
  const other = await context.newPage();
  await other.goto(shared);
  await other.locator(".kpi").first().waitFor();
  expect(await other.locator('[data-kpi="Visibility rate"] .kpi-value').innerText()).toBe(pctText(nonBranded.visibility_rate.value));
  await other.close();
}, 60_000);

test("the overview's data arrives in at most 6 requests, and the JavaScript is at most 250 KB gzipped", async () => {
  const fresh = await context.newPage();
  const data: string[] = [];
  fresh.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith("/rest/v1/rpc/insights_") || (u.pathname.startsWith("/api/") && u.pathname !== "/api/app-config")) data.push(u.pathname);
  });
  const scripts: string[] = [];
  fresh.on("response", (r) => {
    if (r.request().resourceType() === "script") scripts.push(r.url());
  });
  await fresh.goto(`${bin.url}/b/${brandId}/overview`);
  await fresh.locator(".kpi").first().waitFor();
  await fresh.waitForLoadState("networkidle");
  expect(data.length).toBeLessThanOrEqual(6);
  let gz = 0;
  for (const s of scripts) gz += gzipSync(new Uint8Array(await (await fetch(s)).arrayBuffer())).byteLength;
  expect(scripts.length).toBeGreaterThan(0);
  expect(gz).toBeLessThanOrEqual(250 * 1024);
  await fresh.close();
});

test("prompts: the table equals insights_prompts, CSV export matches it, and a prompt's page leads with its answers", async () => {
  await page.goto(`${bin.url}/b/${brandId}/prompts`);
  await page.locator("table").waitFor();
  const rows = (await sb.rpc("insights_prompts", { p_brand_id: brandId })).data as { text: string; visibility_rate: number; ci_low: number; ci_high: number; answers: number; prompt_id: string }[];
  expect(rows).toHaveLength(3);
  for (const r of rows) {
    const row = page.locator("tr", { hasText: r.text });
    expect(await row.locator('td[data-col="visibility_rate"]').innerText()).toBe(rateText(r));
    expect(await row.locator('td[data-col="answers"]').innerText()).toBe(String(r.answers));
  }
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const csv = await Bun.file((await (await download).path())!).text();
  const [header, ...lines] = csv.trim().split("\n");
  // The interval travels with the rate, numbers at six decimals at most.
  expect(header!.split(",").slice(0, 5)).toEqual(["text", "is_branded", "visibility_rate", "ci_low", "ci_high"]);
  expect(lines).toHaveLength(3);
  for (const r of rows) expect(lines.some((l) => l.startsWith(`${r.text.includes(",") ? `"${r.text}"` : r.text},`) && l.includes(`,${csvNumber(r.visibility_rate)},${csvNumber(r.ci_low)},${csvNumber(r.ci_high)},`))).toBe(true);
  for (const line of lines) expect(line).not.toMatch(/\d\.\d{7,}/);
  await shoot("prompts");
  await page.getByRole("link", { name: PROMPTS[0] }).click();
  await page.locator("article.answer").first().waitFor();
  // Every sample of each engine's latest run, counted here from the raw rows.
  const promptId = rows.find((r) => r.text === PROMPTS[0])!.prompt_id;
  const results = (await sb.from("prompt_results").select("platform, job_id, created_at").eq("prompt_id", promptId).order("created_at", { ascending: false })).data as { platform: string; job_id: string }[];
  const latestJob = new Map<string, string>();
  for (const r of results) if (!latestJob.has(r.platform)) latestJob.set(r.platform, r.job_id);
  const expectedAnswers = results.filter((r) => latestJob.get(r.platform) === r.job_id).length;
  expect(latestJob.size).toBe(2);
  expect(expectedAnswers).toBeGreaterThan(latestJob.size);
  expect(await page.locator("article.answer").count()).toBe(expectedAnswers);
  // Names are marked once the brand's competitors have loaded (a request of its own).
  await page.locator("mark.brand").first().waitFor();
  expect(await page.locator("mark.brand").count()).toBeGreaterThan(0);
  expect(await page.locator("mark.competitor").count()).toBeGreaterThan(0);
  expect(await page.locator(".sources .tag.own").count()).toBeGreaterThan(0);
  // The answers' markdown as elements: a heading, a list, bold names still marked, a link that opens
  // outside; the engine's HTML shown as text, never run.
  const answerText = page.locator(".answer-text").first();
  expect(await answerText.locator(".md-h", { hasText: "Picks" }).count()).toBe(1);
  expect(await answerText.locator("li").count()).toBe(2);
  expect(await page.locator(".answer-text strong mark.brand").count()).toBeGreaterThan(0);
  expect(await answerText.locator('a[href="https://lumenly.example/pricing"]').getAttribute("rel")).toContain("noopener");
  const shown = await answerText.innerText();
  expect(shown).not.toContain("**");
  expect(shown).not.toContain("## ");
  expect(shown).toContain('<img src=x onerror="window.__pwned=1">');
  expect(await page.locator(".answer-text img").count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  // Perplexity's numbered markers ("[1][2]") link to the sources listed under its answer.
  const perplexityCard = page.locator('article.answer[data-platform="perplexity"]').first();
  const markers = perplexityCard.locator(".answer-text sup.cite a");
  expect(await markers.count()).toBeGreaterThan(0);
  expect(await perplexityCard.locator(".answer-text").innerText()).not.toMatch(/\[\d\]/);
  for (const href of await markers.evaluateAll((links) => links.map((a) => a.getAttribute("href")!))) expect(await perplexityCard.locator(`.sources li${href.replace(/^#/, "#")}`).count()).toBe(1);
  await shoot("prompt");
  await page.locator("article.answer").first().screenshot({ path: join(ARTIFACTS, "prompt-answer.png") });
}, 60_000);

test("competitors, sources, suggestions, traffic and runs render the RPCs' numbers", async () => {
  await page.goto(`${bin.url}/b/${brandId}/competitors`);
  await page.locator("table").first().waitFor();
  // The page reads non-branded prompts unless told otherwise, as the overview does.
  const competitors = (await sb.rpc("insights_competitors", { p_brand_id: brandId, p_branded: false })).data as { name: string; entity_id: string; is_brand: boolean; both: number; only_competitor: number }[];
  for (const c of competitors.filter((x) => !x.is_brand)) {
    const row = page.locator("table").nth(1).locator("tr", { hasText: c.name });
    expect(await row.locator('td[data-col="both"]').innerText()).toBe(String(c.both));
    expect(await row.locator('td[data-col="only_competitor"]').innerText()).toBe(String(c.only_competitor));
  }
  // The prompts behind the head-to-head of one competitor.
  const quantia = competitors.find((c) => c.name === "Quantia") as unknown as { entity_id: string };
  const behind = (await sb.rpc("insights_head_to_head", { p_brand_id: brandId, p_competitor_id: quantia.entity_id, p_branded: false })).data as { text: string; both: number; only_competitor: number }[];
  await page.locator("table").nth(1).getByRole("button", { name: "Quantia" }).click();
  await page.getByText("Lumenly and Quantia, prompt by prompt").waitFor();
  // Two of the three prompts: the third names the brand (branded).
  expect(behind.length).toBe(2);
  for (const p of behind) {
    const row = page.locator(".drill tr", { hasText: p.text });
    expect(await row.locator('td[data-col="both"]').innerText()).toBe(String(p.both));
    expect(await row.locator('td[data-col="only_competitor"]').innerText()).toBe(String(p.only_competitor));
  }
  await shoot("competitors");
  await page.goto(`${bin.url}/b/${brandId}/sources`);
  await page.locator("table").waitFor();
  const domains = (await sb.rpc("insights_citation_domains", { p_brand_id: brandId })).data as { domain: string; citations: number; class: string }[];
  for (const d of domains) expect(await page.locator("tr", { hasText: d.domain }).first().locator('td[data-col="citations"]').innerText()).toBe(String(d.citations));
  await page.getByRole("button", { name: domains[0]!.domain }).click();
  await page.getByText(`Answers citing ${domains[0]!.domain}`).waitFor();
  await shoot("sources");
  await page.goto(`${bin.url}/b/${brandId}/traffic`);
  const tracking = ((await sb.from("brands").select("tracking_code").eq("id", brandId).single()).data as { tracking_code: string }).tracking_code;
  expect(await page.locator("pre.snippet").innerText()).toBe(`<script async src="${bin.url}/t.js" data-brand="${tracking}"></script>`);
  // A suggestion resting on more prompts than its evidence names (a domain cited across a run): the
  // page names those it has and counts the rest. Written with the service key, as the analysis would.
  const serviceRoleKey = (await secretsOf(bin)).service_role_key!;
  const promptIds = ((await sb.from("prompts").select("id").eq("brand_id", brandId)).data as { id: string }[]).map((p) => p.id);
  const wide = await fetch(`${bin.url}/rest/v1/suggestions`, {
    method: "POST",
    headers: { apikey: serviceRoleKey, authorization: `Bearer ${serviceRoleKey}`, "content-type": "application/json" },
    body: JSON.stringify({ brand_id: brandId, type: "citation_outreach", key: "domain:wide.example", title: "Get Lumenly covered on wide.example", detail: "cited across 28 prompts", priority: "low", evidence: { prompt_ids: promptIds, prompts: promptIds.length + 25, platforms: ["openai"], answers: 40 } }),
  });
  expect(wide.status).toBe(201);
  await page.goto(`${bin.url}/b/${brandId}/suggestions`);
  const card = page.locator(".suggestion", { hasText: "wide.example" });
  await card.locator("summary").click();
  expect(await card.locator("li", { hasText: "Prompt:" }).count()).toBe(promptIds.length);
  expect(await card.getByText("and 25 more prompt(s)").count()).toBe(1);
  await card.screenshot({ path: join(ARTIFACTS, "suggestion-evidence.png") });
  for (const name of ["suggestions", "traffic", "runs", "settings"]) {
    await page.goto(`${bin.url}/b/${brandId}/${name}`);
    await page.locator("main section, main .settings").first().waitFor();
    await shoot(name);
  }
  await page.goto(`${bin.url}/b/${brandId}/runs`);
  await page.locator("table").waitFor();
  expect(await page.locator('td[data-col="status"]').first().innerText()).toBe("completed");
}, 90_000);

test("a webhook's secret is shown once; a viewer sees no edit controls", async () => {
  await page.goto(`${bin.url}/b/${brandId}/settings`);
  await page.getByLabel("Webhook URL").fill(`${fake.url}/hook`);
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const secret = await page.locator(".secret pre").innerText();
  expect(secret).toMatch(/^whsec_/);
  await page.getByRole("button", { name: "I have copied it" }).click();
  await page.reload();
  await page.locator(".settings").waitFor();
  expect(await page.content()).not.toContain(secret);

  // An API key made in the settings: shown once, works as a bearer, revoked from the same table.
  await page.getByLabel("Key name").fill("Looker export");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.locator(".secret pre").innerText();
  expect(key).toMatch(/^aw_/);
  expect((await fetch(`${bin.url}/api/tracking/jobs?brandId=${brandId}`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  await page.getByRole("button", { name: "I have copied it" }).click();
  await page.locator("tr", { hasText: "Looker export" }).getByRole("button", { name: "Revoke" }).click();
  await page.locator("tr", { hasText: "Looker export" }).getByText("revoked").waitFor();
  expect((await fetch(`${bin.url}/api/tracking/jobs?brandId=${brandId}`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);

  // A viewer of the same organization.
  const serviceRoleKey = (await secretsOf(bin)).service_role_key!;
  const org = ((await sb.from("organizations").select("id")).data as { id: string }[])[0]!.id;
  const viewerEmail = `viewer-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const made = await fetch(`${bin.url}/auth/v1/admin/users`, {
    method: "POST",
    headers: { apikey: serviceRoleKey, authorization: `Bearer ${serviceRoleKey}`, "content-type": "application/json" },
    body: JSON.stringify({ email: viewerEmail, password: PASSWORD, organization_id: org, role: "viewer" }),
  });
  expect(made.status).toBeLessThan(300);
  const { context: viewer, page: vp } = await signedInContext(viewerEmail);
  await vp.goto(`${bin.url}/b/${brandId}/settings`);
  await vp.locator(".settings").waitFor();
  expect(await vp.getByRole("button", { name: "Save" }).count()).toBe(0);
  expect(await vp.getByRole("button", { name: "Add domain" }).count()).toBe(0);
  expect(await vp.getByText("settings are read-only for you").count()).toBe(1);
  await vp.goto(`${bin.url}/b/${brandId}/runs`);
  await vp.locator("table").waitFor();
  expect(await vp.getByRole("button", { name: "Run now" }).count()).toBe(0);
  await viewer.close();
}, 60_000);

test("members: invited by e-mail, accepted by the invited person on their home page, then removed; nobody joins without accepting", async () => {
  const newcomer = `newcomer-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const anonKey = ((await (await fetch(`${bin.url}/api/app-config`)).json()) as { anonKey: string }).anonKey;
  const signup = await fetch(`${bin.url}/auth/v1/signup`, { method: "POST", headers: { apikey: anonKey, "content-type": "application/json" }, body: JSON.stringify({ email: newcomer, password: PASSWORD }) });
  expect(signup.status).toBe(200);
  await page.goto(`${bin.url}/b/${brandId}/settings`);
  const members = page.locator("section", { has: page.getByRole("heading", { name: "Members" }) });
  await members.locator("tr", { hasText: `${EMAIL} (you)` }).waitFor();
  // A new member is a member unless chosen otherwise (never an owner by default).
  expect(await members.getByLabel("Role to invite at").inputValue()).toBe("member");
  expect(await page.getByLabel("Key role").inputValue()).toBe("viewer");
  await members.getByLabel("E-mail to invite").fill(newcomer);
  await members.getByLabel("Role to invite at").selectOption("viewer");
  await members.getByRole("button", { name: "Invite" }).click();
  await members.locator("tr", { hasText: newcomer }).getByRole("button", { name: "Withdraw" }).waitFor();
  expect(await members.getByLabel("Role to invite at").inputValue()).toBe("member");
  const org = ((await sb.from("organizations").select("id")).data as { id: string }[])[0]!.id;
  const listed = async () => (await (await fetch(`${bin.url}/api/organizations/${org}/members`, { headers: { authorization: `Bearer ${(await sb.auth.getSession()).data.session!.access_token}` } })).json()) as { members: { email: string; role: string }[]; invitations: { email: string }[] };
  // Invited, not a member yet.
  expect((await listed()).members.some((m) => m.email === newcomer)).toBe(false);
  expect((await listed()).invitations.map((i) => i.email)).toContain(newcomer);
  await shoot("settings-members");
  await members.screenshot({ path: join(ARTIFACTS, "settings-members-section.png") });

  // The server mailed the invitation, with the app's address to answer at.
  const mailed = async () => sink.received.find((m) => m.to && !Array.isArray(m.to) && m.to.text === newcomer);
  for (let i = 0; i < 200 && !(await mailed()); i++) await new Promise((r) => setTimeout(r, 50));
  expect((await mailed())?.text).toContain(`as viewer.`);
  const mailedLink = (await mailed())!.text!.match(/https?:\/\/\S+\?invitation=\S+/)![0];
  expect(mailedLink).toStartWith(`${bin.url}/?invitation=`);
  // The inviter was shown the same link once, to hand over where no mail goes.
  expect(await members.locator("pre.share-url").innerText()).toBe(mailedLink);
  await members.getByRole("button", { name: "Done" }).click();

  // The newcomer signs in: the invitation waits on their home page, answered through its link only
  // (this server proves no address, so whoever signed up with it first must not join by it).
  const { context: other, page: np } = await signedInContext(newcomer);
  const invitations = np.locator("section", { has: np.getByRole("heading", { name: "Invitations" }) });
  await invitations.getByText("An invitation as").waitFor();
  expect(await invitations.innerText()).toContain("viewer");
  expect(await invitations.innerText()).toContain("Open its link");
  // Who invites, and where, is for the link's holder only.
  expect(await invitations.innerText()).not.toContain(EMAIL);
  expect(await invitations.getByRole("button", { name: "Accept" }).count()).toBe(0);
  await np.goto(mailedLink);
  await invitations.getByText("invites you as").waitFor();
  expect(await invitations.innerText()).toContain(`(from ${EMAIL})`);
  await np.screenshot({ path: join(ARTIFACTS, "home-invitation-1280.png"), fullPage: true });
  await invitations.getByRole("button", { name: "Accept" }).click();
  await np.getByRole("status").filter({ hasText: "You joined" }).waitFor();
  expect((await listed()).members.find((m) => m.email === newcomer)?.role).toBe("viewer");
  await other.close();

  await page.reload();
  await members.locator("tr", { hasText: newcomer }).locator("select").waitFor();
  expect(await members.locator("tr", { hasText: newcomer }).locator("select").inputValue()).toBe("viewer");
  await members.locator("tr", { hasText: newcomer }).getByRole("button", { name: "Remove" }).click();
  await members.locator("tr", { hasText: newcomer }).waitFor({ state: "detached" });
  expect((await listed()).members.some((m) => m.email === newcomer)).toBe(false);
  // Someone without an account gets the same answer as anyone (the page tells nobody who has signed up).
  await members.getByLabel("E-mail to invite").fill("nobody-here@example.com");
  await members.getByRole("button", { name: "Invite" }).click();
  await page.getByRole("status").filter({ hasText: "Invitation made" }).waitFor();
  expect(await members.getByLabel("E-mail to invite").inputValue()).toBe("");
  await members.locator("tr", { hasText: "nobody-here@example.com" }).getByRole("button", { name: "Withdraw" }).click();
  await members.locator("tr", { hasText: "nobody-here@example.com" }).waitFor({ state: "detached" });
  // A refused form keeps what was typed (a role above the inviter's is refused by the server: here a bad address).
  await members.getByLabel("E-mail to invite").fill("not-an-address@x");
  await members.getByRole("button", { name: "Invite" }).click();
  await page.getByRole("alert").filter({ hasText: "e-mail address" }).waitFor();
  expect(await members.getByLabel("E-mail to invite").inputValue()).toBe("not-an-address@x");

  // The other settings forms: a competitor and two prompts added, as stored.
  await page.getByLabel("Competitor name").fill("Zetalytics");
  await page.getByLabel("Competitor domain").fill("zetalytics.example");
  await page.getByRole("button", { name: "Add competitor" }).click();
  await page.locator("li", { hasText: "Zetalytics" }).waitFor();
  expect(await page.getByLabel("Competitor name").inputValue()).toBe("");
  expect(((await sb.from("competitors").select("domain").eq("brand_id", brandId).eq("name", "Zetalytics")).data as { domain: string }[]).map((c) => c.domain)).toEqual(["zetalytics.example"]);
  const before = ((await sb.from("prompts").select("id").eq("brand_id", brandId)).data as unknown[]).length;
  await page.getByLabel("Add prompts").fill("Which tool tracks churn best?\nIs Zetalytics cheaper?");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "2 prompt(s) added." }).waitFor();
  expect(((await sb.from("prompts").select("id").eq("brand_id", brandId)).data as unknown[]).length).toBe(before + 2);
}, 60_000);

test("a share link opens the overview, prompts and sources read-only without an account, and answers 404 once revoked", async () => {
  await page.goto(`${bin.url}/b/${brandId}/settings`);
  await page.getByRole("button", { name: "Create share link" }).click();
  const url = await page.locator("pre.share-url").innerText();
  expect(url).toStartWith(`${bin.url}/share/aws_`);
  // The link's tables as CSV for spreadsheets, shown with it: the prompts' URL answers the RPC's rows.
  await page.getByText("Use in a spreadsheet or Looker Studio").click();
  const sheetLink = page.locator(".sheet-urls a", { hasText: "prompts" }).first();
  const sheet = await sheetLink.getAttribute("href");
  expect(sheet).toBe(`${url}/csv/insights_prompts`);
  expect(await page.locator(".sheet-urls code", { hasText: `=IMPORTDATA("${url}/csv/insights_prompts")` }).count()).toBe(1);
  await page.screenshot({ path: join(ARTIFACTS, "share-sheets-1280.png"), fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  const sheets = page.locator(".sheet-urls");
  await sheets.screenshot({ path: join(ARTIFACTS, "share-sheets-375.png") });
  // Nothing wider than the phone's screen.
  expect(await sheets.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  await page.setViewportSize({ width: 1280, height: 900 });
  const csv = await fetch(sheet!);
  expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  const csvRows = (await csv.text()).split("\n").length - 1;
  expect(csvRows).toBe(((await sb.rpc("insights_prompts", { p_brand_id: brandId })).data as unknown[]).length);
  await page.getByRole("button", { name: "Done" }).click();
  const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  visitor.on("request", (r) => requested.push(r.url()));
  const vp = await visitor.newPage();
  await vp.goto(url);
  await vp.locator(".kpi").first().waitFor();
  const today = new Date().toISOString().slice(0, 10);
  const from30 = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
  const overview = (await sb.rpc("insights_overview", { p_brand_id: brandId, p_from: from30, p_to: today, p_branded: false })).data;
  expect(await vp.locator('[data-kpi="Visibility rate"] .kpi-value').innerText()).toBe(pctText(overview.visibility_rate.value));
  expect(await vp.getByText("Shared, read-only").count()).toBe(1);
  expect(await vp.getByRole("link", { name: "Settings" }).count()).toBe(0);
  await vp.screenshot({ path: join(ARTIFACTS, "shared-1280.png"), fullPage: true });
  await vp.getByRole("link", { name: "Prompts" }).click();
  await vp.locator("table").waitFor();
  const promptRows = ((await sb.rpc("insights_prompts", { p_brand_id: brandId, p_from: from30, p_to: today })).data as unknown[]).length;
  expect(promptRows).toBeGreaterThan(0);
  expect(await vp.locator("tbody tr").count()).toBe(promptRows);
  await vp.getByRole("link", { name: "Sources" }).click();
  await vp.locator("table").waitFor();
  // Revoked: the link's page is a 404.
  await page.locator("tr", { hasText: "/share/" }).getByRole("button", { name: "Revoke" }).click();
  await page.locator("tr", { hasText: "/share/" }).getByText("revoked").waitFor();
  const gone = await vp.goto(url);
  expect(gone?.status()).toBe(404);
  expect(await vp.getByText("This link does not open anything").count()).toBe(1);
  await visitor.close();
}, 60_000);

test("the AI crawlers page renders insights_crawlers' numbers", async () => {
  const token = (await sb.auth.getSession()).data.session!.access_token;
  const at = new Date().toISOString();
  const record = (ip: string, ua: string, path: string, status: number) => ({ timestamp: at, method: "GET", host: "lumenly.example", path, status, ip, user_agent: ua });
  const gpt = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)";
  const sent = await fetch(`${bin.url}/api/brands/${brandId}/crawler-logs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify([record("20.171.206.17", gpt, "/pricing", 200), record("20.171.206.18", gpt, "/robots.txt", 200), record("203.0.113.5", gpt, "/", 403), record("31.13.64.1", "meta-externalagent/1.1", "/docs", 200)]),
  });
  expect((await sent.json()).accepted).toBe(4);
  await page.goto(`${bin.url}/b/${brandId}/crawlers`);
  await page.locator("table").first().waitFor();
  const rows = (await sb.rpc("insights_crawlers", { p_brand_id: brandId })).data as { bot: string; class: string; verdict: string; requests: number; pages: number; refused: number }[];
  expect(rows.length).toBe(3);
  // The AI figures leave out the request from outside OpenAI's addresses (spoofed), and say so.
  const ai = rows.filter((r) => r.class.startsWith("ai_"));
  const spoofed = ai.filter((r) => r.verdict === "spoofed").reduce((n, r) => n + r.requests, 0);
  expect(spoofed).toBe(1);
  expect(await page.locator('[data-kpi="AI crawler hits"] .kpi-value').innerText()).toBe(String(ai.filter((r) => r.verdict !== "spoofed").reduce((n, r) => n + r.requests, 0)));
  expect(await page.getByText(`nor are the ${spoofed} request of bots that claimed`).count()).toBe(1);
  for (const r of rows) {
    const row = page.locator("table").first().locator("tr", { hasText: r.verdict }).filter({ hasText: r.bot });
    expect(await row.locator('td[data-col="requests"]').innerText()).toBe(String(r.requests));
    expect(await row.locator('td[data-col="pages"]').innerText()).toBe(String(r.pages));
    expect(await row.locator('td[data-col="refused"]').innerText()).toBe(String(r.refused));
  }
  await shoot("crawlers");
}, 60_000);

test("forgot password: the mailed link signs in on the account page, a new password is chosen and signs in", async () => {
  const email = `forgetful-${Date.now()}@example.com`;
  const made = await createClient(bin.url, anonKey, { auth: { persistSession: false } }).auth.signUp({ email, password: "first-password" });
  expect(made.error).toBeNull();
  const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  visitor.on("page", watchCsp);
  visitor.on("request", (r) => requested.push(r.url()));
  const vp = await visitor.newPage();
  await vp.goto(`${bin.url}/login`);
  await vp.getByRole("link", { name: "Forgot your password?" }).click();
  await vp.getByLabel("E-mail").fill(email);
  await vp.getByRole("button", { name: "Send the link" }).click();
  await vp.getByRole("status").filter({ hasText: "a message with a link and a six-digit code is on its way" }).waitFor();
  expect(await vp.getByLabel("Code").inputValue()).toBe("");
  await vp.screenshot({ path: join(ARTIFACTS, "forgot-1280.png"), fullPage: true });
  const until = Date.now() + 15_000;
  let mail = sink.received.find((m) => m.to && !Array.isArray(m.to) && m.to.text === email);
  while (!mail && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    mail = sink.received.find((m) => m.to && !Array.isArray(m.to) && m.to.text === email);
  }
  const link = mail!.text!.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)![0];
  await vp.goto(link);
  await vp.getByText("You are signed in by your recovery link.").waitFor();
  expect(new URL(vp.url()).pathname).toBe("/account");
  await vp.getByLabel("New password").fill("second-password");
  await vp.getByRole("button", { name: "Change password" }).click();
  await vp.getByRole("status").filter({ hasText: "Password changed." }).waitFor();
  await vp.screenshot({ path: join(ARTIFACTS, "recovered-account-1280.png"), fullPage: true });
  await visitor.close();
  const fresh = createClient(bin.url, anonKey, { auth: { persistSession: false } });
  expect((await fresh.auth.signInWithPassword({ email, password: "second-password" })).error).toBeNull();
  expect((await fresh.auth.signInWithPassword({ email, password: "first-password" })).error).not.toBeNull();
}, 60_000);

test("the account page: each brand's digest and alerts are the member's own choice, saved as chosen and shown again; nothing is mailed until the address is confirmed by its link", async () => {
  await page.goto(`${bin.url}/account`);
  const section = page.getByRole("region", { name: "Digests and alerts" });
  await section.waitFor();
  const row = section.locator("tr[data-digest-brand]").first();
  const brand = (await row.getAttribute("data-digest-brand"))!;
  await row.getByLabel(`Digest of ${brand}`).selectOption("weekly");
  await section.getByRole("status").filter({ hasText: `Saved for ${brand}.` }).waitFor();
  await row.getByLabel(`Alerts about ${brand}`).check();
  await section.getByRole("status").filter({ hasText: `Saved for ${brand}.` }).waitFor();
  await page.reload();
  const again = page.getByRole("region", { name: "Digests and alerts" }).locator(`tr[data-digest-brand="${brand}"]`);
  expect(await again.getByLabel(`Digest of ${brand}`).inputValue()).toBe("weekly");
  expect(await again.getByLabel(`Alerts about ${brand}`).isChecked()).toBe(true);
  // Double opt-in: the page says so until the mailed link is followed.
  const waiting = page.getByRole("region", { name: "Digests and alerts" }).getByRole("note").filter({ hasText: `Nothing is mailed to ${EMAIL} until you confirm it` });
  await waiting.waitFor();
  await shoot("account-digests");
  const confirmation = async () => sink.received.find((m) => m.to && !Array.isArray(m.to) && m.to.text === EMAIL && m.subject === "Confirm your address for answerwatch digests");
  for (let i = 0; i < 200 && !(await confirmation()); i++) await new Promise((r) => setTimeout(r, 50));
  const link = (await confirmation())!.text!.match(/https?:\/\/\S+\/digests\/confirm\?token=\S+/)![0];
  await page.goto(link);
  await page.getByRole("button", { name: "Confirm" }).click();
  await page.getByText(`will go to ${EMAIL}`).waitFor();
  await page.goto(`${bin.url}/account`);
  await page.getByRole("region", { name: "Digests and alerts" }).locator(`tr[data-digest-brand="${brand}"]`).waitFor();
  expect(await waiting.count()).toBe(0);
}, 60_000);

test("a competitor removed: its mentions stay in share of voice's total, and the leaderboard says what share of mentions the listed rows leave to it", async () => {
  const before = (await sb.rpc("insights_competitors", { p_brand_id: brandId, p_branded: false })).data as { name: string; entity_id: string; mentions: number; share_of_voice: number }[];
  const gone = before.find((r) => r.name === "Metricsly")!;
  const total = before.reduce((n, r) => n + r.mentions, 0);
  expect((await sb.from("competitors").delete().eq("id", gone.entity_id)).error).toBeNull();
  await page.goto(`${bin.url}/b/${brandId}/competitors`);
  const note = page.locator("[data-removed-share]");
  await note.waitFor();
  // The rows left add up to 1 − Metricsly's mentions / all mentions.
  expect(Number(await note.getAttribute("data-removed-share"))).toBeCloseTo(gone.mentions / total, 4);
  expect(await note.innerText()).toContain(`The other ${(Math.round((gone.mentions / total) * 1000) / 10).toFixed(1)} % of mentions name competitors removed`);
}, 60_000);

test("every page visited ran under the Content-Security-Policy without a violation, /docs included", async () => {
  const res = await page.goto(`${bin.url}/docs`);
  expect(res!.headers()["content-security-policy"]).toContain("script-src 'self'");
  await page.locator("#ops details").first().waitFor();
  const app = await fetch(`${bin.url}/login`);
  expect(app.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  expect(app.headers.get("x-frame-options")).toBe("DENY");
  expect(app.headers.get("x-content-type-options")).toBe("nosniff");
  expect(app.headers.get("referrer-policy")).toBe("no-referrer");
  expect(cspViolations).toEqual([]);
}, 30_000);

test("the app asks nothing of any host but the server's own", () => {
  const origin = new URL(bin.url).origin;
  expect(requested.length).toBeGreaterThan(20);
  expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith("data:") && !u.startsWith("blob:"))).toEqual([]);
});
