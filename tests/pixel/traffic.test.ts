// backends: sqlite, postgres
// GET /api/brands/:brandId/traffic: AI visits per platform and period (day, ISO week) with zeros
// filled in, top landing pages, totals; bearer-guarded and limited to the caller's organizations.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { signedUpClient } from "../helpers/supabase";
import type { Harness } from "../contracts/harness";
import { serverDb } from "../helpers/server-db";
import { seedBrandIn, type SeededBrand } from "./fixtures";

let server: Awaited<ReturnType<typeof testServer>>;
let token: string;
let strangerToken: string;
let brand: SeededBrand;
let db: Harness;

/** Rows as the pixel writes them, at chosen times (the report only reads). */
async function visit(at: string, path: string, platform: string | null, visitor = "v1") {
  await db.inspect(
    `INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, user_agent_family, created_at)
     VALUES (?, ?, ?, ?, ?, 'Chrome', ?)`,
    brand.brandId, `https://acme.com${path}`, path, platform, visitor, at,
  );
}

beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
  const owner = await signedUpClient(server.url, server.secrets.anonKey, "Acme");
  token = owner.session.access_token;
  strangerToken = (await signedUpClient(server.url, server.secrets.anonKey, "Other")).session.access_token;
  const [{ organization_id }] = await db.inspect<{ organization_id: string }>("SELECT organization_id FROM organization_members WHERE user_id = ?", owner.user.id);
  brand = await seedBrandIn(db, { organizationId: organization_id!, domains: ["acme.com"] });
  // Monday 2026-03-02 … Sunday 2026-03-15, plus one row just outside on each side.
  await visit("2026-03-01T23:59:59.999Z", "/before", "ChatGPT");
  await visit("2026-03-02T00:00:00.000Z", "/pricing", "ChatGPT", "a");
  await visit("2026-03-02T10:00:00.000Z", "/pricing", "ChatGPT", "a");
  await visit("2026-03-02T11:00:00.000Z", "/pricing", "Perplexity", "b");
  await visit("2026-03-02T12:00:00.000Z", "/blog", null, "c");
  await visit("2026-03-04T08:00:00.000Z", "/docs", "Claude", "d");
  await visit("2026-03-08T23:59:59.000Z", "/pricing", "ChatGPT", "e");
  await visit("2026-03-09T00:00:00.000Z", "/docs", "ChatGPT", "f");
  await visit("2026-03-15T18:00:00.000Z", "/", "Gemini", "g");
  await visit("2026-03-16T00:00:00.000Z", "/after", "ChatGPT");
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

const traffic = (query: string, bearer: string | null = token, brandId = brand.brandId) =>
  fetch(`${server.url}/api/brands/${brandId}/traffic${query}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

describe("the report", () => {
  test("by day: every day of the range, visits per platform, totals, top landing pages", async () => {
    const res = await traffic("?from=2026-03-02&to=2026-03-15&interval=day");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ success: true, from: "2026-03-02T00:00:00.000Z", to: "2026-03-16T00:00:00.000Z", interval: "day" });
    expect(body.totals).toEqual({ visits: 7, visitors: 6, pageViews: 8 });
    expect(body.platforms).toEqual([
      { platform: "ChatGPT", visits: 4, visitors: 3 },
      { platform: "Claude", visits: 1, visitors: 1 },
      { platform: "Gemini", visits: 1, visitors: 1 },
      { platform: "Perplexity", visits: 1, visitors: 1 },
    ]);
    expect(body.periods).toHaveLength(14);
    expect(body.periods[0]).toEqual({ period: "2026-03-02", visits: 3, byPlatform: { ChatGPT: 2, Perplexity: 1 } });
    expect(body.periods[1]).toEqual({ period: "2026-03-03", visits: 0, byPlatform: {} });
    expect(body.periods[2]).toEqual({ period: "2026-03-04", visits: 1, byPlatform: { Claude: 1 } });
    expect(body.periods[13]).toEqual({ period: "2026-03-15", visits: 1, byPlatform: { Gemini: 1 } });
    expect(body.topLandingPages).toEqual([
      { path: "/pricing", visits: 4, byPlatform: { ChatGPT: 3, Perplexity: 1 } },
      { path: "/docs", visits: 2, byPlatform: { ChatGPT: 1, Claude: 1 } },
      { path: "/", visits: 1, byPlatform: { Gemini: 1 } },
    ]);
  });

  test("by week: ISO weeks keyed by their Monday; a Sunday night belongs to its week", async () => {
    const body = await (await traffic("?from=2026-03-02&to=2026-03-15&interval=week")).json();
    expect(body.periods).toEqual([
      { period: "2026-03-02", visits: 5, byPlatform: { ChatGPT: 3, Perplexity: 1, Claude: 1 } },
      { period: "2026-03-09", visits: 2, byPlatform: { ChatGPT: 1, Gemini: 1 } },
    ]);
  });

  test("a range starting mid-week starts with that week; ISO date-times bound exactly (to is exclusive)", async () => {
    const body = await (await traffic("?from=2026-03-04T08:00:00Z&to=2026-03-09T00:00:00Z&interval=week")).json();
    expect(body.totals.visits).toBe(2);
    expect(body.periods).toEqual([{ period: "2026-03-02", visits: 2, byPlatform: { Claude: 1, ChatGPT: 1 } }]);
  });

  test("defaults: interval day over the last 30 days", async () => {
    const body = await (await traffic("")).json();
    expect(body.interval).toBe("day");
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(30 * 86_400_000);
  });
});

describe("guards", () => {
  test("no bearer → 401; a brand of another organization or no brand at all → 404, in the /api error shape", async () => {
    const anonymous = await traffic("", null);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ success: false, error: { code: "unauthorized" } });
    for (const res of [await traffic("", strangerToken), await traffic("", token, crypto.randomUUID())]) {
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ success: false, error: { code: "brand_not_found", message: "No such brand" } });
    }
  });

  test("bad parameters → 400 validation_failed", async () => {
    for (const query of ["?interval=month", "?from=yesterday", "?from=2026-02-30", "?from=2026-03-10&to=2026-03-01", "?from=2020-01-01&to=2026-01-01&interval=day", "?to=2026-13-01"]) {
      const res = await traffic(query);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(await res.json()).toMatchObject({ success: false, error: { code: "validation_failed" } });
    }
  });
});
