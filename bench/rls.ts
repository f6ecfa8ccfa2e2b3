// Row-level security in PostgreSQL (issue #30, acceptance 3, first two figures), Postgres beside
// SQLite in one run, each figure a ratio against a baseline measured in the same run. Two real
// servers (src/main.ts serve, REST response cache off): one on a SQLite DATA_DIR, one on a
// throwaway PostgreSQL cluster (tests/helpers/postgres.ts). On each, one user owns an organization
// of BRANDS brands (2 domains and 2 competitors each), written with the service key's bulk inserts.
//   1. Uncached `/rest/v1` list with 2 embeds, as the owner (brands, their domains and competitors,
//      PAGE rows): requests per second, sequential, medians of ROUNDS alternating rounds. Target:
//      Postgres ≥ SQLite.
//   2. Policy cost per request on Postgres at BRANDS brands, two ways: (a) through the server, the
//      same list as the owner (the database's policies apply: policies.pg.ts) against the service
//      role (it passes every policy), median latency — this difference also holds the owner's
//      organizations being looked up for the claims, which the service key skips; (b) in the
//      database alone, the list's statement (its shape as the planner writes it: brands ordered,
//      each with its domains and competitors as JSON) run as `authenticated` with the owner's claims
//      against `service_role`, medians of STATEMENTS runs in one transaction each. Target ≤ 1 ms.
//   3. /healthz under insights load on Postgres: a third server on a database of its own holding
//      bench/postgres.ts's world at INSIGHTS_SCALE (bench/scale/world.pg.ts), its owner signed in.
//      Each insights RPC of the big brand (default window) is timed and the slowest is "the
//      heaviest"; /healthz p95 of HEALTH sequential requests idle, then while 4 clients loop the
//      heaviest RPC. Target: ≤ 3× idle.
// Knobs: BRANDS=1000  PAGE=50  REQUESTS=300  ROUNDS=3  STATEMENTS=200  INSIGHTS_SCALE=10k  HEALTH=300
import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { testPostgres } from "../tests/helpers/postgres";
import { cliWith } from "./crawlers";
import { median, percentile, report, tempDir, type RatioReport } from "./lib";
import { INSIGHT_RPCS } from "../src/insights/rpc";
import { buildPgWorld } from "./scale/world.pg";
import { json, signUp, startServer, type RunningServer } from "./scale/server";

const BRANDS = Math.min(Number(Bun.env.BRANDS ?? 1000), 20_000);
const PAGE = Math.min(Number(Bun.env.PAGE ?? 50), 1000);
const REQUESTS = Math.min(Number(Bun.env.REQUESTS ?? 300), 100_000);
const ROUNDS = Math.min(Number(Bun.env.ROUNDS ?? 3), 20);
const STATEMENTS = Math.min(Number(Bun.env.STATEMENTS ?? 200), 10_000);
const INSIGHTS_SCALE = Bun.env.INSIGHTS_SCALE ?? "10k";
const HEALTH = Math.min(Number(Bun.env.HEALTH ?? 300), 10_000);
const LOOPING_CLIENTS = 4;
const LIST = `/rest/v1/brands?select=id,name,brand_domains(domain),competitors(name)&order=name&limit=${PAGE}`;

interface Side {
  name: "SQLite" | "Postgres";
  server: RunningServer;
  anon: string;
  service: string;
  owner: string;
}

async function side(name: Side["name"], databaseUrl: string | null): Promise<Side> {
  const dataDir = tempDir(`aw-bench-rls-${name.toLowerCase()}-`);
  const env: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : {};
  const server = await startServer(dataDir, 120_000, env);
  const keys = Object.fromEntries(cliWith(env, dataDir, "keys").trim().split("\n").map((l) => l.split("=") as [string, string]));
  const anon = keys.ANON_KEY!;
  const service = keys.SERVICE_ROLE_KEY!;
  const { session } = await signUp(server.base, anon, `owner-${name.toLowerCase()}@example.com`, "correct-horse-battery", "Agency");
  const headers = (token: string) => ({ apikey: anon, authorization: `Bearer ${token}`, "content-type": "application/json" });
  const [org] = await json(await fetch(`${server.base}/rest/v1/organizations?select=id`, { headers: headers(session.accessToken) }));
  // The brands in batches of 500 through the service key's bulk insert, then their domains and competitors.
  for (let start = 0; start < BRANDS; start += 500) {
    const rows = Array.from({ length: Math.min(500, BRANDS - start) }, (_, i) => ({ organization_id: org.id, name: `Brand ${start + i}`, slug: `brand-${start + i}` }));
    const brands = await json(await fetch(`${server.base}/rest/v1/brands?select=id`, { method: "POST", headers: { ...headers(service), prefer: "return=representation" }, body: JSON.stringify(rows) }));
    const children = (make: (brand: string, n: number) => object) => brands.flatMap((b: { id: string }, i: number) => [make(b.id, 2 * (start + i)), make(b.id, 2 * (start + i) + 1)]);
    for (const [table, make] of [
      ["brand_domains", (brand: string, n: number) => ({ brand_id: brand, domain: `d${n}.example.com` })],
      ["competitors", (brand: string, n: number) => ({ brand_id: brand, name: `Rival ${n}` })],
    ] as const) {
      const res = await fetch(`${server.base}/rest/v1/${table}`, { method: "POST", headers: { ...headers(service), prefer: "return=minimal" }, body: JSON.stringify(children(make)) });
      if (res.status !== 201) throw new Error(`${name} ${table}: ${res.status} ${await res.text()}`);
    }
  }
  // Statistics as autovacuum (Postgres) or an operator's ANALYZE (SQLite) would have them by now:
  // right after bulk inserts Postgres still plans for empty tables.
  if (databaseUrl) {
    const sql = new SQL(databaseUrl, { max: 1 });
    await sql`ANALYZE`;
    await sql.close();
  } else {
    const db = new Database(join(dataDir, "answerwatch.db"));
    db.run("ANALYZE");
    db.close();
  }
  return { name, server, anon, service, owner: session.accessToken };
}

/** `REQUESTS` sequential GETs of the list as `token`: each one's latency (ms). */
async function loop(s: Side, token: string): Promise<number[]> {
  const times: number[] = [];
  const headers = { apikey: s.anon, authorization: `Bearer ${token}` };
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const res = await fetch(`${s.server.base}${LIST}`, { headers });
    const rows = (await res.json()) as unknown[];
    if (res.status !== 200 || rows.length !== Math.min(PAGE, BRANDS)) throw new Error(`${s.name}: ${res.status} ${JSON.stringify(rows).slice(0, 200)}`);
    times.push(performance.now() - started);
  }
  return times;
}

const pg = await testPostgres();
if (!pg) throw new Error("bench/rls.ts needs PostgreSQL (TEST_DATABASE_URL or the machine's binaries)");
const databaseUrl = await pg.createDatabase("bench_rls");
const sides = [await side("SQLite", null), await side("Postgres", databaseUrl)];

/** 2b: the list's statement in the database alone, as `authenticated` with the owner's claims and as `service_role`: medians (ms). */
async function statementCost(): Promise<{ owner: number; service: number }> {
  const sql = new SQL(databaseUrl, { max: 1 });
  try {
    const [member] = await sql`SELECT user_id, organization_id FROM organization_members WHERE role = 'owner' LIMIT 1`;
    const statement = `SELECT b.id, b.name,
        (SELECT coalesce(json_agg(json_build_object('domain', d.domain)), '[]') FROM brand_domains d WHERE d.brand_id = b.id) AS brand_domains,
        (SELECT coalesce(json_agg(json_build_object('name', c.name)), '[]') FROM competitors c WHERE c.brand_id = b.id) AS competitors
      FROM brands b ORDER BY b.name LIMIT ${PAGE}`;
    const time = async (role: string, claims: object) => {
      const times: number[] = [];
      for (let i = 0; i < STATEMENTS; i++)
        await sql.begin(async (tx) => {
          await tx`SELECT set_config('role', ${role}, true), set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
          const started = performance.now();
          const rows = await tx.unsafe(statement);
          times.push(performance.now() - started);
          if (rows.length !== Math.min(PAGE, BRANDS)) throw new Error(`${role}: ${rows.length} rows`);
        });
      return median(times.slice(Math.floor(STATEMENTS / 10)));
    };
    const ownerClaims = { sub: member.user_id, role: "authenticated", aw_org_roles: { [member.organization_id]: "owner" } };
    return { owner: await time("authenticated", ownerClaims), service: await time("service_role", { role: "service_role" }) };
  } finally {
    await sql.close();
  }
}
/** 3: /healthz p95 idle and while LOOPING_CLIENTS clients loop the heaviest insights RPC, on a world of its own. */
async function healthUnderInsights(): Promise<RatioReport> {
  const url = await pg!.createDatabase("bench_rls_insights");
  const dataDir = tempDir("aw-bench-rls-insights-");
  const env = { DATABASE_URL: url };
  const server = await startServer(dataDir, 120_000, env);
  const sql = new SQL(url, { max: 3 });
  try {
    const keys = Object.fromEntries(cliWith(env, dataDir, "keys").trim().split("\n").map((l) => l.split("=") as [string, string]));
    const { session, userId } = await signUp(server.base, keys.ANON_KEY!, "insights-owner@example.com", "correct-horse-battery", "Insights");
    const meta = await buildPgWorld(sql, INSIGHTS_SCALE, userId, { load: "rebuild", batch: 2000 });
    const headers = { apikey: keys.ANON_KEY!, authorization: `Bearer ${session.accessToken}`, "content-type": "application/json" };
    const [rival] = await sql`SELECT id FROM competitors WHERE brand_id = ${meta.bigBrandId} LIMIT 1`;
    const call = async (name: string) => {
      const args = { p_brand_id: meta.bigBrandId, ...(INSIGHT_RPCS[name]!.params.includes("p_competitor_id") ? { p_competitor_id: rival.id } : {}) };
      const res = await fetch(`${server.base}/rest/v1/rpc/${name}`, { method: "POST", headers, body: JSON.stringify(args) });
      const body = await res.text();
      if (res.status !== 200 || body.length < 2) throw new Error(`${name}: ${res.status} ${body.slice(0, 200)}`);
    };
    // The heaviest: the slowest median of 3 calls (after one to warm up).
    const costs: [string, number][] = [];
    for (const name of Object.keys(INSIGHT_RPCS)) {
      await call(name);
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        await call(name);
        times.push(performance.now() - t);
      }
      costs.push([name, median(times)]);
    }
    costs.sort((a, b) => b[1] - a[1]);
    const [heaviest] = costs[0]!;
    console.log(`3. ${meta.results.toLocaleString("en")} results (${meta.how}); insights RPCs of the big brand, medians: ${costs.map(([n, ms]) => `${n} ${ms.toFixed(1)} ms`).join(", ")}`);
    const healthP95 = async () => {
      const times: number[] = [];
      for (let i = 0; i < HEALTH; i++) {
        const t = performance.now();
        const res = await fetch(`${server.base}/healthz`);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`/healthz: ${res.status}`);
        times.push(performance.now() - t);
        await Bun.sleep(5);
      }
      return percentile(times, 95);
    };
    const idle = await healthP95();
    let looping = true;
    let calls = 0;
    const clients = Array.from({ length: LOOPING_CLIENTS }, async () => {
      while (looping) {
        await call(heaviest);
        calls++;
      }
    });
    const started = performance.now();
    const loaded = await healthP95();
    looping = false;
    await Promise.all(clients);
    console.log(`   /healthz p95 idle ${idle.toFixed(2)} ms, under load ${loaded.toFixed(2)} ms (${HEALTH} requests each); ${calls} calls of ${heaviest} meanwhile (${((calls / (performance.now() - started)) * 1000).toFixed(1)}/s)`);
    return { name: `3. /healthz p95 on Postgres while ${LOOPING_CLIENTS} clients loop ${heaviest} (${INSIGHTS_SCALE} results) vs idle`, ours: loaded, baseline: idle, unit: "ms", target: "≤ 3×", ok: loaded <= 3 * idle };
  } finally {
    await sql.close();
    await server.stop();
  }
}

try {
  console.log(`bench/rls.ts: ${BRANDS} brands (2 domains, 2 competitors each) per side; GET ${LIST}; ${REQUESTS} requests a round, ${ROUNDS} rounds alternating`);
  const rate = new Map<string, number[]>();
  const asOwner: number[] = [];
  const asService: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of sides) {
      const started = performance.now();
      const times = await loop(s, s.owner);
      rate.set(s.name, [...(rate.get(s.name) ?? []), (REQUESTS / (performance.now() - started)) * 1000]);
      if (s.name === "Postgres") {
        asOwner.push(median(times));
        asService.push(median(await loop(s, s.service)));
      }
    }
    console.log(`   round ${round + 1}: ${sides.map((s) => `${s.name} ${rate.get(s.name)!.at(-1)!.toFixed(0)} req/s`).join(", ")}; Postgres median as owner ${asOwner.at(-1)!.toFixed(2)} ms, as service role ${asService.at(-1)!.toFixed(2)} ms`);
  }
  const sqlite = median(rate.get("SQLite")!);
  const postgres = median(rate.get("Postgres")!);
  const owner = median(asOwner);
  const service = median(asService);
  const direct = await statementCost();
  console.log(`   in the database alone: the list's statement as the owner ${direct.owner.toFixed(2)} ms, as the service role ${direct.service.toFixed(2)} ms (medians of ${STATEMENTS})`);
  const rows: RatioReport[] = [
    { name: `1. uncached /rest/v1 list with 2 embeds (${PAGE} of ${BRANDS} brands), Postgres vs SQLite`, ours: postgres, baseline: sqlite, unit: "req/s", target: "≥ 1×", ok: postgres >= sqlite },
    { name: `2a. through the server: the list on Postgres as the owner vs the service role; difference ${(owner - service).toFixed(2)} ms (policies and the owner's organizations looked up)`, ours: owner, baseline: service, unit: "ms", target: "difference ≤ 1 ms", ok: owner - service <= 1 },
    { name: `2b. in the database: the list's statement as the owner vs the service role; policy cost ${(direct.owner - direct.service).toFixed(2)} ms`, ours: direct.owner, baseline: direct.service, unit: "ms", target: "cost ≤ 1 ms", ok: direct.owner - direct.service <= 1 },
  ];
  rows.push(await healthUnderInsights());
  console.log();
  report(rows);
} finally {
  for (const s of sides) await s.server.stop();
}
