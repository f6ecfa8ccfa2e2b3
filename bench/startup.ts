// Startup time (exec → first 200 on /healthz) and idle RSS of dist/answerwatch, each as a ratio
// to a bare compiled Bun hello-world server measured in the same run. Targets: ≤ 2× for both.
// "warm" is a restart on an existing data directory (what a deploy or reboot does); "cold" is the
// very first start, which also creates the database and the secrets. The server's feature runtime
// loads on first use (see src/server.ts), so for context it also reports, from a warm start, the
// time until a feature route (GET /t.js) has answered and the RSS once that runtime is loaded.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, median, report, ROOT, tempDir } from "./lib";

const RUNS = Number(Bun.env.RUNS ?? 7);

function compile(entry: string, out: string, extra: string[] = []) {
  const proc = Bun.spawnSync([process.execPath, "build", "--compile", "--minify-syntax", ...extra, entry, "--outfile", out], { cwd: ROOT, stdout: "ignore", stderr: "inherit" });
  if (proc.exitCode !== 0) throw new Error(`compile ${entry} failed`);
}

function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmRSS:\s+(\d+)/)![1]);
}

/** Starts `exe`, polls `path` until it answers 200; returns the time that took and the RSS one idle second later. */
async function startAndIdle(exe: string, path: string, dir: string): Promise<{ ms: number; rssMiB: number }> {
  const port = freePort();
  const started = performance.now();
  const proc = Bun.spawn([exe], { cwd: dir, env: { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: join(dir, "data"), LOG_LEVEL: "silent" }, stdout: "ignore", stderr: "ignore" });
  let ms = 0;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}${path}`)).status === 200) {
        ms = performance.now() - started;
        break;
      }
    } catch {}
    await Bun.sleep(2);
    if (performance.now() - started > 20_000) throw new Error(`${exe} did not answer ${path}`);
  }
  await Bun.sleep(1000); // idle
  const rssMiB = rssKiB(proc.pid) / 1024;
  proc.kill("SIGTERM");
  await proc.exited;
  return { ms, rssMiB };
}

async function measure(exe: string, path: string, dir = tempDir(), then?: string): Promise<{ startupMs: number; rssMiB: number; thenMs?: number; thenRssMiB?: number }> {
  const first = await startAndIdle(exe, path, dir);
  // A fresh process for the feature route, so the idle second above does not count.
  const second = then ? await startAndIdle(exe, then, dir) : undefined;
  return { startupMs: first.ms, rssMiB: first.rssMiB, thenMs: second?.ms, thenRssMiB: second?.rssMiB };
}

const dir = tempDir("aw-bench-bin-");
const ours = join(dir, "answerwatch");
const hello = join(dir, "hello");
Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts"), ours], { stdout: "ignore", stderr: "inherit" });
compile("bench/fixtures/hello.ts", hello);

const a: Awaited<ReturnType<typeof measure>>[] = [];
const cold: number[] = [];
const b: { startupMs: number; rssMiB: number }[] = [];
const warmDir = tempDir();
await measure(ours, "/healthz", warmDir);
for (let i = 0; i < RUNS; i++) {
  // Alternate so drift on a shared machine hits both sides alike.
  a.push(await measure(ours, "/healthz", warmDir, "/t.js"));
  cold.push((await measure(ours, "/healthz")).startupMs);
  b.push(await measure(hello, "/"));
}
const coldOurs = median(cold);
const startupOurs = median(a.map((m) => m.startupMs));
const startupBase = median(b.map((m) => m.startupMs));
const rssOurs = median(a.map((m) => m.rssMiB));
const rssBase = median(b.map((m) => m.rssMiB));
report([
  { name: "cold start (empty data directory, exec → first 200)", ours: coldOurs, baseline: startupBase, unit: "ms", target: "≤ 2× (reported)", ok: coldOurs / startupBase <= 2 },
  { name: "warm start (exec → first 200)", ours: startupOurs, baseline: startupBase, unit: "ms", target: "≤ 2×", ok: startupOurs / startupBase <= 2 },
  { name: "idle RSS", ours: rssOurs, baseline: rssBase, unit: "MiB", target: "≤ 2×", ok: rssOurs / rssBase <= 2 },
]);
const featureMs = median(a.map((m) => m.thenMs!));
const featureRss = median(a.map((m) => m.thenRssMiB!));
console.log(
  `context: warm start → first 200 from a feature route (GET /t.js, runtime loaded) ${featureMs.toFixed(1)} ms = ${(featureMs / startupBase).toFixed(1)}× the baseline; RSS with the runtime loaded ${featureRss.toFixed(1)} MiB = ${(featureRss / rssBase).toFixed(2)}×`,
);
