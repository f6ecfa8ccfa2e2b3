// The first start after an upgrade (issue #32, target 5): ≤ 10 s per million results.
//   bun bench/upgrade-start.ts DATA_DIR        (KEEP=1 leaves the upgraded copy)
// DATA_DIR is a data directory written by an earlier release (e.g. a bench/.cache/scale world built
// by that release's tree). It is copied (the original is left as it is), the server of this tree
// is started on the copy, and the time from exec to the first 200 on /healthz — migrations, schema
// parts (rollup triggers, tables converted WITHOUT ROWID up to their limit) — is reported per
// million results against the budget (an absolute one: 10 s), with the next start on the
// upgraded copy for context.
import { Database } from "bun:sqlite";
import { closeSync, cpSync, fsyncSync, openSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { freePort, report, ROOT, tempDir } from "./lib";

const source = process.argv[2];
if (!source) throw new Error("usage: bun bench/upgrade-start.ts DATA_DIR (of an earlier release)");

async function start(dir: string): Promise<number> {
  const port = freePort();
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), "serve", "--port", String(port)], { env: { PATH: process.env.PATH!, DATA_DIR: dir, LOG_LEVEL: "silent" }, stdout: "ignore", stderr: "inherit" });
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200) return performance.now() - started;
      } catch {}
      if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode})`);
      await Bun.sleep(20);
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

const dir = tempDir("aw-bench-upgrade-");
try {
  let t = performance.now();
  cpSync(source, dir, { recursive: true });
  // Settled on disk, as an upgraded database is: else the server's first checkpoint would flush the copy.
  for (const file of readdirSync(dir)) {
    const fd = openSync(join(dir, file), "r");
    fsyncSync(fd);
    closeSync(fd);
  }
  const copied = ((performance.now() - t) / 1000).toFixed(1);
  const db = new Database(join(dir, "answerwatch.db"), { readonly: true });
  const results = (db.query("SELECT count(*) AS n FROM prompt_results").get() as { n: number }).n;
  const migrations = (db.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  db.close();
  console.log(`${source}: ${results.toLocaleString("en")} results, ${migrations} migrations applied (copied in ${copied} s)`);
  const upgrade = await start(dir);
  const again = await start(dir);
  console.log(`first start after the upgrade ${(upgrade / 1000).toFixed(1)} s; the next start ${(again / 1000).toFixed(1)} s`);
  const perMillion = upgrade / (results / 1e6);
  report([{ name: "first start after the upgrade, per million results", ours: perMillion, baseline: 10_000, unit: "ms", target: "≤ 10 s per million results", ok: perMillion <= 10_000 }]);
} finally {
  if (Bun.env.KEEP) console.log(`kept the upgraded copy in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
