// A client report (issue #31) in Debian's Chromium driven by playwright-core: loaded, it asks for
// nothing but itself and breaks no rule of its policy; printed to PDF on A4 its pages are turned into
// PNG (poppler's pdftoppm, 60 dpi) under tests/artifacts/client-report/ to be looked at; nothing on a
// page is wider than the page. And the web app's "Client report" opens it in a new tab for the
// window on screen (a form POST: the token goes in the body, not the URL).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { ROOT, testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { signedUpClient } from "../helpers/supabase";
import type { Org, Server } from "../rest/helpers";
import { dayOffset, seedReportBrand, type SeededBrand } from "./seed";

const ARTIFACTS = join(ROOT, "tests/artifacts/client-report");
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="48" viewBox="0 0 200 48"><rect width="48" height="48" rx="10" fill="#0a58ca"/><path d="M12 34V14l12 14V14M36 14v20" stroke="#fff" stroke-width="4" fill="none"/><text x="58" y="32" font-family="sans-serif" font-size="20" font-weight="700" fill="#1f2328">Northwind</text></svg>`;
const LOGO = `data:image/svg+xml;base64,${Buffer.from(LOGO_SVG).toString("base64")}`;

let server: Server;
let org: Org;
let credentials: { email: string; password: string };
let seeded: SeededBrand;
let browser: Browser;

beforeAll(async () => {
  server = await testServer();
  const { sb, session, email, password } = await signedUpClient(server.url, server.secrets.anonKey, "Northwind Agency");
  credentials = { email, password };
  const orgId = ((await sb.from("organizations").select("id").single()).data as { id: string }).id;
  org = { id: orgId, owner: sb, ownerToken: session.access_token };
  seeded = await seedReportBrand(server, org, { answers: 400 });
  const logo = await sb.from("organizations").update({ logo: LOGO }).eq("id", orgId);
  if (logo.error) throw new Error(JSON.stringify(logo.error));
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await (await serverDb(server)).close();
  server.stop();
});

/** What the page asked for, and what Chromium reported against the Content-Security-Policy. */
function watch(page: Page) {
  const requests: string[] = [];
  const violations: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => /Content Security Policy|Refused to/i.test(m.text()) && violations.push(m.text()));
  page.on("pageerror", (e) => violations.push(String(e)));
  return { requests, violations };
}

const run = (cmd: string[]) => {
  const out = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (out.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${out.stderr.toString()}`);
  return out.stdout.toString();
};

test("printed by Chromium on A4: no request but the document, nothing wider than a page, every page as a PNG", async () => {
  const from = dayOffset(-29);
  const to = dayOffset(0);
  const url = `${server.url}/api/brands/${seeded.brandId}/report?from=${from}&to=${to}`;
  const context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${org.ownerToken}` } });
  const page = await context.newPage();
  const seen = watch(page);
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  await page.waitForLoadState("networkidle");
  // The logo (a data: URL) is drawn.
  expect(await page.locator("header img").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);

  // As printed: the page's width is A4's less the margins (210 − 2 × 13 mm at 96 px per inch).
  await page.emulateMedia({ media: "print" });
  const printWidth = Math.floor((184 / 25.4) * 96);
  await page.setViewportSize({ width: printWidth, height: 1100 });
  const wide = await page.evaluate((width) => {
    const out: string[] = [];
    for (const el of document.querySelectorAll("body *")) {
      const box = el.getBoundingClientRect();
      if (box.width > 0 && (box.right > width + 0.5 || box.left < -0.5)) out.push(`${el.tagName.toLowerCase()}.${el.getAttribute("class") ?? ""} ${Math.round(box.left)}–${Math.round(box.right)}`);
    }
    return out.slice(0, 20);
  }, printWidth);
  expect(wide).toEqual([]);

  const pdf = join(ARTIFACTS, "report.pdf");
  await page.pdf({ path: pdf, format: "A4", printBackground: true, preferCSSPageSize: true });
  const pages = Number(/Pages:\s+(\d+)/.exec(run(["pdfinfo", pdf]))?.[1]);
  expect(pages).toBeGreaterThanOrEqual(2);
  expect(run(["pdfinfo", pdf])).toMatch(/Page size:\s+59\d(\.\d+)? x 84\d(\.\d+)? pts \(A4\)/);
  run(["pdftoppm", "-png", "-r", "60", pdf, join(ARTIFACTS, "report-page")]);
  const pngs = readdirSync(ARTIFACTS).filter((f) => /^report-page-\d+\.png$/.test(f));
  expect(pngs).toHaveLength(pages);
  for (const png of pngs) expect(Bun.file(join(ARTIFACTS, png)).size).toBeGreaterThan(5_000);
  // The text is text in the PDF (fonts found, nothing drawn as an image), the figures the HTML's.
  const text = run(["pdftotext", "-layout", pdf, "-"]);
  const visibility = await page.locator('[data-kpi="visibility_rate"] .kpi-value').textContent();
  for (const words of ["Headline figures", "Visibility over time", "By platform", "Competitors", "Top sources", "Prompts", "Suggestions", "How these numbers are computed", visibility!]) expect(text).toContain(words);

  // Nothing but the document was asked for, and nothing was refused.
  expect(seen.requests).toEqual([url]);
  expect(seen.violations).toEqual([]);
  await context.close();
}, 60_000);

test("the web app's Client report opens the report of the window on screen in a new tab, its token not in the URL", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/login`);
  await page.getByLabel("E-mail").fill(credentials.email);
  await page.getByLabel("Password").fill(credentials.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${server.url}/`);
  const from = dayOffset(-6);
  const to = dayOffset(0);
  await page.goto(`${server.url}/b/${seeded.brandId}/prompts?from=${from}&to=${to}`);
  await page.getByRole("button", { name: "Client report" }).waitFor();
  await page.screenshot({ path: join(ARTIFACTS, "app-with-the-button.png") });
  const [tab] = await Promise.all([context.waitForEvent("page"), page.getByRole("button", { name: "Client report" }).click()]);
  const seen = watch(tab);
  await tab.waitForLoadState("load");
  expect(tab.url()).toBe(`${server.url}/api/brands/${seeded.brandId}/report`);
  expect(await tab.locator("body").getAttribute("data-from")).toBe(from);
  expect(await tab.locator("body").getAttribute("data-to")).toBe(to);
  expect(await tab.locator("h1").textContent()).toContain("visibility in AI answers");
  await tab.screenshot({ path: join(ARTIFACTS, "opened-from-the-app.png"), fullPage: false });
  expect(seen.violations).toEqual([]);
  await context.close();
}, 60_000);

test("a share link's view links its report, for the window on screen", async () => {
  const link = await (await fetch(`${server.url}/api/share-links`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify({ brand_id: seeded.brandId }) })).json();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const from = dayOffset(-13);
  const to = dayOffset(-1);
  await page.goto(`${link.url}/overview?from=${from}&to=${to}`);
  const [tab] = await Promise.all([context.waitForEvent("page"), page.getByRole("link", { name: "Client report" }).click()]);
  await tab.waitForLoadState("load");
  expect(tab.url()).toBe(`${link.url}/report?from=${from}&to=${to}`);
  expect([await tab.locator("body").getAttribute("data-brand"), await tab.locator("body").getAttribute("data-from"), await tab.locator("body").getAttribute("data-to")]).toEqual([seeded.brandId, from, to]);
  await context.close();
}, 60_000);

test("Settings: an owner uploads the logo (previewed, then on the report), a file too large or of another type is refused before it is sent, and removes it", async () => {
  await org.owner.from("organizations").update({ logo: null }).eq("id", org.id);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(`${server.url}/login`);
  await page.getByLabel("E-mail").fill(credentials.email);
  await page.getByLabel("Password").fill(credentials.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${server.url}/`);
  await page.goto(`${server.url}/b/${seeded.brandId}/settings`);
  const section = page.getByRole("region", { name: "Logo on client reports" });
  await section.getByText("No logo").waitFor();

  await section.getByLabel("Upload a logo").setInputFiles({ name: "logo.gif", mimeType: "image/gif", buffer: Buffer.from("GIF89a") });
  await section.getByRole("alert").getByText("is not a PNG, JPEG, WebP or SVG image").waitFor();
  await section.getByLabel("Upload a logo").setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: Buffer.alloc(200 * 1024) });
  await section.getByRole("alert").getByText("a logo may be at most").waitFor();

  await section.getByLabel("Upload a logo").setInputFiles({ name: "northwind.svg", mimeType: "image/svg+xml", buffer: Buffer.from(LOGO_SVG) });
  await section.getByText("Logo saved").waitFor();
  const preview = section.getByRole("img", { name: "Logo of Northwind Agency" });
  expect(await preview.getAttribute("src")).toBe(LOGO);
  await section.screenshot({ path: join(ARTIFACTS, "settings-logo.png") });
  const report = await (await fetch(`${server.url}/api/brands/${seeded.brandId}/report`, { headers: { authorization: `Bearer ${org.ownerToken}` } })).text();
  expect(report).toContain(`<img src="${LOGO}" alt="Northwind Agency">`);

  await section.getByRole("button", { name: "Remove the logo" }).click();
  await section.getByText("Logo removed").waitFor();
  expect(((await org.owner.from("organizations").select("logo").eq("id", org.id).single()).data as { logo: string | null }).logo).toBeNull();
  expect(seen.violations).toEqual([]);
  await context.close();
}, 60_000);
