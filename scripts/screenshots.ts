// The README's screenshots and the gallery in docs/screenshots/: the demo (`answerwatch demo --keep`,
// sample answers written for the demo) opened in Debian's chromium, signed in as its printed login;
// every page of scripts/app-pages.ts at 1280 and 375 px, light and dark (JPEG, to keep the
// repository small), and the overview and a prompt's page as PNG for the README.
// Run: bun scripts/screenshots.ts
import { mkdirSync } from "node:fs";
import { createClient } from "@supabase/supabase-js";
import { chromium } from "playwright-core";
import { appPages, openPage, signIn } from "./app-pages";

const root = new URL("..", import.meta.url).pathname;
const out = `${root}docs/screenshots`;
mkdirSync(out, { recursive: true });
const demo = Bun.spawn([process.execPath, `${root}src/main.ts`, "demo", "--keep", "--port", "0"], { cwd: root, stdout: "pipe", stderr: "inherit", env: { ...Bun.env, LOG_LEVEL: "silent" } });
let text = "";
const decoder = new TextDecoder();
for await (const chunk of demo.stdout) {
  text += decoder.decode(chunk);
  if (/anon key:\s+\S+/.test(text) && /dashboard:\s+\S+/.test(text)) break;
}
const url = text.match(/dashboard:\s+(\S+?)\/?\s/)![1]!;
const [, email, password] = text.match(/sign in:\s+(\S+)\s+password: (\S+)/)!;
const sb = createClient(url, text.match(/anon key:\s+(\S+)/)![1]!, { auth: { persistSession: false, autoRefreshToken: false } });
await sb.auth.signInWithPassword({ email: email!, password: password! });
const brandId = ((await sb.from("brands").select("id")).data as { id: string }[])[0]!.id;
const promptId = ((await sb.from("prompts").select("id").eq("brand_id", brandId).limit(1)).data as { id: string }[])[0]!.id;
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const written: string[] = [];
  for (const scheme of ["light", "dark"] as const) {
    const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await signIn(page, url, email!, password!);
    for (const p of appPages(brandId, promptId)) {
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: width === 375 ? 812 : 800 });
        await openPage(page, url, p);
        const file = `${p.name}-${width}-${scheme}.jpg`;
        await page.screenshot({ path: `${out}/${file}`, type: "jpeg", quality: 70 });
        written.push(file);
        if (scheme === "light" && width === 1280 && (p.name === "overview" || p.name === "prompt")) await page.screenshot({ path: `${out}/${p.name}.png` });
      }
    }
    await context.close();
  }
  console.log(`${written.length} screenshots and overview.png, prompt.png in docs/screenshots/`);
} finally {
  await browser.close();
  demo.kill("SIGTERM");
  await demo.exited;
}
