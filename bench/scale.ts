// A year of data (issue #17): the same world at three scales — 10k, 100k and 1.05M results (one big
// brand holding 584/1050 of them: 200 prompts × 8 platforms tracked daily over 3.5, 35 and 365
// days; 49 more brands share the rest), each result with ~7 citations and a 2–8 KB markdown answer,
// plus a year of the big brand's AI-referred traffic (as many visits as the scale has results, and
// 30 % other page views). bench/scale/generate.ts builds each database through the product's own
// write paths (sign-up through the server, src/results/store.sqlite.ts for results) and caches it in
// bench/.cache/scale/<scale>/, keyed by the migrations and the result store: a storage change
// regenerates it.
//
// At each scale the real server (src/main.ts serve, its own process on 127.0.0.1, REST response
// cache off unless REST_CACHE_MB says otherwise) serves that directory, and the signed-in owner
// times five requests (medians after a warm-up):
//   1. POST /rest/v1/rpc/get_latest_prompt_results {p_brand_id}            (1,600 rows)
//   2. the same with p_platform=chatgpt                                    (200 rows)
//   3. GET /rest/v1/prompt_results?brand_id=eq.B&order=created_at.desc&limit=50
//   4. the same with Prefer: count=exact                                   (Content-Range total checked)
//   5. GET /api/brands/B/traffic?from=<365 days ago>&to=<today>&interval=week
// Targets:
//   1. each request at 1.05M ≤ 1.5× its time at 10k; request 3 at 1.05M within 5× of a bare Bun.serve
//      (own process) sending the same bytes — latency with the same sequential client, and requests
//      per second with bench/rest.ts's fixed-concurrency load client;
//   2. at 1.05M, p95 of /healthz and of a small REST read, sequentially (300 each), idle and while 4
//      concurrent clients (another process) loop the slowest of requests 1–5: under load ≤ 3× idle;
//   4. at 1.05M, each insights RPC (issue #18) over the 365 days ending today ≤ 1.5× over the 30
//      days ending today (trend by week), medians in the same run; the traffic report by week too
//      (issue #32, target 3).
//   3. at 1.05M, server stopped: bytes on disk per result with its citations (dbstat pages of
//      prompt_results, citations, their indexes and the URL, latest, dictionary and rollup tables)
//      ≤ 0.35× the plain-text bytes per result (answer + each citation's url and title, UTF-8).
// Knobs: SCALES=10k,100k,1m  RUNS=15  REGENERATE=1  REQUEST_BUDGET_S=40 (a request stops being
// repeated past this, after 3 runs)  SAMPLES=300  LOAD_BUDGET_S=60 (per p95 under load)  REST_CACHE_MB
// GENERATE_ONLY=1 (build the cached worlds and stop)  ONLY=insights (target 4 alone)  HEAVY_SCALE=1m (the
// scale where the bare-server baseline, the load test and target 4 run; bench/seam.ts compares two
// trees at 100k, a world each tree can build in minutes).
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { DB_FILE } from "../src/db/open";
import { keysTable, RETIRED_ROLLUPS, ROLLUPS } from "../src/rollups/spec";
import { ensureSecrets } from "../src/secrets";
import { freePort, median, percentile, report, ROOT, type RatioReport } from "./lib";
import { generateScale, SCALES, writeMeta, type ScaleMeta } from "./scale/generate";
import { refresh, signIn, startServer, type RunningServer, type Session } from "./scale/server";

const SCALE_NAMES = (Bun.env.SCALES ?? "10k,100k,1m").split(",").map((s) => s.trim()).filter(Boolean);
const RUNS = Number(Bun.env.RUNS ?? 15);
const REGENERATE = Bun.env.REGENERATE === "1";
const REQUEST_BUDGET_MS = Number(Bun.env.REQUEST_BUDGET_S ?? 40) * 1000;
const SAMPLES = Number(Bun.env.SAMPLES ?? 300);
const LOAD_BUDGET_MS = Number(Bun.env.LOAD_BUDGET_S ?? 60) * 1000;
const LOAD_CLIENTS = 4;
const HEAVY = Bun.env.HEAVY_SCALE ?? "1m";
const SMALL_READ = "/rest/v1/brands?select=id,name&limit=10";
const CACHE = join(ROOT, "bench/.cache/scale");
const META = "scale-meta.json";
/** The rollup tables (spec.ts), a running total's key list and the retired ones still on disk included. */
const ROLLUP_TABLES = new Set([...ROLLUPS.flatMap((s) => (s.running ? [s.table, keysTable(s)] : [s.table])), ...RETIRED_ROLLUPS]);
const GENERATOR_VERSION = "1";

for (const s of SCALE_NAMES) if (!SCALES[s]) throw new Error(`SCALES: unknown scale ${s} (known: ${Object.keys(SCALES).join(", ")})`);

const log = (line: string) => console.log(line);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;

/** The promise's value, or null after `ms` (the timer cleared either way, so it keeps no process alive). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** The cache key: a change to the migrations or the result store (the storage layout) regenerates every scale. */
function cacheKey(): string {
  const h = createHash("sha256");
  h.update(`generator ${GENERATOR_VERSION}\n`);
  // The result store's file (named store.ts before the storage seam, store.sqlite.ts after it).
  const resultStore = ["src/results/store.sqlite.ts", "src/results/store.ts"].find((f) => existsSync(join(ROOT, f)))!;
  for (const f of ["src/db/migrations.generated.ts", resultStore, "src/db/text-codec.ts", "src/storage/dictionaries.sqlite.ts"].filter((f) => existsSync(join(ROOT, f)))) h.update(readFileSync(join(ROOT, f)));
  return h.digest("hex").slice(0, 16);
}

async function ensureScale(scale: string, key: string): Promise<ScaleMeta> {
  const dir = join(CACHE, scale);
  const metaFile = join(dir, META);
  if (!REGENERATE && existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as ScaleMeta;
    if (meta.key === key && existsSync(join(dir, DB_FILE))) {
      log(`${scale}: cached database from ${meta.generatedAt} (generated in ${meta.generationSeconds.toFixed(0)} s)`);
      return meta;
    }
    log(`${scale}: cache is for another storage layout (key ${meta.key}, now ${key}): generating again`);
  }
  mkdirSync(CACHE, { recursive: true });
  const started = performance.now();
  log(`${scale}: generating ${SCALES[scale]!.toLocaleString("en")} results in ${dir} …`);
  const meta = await generateScale(scale, dir, key, log);
  meta.generationSeconds = (performance.now() - started) / 1000;
  writeMeta(dir, meta);
  log(`${scale}: generated in ${meta.generationSeconds.toFixed(0)} s: ${meta.results.toLocaleString("en")} results (big brand ${meta.bigBrandResults.toLocaleString("en")}), ${meta.citations.toLocaleString("en")} citations, ${meta.trafficRows.toLocaleString("en")} traffic rows; database ${mib(fileBytes(dir))}`);
  return meta;
}

function fileBytes(dir: string): number {
  let total = 0;
  for (const f of [DB_FILE, `${DB_FILE}-wal`]) if (existsSync(join(dir, f))) total += statSync(join(dir, f)).size;
  return total;
}

// ---- timing requests ---------------------------------------------------------------------------

interface Spec {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** The statuses that count as answered (200; a counted page is 206, as in PostgREST). */
  ok?: number[];
  /** Checks the first (warm-up) response; returns a note to print. */
  check(res: Response, bytes: Uint8Array): string;
}

interface Timing {
  spec: Spec;
  times: number[];
  statuses: Map<number, number>;
  bytes: number;
  note: string;
  firstError?: string;
}

interface Client {
  base: string;
  headers(): Promise<Record<string, string>>;
}

async function timeOne(client: Client, spec: Spec): Promise<{ ms: number; res: Response; bytes: Uint8Array }> {
  const headers = { ...(await client.headers()), ...spec.headers, ...(spec.body ? { "content-type": "application/json" } : {}) };
  const t = performance.now();
  const res = await fetch(`${client.base}${spec.path}`, { method: spec.method, headers, body: spec.body });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { ms: performance.now() - t, res, bytes };
}

/** Warm-up (2 calls, the first checked), then RUNS rounds over all specs in turn, each spec dropping out past its time budget. */
async function timeAll(client: Client, specs: Spec[]): Promise<Timing[]> {
  const timings: Timing[] = [];
  for (const spec of specs) {
    const first = await timeOne(client, spec);
    const timing: Timing = { spec, times: [], statuses: new Map(), bytes: first.bytes.length, note: "" };
    if (!(spec.ok ?? [200]).includes(first.res.status)) timing.firstError = `${first.res.status} ${new TextDecoder().decode(first.bytes.slice(0, 300))}`;
    else
      try {
        timing.note = spec.check(first.res, first.bytes);
      } catch (error) {
        timing.firstError = (error as Error).message;
      }
    await timeOne(client, spec);
    timings.push(timing);
  }
  const spent = new Map<Timing, number>();
  for (let run = 0; run < RUNS; run++) {
    for (const timing of timings) {
      if ((spent.get(timing) ?? 0) > REQUEST_BUDGET_MS && timing.times.length >= 3) continue;
      const { ms: t, res, bytes } = await timeOne(client, timing.spec);
      timing.times.push(t);
      timing.statuses.set(res.status, (timing.statuses.get(res.status) ?? 0) + 1);
      if (!(timing.spec.ok ?? [200]).includes(res.status) && !timing.firstError) timing.firstError = `${res.status} ${new TextDecoder().decode(bytes.slice(0, 300))}`;
      spent.set(timing, (spent.get(timing) ?? 0) + t);
    }
  }
  return timings;
}

const answered = (t: Timing) => !t.firstError && [...t.statuses.keys()].every((s) => (t.spec.ok ?? [200]).includes(s));
const statusText = (t: Timing) => [...t.statuses].map(([s, n]) => `${n}×${s}`).join(" ");

function specs(meta: ScaleMeta): Spec[] {
  const big = meta.bigBrandId;
  const rows = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as unknown[];
  const expectRows = (n: number) => (_res: Response, bytes: Uint8Array) => {
    const got = rows(bytes).length;
    if (got !== n) throw new Error(`expected ${n} rows, got ${got}`);
    return `${got} rows`;
  };
  const today = new Date();
  const from = new Date(today.getTime() - 365 * 86_400_000).toISOString().slice(0, 10);
  const newest = `/rest/v1/prompt_results?brand_id=eq.${big}&order=created_at.desc&limit=50`;
  return [
    { name: "1 latest results (RPC)", method: "POST", path: "/rest/v1/rpc/get_latest_prompt_results", body: JSON.stringify({ p_brand_id: big }), check: expectRows(meta.bigBrandGroups) },
    { name: "2 latest results, chatgpt (RPC)", method: "POST", path: "/rest/v1/rpc/get_latest_prompt_results", body: JSON.stringify({ p_brand_id: big, p_platform: "chatgpt" }), check: expectRows(meta.bigBrandChatgptGroups) },
    { name: "3 newest 50 results", method: "GET", path: newest, check: expectRows(50) },
    {
      name: "4 newest 50 + count=exact",
      method: "GET",
      path: newest,
      headers: { prefer: "count=exact" },
      ok: [200, 206],
      check(res, bytes) {
        expectRows(50)(res, bytes);
        const range = res.headers.get("content-range") ?? "";
        const total = Number(range.split("/")[1]);
        if (total !== meta.bigBrandResults) throw new Error(`Content-Range ${range}: expected the total ${meta.bigBrandResults}`);
        return `Content-Range ${range}`;
      },
    },
    {
      name: "5 traffic report, a year by week",
      method: "GET",
      path: `/api/brands/${big}/traffic?from=${from}&to=${today.toISOString().slice(0, 10)}&interval=week`,
      check(_res, bytes) {
        const body = JSON.parse(new TextDecoder().decode(bytes));
        if (!body.success) throw new Error(`not a success: ${JSON.stringify(body).slice(0, 200)}`);
        return `${body.totals.visits} visits (generated ${meta.aiVisits}), ${body.totals.pageViews} page views, ${body.periods.length} weeks`;
      },
    },
  ];
}

// ---- insights (issue #18) ---------------------------------------------------------------------

const INSIGHT_RPCS = ["insights_overview", "insights_trend", "insights_competitors", "insights_citation_domains", "insights_citation_urls", "insights_prompts", "insights_search_queries"];

/** Each insights RPC over the `days` ending today (the trend by week), answered through supabase-js's wire format. */
function insightSpecs(meta: ScaleMeta, days: number): Spec[] {
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const rpcs: Spec[] = INSIGHT_RPCS.map((rpc) => ({
    name: `${rpc} ${days} d`,
    method: "POST",
    path: `/rest/v1/rpc/${rpc}`,
    body: JSON.stringify({ p_brand_id: meta.bigBrandId, p_from: from, p_to: to, ...(rpc === "insights_trend" ? { p_interval: "week" } : {}) }),
    check(_res, bytes) {
      const body = JSON.parse(new TextDecoder().decode(bytes));
      if (rpc === "insights_overview") {
        if (!(body.answers > 0)) throw new Error(`no answers: ${JSON.stringify(body).slice(0, 200)}`);
        return `${body.answers} answers, visibility ${(body.visibility_rate.value * 100).toFixed(1)} % (n ${body.visibility_rate.n}), change ${body.visibility_rate.change.verdict}`;
      }
      if (!Array.isArray(body) || !body.length) throw new Error(`no rows: ${JSON.stringify(body).slice(0, 200)}`);
      return `${body.length} rows`;
    },
  }));
  // Issue #32, target 3: the traffic report by week, a year against a month, beside the trend.
  const traffic: Spec = {
    name: `traffic report by week ${days} d`,
    method: "GET",
    path: `/api/brands/${meta.bigBrandId}/traffic?from=${from}&to=${to}&interval=week`,
    check(_res, bytes) {
      const body = JSON.parse(new TextDecoder().decode(bytes));
      if (!body.success || !(body.totals.visits > 0)) throw new Error(`no visits: ${JSON.stringify(body).slice(0, 200)}`);
      return `${body.totals.visits} visits, ${body.periods.length} weeks`;
    },
  };
  return [...rpcs, traffic];
}

/** Target 4: each insights RPC over 365 days ≤ 1.5× over 30 days, in the same run on the same server. */
async function target4(client: Client, meta: ScaleMeta): Promise<{ lines: string[]; rows: RatioReport[] }> {
  const month = await timeAll(client, insightSpecs(meta, 30));
  const year = await timeAll(client, insightSpecs(meta, 365));
  printTimings("1m", [...month, ...year]);
  const rows = month.map((m, i) => {
    const y = year[i]!;
    const valid = answered(m) && answered(y);
    return {
      name: `Target 4: ${m.spec.name.replace(/ 30 d$/, "")} over 365 days vs 30 days${valid ? "" : ` (failed: ${m.firstError ?? y.firstError})`}`,
      ours: median(y.times),
      baseline: median(m.times),
      unit: "ms",
      target: "≤ 1.5×",
      ok: valid && median(y.times) <= 1.5 * median(m.times),
    };
  });
  return { lines: [...month, ...year].map((t) => `  insights ${t.spec.name}: median ${ms(median(t.times))}, ${(t.bytes / 1024).toFixed(0)} KiB, ${t.firstError ? `FAILED: ${t.firstError}` : t.note}`), rows };
}

// ---- one scale ---------------------------------------------------------------------------------

interface ScaleRun {
  meta: ScaleMeta;
  timings: Timing[];
  startMs: number;
  fileBytes: number;
}

async function signedIn(server: RunningServer, anonKey: string, meta: ScaleMeta): Promise<Client> {
  let session: Session = await signIn(server.base, anonKey, meta.email, meta.password);
  return {
    base: server.base,
    async headers() {
      // A long run outlives the access token (JWT_EXPIRY): refreshed five minutes before it ends.
      if (performance.now() > session.expiresAt - 5 * 60_000) session = await refresh(server.base, anonKey, session);
      return { apikey: anonKey, authorization: `Bearer ${session.accessToken}` };
    },
  };
}

function printTimings(scale: string, timings: Timing[]): void {
  for (const t of timings) {
    const times = t.times;
    console.log(
      `  ${scale} ${t.spec.name.padEnd(34)} median ${ms(median(times)).padStart(10)}  min ${ms(Math.min(...times)).padStart(10)}  max ${ms(Math.max(...times)).padStart(10)}  ${times.length} runs  ${(t.bytes / 1024).toFixed(0)} KiB  ${statusText(t)}  ${t.firstError ? `FAILED: ${t.firstError}` : t.note}`,
    );
  }
}

async function sequentialP95(client: Client, path: string, budgetMs: number, withAuth: boolean): Promise<{ p95: number; median: number; n: number; failures: number }> {
  const times: number[] = [];
  let failures = 0;
  const started = performance.now();
  for (let i = 0; i < SAMPLES; i++) {
    const headers = withAuth ? await client.headers() : {};
    const t = performance.now();
    const res = await fetch(`${client.base}${path}`, { headers });
    await res.arrayBuffer();
    times.push(performance.now() - t);
    if (res.status !== 200) failures++;
    if (performance.now() - started > budgetMs && times.length >= 20) break;
  }
  return { p95: percentile(times, 95), median: median(times), n: times.length, failures };
}

async function target2(client: Client, heaviest: Timing): Promise<{ rows: RatioReport[]; lines: string[] }> {
  const lines: string[] = [];
  const idle = { health: await sequentialP95(client, "/healthz", LOAD_BUDGET_MS, false), read: await sequentialP95(client, SMALL_READ, LOAD_BUDGET_MS, true) };
  const spec = heaviest.spec;
  const loader = Bun.spawn([process.execPath, join(ROOT, "bench/scale/loader.ts")], {
    env: {
      ...Bun.env,
      LOAD_URL: `${client.base}${spec.path}`,
      LOAD_METHOD: spec.method,
      LOAD_HEADERS: JSON.stringify({ ...(await client.headers()), ...spec.headers, ...(spec.body ? { "content-type": "application/json" } : {}) }),
      LOAD_BODY: spec.body ?? "",
      CONCURRENCY: String(LOAD_CLIENTS),
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  await Bun.sleep(1000);
  let loaded;
  try {
    loaded = { health: await sequentialP95(client, "/healthz", LOAD_BUDGET_MS, false), read: await sequentialP95(client, SMALL_READ, LOAD_BUDGET_MS, true) };
  } finally {
    loader.kill("SIGTERM");
  }
  const exited = await within(loader.exited, 120_000);
  if (exited === null) loader.kill("SIGKILL");
  const loadStats = (await new Response(loader.stdout).text()).trim();
  lines.push(`  load: ${LOAD_CLIENTS} concurrent clients looping "${spec.name}" (another process): ${loadStats || "no report"}`);
  for (const [name, i, l] of [["/healthz", idle.health, loaded.health], [SMALL_READ, idle.read, loaded.read]] as const)
    lines.push(`  ${name}: idle p95 ${ms(i.p95)} (median ${ms(i.median)}, ${i.n} requests${i.failures ? `, ${i.failures} not 200` : ""}); under load p95 ${ms(l.p95)} (median ${ms(l.median)}, ${l.n} requests${l.failures ? `, ${l.failures} not 200` : ""})`);
  const rows: RatioReport[] = [
    { name: `Target 2: /healthz p95 under load vs idle (${HEAVY})`, ours: loaded.health.p95, baseline: idle.health.p95, unit: "ms", target: "≤ 3×", ok: loaded.health.p95 <= 3 * idle.health.p95 && loaded.health.failures === 0 },
    { name: `Target 2: small REST read p95 under load vs idle (${HEAVY})`, ours: loaded.read.p95, baseline: idle.read.p95, unit: "ms", target: "≤ 3×", ok: loaded.read.p95 <= 3 * idle.read.p95 && loaded.read.failures === 0 },
  ];
  return { rows, lines };
}

/** The newest-50 list against a bare Bun.serve sending its bytes: sequential latency, and bench/rest.ts's load client. */
async function baselineOfNewest(client: Client, timing: Timing): Promise<{ rows: RatioReport[]; lines: string[] }> {
  const first = await timeOne(client, timing.spec);
  const bodyFile = join(CACHE, "newest-50.body");
  writeFileSync(bodyFile, first.bytes);
  const port = String(freePort());
  const proc = Bun.spawn([process.execPath, join(ROOT, "bench/scale/baseline.ts")], {
    env: { ...Bun.env, PORT: port, BODY_FILE: bodyFile, CONTENT_TYPE: first.res.headers.get("content-type") ?? "application/json" },
    stdout: "ignore",
    stderr: "inherit",
  });
  const baseClient: Client = { base: `http://127.0.0.1:${port}`, headers: async () => ({}) };
  const baseSpec: Spec = { ...timing.spec, headers: {} };
  try {
    for (let i = 0; ; i++) {
      try {
        await fetch(`${baseClient.base}/`);
        break;
      } catch {
        if (i > 400) throw new Error("the baseline server did not come up");
        await Bun.sleep(25);
      }
    }
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < 3; i++) await timeOne(baseClient, baseSpec);
    for (let i = 0; i < Math.max(RUNS, 15); i++) {
      ours.push((await timeOne(client, timing.spec)).ms);
      const b = await timeOne(baseClient, baseSpec);
      if (b.bytes.length !== first.bytes.length) throw new Error("the baseline sent other bytes");
      base.push(b.ms);
    }
    // Throughput as bench/rest.ts measures it: fixed concurrency for a fixed time, alternating.
    const headers = await client.headers();
    const load = async (c: Client, h: Record<string, string>) => {
      let done = 0;
      const deadline = performance.now() + 2000;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (performance.now() < deadline) {
            const res = await fetch(`${c.base}${timing.spec.path}`, { headers: h });
            const body = await res.arrayBuffer();
            if (res.status !== 200 || body.byteLength !== first.bytes.length) throw new Error(`${c.base}: ${res.status}, ${body.byteLength} bytes`);
            done++;
          }
        }),
      );
      return done / ((performance.now() - started) / 1000);
    };
    const oursRps: number[] = [];
    const baseRps: number[] = [];
    for (let round = 0; round < 3; round++) {
      oursRps.push(await load(client, { ...headers, ...timing.spec.headers }));
      baseRps.push(await load(baseClient, {}));
    }
    const o = median(ours), b = median(base), orps = median(oursRps), brps = median(baseRps);
    return {
      lines: [`  newest 50 vs a bare Bun.serve with the same ${first.bytes.length} bytes: latency medians ${ms(o)} vs ${ms(b)} (${ours.length} alternating runs); 8 concurrent for 2 s × 3: ${oursRps.map((r) => r.toFixed(0)).join(", ")} vs ${baseRps.map((r) => r.toFixed(0)).join(", ")} req/s`],
      rows: [
        { name: "Target 1: newest 50 at 1.05M vs bare Bun.serve, latency", ours: o, baseline: b, unit: "ms", target: "≤ 5×", ok: o <= 5 * b },
        { name: "Target 1: newest 50 at 1.05M vs bare Bun.serve, throughput", ours: orps, baseline: brps, unit: "req/s", target: "≥ 0.2× (within 5×)", ok: orps >= 0.2 * brps },
      ],
    };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

/** Pages per table and index (dbstat), with the server stopped. */
function storage(dir: string, meta: ScaleMeta): { rows: RatioReport[]; lines: string[] } {
  const db = new Database(join(dir, DB_FILE), { readonly: true });
  const lines: string[] = [];
  try {
    const t = performance.now();
    const objects = db.query("SELECT name, tbl_name, type FROM sqlite_schema WHERE type IN ('table', 'index')").all() as { name: string; tbl_name: string; type: string }[];
    const tableOf = new Map(objects.map((o) => [o.name, o.tbl_name]));
    const pages = db.query("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as { name: string; bytes: number }[];
    const pageSize = (db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
    const freelist = (db.query("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
    // Counted: the two tables, the tables named like their companions (citation_urls*, *latest*,
    // *rollup*), and every table that triggers on them keep (result rollups).
    const tables = new Set(objects.filter((o) => o.type === "table").map((o) => o.name));
    const kept = new Set(["prompt_results", "citations"]);
    const triggers = db.query("SELECT tbl_name, sql FROM sqlite_schema WHERE type = 'trigger'").all() as { tbl_name: string; sql: string }[];
    for (let grew = true; grew; ) {
      grew = false;
      for (const trigger of triggers) {
        if (!kept.has(trigger.tbl_name)) continue;
        for (const m of trigger.sql.matchAll(/(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+"?(\w+)"?/gi))
          if (tables.has(m[1]!) && !kept.has(m[1]!)) {
            kept.add(m[1]!);
            grew = true;
          }
      }
    }
    // The brands' compression dictionaries (issue #32) are the answers' too.
    const byName = (table: string) => /^citation_urls/.test(table) || /latest/.test(table) || /rollup/.test(table) || table === "text_dictionaries";
    const counted = (table: string) => kept.has(table) || byName(table);
    let resultBytes = 0;
    let derivedBytes = 0;
    const countedList: string[] = [];
    const byTable = new Map<string, number>();
    for (const p of pages) {
      const table = tableOf.get(p.name) ?? (p.name.startsWith("sqlite_autoindex_") ? p.name.replace(/^sqlite_autoindex_(.*)_\d+$/, "$1") : p.name);
      byTable.set(table, (byTable.get(table) ?? 0) + p.bytes);
      if (counted(table)) {
        resultBytes += p.bytes;
        if (table !== "prompt_results" && table !== "citations" && !/^citation_urls/.test(table)) derivedBytes += p.bytes;
        countedList.push(`${p.name} ${mib(p.bytes)}`);
      }
    }
    const total = pages.reduce((a, p) => a + p.bytes, 0);
    lines.push(`  dbstat (${((performance.now() - t) / 1000).toFixed(1)} s): ${mib(total)} in pages, ${freelist} free pages of ${pageSize} B; file ${mib(fileBytes(dir))}`);
    const sortedTables = [...byTable].sort((a, b) => b[1] - a[1]);
    const small = sortedTables.filter(([, b]) => b < total / 1000);
    lines.push(`  by table (with its indexes): ${sortedTables.filter(([, b]) => b >= total / 1000).map(([n, b]) => `${n} ${mib(b)}`).join(", ")}; ${small.length} smaller tables ${mib(small.reduce((a, [, b]) => a + b, 0))}`);
    lines.push(`  counted for results: ${countedList.join(", ")}`);
    const perResult = resultBytes / meta.results;
    const plainPerResult = meta.plainTextBytes / meta.results;
    lines.push(`  of which latest table, rollups and dictionaries: ${(derivedBytes / meta.results).toFixed(0)} B a result`);
    lines.push(
      `  per result: ${perResult.toFixed(0)} B on disk vs ${plainPerResult.toFixed(0)} B plain text (answer ${(meta.answerBytes / meta.results).toFixed(0)} B + citations' urls and titles ${(meta.citationTextBytes / meta.results).toFixed(0)} B, ${(meta.citations / meta.results).toFixed(2)} citations a result)`,
    );
    // Issue #32, target 1: everything on disk (every table and index), and the rollups alone (running totals keyed by id, `_totals`, and their key lists included).
    const rollupBytes = sortedTables.filter(([n]) => ROLLUP_TABLES.has(n)).reduce((a, [, b]) => a + b, 0);
    lines.push(`  everything: ${(total / meta.results).toFixed(0)} B a result, of which rollups ${(rollupBytes / meta.results).toFixed(0)} B (issue #32: ≤ 1.0× the plain text, rollups ≤ 1,500 B)`);
    return {
      lines,
      rows: [
        { name: "Target 3: bytes on disk per result with its citations vs plain text (1.05M)", ours: perResult, baseline: plainPerResult, unit: "B", target: "≤ 0.35×", ok: perResult <= 0.35 * plainPerResult },
        { name: "Issue #32 target 1: bytes on disk per result, everything, vs plain text (1.05M)", ours: total / meta.results, baseline: plainPerResult, unit: "B", target: "≤ 1.0× and rollups ≤ 1,500 B", ok: total <= meta.plainTextBytes && rollupBytes / meta.results <= 1500 },
      ],
    };
  } finally {
    db.close();
  }
}

// ---- main --------------------------------------------------------------------------------------

const key = cacheKey();
const runs = new Map<string, ScaleRun>();
const reports: RatioReport[] = [];
const extra: string[] = [];
const benchStarted = performance.now();
// GENERATE_ONLY=1 builds (or finds) the cached worlds and stops: generation can run ahead of the benchmark.
if (Bun.env.GENERATE_ONLY === "1") {
  for (const scale of SCALE_NAMES) await ensureScale(scale, key);
  process.exit(0);
}
for (const scale of SCALE_NAMES) {
  const meta = await ensureScale(scale, key);
  const dir = join(CACHE, scale);
  const secrets = await ensureSecrets(loadConfig({ DATA_DIR: dir, HOST: "127.0.0.1", LOG_LEVEL: "silent" }));
  const measureStarted = performance.now();
  const server = await startServer(dir);
  let timings: Timing[];
  try {
    const client = await signedIn(server, secrets.anonKey, meta);
    // ONLY=insights times the insights RPCs alone (target 4).
    if (Bun.env.ONLY === "insights") {
      if (scale === HEAVY) {
        const t4 = await target4(client, meta);
        extra.push("1m insights:", ...t4.lines);
        reports.push(...t4.rows);
      }
      continue;
    }
    timings = await timeAll(client, specs(meta));
    console.log(
      `${scale}: ${meta.results.toLocaleString("en")} results (big brand ${meta.bigBrandResults.toLocaleString("en")} over ${meta.days} days), ${meta.citations.toLocaleString("en")} citations, ${meta.trafficRows.toLocaleString("en")} traffic rows; database ${mib(fileBytes(dir))}; server up in ${server.startMs.toFixed(0)} ms`,
    );
    printTimings(scale, timings);
    runs.set(scale, { meta, timings, startMs: server.startMs, fileBytes: fileBytes(dir) });
    if (scale === HEAVY) {
      const newest = timings.find((t) => t.spec.name.startsWith("3 "))!;
      extra.push("1m baseline and load:");
      if (answered(newest)) {
        const b = await baselineOfNewest(client, newest);
        extra.push(...b.lines);
        reports.push(...b.rows);
      }
      const heaviest = timings.reduce((a, b) => (median(b.times) > median(a.times) ? b : a));
      const t2 = await target2(client, heaviest);
      extra.push(...t2.lines);
      reports.push(...t2.rows);
      const t4 = await target4(client, meta);
      extra.push("1m insights:", ...t4.lines);
      reports.push(...t4.rows);
    }
  } finally {
    await server.stop();
  }
  // Storage at every scale (the target is the 1.05M one's), read with the server stopped.
  const s = storage(dir, meta);
  extra.push(`${scale} storage:`, ...s.lines);
  if (scale === "1m") reports.push(...s.rows);
  console.log(`${scale}: measured in ${((performance.now() - measureStarted) / 1000).toFixed(0)} s`);
}

console.log("");
for (const [scale, run] of runs) {
  const m = run.meta;
  console.log(
    `${scale}: generated in ${m.generationSeconds.toFixed(0)} s; plain text ${(m.plainTextBytes / m.results).toFixed(0)} B a result; generated answers (sample of ${m.textSample.answers}): zstd-3 each ${m.textSample.zstd3Each.toFixed(3)}×, zstd-19 together ${m.textSample.zstd19Together.toFixed(3)}×; file ${mib(run.fileBytes)}`,
  );
}
for (const line of extra) console.log(line);

const small = runs.get("10k");
const large = runs.get("1m");
const mid = runs.get("100k");
if (small && large) {
  for (const [i, l] of large.timings.entries()) {
    const s = small.timings[i]!;
    const valid = answered(s) && answered(l);
    reports.splice(i, 0, {
      name: `Target 1: ${l.spec.name} at 1.05M vs 10k${valid ? "" : ` (failed: 10k ${statusText(s)}, 1.05M ${statusText(l)})`}`,
      ours: median(l.times),
      baseline: median(s.times),
      unit: "ms",
      target: "≤ 1.5×",
      ok: valid && median(l.times) <= 1.5 * median(s.times),
    });
  }
} else console.log("Target 1: needs the 10k and 1m scales in one run (SCALES); skipped");
if (small && mid)
  for (const [i, m] of mid.timings.entries()) {
    const s = small.timings[i]!;
    console.log(`context: ${m.spec.name} at 100k vs 10k: ${ms(median(m.times))} vs ${ms(median(s.times))} = ${(median(m.times) / median(s.times)).toFixed(2)}×`);
  }
if (!large) console.log("Targets 2 and 3: need the 1m scale (SCALES); skipped");
report(reports);
console.log(`bench/scale.ts: ${((performance.now() - benchStarted) / 1000).toFixed(0)} s in all`);
