// Requests per second of the seed's list call — GET /rest/v1/brands?select=*,brand_domains(*),competitors(*)
// with a page of 50, for an organization with 200 brands × 3 domains × 5 competitors — against a bare
// Bun.serve returning the same bytes. Both servers run as their own processes on loopback; the same
// bounded load generator (fixed concurrency, fixed duration) drives each, alternating, in one run.
// Target: ≥ 0.25×. answerwatch runs with its defaults, so a repeated read is answered from the
// response cache (exact: dropped on any database write); for context a second answerwatch on a
// copy of the database with REST_CACHE_MB=0 shows what each request costs when computed from SQLite.
import { Database } from "bun:sqlite";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { ensureSecrets } from "../src/secrets";
import { freePort, median, report, responseJson, ROOT, tempDir, waitFor } from "./lib";

const CONCURRENCY = Number(Bun.env.CONCURRENCY ?? 32);
const SECONDS = Number(Bun.env.SECONDS ?? 2);
const ROUNDS = Number(Bun.env.ROUNDS ?? 3);
const LIST = "/rest/v1/brands?select=*,brand_domains(*),competitors(*)&limit=50";

/** Fixed concurrency for a fixed time; every response is read to the end. Returns requests per second. */
async function load(url: string, headers: Record<string, string>, expectedBytes: number): Promise<number> {
  let done = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const res = await fetch(url, { headers });
        const body = await res.arrayBuffer();
        if (res.status !== 200 || body.byteLength !== expectedBytes) throw new Error(`${url}: ${res.status}, ${body.byteLength} bytes`);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

// ---- answerwatch, seeded through its own REST API ----
const dataDir = tempDir("aw-bench-rest-");
const env = { DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: String(freePort()), LOG_LEVEL: "silent", WORKERS: "1" };
const secrets = await ensureSecrets(loadConfig(env));
const ours = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), "serve"], { env: { ...Bun.env, ...env }, stdout: "ignore", stderr: "inherit" });
const base = `http://127.0.0.1:${env.PORT}`;
await waitFor(`${base}/healthz`);

const session = await responseJson(
  await fetch(`${base}/auth/v1/signup`, {
    method: "POST",
    headers: { apikey: secrets.anonKey, "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.com", password: "correct-horse", data: { organization_name: "Bench" } }),
  }),
);
const auth = { apikey: secrets.anonKey, authorization: `Bearer ${session.access_token}` };
const post = (table: string, rows: unknown[]) =>
  fetch(`${base}/rest/v1/${table}?select=id`, { method: "POST", headers: { ...auth, "content-type": "application/json", prefer: "return=representation" }, body: JSON.stringify(rows) }).then(responseJson);
const [{ id: orgId }] = await responseJson(await fetch(`${base}/rest/v1/organizations?select=id`, { headers: auth }));
const brands: { id: string }[] = await post(
  "brands",
  Array.from({ length: 200 }, (_, i) => ({ organization_id: orgId, name: `Brand ${i}`, slug: `brand-${i}`, industry: "Software", region: "US", language: "en", aliases: [`B${i}`] })),
);
await post("brand_domains", brands.flatMap((b, i) => [0, 1, 2].map((j) => ({ brand_id: b.id, domain: `brand-${i}-${j}.example.com`, is_primary: j === 0 }))));
await post("competitors", brands.flatMap((b, i) => [0, 1, 2, 3, 4].map((j) => ({ brand_id: b.id, name: `Rival ${i}.${j}`, domain: `rival-${i}-${j}.example.com`, aliases: [`R${j}`] }))));

const sample = await fetch(`${base}${LIST}`, { headers: auth });
const bytes = new Uint8Array(await sample.arrayBuffer());
const listed = JSON.parse(new TextDecoder().decode(bytes));
if (listed.length !== 50 || listed[0].brand_domains.length !== 3 || listed[0].competitors.length !== 5) throw new Error("unexpected list response");

// ---- the same server without its response cache, on a copy of the database (context) ----
// A DATA_DIR is held by one server at a time: the second one gets a snapshot of the same data and secrets.
const uncachedDir = tempDir("aw-bench-rest-uncached-");
const snapshot = new Database(join(dataDir, "answerwatch.db"), { readonly: true });
snapshot.run(`VACUUM INTO '${join(uncachedDir, "answerwatch.db").replaceAll("'", "''")}'`);
snapshot.close();
copyFileSync(join(dataDir, "secrets.json"), join(uncachedDir, "secrets.json"));
const uncachedPort = String(freePort());
const uncached = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), "serve"], {
  env: { ...Bun.env, ...env, DATA_DIR: uncachedDir, PORT: uncachedPort, REST_CACHE_MB: "0" },
  stdout: "ignore",
  stderr: "inherit",
});
const uncachedBase = `http://127.0.0.1:${uncachedPort}`;
await waitFor(`${uncachedBase}/healthz`);

// ---- the baseline: a bare Bun.serve answering the same bytes ----
const bodyFile = join(dataDir, "body.json");
writeFileSync(bodyFile, bytes);
const baselineScript = join(dataDir, "baseline.ts");
writeFileSync(
  baselineScript,
  `const body = await Bun.file(${JSON.stringify(bodyFile)}).bytes();
Bun.serve({ port: Number(Bun.env.PORT), hostname: "127.0.0.1", fetch: () => new Response(body, { headers: { "content-type": ${JSON.stringify(sample.headers.get("content-type"))} } }) });`,
);
const baselinePort = String(freePort());
const baseline = Bun.spawn([process.execPath, baselineScript], { env: { ...Bun.env, PORT: baselinePort }, stdout: "ignore", stderr: "inherit" });
await waitFor(`http://127.0.0.1:${baselinePort}/`);

try {
  const oursRps: number[] = [];
  const baselineRps: number[] = [];
  const uncachedRps: number[] = [];
  await load(`${base}${LIST}`, auth, bytes.length); // warm-up
  await load(`http://127.0.0.1:${baselinePort}/`, {}, bytes.length);
  await load(`${uncachedBase}${LIST}`, auth, bytes.length);
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate so drift on a shared machine hits both sides alike.
    oursRps.push(await load(`${base}${LIST}`, auth, bytes.length));
    baselineRps.push(await load(`http://127.0.0.1:${baselinePort}/`, {}, bytes.length));
    uncachedRps.push(await load(`${uncachedBase}${LIST}`, auth, bytes.length));
  }
  const o = median(oursRps);
  const b = median(baselineRps);
  const u = median(uncachedRps);
  console.log(`response: ${bytes.length} bytes, ${CONCURRENCY} concurrent, ${ROUNDS} × ${SECONDS} s each`);
  console.log(`rounds: answerwatch ${oursRps.map((r) => r.toFixed(0)).join(", ")} req/s; baseline ${baselineRps.map((r) => r.toFixed(0)).join(", ")} req/s; without the response cache ${uncachedRps.map((r) => r.toFixed(0)).join(", ")} req/s`);
  report([{ name: "GET brands with 2 embeds, page of 50", ours: o, baseline: b, unit: "req/s", target: "≥ 0.25×", ok: o / b >= 0.25 }]);
  console.log(`context: without the response cache (REST_CACHE_MB=0) ${u.toFixed(0)} req/s = ${(u / b).toFixed(2)}× the baseline`);
} finally {
  for (const proc of [ours, uncached, baseline]) proc.kill("SIGTERM");
  await Promise.all([ours.exited, uncached.exited, baseline.exited]);
}
