// Issue #28's performance check: the storage seam (async stores in front of every statement) must
// cost no more than 10 % of any figure the benchmarks measure. This runs the same benchmarks on two
// trees in one session, alternating (base, this, base, this…), and compares each figure's median:
//   base  — a git worktree of BASE (default: the last commit before the stores), made in a temp dir;
//   this  — this working tree.
// The benchmarks are each tree's own files, except bench/scale.ts, which is taken from this tree into
// the base tree for its HEAVY_SCALE knob (so both measure the load test at 100k, a world each tree
// builds in minutes; the 1.05M world takes ~21 min). Figures: every "<name>: answerwatch X unit" line
// the benchmarks report, REST without the response cache, the log import's lines/s, and scale's
// 100k-vs-10k request times. Higher is better for …/s units, lower for the rest.
// Knobs: BASE=<commit>  ROUNDS=2  BENCHES=rest,collect,tracking,crawlers,scale  KEEP_BASE=1.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, ROOT } from "./lib";

const BASE = Bun.env.BASE ?? "939db02";
const ROUNDS = Number(Bun.env.ROUNDS ?? 2);
const BENCHES = (Bun.env.BENCHES ?? "rest,collect,tracking,crawlers,scale").split(",").map((b) => b.trim());
const ENV: Record<string, Record<string, string>> = {
  rest: { ROUNDS: "3", SECONDS: "2" },
  collect: {},
  tracking: {},
  crawlers: { LINES: "300000" },
  scale: { SCALES: "10k,100k", HEAVY_SCALE: "100k", RUNS: "9", SAMPLES: "200", LOAD_BUDGET_S: "20" },
};
const TOLERANCE = 0.1;

function sh(cmd: string[], cwd: string): string {
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd.join(" ")} (in ${cwd}) exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

function baseTree(): string {
  const dir = mkdtempSync(join(tmpdir(), "aw-seam-base-"));
  sh(["git", "worktree", "add", "--detach", dir, BASE], ROOT);
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  copyFileSync(join(ROOT, "bench/scale.ts"), join(dir, "bench/scale.ts"));
  sh([process.execPath, "scripts/build-web.ts"], dir);
  return dir;
}

/** The figures one benchmark run printed, by name. */
export function figures(bench: string, out: string): Map<string, { value: number; unit: string }> {
  const found = new Map<string, { value: number; unit: string }>();
  for (const line of out.split("\n")) {
    let m = /^(.+?): answerwatch ([\d.]+) (\S+), baseline/.exec(line);
    if (m) found.set(`${bench}: ${m[1]}`, { value: Number(m[2]), unit: m[3]! });
    m = /^context: without the response cache \(REST_CACHE_MB=0\) ([\d.]+) req\/s/.exec(line);
    if (m) found.set(`${bench}: without the response cache`, { value: Number(m[1]), unit: "req/s" });
    m = /^import: [\d.]+ s, ([\d,]+) lines\/s/.exec(line);
    if (m) found.set(`${bench}: logs import`, { value: Number(m[1]!.replaceAll(",", "")), unit: "lines/s" });
    m = /^context: (.+) at 100k vs 10k: ([\d.]+) ms vs ([\d.]+) ms/.exec(line);
    if (m) {
      found.set(`${bench}: ${m[1]} at 100k`, { value: Number(m[2]), unit: "ms" });
      found.set(`${bench}: ${m[1]} at 10k`, { value: Number(m[3]), unit: "ms" });
    }
  }
  return found;
}

function run(tree: string, bench: string): Map<string, { value: number; unit: string }> {
  const r = spawnSync(process.execPath, [`bench/${bench}.ts`], { cwd: tree, encoding: "utf8", env: { ...process.env, ...ENV[bench] }, maxBuffer: 64 * 1024 * 1024 });
  const out = `${r.stdout}\n${r.stderr}`;
  const found = figures(bench, r.stdout);
  if (!found.size) throw new Error(`bench/${bench}.ts in ${tree} reported nothing (exit ${r.status}):\n${out.slice(-3000)}`);
  return found;
}

if (import.meta.main) {
  const base = baseTree();
  const samples = new Map<string, { unit: string; base: number[]; now: number[] }>();
  try {
    for (const bench of BENCHES) {
      for (let round = 0; round < ROUNDS; round++) {
        for (const [side, tree] of [["base", base], ["now", ROOT]] as const) {
          const started = performance.now();
          let found: Map<string, { value: number; unit: string }>;
          try {
            found = run(tree, bench);
          } catch (error) {
            // One failed run loses its figures, not the session's.
            console.error(String(error));
            continue;
          }
          for (const [name, f] of found) {
            const s = samples.get(name) ?? { unit: f.unit, base: [], now: [] };
            s[side].push(f.value);
            samples.set(name, s);
          }
          console.error(`${bench} round ${round + 1} ${side}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
        }
      }
    }
  } finally {
    if (Bun.env.KEEP_BASE !== "1") {
      spawnSync("git", ["worktree", "remove", "--force", base], { cwd: ROOT });
      if (existsSync(base)) rmSync(base, { recursive: true, force: true });
    }
  }
  console.log(`| figure | before (${BASE}) | after | change | within 10 % |`);
  console.log("|---|---|---|---|---|");
  let missed = 0;
  for (const [name, s] of samples) {
    if (!s.base.length || !s.now.length) continue;
    const before = median(s.base);
    const after = median(s.now);
    const higherIsBetter = s.unit.endsWith("/s");
    const worse = higherIsBetter ? before / after - 1 : after / before - 1;
    const ok = worse <= TOLERANCE;
    if (!ok) missed++;
    const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(2));
    console.log(`| ${name} | ${fmt(before)} ${s.unit} | ${fmt(after)} ${s.unit} | ${((after / before - 1) * 100).toFixed(1)} % | ${ok ? "yes" : "NO"} |`);
  }
  console.log(`${missed} figure(s) worse by more than ${TOLERANCE * 100} %`);
}
