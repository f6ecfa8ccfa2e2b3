// Issue #30, acceptance 2: row-level security enforced by PostgreSQL itself. The attacks of
// tests/rest/isolation.test.ts, run as direct SQL under the `authenticated` role with another
// organization's claims (as PostgREST runs a request): 0 of its rows read, every write refused —
// by the database, with no planner in between. Positive controls (a member of the organization
// reads and writes its rows) show that the policies are not a blanket refusal.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { REST_POLICIES } from "../../src/platform/rest/policies";
import { BRAND_CITED_URLS, BRAND_URL_PAGES, ensureRowSecurity, INTERNAL_READS } from "../../src/platform/rest/policies.pg";
import { createPgInsightsStore } from "../../src/insights/store.pg";
import type { InsightArgs } from "../../src/insights/args";
import type { InsightsStore } from "../../src/insights/store";
import { pgHarness, type PgHarness } from "../contracts/harness.pg";
import { ORGANIZATION_THROUGH_KEY } from "../../src/db/pg/schema";

const h = (await pgHarness()) as PgHarness | null;
const sql = (): SQL => h!.pg.sql;

type Claims = Record<string, unknown>;
const ROLLBACK = new Error("rollback");

interface Outcome {
  rows?: Record<string, unknown>[];
  count?: number;
  code?: string;
  message?: string;
}

/** Runs `text` as `role` with `claims`, as PostgREST would (one transaction, SET LOCAL), and rolls back. */
async function as(role: "authenticated" | "anon" | "service_role", claims: Claims, text: string, ...params: unknown[]): Promise<Outcome> {
  let outcome: Outcome = {};
  try {
    await sql().begin(async (tx) => {
      await tx.unsafe(`SET LOCAL ROLE ${role}`);
      await tx`SELECT set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
      try {
        const result = await tx.unsafe(text, params as never[]);
        outcome = { rows: [...result], count: result.count };
      } catch (error) {
        const e = error as { errno?: string; code?: string; message: string };
        outcome = { code: e.errno ?? e.code, message: e.message };
      }
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
  return outcome;
}

/** A write the database refused: an error with code 42501 (no privilege, or the policy's check), or no row touched. */
const refused = (o: Outcome) => (o.code ? o.code === "42501" : o.count === 0);

let orgA: string;
let orgB: string;
const users: Record<string, string> = {};
let brandA: string;
let brandB: string;
let promptA: string;
const claimsOf = (user: string): Claims => ({ sub: users[user], role: "authenticated", aud: "authenticated" });

beforeAll(async () => {
  if (!h) return;
  const f = h.fixtures;
  [orgA, orgB] = [await f.organization("Org A"), await f.organization("Org B")];
  for (const [name, org, role] of [["ownerA", orgA, "owner"], ["adminA", orgA, "admin"], ["memberA", orgA, "member"], ["viewerA", orgA, "viewer"], ["ownerB", orgB, "owner"]] as const) {
    users[name] = await f.user(`${name.toLowerCase()}-${process.pid}@example.com`);
    await f.member(org, users[name]!, role);
  }
  brandA = await f.brand(orgA, "Alpha");
  brandB = await f.brand(orgB, "Beta");
  promptA = await f.prompt(brandA);
  await f.prompt(brandB);
  const competitorA = await f.competitor(brandA, "Globex", "globex.com");
  await f.topic(brandA, "CRM");
  await f.brandPlatform(brandA, "perplexity");
  await f.result({ brandId: brandA, promptId: promptA, platform: "perplexity", createdAt: new Date().toISOString(), mentioned: true, citations: [{ url: "https://a.example/x", normalizedUrl: "https://a.example/x", domain: "a.example" }] });
  // A competitor named and a fan-out query searched: the competitor and query totals have rows too.
  await sql()`UPDATE prompt_results SET competitor_mentions = jsonb_build_array(jsonb_build_object('competitor_id', ${competitorA}::text, 'mention_count', 1)), search_queries = '["best crm"]'::jsonb WHERE brand_id = ${brandA}`;
  await f.visit({ brandId: brandA, at: new Date().toISOString(), path: "/", platform: "chatgpt", visitor: "v1" });
  await f.crawlerHit({ brandId: brandA, at: new Date().toISOString(), bot: "GPTBot", class: "ai_training", hit: "page", path: "/docs", status: 200, verdict: "verified" });
  await sql()`INSERT INTO brand_domains (brand_id, domain) VALUES (${brandA}, 'alpha.example')`;
  await sql()`INSERT INTO suggestions (brand_id, title) VALUES (${brandA}, 'Write a comparison page')`;
  await sql()`INSERT INTO webhook_endpoints (organization_id, url, secret) VALUES (${orgA}, 'https://hooks.example/a', 'whsec_secret')`;
});
afterAll(() => h?.close());

const TABLES = Object.keys(REST_POLICIES);
const inA = (table: string) => (table === "organizations" ? "id" : "organization_id");

describe.skipIf(!h)("row-level security in PostgreSQL, as direct SQL (issue #30)", () => {
  test("every exposed table has rows of organization A, and RLS is on with policies", async () => {
    for (const table of TABLES) {
      const [{ n }] = await sql().unsafe(`SELECT count(*)::int AS n FROM ${table} WHERE ${inA(table)} = $1`, [orgA]);
      expect({ table, has: n > 0 }).toEqual({ table, has: true });
    }
    const rls = await sql()`SELECT relname FROM pg_class WHERE relname = ANY(${sql().array(TABLES, "text")}) AND relrowsecurity`;
    expect(rls.map((r: { relname: string }) => r.relname).sort()).toEqual([...TABLES].sort());
  });

  test("another organization's owner reads 0 of A's rows in every exposed table, and its own", async () => {
    for (const table of TABLES) {
      const read = await as("authenticated", claimsOf("ownerB"), `SELECT count(*)::int AS n FROM ${table} WHERE ${inA(table)} = $1`, orgA);
      expect({ table, read: read.rows?.[0]?.n }).toEqual({ table, read: 0 });
    }
    const own = await as("authenticated", claimsOf("ownerB"), "SELECT id FROM brands");
    expect(own.rows!.map((r) => r.id)).toEqual([brandB]);
  });

  test("another organization's owner cannot update, delete or insert A's rows in any table", async () => {
    for (const table of TABLES) {
      const update = await as("authenticated", claimsOf("ownerB"), `UPDATE ${table} SET ${inA(table)} = ${inA(table)} WHERE ${inA(table)} = $1`, orgA);
      expect({ table, update: refused(update) }).toEqual({ table, update: true });
      const remove = await as("authenticated", claimsOf("ownerB"), `DELETE FROM ${table} WHERE ${inA(table)} = $1`, orgA);
      expect({ table, remove: refused(remove) }).toEqual({ table, remove: true });
    }
    const inserts: [string, string, unknown[]][] = [
      ["brands", "INSERT INTO brands (organization_id, name, slug) VALUES ($1, 'Stolen', 'stolen')", [orgA]],
      ["prompt_sets", "INSERT INTO prompt_sets (brand_id, name) VALUES ($1, 'x')", [brandA]],
      ["competitors", "INSERT INTO competitors (brand_id, name) VALUES ($1, 'x')", [brandA]],
      ["topics", "INSERT INTO topics (brand_id, name) VALUES ($1, 'x')", [brandA]],
      ["brand_domains", "INSERT INTO brand_domains (brand_id, domain) VALUES ($1, 'x.example')", [brandA]],
      ["brand_platforms", "INSERT INTO brand_platforms (brand_id, platform) VALUES ($1, 'gemini')", [brandA]],
      ["organization_members", "INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, 'owner')", [orgA, users.ownerB]],
      ["suggestions", "INSERT INTO suggestions (brand_id, title) VALUES ($1, 'x')", [brandA]],
      ["webhook_endpoints", "INSERT INTO webhook_endpoints (organization_id, url, secret) VALUES ($1, 'https://evil.example', 's')", [orgA]],
    ];
    for (const [table, text, params] of inserts) {
      const insert = await as("authenticated", claimsOf("ownerB"), text, ...params);
      expect({ table, code: insert.code }).toEqual({ table, code: "42501" });
    }
    // Nothing of A's changed.
    const [{ n }] = await sql()`SELECT count(*)::int AS n FROM brands WHERE organization_id = ${orgA}`;
    expect(n).toBe(1);
  });

  test("A's members read A's rows; a member writes them, a viewer cannot (the policies are not a blanket refusal)", async () => {
    for (const table of TABLES.filter((t) => t !== "webhook_endpoints")) {
      const read = await as("authenticated", claimsOf("viewerA"), `SELECT count(*)::int AS n FROM ${table} WHERE ${inA(table)} = $1`, orgA);
      expect({ table, visible: (read.rows?.[0]?.n as number) > 0 }).toEqual({ table, visible: true });
    }
    expect((await as("authenticated", claimsOf("memberA"), "UPDATE brands SET name = 'Alpha 2' WHERE id = $1", brandA)).count).toBe(1);
    expect((await as("authenticated", claimsOf("memberA"), "INSERT INTO topics (brand_id, name) VALUES ($1, 'New topic')", brandA)).count).toBe(1);
    expect(refused(await as("authenticated", claimsOf("viewerA"), "UPDATE brands SET name = 'Alpha 2' WHERE id = $1", brandA))).toBe(true);
    expect((await as("authenticated", claimsOf("viewerA"), "INSERT INTO topics (brand_id, name) VALUES ($1, 'New topic')", brandA)).code).toBe("42501");
    // Webhook endpoints: owners and admins only.
    expect((await as("authenticated", claimsOf("memberA"), "SELECT count(*)::int AS n FROM webhook_endpoints")).rows![0]!.n).toBe(0);
    expect((await as("authenticated", claimsOf("adminA"), "SELECT count(*)::int AS n FROM webhook_endpoints")).rows![0]!.n).toBe(1);
  });

  test("columns: secrets are unreadable even by the owner, and only the updatable columns take a write", async () => {
    expect((await as("authenticated", claimsOf("ownerA"), "SELECT secret FROM webhook_endpoints")).code).toBe("42501");
    expect((await as("authenticated", claimsOf("ownerA"), "SELECT * FROM webhook_endpoints")).code).toBe("42501");
    expect((await as("authenticated", claimsOf("ownerA"), "SELECT url_id FROM citations")).code).toBe("42501");
    expect((await as("authenticated", claimsOf("ownerA"), "SELECT id, url FROM webhook_endpoints")).rows).toHaveLength(1);
    expect((await as("authenticated", claimsOf("memberA"), "UPDATE suggestions SET status = 'done' WHERE brand_id = $1", brandA)).count).toBe(1);
    expect((await as("authenticated", claimsOf("memberA"), "UPDATE suggestions SET title = 'x' WHERE brand_id = $1", brandA)).code).toBe("42501");
    // Server-written tables take no user write at all.
    expect((await as("authenticated", claimsOf("ownerA"), "DELETE FROM prompt_results WHERE brand_id = $1", brandA)).code).toBe("42501");
    expect((await as("authenticated", claimsOf("ownerA"), "UPDATE ai_traffic_logs SET path = '/x' WHERE brand_id = $1", brandA)).code).toBe("42501");
  });

  test("an API key's claims narrow to its organization and role; a share link's read no table; anon reads nothing", async () => {
    const viewerKey = { ...claimsOf("ownerA"), aw_org_roles: { [orgA]: "viewer" } };
    expect((await as("authenticated", viewerKey, "SELECT count(*)::int AS n FROM brands")).rows![0]!.n).toBe(1);
    expect(refused(await as("authenticated", viewerKey, "UPDATE brands SET name = 'x' WHERE id = $1", brandA))).toBe(true);
    const share = { role: "authenticated", aw_share_brand: brandA, aw_org_roles: { [orgA]: "viewer" } };
    for (const table of TABLES) expect({ table, n: (await as("authenticated", share, `SELECT count(*)::int AS n FROM ${table}`)).rows?.[0]?.n }).toEqual({ table, n: 0 });
    for (const table of TABLES) expect({ table, n: (await as("anon", {}, `SELECT count(*)::int AS n FROM ${table}`)).rows?.[0]?.n }).toEqual({ table, n: 0 });
    expect((await as("anon", {}, "INSERT INTO brands (organization_id, name, slug) VALUES ($1, 'x', 'x')", orgA)).code).toBe("42501");
    // Claims naming a user who is no member at all: nothing.
    expect((await as("authenticated", { sub: crypto.randomUUID(), role: "authenticated" }, "SELECT count(*)::int AS n FROM brands")).rows![0]!.n).toBe(0);
  });

  test("the internal tables the insights and counts read (every rollup, the latest results): another organization reads 0 of A's rows, A's viewer all", async () => {
    const withRows: string[] = [];
    for (const table of INTERNAL_READS) {
      // Totals keyed by id reach their organization through their key list.
      const ofA = (ORGANIZATION_THROUGH_KEY as readonly string[]).includes(table) ? `key_id IN (SELECT id FROM ${table}_keys WHERE organization_id = $1)` : "organization_id = $1";
      const [{ n }] = await sql().unsafe(`SELECT count(*)::int AS n FROM ${table} WHERE ${ofA}`, [orgA]);
      if (!n) continue;
      withRows.push(table);
      expect({ table, n: (await as("authenticated", claimsOf("ownerB"), `SELECT count(*)::int AS n FROM ${table}`)).rows?.[0]?.n }).toEqual({ table, n: 0 });
      expect({ table, n: (await as("authenticated", claimsOf("viewerA"), `SELECT count(*)::int AS n FROM ${table}`)).rows?.[0]?.n }).toEqual({ table, n });
      expect(refused(await as("authenticated", claimsOf("ownerA"), `DELETE FROM ${table}`))).toBe(true);
    }
    // One result, one visit and one crawler request of A fill the result, domain, URL, query, traffic and crawler rollups.
    expect(withRows.length).toBeGreaterThanOrEqual(12);
    for (const table of ORGANIZATION_THROUGH_KEY) expect(withRows).toContain(table);
    // The URL dictionary is read through functions that check the brand first.
    expect((await as("authenticated", claimsOf("ownerB"), "SELECT count(*)::int AS n FROM citation_urls")).code).toBe("42501");
    const today = new Date();
    const window = [new Date(today.getTime() - 86_400_000).toISOString(), new Date(today.getTime() + 86_400_000).toISOString()];
    expect((await as("authenticated", claimsOf("ownerB"), `SELECT count(*)::int AS n FROM ${BRAND_CITED_URLS}($1, $2, $3)`, brandA, ...window)).rows![0]!.n).toBe(0);
    expect((await as("authenticated", claimsOf("viewerA"), `SELECT url FROM ${BRAND_CITED_URLS}($1, $2, $3)`, brandA, ...window)).rows).toEqual([{ url: "https://a.example/x" }]);
    expect((await as("authenticated", claimsOf("ownerB"), `SELECT count(*)::int AS n FROM ${BRAND_URL_PAGES}($1, $2)`, brandA, "{https://a.example/x}")).rows![0]!.n).toBe(0);
    expect((await as("authenticated", claimsOf("viewerA"), `SELECT url FROM ${BRAND_URL_PAGES}($1, $2)`, brandA, "{https://a.example/x}")).rows).toEqual([{ url: "https://a.example/x" }]);
  });

  test("the insights store in a transaction under another organization's claims reads nothing of A's brand, with no TypeScript check in between", async () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const query: InsightArgs = { brandId: brandA, window: { from: day(-30), to: day(0) }, platforms: null, models: null, regions: null, topicIds: null, promptIds: null, branded: null };
    const filtered: InsightArgs = { ...query, platforms: ["perplexity"] };
    const reads = async (store: InsightsStore) => ({
      brand: await store.brand(brandA),
      sums: await store.resultSums({ query, window: query.window, groupBy: [] }),
      filteredSums: await store.resultSums({ query: filtered, window: query.window, groupBy: ["platform"] }),
      domains: await store.domainTotals(query),
      filteredDomains: await store.domainTotals(filtered),
      urls: await store.urlTotals(query),
      filteredUrls: await store.urlTotals(filtered),
      competitors: await store.competitorTotals(query),
      queries: await store.searchQueries(query),
      answers: await store.recentRunAnswers(query),
    });
    const under = async (claims: Claims) => {
      let out!: Awaited<ReturnType<typeof reads>>;
      await sql().begin(async (tx) => {
        await tx.unsafe("SET LOCAL ROLE authenticated");
        await tx`SELECT set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
        out = await reads(createPgInsightsStore(tx, { asCaller: true }));
      });
      return out;
    };
    const server = await reads(createPgInsightsStore(sql()));
    // What the server itself reads has A's result in it…
    expect(server.brand?.id).toBe(brandA);
    expect(server.sums.reduce((n, r) => n + (r.results ?? 0), 0)).toBe(1);
    expect(server.domains.map((d) => d.domain)).toEqual(["a.example"]);
    expect(server.urls.map((u) => u.url)).toEqual(["https://a.example/x"]);
    expect(server.filteredUrls.map((u) => u.url)).toEqual(["https://a.example/x"]);
    // …A's viewer reads the same through the policies, and B's owner nothing.
    expect(await under(claimsOf("viewerA"))).toEqual(server);
    const other = await under(claimsOf("ownerB"));
    expect(other.brand).toBeNull();
    for (const [read, rows] of Object.entries(other)) if (read !== "brand") expect({ read, rows: (rows as { results?: number }[]).filter((r) => r.results === undefined || r.results > 0) }).toEqual({ read, rows: [] });
  });

  test("membership rules: only owners grant or take owner and admin; the last owner stays; anyone may leave", async () => {
    const [memberRow] = await sql()`SELECT id FROM organization_members WHERE user_id = ${users.memberA}`;
    const [ownerRow] = await sql()`SELECT id FROM organization_members WHERE user_id = ${users.ownerA}`;
    const [adminRow] = await sql()`SELECT id FROM organization_members WHERE user_id = ${users.adminA}`;
    const promote = await as("authenticated", claimsOf("adminA"), "UPDATE organization_members SET role = 'owner' WHERE id = $1", memberRow.id);
    expect(promote.code).toBe("42501");
    expect((await as("authenticated", claimsOf("adminA"), "UPDATE organization_members SET role = 'viewer' WHERE id = $1", memberRow.id)).count).toBe(1);
    expect((await as("authenticated", claimsOf("adminA"), "DELETE FROM organization_members WHERE id = $1", ownerRow.id)).code).toBe("42501");
    expect((await as("authenticated", claimsOf("ownerA"), "UPDATE organization_members SET role = 'admin' WHERE id = $1", memberRow.id)).count).toBe(1);
    const lastOwner = await as("authenticated", claimsOf("ownerA"), "UPDATE organization_members SET role = 'member' WHERE id = $1", ownerRow.id);
    expect(lastOwner.code).toBe("P0001");
    expect((await as("service_role", {}, "DELETE FROM organization_members WHERE id = $1", ownerRow.id)).code).toBe("P0001");
    // An admin and a member may leave (their own row), whatever their role.
    expect((await as("authenticated", claimsOf("adminA"), "DELETE FROM organization_members WHERE id = $1", adminRow.id)).count).toBe(1);
    expect((await as("authenticated", claimsOf("memberA"), "DELETE FROM organization_members WHERE id = $1", memberRow.id)).count).toBe(1);
    expect(refused(await as("authenticated", claimsOf("memberA"), "DELETE FROM organization_members WHERE id = $1", adminRow.id))).toBe(true);
  });

  test("service_role passes every policy", async () => {
    for (const table of TABLES) {
      const read = await as("service_role", {}, `SELECT count(*)::int AS n FROM ${table} WHERE ${inA(table)} = $1`, orgA);
      expect({ table, visible: (read.rows?.[0]?.n as number) > 0 }).toEqual({ table, visible: true });
    }
  });

  test("the policies follow REST_POLICIES: a reopen makes nothing, a changed rule is made again", async () => {
    expect(await sql().begin((tx) => ensureRowSecurity(tx))).toBe(false);
    const ownersOnly = { ...REST_POLICIES, brands: { ...REST_POLICIES.brands!, read: ["owner"] as const } };
    expect(await sql().begin((tx) => ensureRowSecurity(tx, ownersOnly))).toBe(true);
    try {
      expect((await as("authenticated", claimsOf("viewerA"), "SELECT count(*)::int AS n FROM brands")).rows![0]!.n).toBe(0);
      expect((await as("authenticated", claimsOf("ownerA"), "SELECT count(*)::int AS n FROM brands")).rows![0]!.n).toBe(1);
    } finally {
      expect(await sql().begin((tx) => ensureRowSecurity(tx))).toBe(true);
    }
    expect((await as("authenticated", claimsOf("viewerA"), "SELECT count(*)::int AS n FROM brands")).rows![0]!.n).toBe(1);
  });
});
