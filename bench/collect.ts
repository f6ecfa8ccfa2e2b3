// Requests per second of POST /t/collect with valid AI beacons (each answered only after its batch
// committed) against a bare Bun.serve answering 204, both as separate processes on loopback and
// driven by the same bounded load generator with the same request bytes, rounds alternating.
// Target: ≥ 0.5×. The answerwatch side is the compiled binary at LOG_LEVEL=warn (no access log
// line per beacon). For context it also measures the cheapest answer the same server gives through
// its shared request wrapper and router — GET /t.js revalidated (304, no body, no database) — the
// ceiling for any route — and the floor of any durable beacon endpoint: bench/fixtures/insert-floor.ts
// only parses each beacon and inserts it, group-committed, with no validation at all.
// ROUNDS, REQUESTS and CONNECTIONS tune it.
import { Database } from "bun:sqlite";
import { loadavg } from "node:os";
import { join } from "node:path";
import { startBinary } from "../tests/helpers/binary";
import { CHROME_UA, beaconJson, forwardedFor, seedBrand } from "../tests/pixel/fixtures";
import { rawRequest, runLoad, type LoadResult } from "../tests/pixel/load";
import { freePort, median, report, ROOT, tempDir } from "./lib";

const ROUNDS = Math.min(Number(Bun.env.ROUNDS ?? 5), 20);
const REQUESTS = Math.min(Number(Bun.env.REQUESTS ?? 30_000), 200_000);
const CONNECTIONS = Math.min(Number(Bun.env.CONNECTIONS ?? 64), 256);
// Distinct forwarded addresses, so the per-address rate limit (600/min) never trips.
const ADDRESSES = 4096;

async function startBare(): Promise<{ url: string; stop: () => void }> {
  const port = freePort();
  const proc = Bun.spawn(
    [process.execPath, "-e", `Bun.serve({ port: ${port}, hostname: "127.0.0.1", fetch: () => new Response(null, { status: 204 }) }); console.log("ready");`],
    { stdout: "pipe", stderr: "inherit" },
  );
  const reader = proc.stdout.getReader();
  await reader.read();
  return { url: `http://127.0.0.1:${port}`, stop: () => proc.kill() };
}

async function startFloor(): Promise<{ url: string; stop: () => void }> {
  const proc = Bun.spawn([process.execPath, `${ROOT}bench/fixtures/insert-floor.ts`], { env: { ...Bun.env, FLOOR_DB: join(tempDir("aw-floor-"), "floor.db") }, stdout: "pipe", stderr: "inherit" });
  const port = Number(new TextDecoder().decode((await proc.stdout.getReader().read()).value).trim());
  return { url: `http://127.0.0.1:${port}`, stop: () => proc.kill() };
}

const ours = await startBinary({ LOG_LEVEL: "warn", WORKERS: "1" });
const bare = await startBare();
const floor = await startFloor();
const db = new Database(join(ours.dir, "data", "answerwatch.db"));
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
const loadFloor = (total: number) => runLoad({ url: ours.url, total, connections: CONNECTIONS, request: () => revalidate });

function check(result: LoadResult, label: string, status = 204) {
  const ok = result.statuses[status] ?? 0;
  if (ok !== result.total) throw new Error(`${label}: expected ${result.total} × ${status}, got ${JSON.stringify(result.statuses)} and ${result.errors} errors`);
}

let sent = 0;
// Both sides share the machine with whatever else runs: say how busy it was.
console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
try {
  // Warm both (JIT, caches, connections) before measuring.
  check(await load(ours.url, 5000), "warm-up");
  check(await load(bare.url, 5000), "warm-up bare");
  sent += 5000;
  check(await loadFloor(5000), "warm-up /t.js", 304);
  const oursRps: number[] = [];
  const bareRps: number[] = [];
  const floorRps: number[] = [];
  const insertFloorRps: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = await load(ours.url, REQUESTS);
    check(a, "answerwatch");
    sent += REQUESTS;
    const b = await load(bare.url, REQUESTS);
    check(b, "bare");
    const f = await loadFloor(REQUESTS);
    check(f, "GET /t.js 304", 304);
    const i = await load(floor.url, REQUESTS);
    check(i, "insert floor");
    insertFloorRps.push(i.perSecond);
    oursRps.push(a.perSecond);
    bareRps.push(b.perSecond);
    floorRps.push(f.perSecond);
    console.log(`round ${round + 1}: /t/collect ${a.perSecond.toFixed(0)} req/s, bare 204 ${b.perSecond.toFixed(0)} req/s, /t.js 304 ${f.perSecond.toFixed(0)} req/s, parse+insert floor ${i.perSecond.toFixed(0)} req/s`);
  }
  const rows = (db.query("SELECT count(*) AS n FROM ai_traffic_logs WHERE source_platform = 'ChatGPT'").get() as { n: number }).n;
  console.log(`rows written: ${rows} of ${sent} beacons answered 204; ${CONNECTIONS} connections, ${REQUESTS} requests per round`);
  const o = median(oursRps);
  const b = median(bareRps);
  const f = median(floorRps);
  report([{ name: "POST /t/collect (valid AI beacons) vs bare Bun.serve 204", ours: o, baseline: b, unit: "req/s", target: "≥ 0.5×", ok: o / b >= 0.5 }]);
  console.log(`context: GET /t.js 304 through the same server ${f.toFixed(0)} req/s = ${(f / b).toFixed(2)}× bare (the request wrapper and router alone); /t/collect is ${(o / f).toFixed(2)}× of that`);
  const fl = median(insertFloorRps);
  console.log(`context: parse + group-committed insert and nothing else ${fl.toFixed(0)} req/s = ${(fl / b).toFixed(2)}× bare; /t/collect is ${(o / fl).toFixed(2)}× of that`);
} finally {
  db.close();
  ours.proc.kill("SIGTERM");
  await ours.proc.exited;
  bare.stop();
  floor.stop();
}
