// backends: sqlite, postgres
// Tables the server keeps for itself (issue #17: rollups, the latest-results table, the shared
// citation URL table, zstd dictionaries, rollup state) are not part of /rest/v1 for anyone, not
// even the service role, neither as a table nor as an embed; the shared URL table's ids are never
// readable from citations.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { serverDb, writeResults } from "../helpers/server-db";
import { createBrand, signedUpOrg, type Org, type Server } from "./helpers";

const INTERNAL = [
  "prompt_results_latest", "citation_urls", "rollup_state", "result_rollups_daily", "result_rollups_monthly", "result_brand_daily",
  "domain_rollups_monthly", "competitor_totals", "competitor_totals_keys", "domain_totals", "domain_totals_keys",
  "domain_prompt_totals", "domain_prompt_totals_keys", "url_totals", "url_totals_keys", "query_totals", "query_totals_keys", "personal_api_keys", "crawler_hits", "crawler_agents",
  "crawler_daily", "crawler_monthly", "crawler_path_totals", "crawler_path_totals_keys",
  "citation_domain_counts", "text_dictionaries", "traffic_platform_daily", "traffic_visitor_days", "traffic_visitors_daily", "traffic_page_totals", "traffic_page_totals_keys",
];

let server: Server;
let org: Org;
beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Internal");
  await createBrand(org.owner, org.id, "internal");
});
afterAll(() => server.stop());

const get = (path: string, token: string, key = server.secrets.anonKey) => fetch(`${server.url}/rest/v1/${path}`, { headers: { apikey: key, authorization: `Bearer ${token}` } });

test("internal tables answer PGRST205 to users and the service role, and cannot be embedded", async () => {
  for (const table of INTERNAL) {
    for (const [token, key] of [[org.ownerToken, server.secrets.anonKey], [server.secrets.serviceRoleKey, server.secrets.serviceRoleKey]]) {
      const res = await get(`${table}?select=*`, token!, key);
      expect({ table, status: res.status, code: ((await res.json()) as { code: string }).code }).toEqual({ table, status: 404, code: "PGRST205" });
    }
    const embedded = await get(`brands?select=id,${table}(*)`, org.ownerToken);
    expect({ table, status: embedded.status }).toEqual({ table, status: 400 });
  }
});

test("citations never show url_id; their url, normalized_url and title read through from the URL table", async () => {
  const brand = (await org.owner.from("brands").select("id").limit(1).single()).data!;
  const set = (await org.owner.from("prompt_sets").insert({ brand_id: brand.id, name: "S" }).select().single()).data!;
  const prompt = (await org.owner.from("prompts").insert({ prompt_set_id: set.id, text: "q" }).select().single()).data!;
  const citation = { position: 1, url: "https://ex.com/a?utm_source=x", normalized_url: "ex.com/a", domain: "ex.com", host: "ex.com", title: "A page", is_brand: false, competitor_id: null };
  // Written the way the tracking run writes results, on the server's backend.
  const key = { id: crypto.randomUUID(), jobId: null, brandId: brand.id, promptId: prompt.id, platform: "chatgpt", model: "m", region: "" };
  const values = {
    surface: "api", response: "x", mentioned: 0, mention_count: 0, mention_position: null, competitor_mentions: "[]", citations: JSON.stringify([citation]), citation_count: 1,
    brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: 0, search_queries: "[]", details: "{}",
  } as const;
  await writeResults(server, [{ key, values }]);
  const all = await get("citations?select=*", org.ownerToken);
  expect(all.status).toBe(200);
  const [row] = (await all.json()) as Record<string, unknown>[];
  expect(row).toMatchObject({ url: citation.url, normalized_url: citation.normalized_url, title: citation.title, domain: "ex.com" });
  expect(Object.keys(row!)).not.toContain("url_id");
  const db = await serverDb(server);
  expect(await db.inspect("SELECT url, url_id IS NOT NULL AS shared FROM citations")).toEqual([{ url: null, shared: 1 }]);
  await db.close();
  const byUrl = await get(`citations?select=id&url=eq.${encodeURIComponent(citation.url)}`, org.ownerToken);
  expect(((await byUrl.json()) as unknown[]).length).toBe(1);
  const named = await get("citations?select=url_id", org.ownerToken);
  expect(named.status).toBe(403);
  const filtered = await get("citations?url_id=eq.1", server.secrets.serviceRoleKey, server.secrets.serviceRoleKey);
  expect(filtered.status).toBe(403);
});
