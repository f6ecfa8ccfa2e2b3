// backends: sqlite, postgres
// Acceptance 4: get_latest_prompt_results through supabase-js — the newest row per (prompt,
// platform, model, region), arguments and window honoured, query filters/order/limit applied to
// what it returns, and nothing for a brand of another organization.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { insertResultIn, serverDb, type ServerDb } from "../helpers/server-db";
import { createBrand, expectPgrstError, rest, signedUpOrg, type Org, type Server } from "./helpers";

let server: Server;
let a: Org;
let b: Org;
let brand: { id: string };
let brandB: { id: string };
let prompts: string[];
let db: ServerDb;
const ids: Record<string, string> = {};
const at = (day: number) => new Date(Date.UTC(2025, 0, day, 12)).toISOString();

beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
  [a, b] = await Promise.all([signedUpOrg(server, "RPC A"), signedUpOrg(server, "RPC B")]);
  brand = await createBrand(a.owner, a.id, "rpc-a", { domains: 0, competitors: 0 });
  brandB = await createBrand(b.owner, b.id, "rpc-b", { domains: 0, competitors: 0 });
  const set = (await a.owner.from("prompt_sets").insert({ brand_id: brand.id, name: "Set" }).select().single()).data!;
  prompts = (await a.owner.from("prompts").insert([{ prompt_set_id: set.id, text: "p1" }, { prompt_set_id: set.id, text: "p2" }]).select("id")).data!.map((p) => p.id);
  const add = (key: string, prompt: number, platform: string, model: string, day: number, region = "") =>
    insertResultIn(db, { brand_id: brand.id, prompt_id: prompts[prompt], platform, model, region, created_at: at(day), mentioned: day % 2 === 0 }).then((id) => (ids[key] = id));
  await add("p1-gpt-old", 0, "chatgpt", "gpt-4o", 1);
  await add("p1-gpt-mid", 0, "chatgpt", "gpt-4o", 5);
  await add("p1-gpt-new", 0, "chatgpt", "gpt-4o", 9);
  await add("p1-gpt-us", 0, "chatgpt", "gpt-4o", 2, "US");
  await add("p1-gpt5", 0, "chatgpt", "gpt-5", 3);
  await add("p1-pplx-old", 0, "perplexity", "sonar", 4);
  await add("p1-pplx-new", 0, "perplexity", "sonar", 6);
  await add("p2-gpt", 1, "chatgpt", "gpt-4o", 7);
  const setB = (await b.owner.from("prompt_sets").insert({ brand_id: brandB.id, name: "B" }).select().single()).data!;
  const promptB = (await b.owner.from("prompts").insert({ prompt_set_id: setB.id, text: "b" }).select().single()).data!;
  await insertResultIn(db, { brand_id: brandB.id, prompt_id: promptB.id, platform: "chatgpt", model: "gpt-4o", created_at: at(3) });
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

const latest = (args: Record<string, unknown>) => a.owner.rpc("get_latest_prompt_results", { p_brand_id: brand.id, ...args });
const idsOf = (rows: { id: string }[] | null) => (rows ?? []).map((r) => r.id).sort();
const expected = (...keys: string[]) => keys.map((k) => ids[k]).sort();

describe("get_latest_prompt_results", () => {
  test("returns the newest row of each (prompt, platform, model, region)", async () => {
    const res = await latest({});
    expect(res.error).toBeNull();
    expect(idsOf(res.data)).toEqual(expected("p1-gpt-new", "p1-gpt-us", "p1-gpt5", "p1-pplx-new", "p2-gpt"));
    const row = res.data!.find((r: { id: string }) => r.id === ids["p1-gpt-new"]);
    expect(row).toMatchObject({ brand_id: brand.id, platform: "chatgpt", model: "gpt-4o", region: "", mentioned: false, competitor_mentions: [{ name: "Rival" }], citations: [] });
  });

  test("p_platform, p_model and p_region narrow the rows", async () => {
    expect(idsOf((await latest({ p_platform: "perplexity" })).data)).toEqual(expected("p1-pplx-new"));
    expect(idsOf((await latest({ p_platform: "chatgpt", p_model: "gpt-4o" })).data)).toEqual(expected("p1-gpt-new", "p1-gpt-us", "p2-gpt"));
    expect(idsOf((await latest({ p_region: "US" })).data)).toEqual(expected("p1-gpt-us"));
  });

  test("the window picks the newest row inside it", async () => {
    expect(idsOf((await latest({ p_platform: "chatgpt", p_model: "gpt-4o", p_region: "", p_date_to: at(8) })).data)).toEqual(expected("p1-gpt-mid", "p2-gpt"));
    expect(idsOf((await latest({ p_date_from: at(5), p_date_to: at(6) })).data)).toEqual(expected("p1-gpt-mid", "p1-pplx-new"));
    expect(idsOf((await latest({ p_date_from: "2025-01-08" })).data)).toEqual(expected("p1-gpt-new"));
  });

  test("select, filters, order and limit in the query string apply to the returned rows", async () => {
    const res = await latest({}).select("id,platform,prompts(text)").eq("platform", "chatgpt").order("created_at", { ascending: false }).limit(2);
    expect(res.data as unknown).toEqual([
      { id: ids["p1-gpt-new"], platform: "chatgpt", prompts: { text: "p1" } },
      { id: ids["p2-gpt"], platform: "chatgpt", prompts: { text: "p2" } },
    ]);
    const counted = await a.owner.rpc("get_latest_prompt_results", { p_brand_id: brand.id }, { count: "exact" }).range(0, 0);
    expect([counted.status, counted.count, counted.data?.length]).toEqual([206, 5, 1]);
  });

  test("GET with query arguments works too", async () => {
    const res = await a.owner.rpc("get_latest_prompt_results", { p_brand_id: brand.id, p_platform: "perplexity" }, { get: true });
    expect(idsOf(res.data)).toEqual(expected("p1-pplx-new"));
    const raw = await rest(server, `/rpc/get_latest_prompt_results?p_brand_id=${brand.id}&select=id&platform=eq.perplexity`, { token: a.ownerToken });
    expect(raw.body).toEqual([{ id: ids["p1-pplx-new"] }]);
  });

  test("[] for another organization's brand (and for the anon key)", async () => {
    const foreign = await a.owner.rpc("get_latest_prompt_results", { p_brand_id: brandB.id });
    expect([foreign.status, foreign.data]).toEqual([200, []]);
    const own = await b.owner.rpc("get_latest_prompt_results", { p_brand_id: brandB.id });
    expect(own.data).toHaveLength(1);
    const anon = await rest(server, "/rpc/get_latest_prompt_results", { method: "POST", body: JSON.stringify({ p_brand_id: brand.id }) });
    expect([anon.status, anon.body]).toEqual([200, []]);
  });

  test("22P02 for a malformed uuid, 22007 for a malformed date, PGRST202 for an unknown or missing argument", async () => {
    const uuid = await rest(server, "/rpc/get_latest_prompt_results", { token: a.ownerToken, method: "POST", body: JSON.stringify({ p_brand_id: "abc" }) });
    expectPgrstError(uuid, 400, "22P02");
    expect(uuid.body.message).toBe('invalid input syntax for type uuid: "abc"');
    expectPgrstError(await rest(server, "/rpc/get_latest_prompt_results", { token: a.ownerToken, method: "POST", body: JSON.stringify({ p_brand_id: brand.id, p_date_from: "yesterday" }) }), 400, "22007");
    const unknown = await rest(server, "/rpc/get_latest_prompt_results", { token: a.ownerToken, method: "POST", body: JSON.stringify({ p_brand_id: brand.id, p_limit: 5 }) });
    expectPgrstError(unknown, 404, "PGRST202");
    expect(unknown.body.hint).toBe("Perhaps you meant to call the function public.get_latest_prompt_results(p_brand_id, p_date_from, p_date_to, p_model, p_platform, p_region, p_topic_id)");
    const missing = await a.owner.rpc("get_latest_prompt_results", { p_platform: "chatgpt" });
    expect([missing.status, missing.error?.code, missing.error?.message]).toEqual([404, "PGRST202", "Could not find the function public.get_latest_prompt_results(p_platform) in the schema cache"]);
  });
});
