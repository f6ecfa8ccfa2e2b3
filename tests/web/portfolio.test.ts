// backends: sqlite, postgres
// The agency portfolio (issue #31) in Debian's Chromium against the compiled binary: a person in two
// organizations (the second joined by invitation) sees three brands with their organizations on the
// home page; sorting by visibility orders them as /api/portfolio's numbers do; the organization
// switcher narrows the table to one organization and keeps the choice in the URL; every row has its
// sparkline with a title in words. Screenshots at 1280 and 375 px go to tests/artifacts/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { chromium, type Browser, type Page } from "playwright-core";
import { ROOT, TEST_BACKEND } from "../helpers/app";
import { secretsOf, startBinary, type StartedBinary } from "../helpers/binary";

const ARTIFACTS = join(ROOT, TEST_BACKEND === "postgres" ? "tests/artifacts/web-postgres" : "tests/artifacts/web");
const PASSWORD = "correct-horse-battery";
const DAY_MS = 86_400_000;

let bin: StartedBinary;
let browser: Browser;
let page: Page;
let anonKey: string;
let alpha: { sb: SupabaseClient; email: string; token: string; org: string };
let beta: { sb: SupabaseClient; email: string; token: string; org: string };
const brandIds: Record<string, string> = {};

const client = (key: string) => createClient(bin.url, key, { auth: { persistSession: false, autoRefreshToken: false } });

async function signUp(organization: string) {
  const sb = client(anonKey);
  const email = `portfolio-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const { data, error } = await sb.auth.signUp({ email, password: PASSWORD, options: { data: { organization_name: organization } } });
  if (error || !data.session) throw new Error(`sign-up: ${error?.message}`);
  const org = ((await sb.from("organizations").select("id")).data as { id: string }[])[0]!.id;
  return { sb, email, token: data.session.access_token, org };
}

async function api(path: string, token: string, init: RequestInit = {}) {
  const res = await fetch(`${bin.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
}

/**
 * A brand with one competitor and two prompts, and its answers: per window (the last 30 days, the
 * 30 before) 20 answers, the first `now` / `before` naming the brand, every fourth the rival.
 */
async function brandWithAnswers(owner: SupabaseClient, service: SupabaseClient, org: string, name: string, before: number, now: number) {
  const brand = (await owner.from("brands").insert({ organization_id: org, name, slug: name.toLowerCase() }).select().single()).data as { id: string };
  const rival = (await owner.from("competitors").insert({ brand_id: brand.id, name: `${name} Rival`, domain: `${name.toLowerCase()}-rival.example` }).select().single()).data as { id: string };
  const set = (await owner.from("prompt_sets").insert({ brand_id: brand.id, name: "Core" }).select().single()).data as { id: string };
  const prompts = (await owner.from("prompts").insert(["Which analytics tool suits a small team?", "What do agencies use for reporting?"].map((text) => ({ prompt_set_id: set.id, brand_id: brand.id, text }))).select()).data as { id: string }[];
  const rows = [];
  for (const [named, offset] of [[before, 31], [now, 1]] as const)
    for (let i = 0; i < 20; i++)
      rows.push({
        brand_id: brand.id,
        prompt_id: prompts[i % 2]!.id,
        platform: i % 4 < 2 ? "chatgpt" : "perplexity",
        model: "m",
        region: "",
        response: "answer",
        mentioned: i < named,
        mention_count: i < named ? 1 : 0,
        competitor_mentions: i % 4 === 0 ? [{ competitor_id: rival.id, name: `${name} Rival`, mention_count: 1, position: 2 }] : [],
        citations: [],
        created_at: new Date(Date.now() - (offset + (i % 12)) * DAY_MS).toISOString(),
      });
  const { error } = await service.from("prompt_results").insert(rows);
  if (error) throw new Error(`results: ${JSON.stringify(error)}`);
  brandIds[name] = brand.id;
}

beforeAll(async () => {
  bin = await startBinary({});
  anonKey = (await (await fetch(`${bin.url}/api/app-config`)).json()).anonKey;
  const service = client((await secretsOf(bin)).service_role_key!);
  alpha = await signUp("Alpha Agency");
  beta = await signUp("Beta Agency");
  // Alpha's owner joins Beta the way people do: invited, then accepting.
  const { link } = await api(`/api/organizations/${beta.org}/invitations`, beta.token, { method: "POST", body: JSON.stringify({ email: alpha.email, role: "viewer" }) });
  const invitation = (await api("/api/invitations", alpha.token)).invitations[0];
  await api(`/api/invitations/${invitation.id}/accept`, alpha.token, { method: "POST", body: JSON.stringify({ key: new URL(link).searchParams.get("key") }) });
  await brandWithAnswers(alpha.sb, service, alpha.org, "Northwind", 5, 16);
  await brandWithAnswers(alpha.sb, service, alpha.org, "Contoso", 12, 4);
  await brandWithAnswers(beta.sb, service, beta.org, "Fabrikam", 10, 10);

  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${bin.url}/login`);
  await page.getByLabel("E-mail").fill(alpha.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${bin.url}/`);
  mkdirSync(ARTIFACTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  bin?.proc.kill("SIGTERM");
});

const pct = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(1)} %`);
const brandColumn = () => page.locator('td[data-col="brand"]').allInnerTexts();

/** What the page must show: the portfolio as /api/portfolio gives it to the same person. */
const portfolio = async (query = "") => (await api(`/api/portfolio${query}`, (await alpha.sb.auth.getSession()).data.session!.access_token)) as { brands: any[] };

test("the home page lists the three brands of both organizations with their organization, visibility, interval and n, change and verdict, and what changed", async () => {
  await page.locator("table").waitFor();
  await page.waitForLoadState("networkidle");
  const { brands } = await portfolio();
  expect(brands.map((b) => b.brand.name)).toEqual(["Contoso", "Northwind", "Fabrikam"]);
  expect(await brandColumn()).toEqual(["Contoso", "Northwind", "Fabrikam"]);
  expect(await page.locator('td[data-col="organization"]').allInnerTexts()).toEqual(["Alpha Agency", "Alpha Agency", "Beta Agency"]);
  for (const b of brands) {
    const row = page.locator("tbody tr", { has: page.getByRole("link", { name: b.brand.name, exact: true }) });
    const visibility = await row.locator('td[data-col="visibility"]').innerText();
    expect(visibility).toContain(pct(b.visibility.value));
    expect(visibility).toContain(`95 % CI ${pct(b.visibility.ci_low)} – ${pct(b.visibility.ci_high)}`);
    expect(visibility).toContain(`n = ${b.visibility.n}`);
    expect(await row.locator('td[data-col="change"]').innerText()).toContain({ up: "up", down: "down", within_noise: "within noise" }[b.change.verdict as string]!);
    expect(await row.locator('td[data-col="share_of_voice"]').innerText()).toContain(pct(b.share_of_voice.value));
    // The brand links to its overview.
    expect(await row.getByRole("link", { name: b.brand.name, exact: true }).getAttribute("href")).toBe(`/b/${b.brand.id}/overview`);
  }
  expect(Object.fromEntries(brands.map((b) => [b.brand.name, b.change.verdict]))).toEqual({ Contoso: "down", Northwind: "up", Fabrikam: "within_noise" });
  const fabrikam = page.locator("tbody tr", { has: page.getByRole("link", { name: "Fabrikam", exact: true }) });
  expect(await fabrikam.locator('td[data-col="what_changed"]').innerText()).toBe("nothing beyond noise");
  // Contoso's pooled fall is beyond noise, but neither platform's on its own (ten answers each way).
  const contoso = page.locator("tbody tr", { has: page.getByRole("link", { name: "Contoso", exact: true }) });
  expect(brands.find((b) => b.brand.name === "Contoso").what_changed).toEqual([]);
  expect(await contoso.locator('td[data-col="what_changed"]').innerText()).toBe("no single platform, topic or competitor beyond noise");
  const northwind = page.locator("tbody tr", { has: page.getByRole("link", { name: "Northwind", exact: true }) });
  expect(await northwind.locator('td[data-col="what_changed"]').innerText()).toContain("▲");
  await page.screenshot({ path: join(ARTIFACTS, "portfolio-1280.png"), fullPage: true });
}, 60_000);

test("every row has a sparkline: an SVG whose title says the line in words", async () => {
  const lines = page.locator('td[data-col="trend"] svg.sparkline');
  expect(await lines.count()).toBe(3);
  const { brands } = await portfolio();
  for (const b of brands) {
    const row = page.locator("tbody tr", { has: page.getByRole("link", { name: b.brand.name, exact: true }) });
    const svg = row.locator("svg.sparkline");
    const title = await svg.locator("title").textContent();
    expect(await svg.getAttribute("role")).toBe("img");
    expect(await svg.getAttribute("aria-label")).toBe(title);
    const answers = b.sparkline.points.reduce((s: number, p: any) => s + p.n, 0);
    expect(title).toContain("Visibility per day");
    expect(title).toContain(`n = ${answers}`);
    // A line (or dots) for the days with answers, and the previous window's rate as a dashed line the change is measured against.
    expect(await svg.locator("polyline, circle").count()).toBeGreaterThan(0);
    if (b.sparkline.previous !== null) {
      expect(title).toContain(`the previous window ${(b.sparkline.previous * 100).toFixed(1)} % (dashed)`);
      expect(await svg.locator("line.sparkline-previous").count()).toBe(1);
    }
  }
});

test("sorting by visibility orders the rows as the numbers do, both ways, with aria-sort", async () => {
  const { brands } = await portfolio();
  const byVisibility = [...brands].sort((a, b) => b.visibility.value - a.visibility.value).map((b) => b.brand.name);
  const header = page.getByRole("columnheader", { name: /Visibility/ });
  await header.getByRole("button").click();
  expect(await header.getAttribute("aria-sort")).toBe("descending");
  expect(await brandColumn()).toEqual(byVisibility);
  await header.getByRole("button").click();
  expect(await header.getAttribute("aria-sort")).toBe("ascending");
  expect(await brandColumn()).toEqual([...byVisibility].reverse());
  // The order differs from the page's first (by organization, then name).
  expect(byVisibility).not.toEqual(["Contoso", "Northwind", "Fabrikam"]);
});

test("the organization switcher narrows the table to one organization and keeps the choice in the URL", async () => {
  const select = page.getByLabel("Organization");
  expect(await select.locator("option").allInnerTexts()).toEqual(["All organizations", "Alpha Agency", "Beta Agency"]);
  await select.selectOption({ label: "Beta Agency" });
  await page.waitForURL(new RegExp(`\\?org=${beta.org}`));
  await page.waitForFunction(() => document.querySelectorAll('td[data-col="brand"]').length === 1);
  expect(await brandColumn()).toEqual(["Fabrikam"]);
  // A reload keeps it.
  await page.reload();
  await page.locator("table").waitFor();
  expect(await page.getByLabel("Organization").inputValue()).toBe(beta.org);
  expect(await brandColumn()).toEqual(["Fabrikam"]);
  await page.getByLabel("Organization").selectOption({ label: "Alpha Agency" });
  await page.waitForFunction(() => [...document.querySelectorAll('td[data-col="brand"]')].map((td) => (td as HTMLElement).innerText).join() === "Contoso,Northwind");
  await page.getByLabel("Organization").selectOption({ label: "All organizations" });
  await page.waitForURL(`${bin.url}/`);
  await page.waitForFunction(() => document.querySelectorAll('td[data-col="brand"]').length === 3);
});

test("on a phone (375 px) the portfolio fits the screen: no sideways scroll, each brand a card with its sparkline", async () => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto(`${bin.url}/`);
  await page.locator("table").waitFor();
  await page.waitForLoadState("networkidle");
  const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(over).toBeLessThanOrEqual(1);
  // The table's header row is clipped to nothing on a phone (each cell carries its label): not shown, not counted.
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll("main *")].filter((el) => !el.closest("thead") && el.getBoundingClientRect().right > window.innerWidth + 1).map((el) => el.tagName.toLowerCase() + "." + [...el.classList].join(".")),
  );
  expect(wide).toEqual([]);
  expect(await page.locator("svg.sparkline").count()).toBe(3);
  await page.screenshot({ path: join(ARTIFACTS, "portfolio-375.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
});
