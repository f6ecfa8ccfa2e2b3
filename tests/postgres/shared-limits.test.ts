// Issue #30: the sign-up and password limits are shared by every instance on one PostgreSQL
// (answerwatch_rate_limits, src/http/rate-limit.pg.ts) — two servers on one database count one
// budget — and concurrent hits from several pools never take more places than the limit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { createPgRateLimits } from "../../src/http/rate-limit.pg";
import { testServer } from "../helpers/app";
import { testPostgres } from "../helpers/postgres";
import { uniqueEmail } from "../helpers/supabase";

const pg = await testPostgres();
let databaseUrl: string;
const servers: Awaited<ReturnType<typeof testServer>>[] = [];

beforeAll(async () => {
  if (!pg) return;
  databaseUrl = await pg.createDatabase("shared_limits");
  const env = { DATABASE_URL: databaseUrl, AUTH_SIGNUP_RATE_LIMIT_PER_HOUR: "3", AUTH_RATE_LIMIT_PER_MINUTE: "2" };
  servers.push(await testServer(env));
  servers.push(await testServer(env));
});
afterAll(async () => {
  for (const s of servers) await s.stop();
});

const auth = (i: number, path: string, body: unknown) =>
  fetch(`${servers[i % 2]!.url}/auth/v1${path}`, { method: "POST", headers: { apikey: servers[0]!.secrets.anonKey, "content-type": "application/json" }, body: JSON.stringify(body) });

describe.skipIf(!pg)("rate limits shared by the instances (Postgres)", () => {
  test("sign-ups from one address alternate between two servers and share one budget of 3 an hour", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await auth(i, "/signup", { email: uniqueEmail("limits"), password: "correct-horse" })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
  });

  test("password attempts for one e-mail alternate between two servers and share one budget of 2 a minute", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await auth(i, "/token?grant_type=password", { email: "nobody@example.com", password: "wrong-horse" })).status);
    expect(statuses).toEqual([400, 400, 429, 429]);
  });

  test("40 concurrent hits through two pools take exactly the limit's 7 places; the window passing frees them", async () => {
    const pools = [new SQL(databaseUrl, { max: 4 }), new SQL(databaseUrl, { max: 4 })];
    let clock = Date.parse("2026-01-01T00:00:00Z");
    try {
      const limiters = pools.map((sql) => createPgRateLimits(sql, () => clock).limiter("test.race", { limit: 7, windowMs: 60_000 }));
      const taken = await Promise.all(Array.from({ length: 40 }, (_, i) => limiters[i % 2]!.hit("one key")));
      expect(taken.filter(Boolean).length).toBe(7);
      expect(await limiters[0]!.allows("one key")).toBe(false);
      expect(await limiters[1]!.hit("another key")).toBe(true);
      clock += 60_001;
      expect(await limiters[1]!.allows("one key")).toBe(true);
      expect(await limiters[0]!.hit("one key")).toBe(true);
      // The expired hits of the key went with that hit: one row left for it.
      const [{ n }] = await pools[0]!`SELECT count(*)::int AS n FROM answerwatch_rate_limits WHERE limiter = 'test.race' AND key = 'one key'`;
      expect(n).toBe(1);
    } finally {
      for (const sql of pools) await sql.close();
    }
  });
});
