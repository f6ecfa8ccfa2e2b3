// The README's screenshots: the demo (`answerwatch demo --keep`, sample answers written for the
// demo) opened in Debian's chromium, signed in as its printed login; the overview and a prompt's
// page at 1280 px, written small into docs/screenshots/. Run: bun scripts/screenshots.ts
import { chromium } from "playwright-core";

const root = new URL("..", import.meta.url).pathname;
const demo = Bun.spawn([process.execPath, `${root}src/main.ts`, "demo", "--keep", "--port", "0"], { cwd: root, stdout: "pipe", stderr: "inherit", env: { ...Bun.env, LOG_LEVEL: "silent" } });
let text = "";
const decoder = new TextDecoder();
for await (const chunk of demo.stdout) {
  text += decoder.decode(chunk);
  if (/sign in:\s+\S+\s+password: \S+/.test(text) && /dashboard:\s+\S+/.test(text)) break;
}
const url = text.match(/dashboard:\s+(\S+?)\/?\s/)![1]!;
const [, email, password] = text.match(/sign in:\s+(\S+)\s+password: (\S+)/)!;
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await page.goto(`${url}/login`);
  await page.getByLabel("E-mail").fill(email!);
  await page.getByLabel("Password").fill(password!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${url}/`);
  await page.locator(".cards a").first().click();
  await page.locator(".kpi").first().waitFor();
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: `${root}docs/screenshots/overview.png` });
  await page.getByRole("link", { name: "Prompts", exact: true }).click();
  await page.locator("table").waitFor();
  await page.locator("td[data-col=text] a").first().click();
  await page.locator("article.answer").first().waitFor();
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: `${root}docs/screenshots/prompt.png` });
  console.log("docs/screenshots/overview.png, docs/screenshots/prompt.png");
} finally {
  await browser.close();
  demo.kill("SIGTERM");
  await demo.exited;
}
