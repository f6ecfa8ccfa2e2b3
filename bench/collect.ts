// Requests per second of POST /t/collect with valid AI beacons (each answered only after its batch
// committed) against a bare Bun.serve answering 204, both as separate processes on loopback and
// driven by the same bounded load generator with the same request bytes, rounds alternating.
// Target: ≥ 0.5×. The answerwatch side is the compiled binary at LOG_LEVEL=warn (no access log
// line per beacon). For context it also measures the cheapest answer the same server gives through
// its shared request wrapper and router — GET /t.js revalidated (304, no body, no database) — the
// ceiling for any route — and the floor of any durable beacon endpoint: bench/fixtures/insert-floor.ts
// only parses each beacon and inserts it, group-committed, with no validation at all; and the floor
// of any beacon endpoint that reads its beacon: bench/fixtures/minimal-beacon.ts reads the body,
// parses it and its two URLs and answers 204, storing nothing. Requests per second swing with
// whatever else the machine does, so each server's CPU time per request (from /proc) is printed
// too: it is what decides the ratio when the load generator and the server share two cores.
// ROUNDS, REQUESTS and CONNECTIONS tune it.
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../src/database";
import { loadavg } from "node:os";
import { join } from "node:path";
import { startBinary } from "../tests/helpers/binary";
import { CHROME_UA, beaconJson, forwardedFor, seedBrand } from "../tests/pixel/fixtures";
import { rawRequest, runLoad, type LoadResult } from "../tests/pixel/load";
import { freePort, median, processCpu, report, ROOT, tempDir } from "./lib";

const ROUNDS = Math.min(Number(Bun.env.ROUNDS ?? 5), 20);
const REQUESTS = Math.min(Number(Bun.env.REQUESTS ?? 30_000), 200_000);
const CONNECTIONS = Math.min(Number(Bun.env.CONNECTIONS ?? 64), 256);
// Distinct forwarded addresses, so the per-address rate limit (600/min) never trips.
const ADDRESSES = 4096;

async function startBare(): Promise<{ url: string; pid: number; stop: () => void }> {
  const port = freePort();
  const proc = Bun.spawn(
    [process.execPath, "-e", `Bun.serve({ port: ${port}, hostname: "127.0.0.1", fetch: () => new Response(null, { status: 204 }) }); console.log("ready");`],
    { stdout: "pipe", stderr: "inherit" },
  );
  const reader = proc.stdout.getReader();
  await reader.read();
  return { url: `http://127.0.0.1:${port}`, pid: proc.pid, stop: () => proc.kill() };
}

/** A fixture server that prints its port: insert-floor.ts or minimal-beacon.ts. */
async function startFixture(file: string, env: Record<string, string> = {}): Promise<{ url: string; pid: number; stop: () => void }> {
  const proc = Bun.spawn([process.execPath, `${ROOT}bench/fixtures/${file}`], { env: { ...Bun.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const port = Number(new TextDecoder().decode((await proc.stdout.getReader().read()).value).trim());
  return { url: `http://127.0.0.1:${port}`, pid: proc.pid, stop: () => proc.kill() };
}

const ours = await startBinary({ LOG_LEVEL: "warn", WORKERS: "1" });
const bare = await startBare();
const floor = await startFixture("insert-floor.ts", { FLOOR_DB: join(tempDir("aw-floor-"), "floor.db") });
const minimal = await startFixture("minimal-beacon.ts");
const db = new Database(join(ours.dir, "data", "answerwatch.db"));
registerSqlFunctions(db);
const brand = seedBrand(db, { domains: ["acme.com"] });

// One request per forwarded address, built once: both servers get the very same bytes.
const requests = Array.from({ length: ADDRESSES }, (_, i) =>
  rawRequest(
    "POST",
    `${ours.url}/t/collect`,
    { origin: "https://www.acme.com", "user-agent": CHROME_UA, "content-type": "text/plain;charset=UTF-8", "x-forwarded-for": forwardedFor(i) },
    beaconJson({ brand: brand.trackingCode, url: "https://www.acme.com/pricing?utm_source=chatgpt.com", referrer: "https://chatgpt.com/" }),
  ),
);
const load = (url: string, total: number) => runLoad({ url, total, connections: CONNECTIONS, request: (i) => requests[i % ADDRESSES] });
const etag = (await fetch(`${ours.url}/t.js`)).headers.get("etag")!;
const revalidate = rawRequest("GET", `${ours.url}/t.js`, { "if-none-match": etag, "user-agent": CHROME_UA });
const loadRevalidated = (total: number) => runLoad({ url: ours.url, total, connections: CONNECTIONS, request: () => revalidate });

function check(result: LoadResult, label: string, status = 204) {
  const ok = result.statuses[status] ?? 0;
  if (ok !== result.total) throw new Error(`${label}: expected ${result.total} × ${status}, got ${JSON.stringify(result.statuses)} and ${result.errors} errors`);
}

interface Target {
  label: string;
  pid: number;
  run: (total: number) => Promise<LoadResult>;
  status: number;
  rps: number[];
  cpu: { main: number[]; all: number[] };
  generator: number[];
}
const target = (label: string, pid: number, run: Target["run"], status = 204): Target => ({ label, pid, run, status, rps: [], cpu: { main: [], all: [] }, generator: [] });
const targets = {
  ours: target("/t/collect", ours.proc.pid, (n) => load(ours.url, n)),
  bare: target("bare 204", bare.pid, (n) => load(bare.url, n)),
  script: target("/t.js 304", ours.proc.pid, loadRevalidated, 304),
  minimal: target("minimal beacon", minimal.pid, (n) => load(minimal.url, n)),
  floor: target("parse+insert floor", floor.pid, (n) => load(floor.url, n)),
};

async function measure(t: Target, total: number): Promise<void> {
  const before = processCpu(t.pid);
  const generatorBefore = process.cpuUsage();
  const result = await t.run(total);
  const after = processCpu(t.pid);
  const generator = process.cpuUsage(generatorBefore);
  check(result, t.label, t.status);
  t.rps.push(result.perSecond);
  t.cpu.main.push(((after.main - before.main) * 1000) / total);
  t.cpu.all.push(((after.all - before.all) * 1000) / total);
  t.generator.push((generator.user + generator.system) / total);
}

let sent = 0;
// Both sides share the machine with whatever else runs: say how busy it was.
console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
try {
  // Warm every server (JIT, caches, connections) before measuring.
  for (const t of Object.values(targets)) check(await t.run(5000), `warm-up ${t.label}`, t.status);
  sent += 5000;
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of Object.values(targets)) await measure(t, REQUESTS);
    sent += REQUESTS;
    console.log(`round ${round + 1}: ${Object.values(targets).map((t) => `${t.label} ${t.rps.at(-1)!.toFixed(0)} req/s`).join(", ")}`);
  }
  const rows = (db.query("SELECT count(*) AS n FROM ai_traffic_logs WHERE source_platform = 'ChatGPT'").get() as { n: number }).n;
  console.log(`rows written: ${rows} of ${sent} beacons answered 204; ${CONNECTIONS} connections, ${REQUESTS} requests per round`);
  const o = median(targets.ours.rps);
  const b = median(targets.bare.rps);
  report([{ name: "POST /t/collect (valid AI beacons) vs bare Bun.serve 204", ours: o, baseline: b, unit: "req/s", target: "≥ 0.5×", ok: o / b >= 0.5 }]);
  for (const t of [targets.script, targets.minimal, targets.floor]) {
    const r = median(t.rps);
    console.log(`context: ${t.label} ${r.toFixed(0)} req/s = ${(r / b).toFixed(2)}× bare; /t/collect is ${(o / r).toFixed(2)}× of it`);
  }
  console.log("context: CPU per request (µs, medians): serving thread / whole process / load generator");
  for (const t of Object.values(targets)) {
    console.log(`  ${t.label.padEnd(20)} ${median(t.cpu.main).toFixed(1).padStart(6)} / ${median(t.cpu.all).toFixed(1).padStart(6)} / ${median(t.generator).toFixed(1).padStart(6)}`);
  }
} finally {
  db.close();
  ours.proc.kill("SIGTERM");
  await ours.proc.exited;
  bare.stop();
  floor.stop();
  minimal.stop();
}
