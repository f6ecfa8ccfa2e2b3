// Tracking at scale (issue #17, target 4): one run of 10,000 units against a fake upstream that
// answers every call after 200 ms, at concurrency 32. Three targets:
//   wall time  ≤ 1.1× the ideal ⌈10000/32⌉ × 0.2 s = 62.6 s (from POST /api/tracking/start until the job reads completed),
//   peak RSS   ≤ 2× the idle server's (VmRSS of the server process sampled every 100 ms during the run),
//   REST p95   ≤ 3× idle (a small signed-in read looped sequentially by one client during the run,
//              against ~300 of the same read on the idle server).
// "Concurrency 32" is one platform (perplexity) with PERPLEXITY_CONCURRENCY=32 and no rpm limit, and
// a brand with 10,000 active prompts: one unit per prompt, at most 32 calls upstream at once.
// The server (`src/main.ts serve`, empty DATA_DIR, its defaults otherwise: WORKERS=2, REST cache on)
// and the fake upstream each run as a process of their own; this process is the client. The brand is
// seeded through the REST API before the idle measurements. For context it prints the CPU each
// process used per thread name (from /proc) during the run.
import { loadConfig } from "../src/config";
import { ensureSecrets } from "../src/secrets";
import { apiClient, type JobView } from "../tests/helpers/tracking";
import { cpuSince, describeCpu, freePort, percentile, report, responseJson, ROOT, startFakeUpstream, tempDir, threadCpu, totalCpu, waitFor } from "./lib";
import { join } from "node:path";
import { readFileSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Subprocess } from "bun";

const UNITS = Number(Bun.env.UNITS ?? 10_000);
const CONCURRENCY = Number(Bun.env.CONCURRENCY ?? 32);
const LATENCY_MS = Number(Bun.env.LATENCY_MS ?? 200);
const IDLE_READS = Number(Bun.env.IDLE_READS ?? 300);
const WORKERS = Bun.env.WORKERS ?? "2";
// Calls of the bare fetch loop measured first for context (0: none).
const BARE_UNITS = Number(Bun.env.BARE_UNITS ?? 3200);
const READ = "/rest/v1/brands?select=id,name&limit=10";
// REST_LOOP=0 leaves the server alone during the run (for the CPU figures of the run by itself; no REST target then).
const REST_LOOP = Bun.env.REST_LOOP !== "0";

function statusMiB(pid: number, field: string): number {
  const match = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

const describeLatencies = (ms: number[]) =>
  `n=${ms.length}, p50 ${percentile(ms, 50).toFixed(2)} ms, p95 ${percentile(ms, 95).toFixed(2)} ms, p99 ${percentile(ms, 99).toFixed(2)} ms, max ${Math.max(...ms).toFixed(2)} ms`;

// ---- the fake upstream and the server, each a process of its own ----
const fake = await startFakeUpstream(LATENCY_MS);

/** Context: the same calls from a bare fetch loop with CONCURRENCY in flight (what this machine and the fake allow). */
async function bareLoop(units: number): Promise<number> {
  const url = `${fake.env.PERPLEXITY_BASE_URL}/chat/completions`;
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < units) {
        const i = next++;
        const res = await fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${fake.env.PERPLEXITY_API_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "sonar", messages: [{ role: "user", content: `What is the best project tool for a team of ${i + 2}?` }] }),
        });
        if (!res.ok) throw new Error(`fake upstream: ${res.status}`);
        await res.json();
      }
    }),
  );
  return performance.now() - started;
}
const dataDir = tempDir("aw-bench-scale-");
const env = {
  ...fake.env,
  DATA_DIR: dataDir,
  HOST: "127.0.0.1",
  PORT: String(freePort()),
  LOG_LEVEL: "silent",
  WORKERS,
  PERPLEXITY_CONCURRENCY: String(CONCURRENCY),
  PERPLEXITY_RPM: "0",
};
const base = `http://127.0.0.1:${env.PORT}`;
let server: Subprocess | undefined;

try {
  // Before the server starts, so the loop has the machine to itself.
  const bare = BARE_UNITS > 0 ? await bareLoop(BARE_UNITS) : 0;
  const secrets = await ensureSecrets(loadConfig(env));
  server = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), "serve"], { env: { ...Bun.env, ...env }, stdout: "ignore", stderr: "inherit" });
  const pid = server.pid;
  await waitFor(`${base}/healthz`);

  // ---- a user, an organization and a brand with UNITS prompts, through the REST API ----
  const session = await responseJson(
    await fetch(`${base}/auth/v1/signup`, {
      method: "POST",
      headers: { apikey: secrets.anonKey, "content-type": "application/json" },
      body: JSON.stringify({ email: "bench@example.com", password: "correct-horse", data: { organization_name: "Bench" } }),
    }),
  );
  const auth = { apikey: secrets.anonKey, authorization: `Bearer ${session.access_token}` };
  const post = (table: string, rows: unknown[], returning = true) =>
    fetch(`${base}/rest/v1/${table}${returning ? "?select=id" : ""}`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", prefer: returning ? "return=representation" : "return=minimal" },
      body: JSON.stringify(rows),
    }).then((res) => (returning ? responseJson(res) : res.ok ? null : res.text().then((t) => Promise.reject(new Error(`${table}: ${res.status} ${t}`)))));
  const [{ id: orgId }] = await responseJson(await fetch(`${base}/rest/v1/organizations?select=id`, { headers: auth }));
  const [{ id: brandId }] = await post("brands", [{ organization_id: orgId, name: "Acme", slug: "acme", industry: "software", region: "US", language: "en" }]);
  await post("brand_domains", [{ brand_id: brandId, domain: "acme.com", is_primary: true }]);
  await post("competitors", [
    { brand_id: brandId, name: "Globex", domain: "globex.com" },
    { brand_id: brandId, name: "Initech", domain: "initech.com" },
  ]);
  // A few more brands so the read is a page of 10 rather than one row.
  await post("brands", Array.from({ length: 9 }, (_, i) => ({ organization_id: orgId, name: `Other ${i}`, slug: `other-${i}`, industry: "software", region: "US", language: "en" })));
  const [{ id: setId }] = await post("prompt_sets", [{ brand_id: brandId, name: "Core" }]);
  for (let from = 0; from < UNITS; from += 2000)
    await post(
      "prompts",
      Array.from({ length: Math.min(2000, UNITS - from) }, (_, i) => ({ prompt_set_id: setId, brand_id: brandId, text: `What is the best project tool for a team of ${from + i + 2}?` })),
      false,
    );

  // ---- idle: warm-up, RSS, then the REST read's latency ----
  const read = async (): Promise<number> => {
    const started = performance.now();
    const res = await fetch(`${base}${READ}`, { headers: auth });
    const rows = await res.json();
    const ms = performance.now() - started;
    if (res.status !== 200 || !Array.isArray(rows) || rows.length !== 10) throw new Error(`${READ}: ${res.status} ${JSON.stringify(rows).slice(0, 200)}`);
    return ms;
  };
  for (let i = 0; i < IDLE_READS; i++) await read();
  await Bun.sleep(1000);
  const idleRss = statusMiB(pid, "VmRSS");
  const idleHwm = statusMiB(pid, "VmHWM");
  const idleLatencies: number[] = [];
  for (let i = 0; i < IDLE_READS; i++) idleLatencies.push(await read());
  const idleP95 = percentile(idleLatencies, 95);

  // Context: the same page asked with a filter that differs each time, so no answer comes from the
  // response cache (during the run every result write empties it).
  const uncachedIdle: number[] = [];
  for (let i = 0; i < 100; i++) {
    const started = performance.now();
    const res = await fetch(`${base}${READ}&name=neq.none-${i}`, { headers: auth });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`uncached read: ${res.status}`);
    uncachedIdle.push(performance.now() - started);
  }

  // ---- the run ----
  let started = performance.now();
  let peakRss = idleRss;
  let rssSamples = 0;
  /** [seconds since the start request, VmRSS MiB] every 100 ms; and /proc/PID/status at the peak. */
  const rssTimeline: [number, number][] = [];
  let peakStatus = "";
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const rss = Number(status.match(/^VmRSS:\s+(\d+) kB/m)![1]) / 1024;
      rssTimeline.push([(performance.now() - started) / 1000, rss]);
      if (rss > peakRss) (peakRss = rss), (peakStatus = status);
      rssSamples++;
    } catch {
      // the server ended; the run's check below says why
    }
  }, 100);
  const api = apiClient(base, session.access_token);
  const cpuBefore = { server: threadCpu(pid), upstream: threadCpu(fake.proc.pid), client: threadCpu("self") };
  started = performance.now();
  const { status: startStatus, body: startBody } = await api.start({ brandId, platforms: ["perplexity"] });
  if (startStatus !== 200 || startBody.units !== UNITS) throw new Error(`start: ${startStatus} ${JSON.stringify(startBody)}`);
  let running = true;
  const runLatencies: number[] = [];
  /** When (seconds since the start request) each read during the run began. */
  const runAt: number[] = [];
  const reader = (async () => {
    while (running && REST_LOOP) {
      runAt.push((performance.now() - started) / 1000);
      runLatencies.push(await read());
    }
  })();
  let job: JobView;
  try {
    ({ job } = await api.waitFor(startBody.jobId, 1_200_000, 100));
  } finally {
    running = false;
  }
  const wall = performance.now() - started;
  const cpu = {
    server: cpuSince(cpuBefore.server, threadCpu(pid)),
    upstream: cpuSince(cpuBefore.upstream, threadCpu(fake.proc.pid)),
    client: cpuSince(cpuBefore.client, threadCpu("self")),
  };
  await reader;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, statusMiB(pid, "VmRSS"));
  const hwm = statusMiB(pid, "VmHWM");
  if (job.status !== "completed" || job.progress.completed !== UNITS) throw new Error(`run ended ${job.status} (${JSON.stringify(job.progress)}): ${job.failedReason}`);

  // Every unit wrote its row.
  const counted = await fetch(`${base}/rest/v1/prompt_results?select=id&brand_id=eq.${brandId}&limit=1`, { headers: { ...auth, prefer: "count=exact" } });
  await counted.arrayBuffer();
  const rows = Number(counted.headers.get("content-range")?.split("/")[1]);
  if (rows !== UNITS) throw new Error(`prompt_results holds ${rows} rows for the brand (content-range ${counted.headers.get("content-range")}), not ${UNITS}`);

  const ideal = Math.ceil(UNITS / CONCURRENCY) * LATENCY_MS;
  const runP95 = percentile(runLatencies, 95);
  // Server-side phases: results are stamped when their batch is committed, the job when it is finalized.
  const stamp = async (order: "asc" | "desc") =>
    Date.parse((await responseJson(await fetch(`${base}/rest/v1/prompt_results?select=created_at&brand_id=eq.${brandId}&order=created_at.${order}&limit=1`, { headers: auth })))[0].created_at);
  const [firstWrite, lastWrite] = [await stamp("asc"), await stamp("desc")];
  const created = Date.parse((job as JobView & { createdAt: string }).createdAt);
  const finished = Date.parse((job as JobView & { finishedAt: string }).finishedAt);
  console.log(
    `${UNITS} units, perplexity only, PERPLEXITY_CONCURRENCY=${CONCURRENCY} (rpm unlimited), WORKERS=${WORKERS}, REST_CACHE_MB=${Bun.env.REST_CACHE_MB ?? "32 (default)"}, upstream latency ${LATENCY_MS} ms; ${availableParallelism()} cores`,
  );
  console.log(
    `run: ${(wall / 1000).toFixed(2)} s from start request to completed seen (polled every 100 ms); server side: job created → first result ${((firstWrite - created) / 1000).toFixed(2)} s, → last result ${((lastWrite - created) / 1000).toFixed(2)} s, → finished (summarized) ${((finished - created) / 1000).toFixed(2)} s; ${rows} result rows`,
  );
  if (bare)
    console.log(
      `context: a bare fetch loop, ${BARE_UNITS} calls at concurrency ${CONCURRENCY} to the same fake upstream: ${(bare / 1000).toFixed(2)} s = ${(bare / (Math.ceil(BARE_UNITS / CONCURRENCY) * LATENCY_MS)).toFixed(3)}× its ideal (${Math.ceil(BARE_UNITS / CONCURRENCY)} × ${LATENCY_MS} ms); the run's querying phase ${((lastWrite - created) / ideal).toFixed(3)}× ideal`,
    );
  console.log(`RSS: idle ${idleRss.toFixed(1)} MiB (VmHWM so far ${idleHwm.toFixed(1)}), peak during run ${peakRss.toFixed(1)} MiB over ${rssSamples} samples, VmHWM after ${hwm.toFixed(1)} MiB`);
  console.log(`REST ${READ}: idle ${describeLatencies(idleLatencies)}`);
  if (REST_LOOP) console.log(`  during the run ${describeLatencies(runLatencies)}`);
  console.log(`  context, idle and never from the response cache: ${describeLatencies(uncachedIdle)}`);
  report([
    { name: `${UNITS} units, ${LATENCY_MS} ms upstream, concurrency ${CONCURRENCY}: wall time`, ours: wall, baseline: ideal, unit: "ms", target: "≤ 1.1× of ideal", ok: wall / ideal <= 1.1 },
    { name: "peak server RSS during the run", ours: peakRss, baseline: idleRss, unit: "MiB", target: "≤ 2× idle", ok: peakRss / idleRss <= 2 },
    ...(REST_LOOP ? [{ name: "REST read p95 during the run", ours: runP95, baseline: idleP95, unit: "ms", target: "≤ 3× idle", ok: runP95 / idleP95 <= 3 }] : []),
  ]);
  const kb = (field: string) => `${field} ${(Number(peakStatus.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0) / 1024).toFixed(1)}`;
  if (peakStatus) console.log(`context: at the RSS peak: ${["RssAnon", "RssFile", "RssShmem"].map(kb).join(", ")} MiB`);
  const tenths = Array.from({ length: 11 }, (_, i) => rssTimeline[Math.min(rssTimeline.length - 1, Math.round((i / 10) * (rssTimeline.length - 1)))]!);
  console.log(`context: server RSS over the run (s: MiB): ${tenths.map(([s, mib]) => `${s.toFixed(1)}: ${mib.toFixed(0)}`).join(", ")}`);
  if (REST_LOOP) {
    const slowest = runLatencies.map((ms, i) => [ms, runAt[i]!] as const).sort((a, b) => b[0] - a[0]).slice(0, 5);
    console.log(`context: slowest reads during the run (ms at s since start): ${slowest.map(([ms, at]) => `${ms.toFixed(0)} at ${at.toFixed(1)}`).join(", ")}`);
  }
  const seconds = wall / 1000;
  console.log(`context: CPU time (ms, from /proc, 10 ms ticks) during the run of ${seconds.toFixed(1)} s, per thread name:`);
  console.log(`  server ${totalCpu(cpu.server)} ms (${(totalCpu(cpu.server) / seconds / 10).toFixed(1)} % of one core): ${describeCpu(cpu.server)}`);
  console.log(`  fake upstream ${totalCpu(cpu.upstream)} ms: ${describeCpu(cpu.upstream)}`);
  console.log(`  this client (REST loop, polling, RSS sampling) ${totalCpu(cpu.client)} ms: ${describeCpu(cpu.client)}`);
} finally {
  server?.kill("SIGTERM");
  fake.proc.kill("SIGTERM");
  await Promise.all([server?.exited, fake.proc.exited]);
  if (Bun.env.KEEP_DATA_DIR) console.log(`DATA_DIR kept: ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
