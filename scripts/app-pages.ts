// Every page of the web app, for the browser test that checks them all (tests/web/dashboard.test.ts)
// and for the screenshots in docs/screenshots (scripts/screenshots.ts): one list, so a page added
// here is both checked and shown.
import type { Page } from "playwright-core";

export interface AppPage {
  /** File-name-safe name of the page. */
  name: string;
  path: string;
  /** What shows once the page has its data. */
  ready: string;
}

export function appPages(brandId: string, promptId: string): AppPage[] {
  const b = `/b/${brandId}`;
  return [
    { name: "brands", path: "/", ready: "main h1" },
    { name: "overview", path: `${b}/overview`, ready: ".what-changed" },
    { name: "prompts", path: `${b}/prompts`, ready: "table" },
    { name: "prompt", path: `${b}/prompts/${promptId}`, ready: "article.answer" },
    { name: "competitors", path: `${b}/competitors`, ready: "table" },
    { name: "sources", path: `${b}/sources`, ready: "table" },
    { name: "sources-pages", path: `${b}/sources?view=urls`, ready: "table" },
    { name: "suggestions", path: `${b}/suggestions`, ready: "main h1" },
    { name: "traffic", path: `${b}/traffic`, ready: ".bars" },
    { name: "crawlers", path: `${b}/crawlers`, ready: ".kpi" },
    { name: "runs", path: `${b}/runs`, ready: "table" },
    { name: "settings", path: `${b}/settings`, ready: "main h2" },
    { name: "account", path: "/account", ready: "main h1" },
    { name: "onboarding", path: "/onboarding", ready: "main h1" },
    { name: "docs", path: "/docs", ready: "details" },
  ];
}

export async function signIn(page: Page, url: string, email: string, password: string) {
  await page.goto(`${url}/login`);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${url}/`);
}

/** Opens a page and waits for its data (and for nothing more to load). */
export async function openPage(page: Page, url: string, p: AppPage) {
  await page.goto(`${url}${p.path}`);
  await page.locator(p.ready).first().waitFor({ timeout: 20_000 });
  await page.waitForLoadState("networkidle");
}
