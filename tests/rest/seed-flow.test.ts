// backends: sqlite, postgres
// Acceptance 1: the seed's calls, exactly, through the real supabase-js client.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { countOf, insertResultIn, serverDb, type ServerDb } from "../helpers/server-db";
import { signedUpOrg, type Org, type Server } from "./helpers";

let server: Server;
let org: Org;
let db: ServerDb;
beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
  org = await signedUpOrg(server, "Seed Org");
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

const countRows = (table: string, brandId: string) => countOf(db, `SELECT count(*) AS n FROM ${table} WHERE brand_id = ?`, brandId);

test("create brand → domains → competitors → prompt set → prompts → list with embeds → update → delete cascades", async () => {
  const sb = org.owner;
  const created = await sb
    .from("brands")
    .insert({ organization_id: org.id, name: "Acme", slug: "acme", industry: "Software", region: "US", language: "en" })
    .select()
    .single();
  expect(created.error).toBeNull();
  expect(created.status).toBe(201);
  const brand = created.data!;
  expect(brand).toMatchObject({ organization_id: org.id, name: "Acme", slug: "acme", industry: "Software", region: "US", language: "en", aliases: [], respect_dnt: false });
  expect(brand.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(brand.tracking_code).toMatch(/^aw_[0-9a-f]{24}$/);

  const domains = await sb.from("brand_domains").insert([
    { brand_id: brand.id, domain: "https://www.Acme.com/about", is_primary: true },
    { brand_id: brand.id, domain: "acme.io", is_primary: false },
  ]);
  expect(domains.error).toBeNull();
  expect(domains.status).toBe(201);

  const rivals = await sb.from("competitors").insert([{ brand_id: brand.id, name: "Globex", domain: "globex.com", aliases: ["Globex Corp"] }]).select();
  expect(rivals.error).toBeNull();
  expect(rivals.data).toEqual([expect.objectContaining({ name: "Globex", domain: "globex.com", aliases: ["Globex Corp"] })]);

  const set = await sb.from("prompt_sets").insert({ brand_id: brand.id, name: "Core" }).select().single();
  expect(set.error).toBeNull();
  const prompts = await sb
    .from("prompts")
    .insert([
      { prompt_set_id: set.data!.id, brand_id: brand.id, text: "best crm for startups", category: "discovery", platforms: ["chatgpt"] },
      // brand_id is copied from the prompt set when left out
      { prompt_set_id: set.data!.id, text: "acme vs globex", is_active: false },
    ], { defaultToNull: false }) // rows with different keys: missing ones take their defaults
    .select();
  expect(prompts.error).toBeNull();
  expect(prompts.data!.map((p) => [p.brand_id, p.is_active, p.platforms])).toEqual([
    [brand.id, true, ["chatgpt"]],
    [brand.id, false, []],
  ]);

  const list = await sb.from("brands").select("*,brand_domains(*),competitors(*)");
  expect(list.error).toBeNull();
  expect(list.data).toHaveLength(1);
  const listed = list.data![0];
  expect(listed.brand_domains.map((d: { domain: string; is_primary: boolean }) => [d.domain, d.is_primary])).toEqual([
    ["acme.com", true],
    ["acme.io", false],
  ]);
  expect(listed.competitors).toEqual([expect.objectContaining({ brand_id: brand.id, name: "Globex" })]);

  const updated = await sb.from("brands").update({ industry: "CRM" }).eq("id", brand.id);
  expect(updated.error).toBeNull();
  expect(updated.status).toBe(204);
  const after = await sb.from("brands").select("industry,updated_at").eq("id", brand.id).single();
  expect(after.data!.industry).toBe("CRM");
  expect(after.data!.updated_at >= brand.updated_at).toBe(true);

  // What the server writes for the brand goes with it too.
  const resultId = await insertResultIn(db, { brand_id: brand.id, prompt_id: prompts.data![0].id, platform: "chatgpt", model: "gpt-4o", created_at: new Date().toISOString() });
  await db.inspect("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain) VALUES (?, ?, 1, 'https://acme.com', 'https://acme.com/', 'acme.com')", resultId, brand.id);
  await db.inspect("INSERT INTO suggestions (brand_id, type, key, title) VALUES (?, 'content_gap', 'k', 'Write about CRMs')", brand.id);
  await db.inspect("INSERT INTO ai_traffic_logs (brand_id, url, path, visitor_hash) VALUES (?, 'https://acme.com/', '/', 'h')", brand.id);
  await db.inspect("INSERT INTO brand_platforms (brand_id, platform) VALUES (?, 'chatgpt')", brand.id);

  const deleted = await sb.from("brands").delete().eq("id", brand.id);
  expect(deleted.error).toBeNull();
  expect(deleted.status).toBe(204);
  for (const table of ["brand_domains", "competitors", "prompt_sets", "prompts", "prompt_results", "citations", "suggestions", "ai_traffic_logs", "brand_platforms"])
    expect([table, await countRows(table, brand.id)]).toEqual([table, 0]);
  expect((await sb.from("brands").select("id")).data).toEqual([]);
});
