// backends: sqlite, postgres
// Durability under load, through the compiled binary: 50,000 valid beacons from the bounded
// loopback load generator are all answered 2xx, and exactly 50,000 rows are there after SIGTERM
// and a restart; after kill -9 every beacon that got its 2xx is still there.
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../src/database";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { TEST_BACKEND, tempDir } from "../helpers/app";
import { testPostgres } from "../helpers/postgres";
import { sqliteHarnessOn, type Harness } from "../contracts/harness";
import { pgHarnessOn } from "../contracts/harness.pg";
import { startBinary, type StartedBinary } from "../helpers/binary";
import { signedUpClient } from "../helpers/supabase";
import { CHROME_UA, beaconJson, forwardedFor, seedBrandIn } from "./fixtures";
import { rawRequest, runLoad } from "./load";

const ADDRESSES = 4096;

function beacons(bin: StartedBinary, trackingCode: string): Uint8Array[] {
  // Spread over forwarded addresses (the binary sees a proxy on loopback), so the per-address limit stays out of the way.
  return Array.from({ length: ADDRESSES }, (_, i) =>
    rawRequest(
      "POST",
      `${bin.url}/t/collect`,
      { origin: "https://www.acme.com", "user-agent": CHROME_UA, "content-type": "text/plain;charset=UTF-8", "x-forwarded-for": forwardedFor(i) },
      beaconJson({ brand: trackingCode, url: `https://www.acme.com/p/${i % 8}?utm_source=chatgpt.com`, referrer: "" }),
    ),
  );
}

/** Kills what a failed test left running, so no server outlives it. */
const started: StartedBinary[] = [];
afterEach(() => {
  for (const bin of started.splice(0)) if (bin.proc.exitCode === null && bin.proc.signalCode === null) bin.proc.kill("SIGKILL");
});
/** The deployment's database: DATA_DIR's file, or on Postgres runs a database of its own (per directory). */
const databases = new Map<string, string>();
async function databaseEnv(dir: string): Promise<Record<string, string>> {
  if (TEST_BACKEND !== "postgres") return {};
  if (!databases.has(dir)) databases.set(dir, await (await testPostgres())!.createDatabase("load"));
  return { DATABASE_URL: databases.get(dir)! };
}
async function start(dir: string): Promise<StartedBinary> {
  const bin = await startBinary(await databaseEnv(dir), dir);
  started.push(bin);
  return bin;
}

/** The harness over the deployment's database, written beside the running binary; close() it. */
async function openDb(dir: string): Promise<Harness> {
  const url = databases.get(dir);
  if (url) return pgHarnessOn(url);
  const db = new Database(join(dir, "data", "answerwatch.db"));
  registerSqlFunctions(db);
  const h = sqliteHarnessOn({ sqlite: db, close: () => db.close() });
  return { ...h, close: async () => db.close() };
}

/** One number read from the instance's database (`n`, by a query both backends understand). */
async function scalar(dir: string, query: string): Promise<number> {
  const url = databases.get(dir);
  if (url) {
    const h = await pgHarnessOn(url);
    try {
      return Number((await h.inspect<{ n: string }>(query))[0]!.n);
    } finally {
      await h.close();
    }
  }
  const db = new Database(join(dir, "data", "answerwatch.db"), { readonly: true });
  try {
    return (db.query(query).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
const rowCount = (dir: string) => scalar(dir, "SELECT count(*) AS n FROM ai_traffic_logs");

test(
  "50,000 valid beacons: all 204; after SIGTERM and a restart, exactly 50,000 rows, reported by the traffic API",
  async () => {
    const dir = tempDir("aw-pixel-load-");
    const first = await start(dir);
    const anonKey = first.output().match(/anon key:\s+(\S+)/)![1];
    const owner = await signedUpClient(first.url, anonKey);
    const db = await openDb(dir);
    const [{ organization_id }] = await db.inspect<{ organization_id: string }>("SELECT organization_id FROM organization_members WHERE user_id = ?", owner.user.id);
    const brand = await seedBrandIn(db, { organizationId: organization_id!, domains: ["acme.com"] });
    await db.close();

    const requests = beacons(first, brand.trackingCode);
    const result = await runLoad({ url: first.url, total: 50_000, connections: 64, request: (i) => requests[i % ADDRESSES] });
    console.log(`50,000 beacons in ${(result.elapsedMs / 1000).toFixed(2)} s (${result.perSecond.toFixed(0)} req/s)`);
    expect(result.statuses).toEqual({ 204: 50_000 });
    expect(result.errors).toBe(0);

    first.proc.kill("SIGTERM");
    expect(await first.proc.exited).toBe(0);

    const second = await start(dir);
    try {
      expect(await rowCount(dir)).toBe(50_000);
      const res = await fetch(`${second.url}/api/brands/${brand.brandId}/traffic?interval=day`, { headers: { authorization: `Bearer ${owner.session.access_token}` } });
      expect(res.status).toBe(200);
      const report = await res.json();
      // A visitor is an address on one UTC day (the hash's salt is the day's): a run across midnight
      // counts an address on both sides of it, as the stored hashes say.
      const utcDay = databases.get(dir) ? "(created_at AT TIME ZONE 'UTC')::date" : "substr(created_at, 1, 10)";
      const days = await scalar(dir, `SELECT count(DISTINCT ${utcDay}) AS n FROM ai_traffic_logs`);
      const visitors = await scalar(dir, "SELECT count(DISTINCT visitor_hash) AS n FROM ai_traffic_logs");
      if (days === 1) expect(visitors).toBe(ADDRESSES);
      else expect(visitors > ADDRESSES && visitors <= days * ADDRESSES).toBe(true);
      expect(report.totals).toEqual({ visits: 50_000, visitors, pageViews: 50_000 });
      expect(report.platforms).toEqual([{ platform: "ChatGPT", visits: 50_000, visitors }]);
      // Eight landing pages, 6,250 visits each (8 divides the 4,096 request variants).
      expect(report.topLandingPages).toHaveLength(8);
      for (const page of report.topLandingPages) expect(page).toMatchObject({ visits: 6_250, byPlatform: { ChatGPT: 6_250 } });
    } finally {
      second.proc.kill("SIGTERM");
      await second.proc.exited;
    }
  },
  180_000,
);

test(
  "after kill -9, every beacon that was answered 2xx is stored",
  async () => {
    const dir = tempDir("aw-pixel-kill-");
    const first = await start(dir);
    const db = await openDb(dir);
    const brand = await seedBrandIn(db, { domains: ["acme.com"] });
    await db.close();

    const requests = beacons(first, brand.trackingCode);
    const result = await runLoad({ url: first.url, total: 5_000, connections: 64, request: (i) => requests[i % ADDRESSES] });
    expect(result.statuses).toEqual({ 204: 5_000 });
    // No SIGTERM, no flush: the process dies the moment the last 2xx is in.
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    const second = await start(dir);
    try {
      expect(await rowCount(dir)).toBe(5_000);
    } finally {
      second.proc.kill("SIGTERM");
      await second.proc.exited;
    }
  },
  120_000,
);
