// The first run, as a new user tries it (issue #20): the binary reads ./.env as `npm start` does
// (a variable already set wins), --port/--host/--data-dir win over the environment, the banner says
// where the dashboard is, and SIGTERM to `npm start` stops the server.
import { afterAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers/app";
import { buildBinary } from "../helpers/binary";

const running = new Set<Bun.Subprocess>();
afterAll(() => {
  for (const p of running) if (p.exitCode === null) p.kill("SIGKILL");
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `cmd` and resolves with its stdout once it says it listens (or rejects with what it said). */
async function untilListening(cmd: string[], options: { cwd: string; env: Record<string, string> }) {
  const proc = Bun.spawn(cmd, { ...options, stdout: "pipe", stderr: "pipe" });
  running.add(proc);
  let text = "";
  const reader = proc.stdout.getReader();
  const deadline = Date.now() + 60_000;
  while (!/dashboard:/.test(text)) {
    if (Date.now() > deadline) throw new Error(`no banner: ${text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`exited: ${text} ${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  void (async () => {
    for (;;) if ((await reader.read()).done) break;
  })();
  return { proc, text };
}

function binaryIn(dir: string): string {
  const exe = join(dir, "answerwatch");
  copyFileSync(buildBinary(), exe);
  return exe;
}

test("the binary reads ./.env; flags win over the environment; the banner names the dashboard", async () => {
  const dir = tempDir("aw-first-run-");
  const exe = binaryIn(dir);
  writeFileSync(join(dir, ".env"), "PUBLIC_URL=http://dashboard.example.test:8080\nLOG_LEVEL=warn\n");
  const port = await freePort();
  // PORT and DATA_DIR in the environment lose to the flags.
  const { proc, text } = await untilListening([exe, "serve", "--port", String(port), "--host=127.0.0.1", "--data-dir", join(dir, "chosen")], {
    cwd: dir,
    env: { PATH: "/usr/bin:/bin", PORT: "1", DATA_DIR: join(dir, "ignored") },
  });
  expect(text).toContain(`listening on http://127.0.0.1:${port}`);
  expect(text).toContain("dashboard:        http://dashboard.example.test:8080/");
  expect(existsSync(join(dir, "chosen", "answerwatch.db"))).toBe(true);
  expect(existsSync(join(dir, "ignored"))).toBe(false);
  const page = await fetch(`http://127.0.0.1:${port}/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("<title>answerwatch</title>");
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);

  // A variable set in the environment wins over ./.env; without PUBLIC_URL the banner shows the listening address.
  const second = await untilListening([exe, "serve", "--port", "0"], { cwd: dir, env: { PATH: "/usr/bin:/bin", HOST: "127.0.0.1", DATA_DIR: join(dir, "chosen"), PUBLIC_URL: "https://answers.example.test" } });
  expect(second.text).toContain("dashboard:        https://answers.example.test/");
  second.proc.kill("SIGTERM");
  expect(await second.proc.exited).toBe(0);
}, 120_000);

test("an unknown serve option or a flag without its value stops with exit 2 and says which", () => {
  const exe = binaryIn(tempDir("aw-first-run-"));
  for (const args of [["serve", "--prot", "3000"], ["serve", "--port"]]) {
    const run = Bun.spawnSync([exe, ...args], { env: { PATH: "/usr/bin:/bin", DATA_DIR: tempDir() } });
    expect(run.exitCode).toBe(2);
    expect(run.stderr.toString()).toMatch(args[1] === "--prot" ? /unknown option "--prot"/ : /--port needs a value/);
  }
}, 60_000);

test("SIGTERM to `npm start` stops the server it started", async () => {
  const port = await freePort();
  const npm = Bun.which("npm")!;
  const { proc } = await untilListening([npm, "start", "--silent"], {
    cwd: ROOT,
    env: { PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, HOME: process.env.HOME ?? "/root", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: tempDir(), LOG_LEVEL: "warn" },
  });
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  proc.kill("SIGTERM");
  await proc.exited;
  // Nothing listens there any more.
  let refused = false;
  for (let i = 0; i < 50 && !refused; i++) {
    refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => false,
      () => true,
    );
    if (!refused) await Bun.sleep(100);
  }
  expect(refused).toBe(true);
}, 120_000);
