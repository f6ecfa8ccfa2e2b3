// Postgres beside SQLite (issue #29, acceptance 3), in one run, every figure a ratio against a
// baseline measured (or, for the tracking run, computed) in the same run. One throwaway PostgreSQL
// cluster (tests/helpers/postgres.ts, a database per part) and the real server (src/main.ts serve,
// bench/scale/server.ts's settings: REST response cache off, no scheduled tracking), each its own
// process on 127.0.0.1.
//   1. Tracking over three instances: three `serve` processes on one DATABASE_URL, each WORKERS=1 and
//      PERPLEXITY_CONCURRENCY=32 (per process, rpm unlimited), a fake upstream answering after 200 ms.
//      A job is claimed by one instance, so the UNITS units are spread as three jobs — three brands of
//      ⌈UNITS/3⌉ or ⌊UNITS/3⌋ prompts, one platform — started at once, one start request per instance.
//      With TRACKING_MAX_ACTIVE_JOBS=1 an instance runs one job at a time, so the three jobs run on
//      three instances (the lease owners are sampled during the run and printed). Ideal: the largest job's
//      ⌈units/32⌉ × 200 ms (= ⌈UNITS/(32 × 3)⌉ × 200 ms for a 3-way split). Wall time from the first
//      start request until all three jobs read completed. Target ≤ 1.1×.
//   2. At each scale (SCALES=10k,100k default; 1m = 1.05M results as in bench/scale.ts) a world in a
//      database of its own: 50 brands, the big one 200 prompts × 8 platforms tracked daily (~56 % of
//      the results), the others 26 prompt × platform groups each, one result per group per day with a
//      3–6 KB answer and 7 citations. Built with the product's bulk write path on Postgres —
//      insertResults (src/results/store.pg.ts, what the tracking store's recordResults writes
//      through: rows, citations, URL dictionary) in transactions of BATCH results, the rollup and
//      latest-results triggers of the result tables off meanwhile and the product's rebuilds of those
//      tables run after (LOAD=triggers keeps them on: ~90 results/s here) — then ANALYZE. Once every
//      scale's world is built, their requests are timed in turn (medians of RUNS after a warm-up,
//      signed-in owner): the latest-results RPC of the big brand and its newest 50 results. Target: at 1.05M ≤ 1.5×
//      their 10k times (without 1m in SCALES the largest scale run is compared and said so).
//   3. POST /t/collect, valid AI beacons, against one SQLite server and one Postgres server, with
//      bench/collect.ts's load generator (tests/pixel/load.ts) and request shape, rounds alternating;
//      requests per second, medians. Target: Postgres ≥ 0.5× SQLite.
//   4. `answerwatch logs import` of one generated access log (bench/crawlers.ts's generator, LINES
//      lines) into a brand, without and with DATABASE_URL: lines per second. Target: Postgres ≥ 0.5×.
// For context, the CPU of each side (from /proc; PostgreSQL's: the cluster's postmaster and its
// backends), what the instances' sessions wait on during the tracking run (pg_stat_activity), and
// parts 3 and 4 once more on Postgres with the rollup triggers of the table written switched off
// (not a product configuration: it says how much of the cost is theirs).
// Knobs: UNITS=10000  WORKERS=1 (tracking threads per instance)  DATABASE_POOL_SIZE=10  LOAD=rebuild|triggers  SCALES=10k,100k  RUNS=15  BATCH=2000  ROUNDS=3  REQUESTS=10000  LINES=200000
//        ONLY=tracking,scale,collect,import (a subset)  REQUEST_BUDGET_S=30 (per timed request)
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { registerSqlFunctions } from "../src/database";
import { DB_FILE } from "../src/db/open";
import { PG_ROLLUPS, triggerNames } from "../src/rollups/triggers.pg";
import { testPostgres } from "../tests/helpers/postgres";
import { CHROME_UA, beaconJson, forwardedFor, seedBrand } from "../tests/pixel/fixtures";
import { rawRequest, runLoad } from "../tests/pixel/load";
import { apiClient, type JobView } from "../tests/helpers/tracking";
import { cliWith, writeLog } from "./crawlers";
import { median, processCpu, report, responseJson, ROOT, startFakeUpstream, tempDir, type RatioReport } from "./lib";
import { SCALES } from "./scale/generate";
import { buildPgWorld } from "./scale/world.pg";
import { signUp, startServer, type RunningServer } from "./scale/server";

const UNITS = Math.min(Number(Bun.env.UNITS ?? 10_000), 100_000);
const CONCURRENCY = 32;
const LATENCY_MS = 200;
const INSTANCES = 3;
const WORKERS = Bun.env.WORKERS ?? "1";
const POOL_SIZE = Bun.env.DATABASE_POOL_SIZE ?? "10";
const SCALE_NAMES = (Bun.env.SCALES ?? "10k,100k").split(",").map((s) => s.trim()).filter(Boolean);
const RUNS = Math.min(Number(Bun.env.RUNS ?? 15), 100);
const BATCH = Math.min(Number(Bun.env.BATCH ?? 2000), 20_000);
const REQUEST_BUDGET_MS = Number(Bun.env.REQUEST_BUDGET_S ?? 30) * 1000;
const ROUNDS = Math.min(Number(Bun.env.ROUNDS ?? 3), 20);
const REQUESTS = Math.min(Number(Bun.env.REQUESTS ?? 10_000), 200_000);
const CONNECTIONS = 64;
const LINES = Math.min(Number(Bun.env.LINES ?? 200_000), 5_000_000);
// LOAD=rebuild (default): insertResults with the result tables' rollup and latest-results triggers
// disabled, then the product's rebuilds (rebuildPgRollups, rebuildLatestPg: what a migration that
// changes a rollup runs) — the triggers one row at a time wrote ~90 results/s here, 1.05M in ~3 h.
// LOAD=triggers: insertResults with every trigger on (the tracking run's path).
const LOAD = Bun.env.LOAD === "triggers" ? "triggers" : "rebuild";
const ONLY = new Set((Bun.env.ONLY ?? "tracking,scale,collect,import").split(",").map((s) => s.trim()));
for (const s of SCALE_NAMES) if (!SCALES[s]) throw new Error(`SCALES: unknown scale ${s} (known: ${Object.keys(SCALES).join(", ")})`);

const pg = await testPostgres();
if (!pg) throw new Error("no PostgreSQL (AW_SKIP_POSTGRES=1): bench/postgres.ts needs one");
const reports: RatioReport[] = [];
const dirs: string[] = [];
const servers: RunningServer[] = [];
const dir = (prefix: string) => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** A `serve` on DATABASE_URL (or on its DATA_DIR's SQLite file when `databaseUrl` is null). */
async function serve(databaseUrl: string | null, env: Record<string, string> = {}): Promise<RunningServer & { dataDir: string }> {
  const dataDir = dir("aw-bench-pg-data-");
  const server = await startServer(dataDir, 120_000, { ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: POOL_SIZE } : {}), ...env });
  servers.push(server);
  return { ...server, dataDir };
}

async function stopServer(server: RunningServer): Promise<void> {
  await server.stop();
  const i = servers.findIndex((s) => s.pid === server.pid);
  if (i >= 0) servers.splice(i, 1);
}

/** The deployment's API keys, through `answerwatch keys` on the same database. */
function keysOf(databaseUrl: string | null, dataDir: string): Record<string, string> {
  return Object.fromEntries(cliWith(databaseUrl ? { DATABASE_URL: databaseUrl } : {}, dataDir, "keys").trim().split("\n").map((l) => l.split("=") as [string, string]));
}

/** CPU ms used so far by the test cluster: its postmaster, its live children, and (cutime) those that ended. */
function postgresCpu(): number {
  const port = new URL(pg!.url).port;
  let postmaster = 0;
  const stats: { pid: number; ppid: number; ms: number; children: number }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      stats.push({ pid: Number(entry), ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12])) * 10, children: (Number(f[13]) + Number(f[14])) * 10 });
      if (!postmaster && stat.includes("(postgres)") && readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").includes(`-p ${port}`)) postmaster = Number(entry);
    } catch {
      // the process ended meanwhile
    }
  }
  const main = stats.find((s) => s.pid === postmaster);
  if (!main) return NaN;
  return main.ms + main.children + stats.filter((s) => s.ppid === postmaster).reduce((a, s) => a + s.ms, 0);
}

/** Switches the rollup triggers on `table` (spec.ts's rollups fed by it) off or on: context runs only, on a database dropped after. */
async function rollupTriggers(sql: SQL, table: string, on: boolean): Promise<number> {
  const names = PG_ROLLUPS.filter((spec) => spec.source === table).flatMap(triggerNames);
  for (const name of names) await sql.unsafe(`ALTER TABLE ${table} ${on ? "ENABLE" : "DISABLE"} TRIGGER ${name}`);
  return names.length;
}

async function dropDatabase(url: string): Promise<void> {
  const admin = new SQL(pg!.url, { max: 1 });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
  } finally {
    await admin.close();
  }
}

// ---- 1. tracking over three instances ------------------------------------------------------------

/** Turns /metrics on in the tracking run's instances (its histogram of unit call times is context). */
const METRICS_TOKEN = "bench-metrics-token-0123456789";

async function trackingTarget(): Promise<void> {
  const fake = await startFakeUpstream(LATENCY_MS);
  const databaseUrl = await pg!.createDatabase("bench_tracking");
  const sql = new SQL(databaseUrl, { max: 2 });
  try {
    // Time spent in each PL/pgSQL function (the rollup and latest-results triggers), for the context below.
    await sql.unsafe(`ALTER DATABASE "${new URL(databaseUrl).pathname.slice(1)}" SET track_functions = 'pl'`);
    // TRACKING_MAX_ACTIVE_JOBS=1: an instance holds one job at a time (the default, 8, lets the first
    // instance woken by the enqueue's NOTIFY claim all three, to share its 32 calls among them).
    const env = { ...fake.env, METRICS_TOKEN, WORKERS, TRACKING_MAX_ACTIVE_JOBS: "1", PERPLEXITY_CONCURRENCY: String(CONCURRENCY), PERPLEXITY_RPM: "0" };
    // The first migrates; the other two then start at once.
    const first = await serve(databaseUrl, env);
    const instances = [first, ...(await Promise.all(Array.from({ length: INSTANCES - 1 }, () => serve(databaseUrl, env))))];
    const keys = keysOf(databaseUrl, dir("aw-bench-pg-cli-"));
    const { session } = await signUp(first.base, keys.ANON_KEY!, "bench@example.com", "correct-horse", "Bench");
    const auth = { apikey: keys.ANON_KEY!, authorization: `Bearer ${session.accessToken}` };
    const post = async (table: string, rows: unknown[]) =>
      responseJson(await fetch(`${first.base}/rest/v1/${table}?select=id`, { method: "POST", headers: { ...auth, "content-type": "application/json", prefer: "return=representation" }, body: JSON.stringify(rows) }));
    const [{ id: orgId }] = await responseJson(await fetch(`${first.base}/rest/v1/organizations?select=id`, { headers: auth }));
    // Three brands, the units split as evenly as they go.
    const brands: { id: string; units: number }[] = [];
    for (let b = 0; b < INSTANCES; b++) {
      const units = Math.floor(UNITS / INSTANCES) + (b < UNITS % INSTANCES ? 1 : 0);
      const [{ id }] = await post("brands", [{ organization_id: orgId, name: `Acme ${b}`, slug: `acme-${b}`, industry: "software", region: "US", language: "en" }]);
      await post("brand_domains", [{ brand_id: id, domain: `acme${b}.com`, is_primary: true }]);
      const [{ id: setId }] = await post("prompt_sets", [{ brand_id: id, name: "Core" }]);
      for (let from = 0; from < units; from += 2000)
        await post("prompts", Array.from({ length: Math.min(2000, units - from) }, (_, i) => ({ prompt_set_id: setId, brand_id: id, text: `What is the best project tool for a team of ${from + i + 2} (${b})?` })));
      brands.push({ id, units });
    }
    const api = (i: number) => apiClient(instances[i]!.base, session.accessToken);
    // Each instance's feature runtime loaded before the clock starts, as on a server that has served
    // before: it loads on first use (src/server.ts), a one-time ~0.5 s that bench/startup.ts measures.
    // The set-up above went through the first instance only.
    for (const s of instances) if ((await fetch(`${s.base}/t.js`)).status !== 200) throw new Error(`${s.base}/t.js did not answer 200`);
    // Who holds each job's lease (a finished job's lease is cleared), and what the instances' sessions
    // are running (pg_stat_activity, active sessions but this one), sampled every 100 ms.
    const owners = new Map<string, Set<string>>();
    const activeQueries = new Map<string, number>();
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const row of await sql`SELECT id, lease_owner FROM jobs WHERE lease_owner IS NOT NULL`) {
          if (!owners.has(row.id)) owners.set(row.id, new Set());
          owners.get(row.id)!.add(row.lease_owner);
        }
        for (const { query, wait } of await sql`SELECT query, coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS wait FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND datname = current_database()`) {
          const shape = `[${wait}] ${String(query).replace(/\s+/g, " ").trim().slice(0, 90)}`;
          activeQueries.set(shape, (activeQueries.get(shape) ?? 0) + 1);
        }
        samples++;
        await Bun.sleep(100);
      }
    })();
    // Polls a job until it ends; a poll that fails (an instance too busy to answer in time) is counted and retried.
    const pollErrors: string[] = [];
    let slowestPoll = 0;
    const waitFor = async (i: number, jobId: string): Promise<JobView> => {
      for (const deadline = performance.now() + 600_000; performance.now() < deadline; await Bun.sleep(100)) {
        const t = performance.now();
        try {
          const { status, body } = await api(i).job(jobId);
          slowestPoll = Math.max(slowestPoll, performance.now() - t);
          if (status === 200 && ["completed", "failed", "cancelled"].includes(body.status)) return body as JobView;
        } catch (error) {
          pollErrors.push(`instance ${i} after ${secs(performance.now() - t)}: ${(error as Error).message.slice(0, 60)}`);
          if (pollErrors.length > 50) throw new Error(`polling job ${jobId}: ${pollErrors.at(-1)}`);
        }
      }
      throw new Error(`job ${jobId} did not end in 600 s`);
    };
    const cpuBefore = { instances: instances.map((s) => processCpu(s.pid).all), upstream: processCpu(fake.pid).all, postgres: postgresCpu(), self: process.cpuUsage() };
    const started = performance.now();
    const starts = await Promise.all(brands.map((b, i) => api(i).start({ brandId: b.id, platforms: ["perplexity"] })));
    const startAnswered = performance.now() - started;
    for (const [i, s] of starts.entries()) if (s.status !== 200 || s.body.units !== brands[i]!.units) throw new Error(`start ${i}: ${s.status} ${JSON.stringify(s.body)}`);
    const ended = await Promise.all(
      starts.map(async (s, i) => {
        const job = await waitFor(i, s.body.jobId as string);
        return { job, at: performance.now() - started };
      }),
    );
    const wall = Math.max(...ended.map((e) => e.at));
    const cpu = {
      instances: instances.map((s, i) => processCpu(s.pid).all - cpuBefore.instances[i]!),
      upstream: processCpu(fake.pid).all - cpuBefore.upstream,
      postgres: postgresCpu() - cpuBefore.postgres,
      self: (({ user, system }) => (user + system) / 1000)(process.cpuUsage(cpuBefore.self)),
    };
    sampling = false;
    await sampler;
    // A dashboard opened as the run ends: each insight filtered by platform (the reads planned by the
    // tables' statistics), at once and 3 s later — after a run the instance refreshes statistics its
    // writes made stale (TrackingStore.refreshStatistics); autovacuum would within a minute.
    const insightTimes = async () => {
      const out: string[] = [];
      for (const rpc of ["insights_overview", "insights_citation_domains", "insights_citation_urls", "insights_prompts"]) {
        const t = performance.now();
        const res = await fetch(`${first.base}/rest/v1/rpc/${rpc}`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ p_brand_id: brands[0]!.id, p_platforms: ["perplexity"] }) });
        await res.arrayBuffer();
        out.push(`${rpc.replace("insights_", "")} ${(performance.now() - t).toFixed(0)} ms${res.status === 200 ? "" : ` (${res.status})`}`);
      }
      return out.join(", ");
    };
    const insightsAtOnce = await insightTimes();
    await Bun.sleep(3000);
    const insightsLater = await insightTimes();
    // Each instance's mean time from a unit's call to its analysed answer (its /metrics histogram):
    // what a round of calls takes beyond the upstream's latency.
    const unitMeans: string[] = [];
    for (const s of instances) {
      const text = await (await fetch(`${s.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      const sum = Number(text.match(/answerwatch_upstream_call_duration_seconds_sum\{[^}]*\} ([\d.e+-]+)/)?.[1]);
      const count = Number(text.match(/answerwatch_upstream_call_duration_seconds_count\{[^}]*\} ([\d.e+-]+)/)?.[1]);
      unitMeans.push(`${((sum / count) * 1000).toFixed(1)} ms over ${count}`);
    }
    for (const [i, { job }] of ended.entries())
      if (job.status !== "completed" || job.progress.completed !== brands[i]!.units) throw new Error(`job ${i} ended ${job.status} (${JSON.stringify(job.progress)}): ${job.failedReason}`);
    const counted = await sql`SELECT job_id, count(*)::int AS n, count(DISTINCT prompt_id)::int AS prompts FROM prompt_results GROUP BY job_id`;
    const total = counted.reduce((a: number, r: { n: number }) => a + r.n, 0);
    if (total !== UNITS || counted.some((r: { n: number; prompts: number }) => r.n !== r.prompts)) throw new Error(`result rows: ${JSON.stringify(counted)}`);
    const pidOf = new Map(instances.map((s, i) => [String(s.pid), i]));
    const spread = starts.map((s, i) => {
      const held = [...(owners.get(s.body.jobId) ?? [])].map((o) => `instance ${pidOf.get(o.split(":")[1]!) ?? o}`);
      return `job ${i} (${brands[i]!.units} units, started on instance ${i}): run by ${held.join(" then ") || "?"}, completed at ${secs(ended[i]!.at)}`;
    });
    // Server side, per job: created → first result, → last result, → finished (results are stamped when their batch commits).
    const phases = await sql`SELECT j.id, extract(epoch FROM (j.started_at - j.created_at)) AS started, extract(epoch FROM (min(r.created_at) - j.created_at)) AS first, extract(epoch FROM (max(r.created_at) - j.created_at)) AS last,
                                    extract(epoch FROM (j.finished_at - j.created_at)) AS finished, count(DISTINCT r.created_at)::int AS commits, count(*)::int AS results
                               FROM jobs j JOIN prompt_results r ON r.job_id = j.id GROUP BY j.id`;
    const phaseOf = new Map(
      phases.map((p: { id: string; started: string; first: string; last: string; finished: string; commits: number; results: number }) => [
        p.id,
        `created → claimed ${Number(p.started).toFixed(2)} s, → first result ${Number(p.first).toFixed(2)} s, → last ${Number(p.last).toFixed(2)} s, → finished ${Number(p.finished).toFixed(2)} s; ${p.commits} commits (${(p.results / p.commits).toFixed(1)} results each)`,
      ]),
    );
    for (const [i, s] of starts.entries()) spread[i] += `; server side: ${phaseOf.get(s.body.jobId) ?? "?"}`;
    const distinct = new Set(starts.flatMap((s) => [...(owners.get(s.body.jobId) ?? [])]));
    const ideal = Math.max(...brands.map((b) => Math.ceil(b.units / CONCURRENCY))) * LATENCY_MS;
    console.log(`1. tracking: ${UNITS} units as ${INSTANCES} jobs (one brand each, perplexity) over ${INSTANCES} instances on one Postgres, WORKERS=${WORKERS}, TRACKING_MAX_ACTIVE_JOBS=1 and PERPLEXITY_CONCURRENCY=${CONCURRENCY} each, upstream ${LATENCY_MS} ms`);
    for (const line of spread) console.log(`   ${line}`);
    console.log(`   ${total} result rows, one per unit; ${distinct.size} distinct lease owners; ideal = max over jobs of ⌈units/${CONCURRENCY}⌉ × ${LATENCY_MS} ms = ${secs(ideal)}`);
    const cpuTotal = cpu.instances.reduce((a, b) => a + b, 0) + cpu.upstream + cpu.postgres + cpu.self;
    console.log(
      `   context: CPU during the run of ${secs(wall)} (ms, /proc): instances ${cpu.instances.join(" + ")}, PostgreSQL ${cpu.postgres}, fake upstream ${cpu.upstream}, this client ${cpu.self.toFixed(0)}; ${cpuTotal.toFixed(0)} ms = ${(cpuTotal / wall).toFixed(2)} of ${availableParallelism()} cores; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`,
    );
    console.log(`   context: the three start requests answered after ${secs(startAnswered)}`);
    const fakeTimes = await fake.answerTimes();
    console.log(`   context: from a unit's call to its analysed answer, mean per instance (upstream ${LATENCY_MS} ms; the fake answered ${fakeTimes.count} calls ${fakeTimes.meanMs.toFixed(1)} ms after they arrived, on average): ${unitMeans.join(", ")}`);
    console.log(`   context: insights filtered by platform as the run ends: ${insightsAtOnce}; 3 s later: ${insightsLater}`);
    console.log(`   context: job polls (GET /api/tracking/job/:id every 100 ms) slowest ${secs(slowestPoll)}, ${pollErrors.length} failed${pollErrors.length ? ` (${pollErrors.slice(0, 3).join("; ")})` : ""}`);
    const top = [...activeQueries].sort((a, b) => b[1] - a[1]).slice(0, 6);
    console.log(`   context: the instances' active statements, ${samples} samples of pg_stat_activity (average sessions active: ${([...activeQueries.values()].reduce((a, b) => a + b, 0) / Math.max(1, samples)).toFixed(1)}):`);
    for (const [q, n] of top) console.log(`     ${(n / Math.max(1, samples)).toFixed(2)}  ${q}`);
    const functions = await sql`SELECT funcname, calls::int, self_time FROM pg_stat_user_functions ORDER BY self_time DESC LIMIT 8`;
    console.log(`   context: PostgreSQL's time in the busiest PL/pgSQL functions (self, ms; calls): ${functions.map((f: { funcname: string; calls: number; self_time: number }) => `${f.funcname} ${Number(f.self_time).toFixed(0)} (${f.calls})`).join(", ")}`);
    reports.push({ name: `1. ${UNITS} units, ${LATENCY_MS} ms upstream, concurrency ${CONCURRENCY} per instance, ${INSTANCES} instances on Postgres: wall time`, ours: wall, baseline: ideal, unit: "ms", target: "≤ 1.1× of ideal", ok: wall / ideal <= 1.1 });
  } finally {
    for (const s of [...servers]) await stopServer(s);
    await sql.close();
    fake.proc.kill("SIGTERM");
    await fake.proc.exited;
    await dropDatabase(databaseUrl);
  }
}

// ---- 2. latest results and the newest 50 at scale, on Postgres ---------------------------------

interface Timed {
  name: string;
  median: number;
  runs: number;
}

/** A request to time: where, as whom, and how many rows it must answer. */
interface TimedSpec {
  name: string;
  base: string;
  headers: Record<string, string>;
  path: string;
  body?: string;
  rows: number;
}

/** Two warm-up calls each (checked), then up to RUNS timed calls of every spec in turn, each request dropping out past REQUEST_BUDGET_MS after 3 runs. */
async function timeRequests(specs: TimedSpec[]): Promise<Timed[]> {
  const call = async (spec: TimedSpec) => {
    const t = performance.now();
    const res = await fetch(`${spec.base}${spec.path}`, { method: spec.body ? "POST" : "GET", headers: { ...spec.headers, ...(spec.body ? { "content-type": "application/json" } : {}) }, body: spec.body });
    const rows = (await res.json()) as unknown[];
    const ms = performance.now() - t;
    if (res.status !== 200 || rows.length !== spec.rows) throw new Error(`${spec.name}: ${res.status}, ${Array.isArray(rows) ? `${rows.length} rows, expected ${spec.rows}` : JSON.stringify(rows).slice(0, 300)}`);
    return ms;
  };
  for (const spec of specs) for (let i = 0; i < 2; i++) await call(spec);
  const times = specs.map(() => [] as number[]);
  for (let run = 0; run < RUNS; run++)
    for (const [i, spec] of specs.entries()) {
      if (times[i]!.length >= 3 && times[i]!.reduce((a, b) => a + b, 0) > REQUEST_BUDGET_MS) continue;
      times[i]!.push(await call(spec));
    }
  return specs.map((s, i) => ({ name: s.name, median: median(times[i]!), runs: times[i]!.length }));
}

async function scaleTarget(): Promise<void> {
  // Every scale's world is built (each in its database, with its server) before any is timed, and
  // then their requests are timed in turn: the machine's speed drifts over the half hour a 1.05M
  // world takes to build, and a 10k baseline timed at its start once made a 3× "ratio" of it.
  const specs: (TimedSpec & { scale: string })[] = [];
  const worlds: { databaseUrl: string; sql: SQL }[] = [];
  const byScale = new Map<string, Timed[]>();
  try {
    for (const scale of SCALE_NAMES) {
      const databaseUrl = await pg!.createDatabase(`bench_scale_${scale}`);
      const sql = new SQL(databaseUrl, { max: 3 });
      worlds.push({ databaseUrl, sql });
      const server = await serve(databaseUrl);
      const keys = keysOf(databaseUrl, dir("aw-bench-pg-cli-"));
      const { session, userId } = await signUp(server.base, keys.ANON_KEY!, "owner@example.com", "scale-bench-password", "Scale Bench");
      const meta = await buildPgWorld(sql, scale, userId, { load: LOAD, batch: BATCH });
      const [{ size }] = await sql`SELECT pg_database_size(current_database())::bigint AS size`;
      console.log(
        `2. ${scale}: ${meta.results.toLocaleString("en")} results (big brand ${meta.bigResults.toLocaleString("en")}, ${meta.bigGroups} groups) in ${meta.seconds.toFixed(0)} s: ${meta.how}; database ${(Number(size) / 1024 / 1024).toFixed(0)} MiB`,
      );
      const headers = { apikey: keys.ANON_KEY!, authorization: `Bearer ${session.accessToken}` };
      specs.push(
        { scale, name: "latest results RPC (big brand)", base: server.base, headers, path: "/rest/v1/rpc/get_latest_prompt_results", body: JSON.stringify({ p_brand_id: meta.bigBrandId }), rows: meta.bigGroups },
        { scale, name: "newest 50 results (big brand)", base: server.base, headers, path: `/rest/v1/prompt_results?brand_id=eq.${meta.bigBrandId}&order=created_at.desc&limit=50`, rows: 50 },
      );
    }
    const timed = await timeRequests(specs);
    for (const [i, t] of timed.entries()) {
      console.log(`   ${specs[i]!.scale}: ${t.name}: median ${t.median.toFixed(2)} ms of ${t.runs}`);
      byScale.set(specs[i]!.scale, [...(byScale.get(specs[i]!.scale) ?? []), t]);
    }
  } finally {
    for (const s of [...servers]) await stopServer(s);
    for (const w of worlds) {
      await w.sql.close();
      await dropDatabase(w.databaseUrl);
    }
  }
  const small = byScale.get("10k");
  const largeName = byScale.has("1m") ? "1m" : [...byScale.keys()].filter((s) => s !== "10k").at(-1);
  if (!small || !largeName) return void console.log("2. needs 10k and a larger scale in SCALES: no target row");
  const large = byScale.get(largeName)!;
  const label = largeName === "1m" ? "1.05M" : `${largeName} (1m not in SCALES: the target's 1.05M not run)`;
  for (const [i, l] of large.entries())
    reports.push({ name: `2. Postgres: ${l.name} at ${label} vs 10k`, ours: l.median, baseline: small[i]!.median, unit: "ms", target: "≤ 1.5×", ok: l.median <= 1.5 * small[i]!.median });
}

// ---- 3. /t/collect, Postgres vs SQLite -------------------------------------------------------

async function collectTarget(): Promise<void> {
  const databaseUrl = await pg!.createDatabase("bench_collect");
  const sql = new SQL(databaseUrl, { max: 2 });
  const trackingCode = `aw_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
  try {
    const lite = await serve(null, { LOG_LEVEL: "warn" });
    const post = await serve(databaseUrl, { LOG_LEVEL: "warn" });
    // The same brand in each: SQLite through the pixel tests' seeding, Postgres by SQL.
    const db = new Database(join(lite.dataDir, DB_FILE));
    registerSqlFunctions(db);
    seedBrand(db, { domains: ["acme.com"], trackingCode });
    const [{ id: orgId }] = await sql`INSERT INTO organizations (name, slug) VALUES ('Pixel', 'pixel') RETURNING id`;
    const [{ id: brandId }] = await sql`INSERT INTO brands (organization_id, name, slug, tracking_code) VALUES (${orgId}, 'Acme', 'acme', ${trackingCode}) RETURNING id`;
    await sql`INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (${brandId}, 'acme.com', true)`;
    const ADDRESSES = 4096;
    const requestsFor = (base: string) =>
      Array.from({ length: ADDRESSES }, (_, i) =>
        rawRequest(
          "POST",
          `${base}/t/collect`,
          { origin: "https://www.acme.com", "user-agent": CHROME_UA, "content-type": "text/plain;charset=UTF-8", "x-forwarded-for": forwardedFor(i) },
          beaconJson({ brand: trackingCode, url: "https://www.acme.com/pricing?utm_source=chatgpt.com", referrer: "https://chatgpt.com/" }),
        ),
      );
    const sides = [
      { label: "SQLite", server: lite, requests: requestsFor(lite.base), rps: [] as number[], cpu: [] as number[], pgCpu: [] as number[] },
      { label: "Postgres", server: post, requests: requestsFor(post.base), rps: [] as number[], cpu: [] as number[], pgCpu: [] as number[] },
    ];
    const load = async (side: (typeof sides)[number], total: number) => {
      const [cpu, pgCpu] = [processCpu(side.server.pid).all, postgresCpu()];
      const result = await runLoad({ url: side.server.base, total, connections: CONNECTIONS, request: (i) => side.requests[i % ADDRESSES]! });
      if ((result.statuses[204] ?? 0) !== total) throw new Error(`${side.label} /t/collect: ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
      side.cpu.push(((processCpu(side.server.pid).all - cpu) * 1000) / total);
      side.pgCpu.push(((postgresCpu() - pgCpu) * 1000) / total);
      return result.perSecond;
    };
    console.log(`3. /t/collect: load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}; ${CONNECTIONS} connections, ${REQUESTS} requests a round, ${ROUNDS} rounds alternating`);
    for (const side of sides) await load(side, 3000);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so neither always follows the other's background work.
      for (const side of round % 2 ? [...sides].reverse() : sides) side.rps.push(await load(side, REQUESTS));
      console.log(`   round ${round + 1}: ${sides.map((s) => `${s.label} ${s.rps.at(-1)!.toFixed(0)} req/s`).join(", ")}`);
    }
    const sent = 3000 + ROUNDS * REQUESTS;
    await Bun.sleep(500);
    const liteRows = (db.query("SELECT count(*) AS n FROM ai_traffic_logs").get() as { n: number }).n;
    const [{ n: pgRows }] = await sql`SELECT count(*)::int AS n FROM ai_traffic_logs`;
    db.close();
    console.log(`   rows written: SQLite ${liteRows}, Postgres ${pgRows}, of ${sent} beacons each answered 204`);
    if (liteRows !== sent || pgRows !== sent) throw new Error("a side lost beacons");
    console.log(`   context: CPU per beacon (µs, medians of the rounds): ${sides.map((s) => `${s.label} server ${median(s.cpu.slice(1)).toFixed(0)}, PostgreSQL ${median(s.pgCpu.slice(1)).toFixed(0)}`).join("; ")}`);
    // Context, after the measured rounds: one more Postgres round with ai_traffic_logs' rollup triggers off.
    const off = await rollupTriggers(sql, "ai_traffic_logs", false);
    const bare = sides[1]!;
    const rps = await load(bare, REQUESTS);
    console.log(`   context: Postgres with ai_traffic_logs' ${off} rollup triggers off: ${rps.toFixed(0)} req/s = ${(rps / median(sides[0]!.rps)).toFixed(2)}× SQLite; CPU per beacon server ${bare.cpu.at(-1)!.toFixed(0)} µs, PostgreSQL ${bare.pgCpu.at(-1)!.toFixed(0)} µs`);
    const [l, p] = [median(sides[0]!.rps), median(sides[1]!.rps)];
    reports.push({ name: "3. POST /t/collect per instance, Postgres vs SQLite", ours: p, baseline: l, unit: "req/s", target: "≥ 0.5×", ok: p / l >= 0.5 });
  } finally {
    for (const s of [...servers]) await stopServer(s);
    await sql.close();
    await dropDatabase(databaseUrl);
  }
}

// ---- 4. crawler log import, Postgres vs SQLite -----------------------------------------------

async function importTarget(): Promise<void> {
  const work = dir("aw-bench-pg-logs-");
  const log = join(work, "access.log");
  let t = performance.now();
  const size = await writeLog(log, Date.now(), LINES);
  console.log(`4. logs import: ${LINES.toLocaleString("en")} lines, ${(size / 1e6).toFixed(0)} MB, written in ${secs(performance.now() - t)}`);
  const yaml = join(work, "brand.yaml");
  await Bun.write(yaml, "brand:\n  name: Crawled\n  slug: crawled\n  website: https://crawled.example/\n  organization: Bench\n");
  const databaseUrl = await pg!.createDatabase("bench_import");
  try {
    const timeImport = (env: Record<string, string>, dataDir: string) => {
      cliWith(env, dataDir, "user", "add", "--email", "bench@example.com", "--password", "correct-horse", "--org", "Bench");
      cliWith(env, dataDir, "apply", yaml);
      const pgBefore = postgresCpu();
      const started = performance.now();
      // As cliWith runs it, with the CLI's own CPU time read off the finished process.
      const run = Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, "logs", "import", "--brand", "crawled", log], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env } });
      const ms = performance.now() - started;
      const out = run.stdout.toString();
      if (run.exitCode !== 0 || !out.includes(`${LINES} line(s): ${LINES} new`)) throw new Error(`the import did not take every line: ${out} ${run.stderr}`);
      return { ms, cliCpu: Number(run.resourceUsage.cpuTime.total) / 1000, pgCpu: postgresCpu() - pgBefore };
    };
    const lite = timeImport({}, dir("aw-bench-pg-sqlite-"));
    const post = timeImport({ DATABASE_URL: databaseUrl }, dir("aw-bench-pg-cli-"));
    // Context: the same import into a third database whose crawler_hits rollup triggers are off.
    const bareUrl = await pg!.createDatabase("bench_import_bare");
    let bare = "";
    try {
      cliWith({ DATABASE_URL: bareUrl }, dir("aw-bench-pg-cli-"), "migrate");
      const admin = new SQL(bareUrl, { max: 1 });
      const off = await rollupTriggers(admin, "crawler_hits", false).finally(() => admin.close());
      const b = timeImport({ DATABASE_URL: bareUrl }, dir("aw-bench-pg-cli-"));
      bare = `; context: Postgres with crawler_hits' ${off} rollup triggers off ${secs(b.ms)} (${Math.round(LINES / (b.ms / 1000)).toLocaleString("en")} lines/s = ${(lite.ms / b.ms).toFixed(2)}× SQLite; PostgreSQL's CPU ${secs(b.pgCpu)})`;
    } finally {
      await dropDatabase(bareUrl);
    }
    const [l, p] = [LINES / (lite.ms / 1000), LINES / (post.ms / 1000)];
    console.log(`   SQLite ${secs(lite.ms)} (${Math.round(l).toLocaleString("en")} lines/s; the CLI's CPU ${secs(lite.cliCpu)}), Postgres ${secs(post.ms)} (${Math.round(p).toLocaleString("en")} lines/s; the CLI's CPU ${secs(post.cliCpu)}, PostgreSQL's ${secs(post.pgCpu)})${bare}`);
    reports.push({ name: "4. logs import, Postgres vs SQLite", ours: p, baseline: l, unit: "lines/s", target: "≥ 0.5×", ok: p / l >= 0.5 });
  } finally {
    await dropDatabase(databaseUrl);
  }
}

// ---- main --------------------------------------------------------------------------------------

const benchStarted = performance.now();
console.log(`bench/postgres.ts: ${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}; PostgreSQL ${pg.url.replace(/\/\/[^@]*@/, "//")}`);
/** A part that fails is reported as MISSED with its error, and the others still run. */
async function part(name: string, run: () => Promise<void>): Promise<void> {
  if (!ONLY.has(name)) return;
  try {
    await run();
  } catch (error) {
    console.log(`${name}: FAILED: ${(error as Error).stack ?? error}`);
    reports.push({ name: `${name}: failed (${(error as Error).message.slice(0, 200)})`, ours: NaN, baseline: NaN, unit: "", target: "runs", ok: false });
    for (const s of [...servers]) await stopServer(s);
  }
}
try {
  await part("tracking", trackingTarget);
  await part("scale", scaleTarget);
  await part("collect", collectTarget);
  await part("import", importTarget);
} finally {
  for (const s of [...servers]) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
console.log("");
report(reports);
console.log(`bench/postgres.ts: ${((performance.now() - benchStarted) / 1000).toFixed(0)} s in all`);
process.exit(0);
