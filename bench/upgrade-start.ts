// The first start after an upgrade (issue #32, target 5): ≤ 10 s per million results.
//   bun bench/upgrade-start.ts DATA_DIR        (KEEP=1 leaves the upgraded copy)
// DATA_DIR is a data directory written by an earlier release (e.g. a bench/.cache/scale world built
// by that release's tree). It is copied (the original is left as it is), the server of this tree
// is started on the copy, and the time from exec to the first 200 on /healthz — migrations, schema
// parts (rollup triggers, tables converted WITHOUT ROWID up to their limit) — is reported per
// million results against the issue's budget (an absolute one: 10 s), with the next start on the
// upgraded copy for context. The running totals fed by results move to their layout keyed by id
// after the start (issue #32): the first server is kept up until that move ends, which is timed, and
// their bytes a result before and after are printed.
import { Database } from "bun:sqlite";
import { closeSync, cpSync, fsyncSync, openSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { MOVED_LATER } from "../src/rollups/spec";
import { freePort, report, ROOT, tempDir } from "./lib";

const source = process.argv[2];
if (!source) throw new Error("usage: bun bench/upgrade-start.ts DATA_DIR (of an earlier release)");

/** Starts the server on `dir`: the time to its first 200 on /healthz; `whileUp` runs before it is stopped. */
async function start(dir: string, whileUp?: () => Promise<void>): Promise<number> {
  const port = freePort();
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), "serve", "--port", String(port)], { env: { PATH: process.env.PATH!, DATA_DIR: dir, LOG_LEVEL: "silent" }, stdout: "ignore", stderr: "inherit" });
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200) {
          const ms = performance.now() - started;
          await whileUp?.();
          return ms;
        }
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
      }
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
  const file = join(dir, "answerwatch.db");
  const db = new Database(file, { readonly: true });
  const results = (db.query("SELECT count(*) AS n FROM prompt_results").get() as { n: number }).n;
  const migrations = (db.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  // The result-fed running totals (issue #32): keyed by text before, by id after the move that follows the start.
  const moved = [...MOVED_LATER.values()];
  const bytesPerResult = (d: Database, tables: string[]) => {
    const present = tables.filter((t) => d.query("SELECT 1 FROM sqlite_master WHERE name = ?").get(t));
    const names = present.flatMap((t) => [t, ...(d.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(t) as { name: string }[]).map((r) => r.name)]);
    return (d.query(`SELECT coalesce(sum(pgsize), 0) AS b FROM dbstat WHERE name IN (${names.map(() => "?").join(", ") || "''"})`).get(...names) as { b: number }).b / results;
  };
  const before = bytesPerResult(db, moved.flatMap((m) => [m.formerTotals, m.formerKeys]));
  // Everything (every table and index, dbstat: free pages left out), and the plain text a bench/scale.ts world records.
  const everything = (d: Database) => (d.query("SELECT sum(pgsize) AS b FROM dbstat").get() as { b: number }).b / results;
  const allBefore = everything(db);
  db.close();
  const meta = Bun.file(join(source, "scale-meta.json"));
  const plainText = (await meta.exists()) ? ((await meta.json()) as { plainTextBytes: number }).plainTextBytes / results : NaN;
  console.log(`${source}: ${results.toLocaleString("en")} results, ${migrations} migrations applied (copied in ${copied} s)`);
  // The first start, then the rows' move after it (the server's own, while it serves), timed until the former tables are gone.
  let moveMs = NaN;
  const upgrade = await start(dir, async () => {
    const t = performance.now();
    const watch = new Database(file, { readonly: true });
    try {
      for (const deadline = t + 3_600_000; performance.now() < deadline; await Bun.sleep(250))
        if (!moved.some((m) => watch.query("SELECT 1 FROM sqlite_master WHERE name = ?").get(m.formerKeys))) {
          moveMs = performance.now() - t;
          return;
        }
      throw new Error("the move did not end in an hour");
    } finally {
      watch.close();
    }
  });
  const again = await start(dir);
  const after = new Database(file, { readonly: true });
  const afterBytes = bytesPerResult(after, moved.flatMap((m) => [m.totals, m.keys]));
  const allAfter = everything(after);
  after.close();
  console.log(`first start after the upgrade ${(upgrade / 1000).toFixed(1)} s; the rows moved after it, the server serving, in ${(moveMs / 1000).toFixed(1)} s (${(moveMs / 1000 / (results / 1e6)).toFixed(0)} s per million results); the next start ${(again / 1000).toFixed(1)} s`);
  console.log(`the result-fed running totals with their key lists: ${Math.round(before)} B a result keyed by text, ${Math.round(afterBytes)} B keyed by id`);
  console.log(`everything (dbstat): ${Math.round(allBefore)} B a result before, ${Math.round(allAfter)} B after${Number.isNaN(plainText) ? "" : ` — ${(allBefore / plainText).toFixed(2)}× and ${(allAfter / plainText).toFixed(2)}× the plain text (${Math.round(plainText)} B a result)`}`);
  const perMillion = upgrade / (results / 1e6);
  report([{ name: "first start after the upgrade, per million results", ours: perMillion, baseline: 10_000, unit: "ms", target: "≤ 10 s per million results", ok: perMillion <= 10_000 }]);
} finally {
  if (Bun.env.KEEP) console.log(`kept the upgraded copy in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
