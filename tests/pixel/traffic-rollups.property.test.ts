// backends: sqlite, postgres
// Issue #17: the traffic report reads whole months and days from rollups and only the partial days
// at the window's ends from raw visits. On random visits (random times, paths, platforms, visitors
// who come back within a day and from two assistants) and random windows — aligned to days or
// not, inside one day, across months — its every number equals a brute force over the raw rows
// computed here. Visitor hashes change every UTC day, so the brute force counts distinct
// (day, visitor) pairs. Rows are also deleted and the server restarted between rounds.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tempDir, testServer } from "../helpers/app";
import { signedUpClient } from "../helpers/supabase";
import type { Harness } from "../contracts/harness";
import { serverDb } from "../helpers/server-db";
import { seedBrandIn } from "./fixtures";

const SEED = Number(Bun.env.SEED ?? Date.now() % 100000);
let state = SEED;
const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 20);
const SPAN = 120 * DAY;
const PLATFORMS = ["ChatGPT", "Perplexity", "Claude", null, null];
const PATHS = ["/", "/pricing", "/docs", "/blog/a", "/blog/b", "/about"];

let server: Awaited<ReturnType<typeof testServer>>;
let dataDir: string;
let token: string;
let brandId: string;
let db: Harness;
type Visit = { at: string; path: string; platform: string | null; visitor: string };
const visits: Visit[] = [];

async function addVisits(n: number) {
  const added: Visit[] = [];
  for (let i = 0; i < n; i++) {
    const v = { at: new Date(START + Math.floor(random() * SPAN)).toISOString(), path: pick(PATHS), platform: pick(PLATFORMS), visitor: `v${Math.floor(random() * 30)}` };
    visits.push(v);
    added.push(v);
  }
  // 500 rows a statement (either backend's SQL).
  for (let i = 0; i < added.length; i += 500) {
    const chunk = added.slice(i, i + 500);
    await db.inspect(
      `INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}`,
      ...chunk.flatMap((v) => [brandId, `https://acme.com${v.path}`, v.path, v.platform, v.visitor, v.at]),
    );
  }
}

/** Deletes every 7th visit (by time, then id) and returns what it deleted. */
async function deleteSome(): Promise<Visit[]> {
  const ids = (await db.inspect<{ id: string }>("SELECT id FROM ai_traffic_logs ORDER BY created_at, id")).map((r) => r.id).filter((_, i) => i % 7 === 0);
  const gone: Visit[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    gone.push(...(await db.inspect<Visit>(`DELETE FROM ai_traffic_logs WHERE id IN (${chunk.map(() => "?").join(", ")}) RETURNING created_at AS at, path, source_platform AS platform, visitor_hash AS visitor`, ...chunk)));
  }
  return gone;
}

function expected(from: number, to: number, interval: "day" | "week") {
  const inside = visits.filter((v) => Date.parse(v.at) >= from && Date.parse(v.at) < to);
  const ai = inside.filter((v) => v.platform);
  const distinct = (list: Visit[]) => new Set(list.map((v) => `${v.at.slice(0, 10)}|${v.visitor}`)).size;
  const platforms = [...new Set(ai.map((v) => v.platform!))]
    .map((platform) => ({ platform, visits: ai.filter((v) => v.platform === platform).length, visitors: distinct(ai.filter((v) => v.platform === platform)) }))
    .sort((a, b) => b.visits - a.visits || (a.platform < b.platform ? -1 : 1));
  const periodOf = (at: number) => {
    const day = Math.floor(at / DAY) * DAY;
    return new Date(interval === "day" ? day : day - ((new Date(day).getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
  };
  const periods = new Map<string, { visits: number; byPlatform: Record<string, number> }>();
  for (let t = Date.parse(`${periodOf(from)}T00:00:00Z`); t < to; t += (interval === "day" ? 1 : 7) * DAY) periods.set(new Date(t).toISOString().slice(0, 10), { visits: 0, byPlatform: {} });
  for (const v of ai) {
    const p = periods.get(periodOf(Date.parse(v.at)))!;
    p.visits++;
    p.byPlatform[v.platform!] = (p.byPlatform[v.platform!] ?? 0) + 1;
  }
  const pages = new Map<string, { path: string; visits: number; byPlatform: Record<string, number> }>();
  for (const v of ai) {
    const p = pages.get(v.path) ?? pages.set(v.path, { path: v.path, visits: 0, byPlatform: {} }).get(v.path)!;
    p.visits++;
    p.byPlatform[v.platform!] = (p.byPlatform[v.platform!] ?? 0) + 1;
  }
  return {
    totals: { visits: ai.length, visitors: distinct(ai), pageViews: inside.length },
    platforms,
    periods: [...periods].map(([period, p]) => ({ period, ...p })),
    topLandingPages: [...pages.values()].sort((a, b) => b.visits - a.visits || (a.path < b.path ? -1 : 1)).slice(0, 10),
  };
}

function randomWindow(): { from: number; to: number; query: string } {
  const aligned = random() < 0.4;
  let from = START - 5 * DAY + Math.floor(random() * (SPAN + 5 * DAY));
  let to = from + Math.floor(random() < 0.2 ? random() * DAY : random() * 110 * DAY) + 1;
  if (aligned) {
    from = Math.floor(from / DAY) * DAY;
    to = Math.max(from + DAY, Math.floor(to / DAY) * DAY);
  }
  const iso = (t: number) => new Date(t).toISOString();
  const interval = random() < 0.5 ? "day" : "week";
  return { from, to, query: `?from=${iso(from)}&to=${iso(to)}&interval=${interval}` };
}

async function checkRounds(rounds: number) {
  for (let i = 0; i < rounds; i++) {
    const w = randomWindow();
    const res = await fetch(`${server.url}/api/brands/${brandId}/traffic${w.query}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`seed ${SEED}: ${w.query}: ${res.status} ${JSON.stringify(body)}`);
    const interval = w.query.endsWith("day") ? "day" : "week";
    const { totals, platforms, periods, topLandingPages } = body;
    expect({ window: w.query, totals, platforms, periods, topLandingPages }).toEqual({ window: w.query, ...expected(w.from, w.to, interval) });
  }
}

beforeAll(async () => {
  dataDir = tempDir();
  server = await testServer({ DATA_DIR: dataDir });
  db = await serverDb(server);
  const owner = await signedUpClient(server.url, server.secrets.anonKey, "Acme");
  token = owner.session.access_token;
  const [{ organization_id }] = await db.inspect<{ organization_id: string }>("SELECT organization_id FROM organization_members WHERE user_id = ?", owner.user.id);
  brandId = (await seedBrandIn(db, { organizationId: organization_id!, domains: ["acme.com"] })).brandId;
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

test(`the rollup-backed traffic report equals a brute force over raw visits (seed ${SEED})`, async () => {
  await addVisits(3000);
  await checkRounds(60);
  // Deletes take their visits out of the rollups.
  const gone = await deleteSome();
  for (const g of gone) visits.splice(visits.findIndex((v) => v.at === g.at && v.path === g.path && v.platform === g.platform && v.visitor === g.visitor), 1);
  expect(gone.length).toBeGreaterThan(300);
  await addVisits(1000);
  await checkRounds(40);
  // A restart keeps them.
  await server.stop();
  // The same database again (on Postgres: the same DATABASE_URL, not a new database).
  server = await testServer({ DATA_DIR: dataDir, ...(server.backend.kind === "postgres" ? { DATABASE_URL: server.backend.url } : {}) });
  await checkRounds(20);
}, 120_000);
