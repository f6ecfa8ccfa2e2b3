// Issue #26 (finding 10): `answerwatch apply` checks and plans a brand file in time linear in its
// size. A brand of 2,000 prompts (~220 KB) and one of 20,000 (~2.2 MB) are applied, then applied
// again with --dry-run (the plan against an existing brand, where nested scans used to cost n²);
// the ratio of the two plans' times is the target: ≤ 15× for 10× the prompts (linear is 10×,
// the process start is paid once by both).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { median, report, ROOT, tempDir } from "./lib";

function brandFile(prompts: number): string {
  const lines = ["brand:", "  name: Big", "  slug: big", "  website: big.example", "topics:", ...Array.from({ length: 50 }, (_, i) => `  - topic ${i}`), "prompts:"];
  for (let i = 0; i < prompts; i++) lines.push(`  - text: Which analytics tool is best for team number ${i} with a long question attached to it?`, `    topic: topic ${i % 50}`);
  lines.push("platforms:", "  - chatgpt");
  return `${lines.join("\n")}\n`;
}

function run(dataDir: string, ...args: string[]): number {
  const started = performance.now();
  const proc = Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, ...args], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent" }, stdout: "ignore", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`${args.join(" ")}: ${proc.stderr.toString()}`);
  return performance.now() - started;
}

async function planTime(prompts: number): Promise<{ ms: number; bytes: number }> {
  const dir = tempDir("aw-bench-apply-");
  const file = join(dir, "brand.yaml");
  const text = brandFile(prompts);
  writeFileSync(file, text);
  run(dir, "user", "add", "--email", "bench@example.com", "--password", "correct-horse-battery", "--org", "Bench");
  run(dir, "apply", file);
  return { ms: median([0, 1, 2].map(() => run(dir, "apply", file, "--dry-run"))), bytes: text.length };
}

const small = await planTime(2_000);
const large = await planTime(20_000);
console.log(`apply --dry-run on an existing brand: ${small.bytes} B in ${small.ms.toFixed(0)} ms, ${large.bytes} B in ${large.ms.toFixed(0)} ms`);
report([{ name: "apply: 10× the prompts", ours: large.ms, baseline: small.ms, unit: "ms", target: "≤ 15×", ok: large.ms / small.ms <= 15 }]);
