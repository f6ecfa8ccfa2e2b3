// backends: sqlite, postgres
// Acceptance 2: row-level security between two organizations, for every exposed table, through
// the real supabase-js client: foreign rows are invisible and untouchable, a viewer only reads,
// the anon key alone sees nothing, and server-written tables are read-only for users.
import type { SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { client } from "../helpers/supabase";
import { insertResultIn, serverDb, type ServerDb } from "../helpers/server-db";
import { createBrand, memberOf, serviceClient, signedUpOrg, type Org, type Server } from "./helpers";

let server: Server;
let a: Org;
let b: Org;
let memberA: SupabaseClient;
let viewerA: SupabaseClient;
let anon: SupabaseClient;
let brandA: { id: string };
let brandB: { id: string };
const rowsB: Record<string, string> = {};
let db: ServerDb;

beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
  [a, b] = await Promise.all([signedUpOrg(server, "Org A"), signedUpOrg(server, "Org B")]);
  memberA = (await memberOf(server, a.id, "member")).sb;
  viewerA = (await memberOf(server, a.id, "viewer")).sb;
  anon = client(server.url, server.secrets.anonKey);
  brandA = await createBrand(a.owner, a.id, "alpha", { domains: 1, competitors: 1 });
  brandB = await createBrand(b.owner, b.id, "bravo", { domains: 2, competitors: 2 });
  const set = await b.owner.from("prompt_sets").insert({ brand_id: brandB.id, name: "B set" }).select().single();
  const prompt = await b.owner.from("prompts").insert({ prompt_set_id: set.data!.id, brand_id: brandB.id, text: "b prompt" }).select().single();
  const platform = await b.owner.from("brand_platforms").insert({ brand_id: brandB.id, platform: "chatgpt" }).select().single();
  rowsB.prompt_sets = set.data!.id;
  rowsB.prompts = prompt.data!.id;
  rowsB.brand_platforms = platform.data!.id;
  rowsB.prompt_results = await insertResultIn(db, { brand_id: brandB.id, prompt_id: prompt.data!.id, platform: "chatgpt", model: "gpt-4o", created_at: new Date().toISOString() });
  await db.inspect("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain) VALUES (?, ?, 1, 'https://b.com', 'https://b.com/', 'b.com')", rowsB.prompt_results, brandB.id);
  await db.inspect("INSERT INTO suggestions (brand_id, type, key, title) VALUES (?, 'content_gap', 'k', 'B suggestion')", brandB.id);
  await db.inspect("INSERT INTO ai_traffic_logs (brand_id, url, path, visitor_hash) VALUES (?, 'https://b.com/', '/', 'h')", brandB.id);
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

const BRAND_CHILDREN = ["brand_domains", "competitors", "prompt_sets", "prompts", "brand_platforms", "prompt_results", "citations", "suggestions", "ai_traffic_logs"];

/** B's rows as B's owner sees them (the ground truth after an attack). */
async function bState() {
  const state: Record<string, unknown> = {};
  for (const table of ["brands", ...BRAND_CHILDREN]) state[table] = (await b.owner.from(table).select("*").order("id")).data;
  return state;
}

describe("a member of A", () => {
  test("reads [] for B's brand in every table, and only A's organization", async () => {
    for (const sb of [a.owner, memberA]) {
      expect((await sb.from("brands").select("*").eq("id", brandB.id)).data).toEqual([]);
      for (const table of BRAND_CHILDREN) {
        const res = await sb.from(table).select("*").eq("brand_id", brandB.id);
        expect([table, res.error, res.data]).toEqual([table, null, []]);
      }
      expect((await sb.from("organizations").select("id")).data).toEqual([{ id: a.id }]);
      const members = (await sb.from("organization_members").select("organization_id")).data!;
      expect(new Set(members.map((m) => m.organization_id))).toEqual(new Set([a.id]));
    }
    // …while B sees its own rows in every table.
    for (const table of BRAND_CHILDREN) expect([table, ((await b.owner.from(table).select("id").eq("brand_id", brandB.id)).data ?? []).length > 0]).toEqual([table, true]);
  });

  test("embeds never pull B's rows in, whatever the direction", async () => {
    const own = await memberA.from("brands").select("id,brand_domains(brand_id),competitors(brand_id),organizations(id)");
    expect(own.data as unknown).toEqual([{ id: brandA.id, brand_domains: [{ brand_id: brandA.id }], competitors: [{ brand_id: brandA.id }], organizations: { id: a.id } }]);
    const up = await memberA.from("prompts").select("id,brands(id)").eq("id", rowsB.prompts);
    expect(up.data).toEqual([]);
    const inner = await memberA.from("organizations").select("id,brands!inner(id)").eq("brands.id", brandB.id);
    expect(inner.data).toEqual([]);
  });

  test("PATCH and DELETE of B's rows change nothing", async () => {
    const before = await bState();
    expect((await memberA.from("brands").update({ name: "pwned" }).eq("id", brandB.id)).error).toBeNull();
    expect((await memberA.from("brands").update({ name: "pwned" }).eq("organization_id", b.id)).error).toBeNull();
    for (const table of ["brand_domains", "competitors", "prompt_sets", "prompts", "brand_platforms"]) {
      const patch = await memberA.from(table).update({ created_at: "2000-01-01T00:00:00.000Z" }).eq("brand_id", brandB.id).select();
      expect([table, patch.error, patch.data]).toEqual([table, null, []]);
      const del = await memberA.from(table).delete().eq("brand_id", brandB.id).select();
      expect([table, del.error, del.data]).toEqual([table, null, []]);
    }
    expect((await memberA.from("suggestions").update({ status: "dismissed" }).eq("brand_id", brandB.id).select()).data).toEqual([]);
    expect((await memberA.from("brands").delete().eq("id", brandB.id)).error).toBeNull();
    expect((await memberA.from("organizations").delete().eq("id", b.id)).error).toBeNull();
    expect(await bState()).toEqual(before);
    expect((await b.owner.from("organizations").select("id")).data).toEqual([{ id: b.id }]);
  });

  test("INSERT into B's organization or under B's brand is 403 42501", async () => {
    const attempts: [string, Record<string, unknown>][] = [
      ["brands", { organization_id: b.id, name: "Sneaky", slug: "sneaky" }],
      ["brand_domains", { brand_id: brandB.id, domain: "sneaky.com" }],
      ["competitors", { brand_id: brandB.id, name: "Sneaky" }],
      ["prompt_sets", { brand_id: brandB.id, name: "Sneaky" }],
      ["prompts", { prompt_set_id: rowsB.prompt_sets, brand_id: brandB.id, text: "sneaky" }],
      // brand_id copied from B's prompt set lands in B: refused as well
      ["prompts", { prompt_set_id: rowsB.prompt_sets, text: "sneaky" }],
      ["brand_platforms", { brand_id: brandB.id, platform: "gemini" }],
      ["organization_members", { organization_id: b.id, user_id: (await a.owner.auth.getUser()).data.user!.id, role: "owner" }],
    ];
    const before = await bState();
    for (const [table, row] of attempts) {
      const res = await memberA.from(table).insert(row);
      expect([table, res.status, res.error?.code]).toEqual([table, 403, "42501"]);
      // Memberships are made by accepting an invitation only: no insert is granted at all.
      expect(res.error!.message).toContain(table === "organization_members" ? "permission denied for table organization_members" : "row-level security");
    }
    // A brand id that exists in B and one that exists nowhere get the same answer.
    for (const brandId of [brandB.id, crypto.randomUUID()]) {
      const res = await memberA.from("topics").insert({ brand_id: brandId, name: "probe" });
      expect([res.status, res.error?.code, res.error?.message]).toEqual([403, "42501", 'new row violates row-level security policy for table "topics"']);
    }
    // A duplicate slug in B is still a 42501, not a 23505 that would reveal B's slug.
    const dup = await memberA.from("brands").insert({ organization_id: b.id, name: "x", slug: "bravo" });
    expect([dup.status, dup.error?.code]).toEqual([403, "42501"]);
    // Upserting B's brand id into A does not take it over.
    const upsert = await a.owner.from("brands").upsert({ id: brandB.id, organization_id: a.id, name: "Taken", slug: "taken" });
    expect([upsert.status, upsert.error?.code]).toEqual([403, "42501"]);
    // Nor can A move its own brand into B.
    const move = await a.owner.from("brands").update({ organization_id: b.id }).eq("id", brandA.id);
    expect([move.status, move.error?.code]).toEqual([403, "42501"]);
    // A prompt in A's brand cannot hang off B's prompt set.
    const cross = await a.owner.from("prompts").insert({ prompt_set_id: rowsB.prompt_sets, brand_id: brandA.id, text: "cross" });
    expect(cross.status).toBe(400);
    expect(cross.error?.code).toBe("23514");
    expect(await bState()).toEqual(before);
  });

  test("cannot point a row of A at B's topic, by insert or update; B's topic reads as no topic at all", async () => {
    // On Postgres the check must see past the caller's policies, under which B's topic is no row at all.
    const topicB = await b.owner.from("topics").insert({ brand_id: brandB.id, name: "B topic" }).select().single();
    const setA = await a.owner.from("prompt_sets").insert({ brand_id: brandA.id, name: "A set" }).select().single();
    const before = await bState();
    // The same answer as for an id nobody has (whether B's id exists is not A's to learn), but the id.
    const pointAt = (topicId: string) => a.owner.from("prompts").insert({ prompt_set_id: setA.data!.id, brand_id: brandA.id, text: "via topic", topic_id: topicId });
    const nobody = crypto.randomUUID();
    const [viaTopic, viaNobody] = [await pointAt(topicB.data!.id), await pointAt(nobody)];
    expect([viaTopic.status, viaTopic.error?.code, viaTopic.error?.message]).toEqual([viaNobody.status, viaNobody.error?.code, viaNobody.error?.message]);
    expect([viaTopic.status, viaTopic.error?.code, viaTopic.error?.details]).toEqual([409, "23503", `Key (topic_id)=(${topicB.data!.id}) is not present in table "topics".`]);
    expect(viaNobody.error?.details).toBe(`Key (topic_id)=(${nobody}) is not present in table "topics".`);
    const promptA = await a.owner.from("prompts").insert({ prompt_set_id: setA.data!.id, brand_id: brandA.id, text: "mine" }).select().single();
    const moved = await a.owner.from("prompts").update({ topic_id: topicB.data!.id }).eq("id", promptA.data!.id);
    expect([moved.status, moved.error?.code]).toEqual([409, "23503"]);
    const upserted = await a.owner.from("prompts").upsert({ id: promptA.data!.id, prompt_set_id: setA.data!.id, brand_id: brandA.id, text: "mine", topic_id: topicB.data!.id });
    expect([upserted.status, upserted.error?.code]).toEqual([409, "23503"]);
    // A topic of another brand of A's own is A's to read: that one says why.
    const otherBrand = await createBrand(a.owner, a.id, "alpha-topics");
    const topicA2 = await a.owner.from("topics").insert({ brand_id: otherBrand.id, name: "other brand's topic" }).select().single();
    const sideways = await pointAt(topicA2.data!.id);
    expect([sideways.status, sideways.error?.code, sideways.error?.details]).toEqual([400, "23514", "prompts.topic_id must refer to a topics row of the same brand"]);
    expect((await a.owner.from("brands").delete().eq("id", otherBrand.id)).status).toBe(204);
    const pointing = await db.inspect<{ n: number }>("SELECT count(*) AS n FROM prompts WHERE topic_id = ?", topicB.data!.id);
    expect(Number(pointing[0]!.n)).toBe(0);
    expect(await bState()).toEqual(before);
  });

  test("moving a prompt set to another brand is refused while its prompts keep a topic of the first", async () => {
    const other = await createBrand(a.owner, a.id, "alpha-two");
    const topic = await a.owner.from("topics").insert({ brand_id: brandA.id, name: "A topic" }).select().single();
    const set = await a.owner.from("prompt_sets").insert({ brand_id: brandA.id, name: "Moving set" }).select().single();
    const prompt = await a.owner.from("prompts").insert({ prompt_set_id: set.data!.id, brand_id: brandA.id, text: "topical", topic_id: topic.data!.id }).select().single();
    const move = await a.owner.from("prompt_sets").update({ brand_id: other.id }).eq("id", set.data!.id);
    expect([move.status, move.error?.code, move.error?.details]).toEqual([400, "23514", "prompts.topic_id must refer to a topics row of the same brand"]);
    // Nothing half-moved: the set and its prompt stay in the first brand.
    expect((await a.owner.from("prompt_sets").select("brand_id").eq("id", set.data!.id).single()).data).toEqual({ brand_id: brandA.id });
    expect((await a.owner.from("prompts").select("brand_id, topic_id").eq("id", prompt.data!.id).single()).data).toEqual({ brand_id: brandA.id, topic_id: topic.data!.id });
    expect((await a.owner.from("brands").delete().eq("id", other.id)).status).toBe(204);
  });
});

describe("organization management", () => {
  test("owners and admins rename the organization and manage roles; members cannot", async () => {
    const renamedByMember = await memberA.from("organizations").update({ name: "By member" }).eq("id", a.id).select();
    expect(renamedByMember.data).toEqual([]);
    const renamed = await a.owner.from("organizations").update({ name: "Org A renamed" }).eq("id", a.id).select("name");
    expect(renamed.data).toEqual([{ name: "Org A renamed" }]);
    const viewerId = (await viewerA.auth.getUser()).data.user!.id;
    const promoteByMember = await memberA.from("organization_members").update({ role: "admin" }).eq("user_id", viewerId).select();
    expect(promoteByMember.data).toEqual([]);
    const members = await a.owner.from("organization_members").select("role").eq("user_id", viewerId);
    expect(members.data).toEqual([{ role: "viewer" }]);
    const badRole = await a.owner.from("organization_members").update({ role: "emperor" }).eq("user_id", viewerId);
    expect([badRole.status, badRole.error?.code]).toEqual([400, "22P02"]);
    const newOrg = await a.owner.from("organizations").insert({ name: "Side project", slug: "side-project" });
    expect([newOrg.status, newOrg.error?.code, newOrg.error?.message]).toEqual([403, "42501", "permission denied for table organizations"]);
  });
});

describe("a viewer", () => {
  test("reads the organization's rows but cannot write them", async () => {
    const read = await viewerA.from("brands").select("id,brand_domains(id)");
    expect(read.data?.map((r) => r.id)).toEqual([brandA.id]);
    const insert = await viewerA.from("brands").insert({ organization_id: a.id, name: "V", slug: "viewer-brand" });
    expect([insert.status, insert.error?.code]).toEqual([403, "42501"]);
    const child = await viewerA.from("competitors").insert({ brand_id: brandA.id, name: "V" });
    expect([child.status, child.error?.code]).toEqual([403, "42501"]);
    const update = await viewerA.from("brands").update({ name: "Renamed by viewer" }).eq("id", brandA.id).select();
    expect(update.data).toEqual([]);
    const del = await viewerA.from("brands").delete().eq("id", brandA.id).select();
    expect(del.data).toEqual([]);
    const still = await a.owner.from("brands").select("name").eq("id", brandA.id).single();
    expect(still.data!.name).toBe("Brand alpha");
  });
});

describe("the anon key alone", () => {
  test("reads [] everywhere and gets 401 42501 on insert", async () => {
    for (const table of ["organizations", "organization_members", "brands", ...BRAND_CHILDREN]) {
      const res = await anon.from(table).select("*");
      expect([table, res.status, res.data]).toEqual([table, 200, []]);
    }
    const insert = await anon.from("brands").insert({ organization_id: a.id, name: "Anon", slug: "anon" });
    expect([insert.status, insert.error?.code]).toEqual([401, "42501"]);
    const patch = await anon.from("brands").update({ name: "anon" }).eq("id", brandA.id).select();
    expect(patch.data).toEqual([]);
  });
});

describe("server-written tables", () => {
  test("prompt_results, citations and ai_traffic_logs are read-only; suggestions take a status only", async () => {
    const ownResult = await insertResultIn(db, { brand_id: brandA.id, prompt_id: (await seedPrompt(a.owner, brandA.id)).id, platform: "chatgpt", model: "gpt-4o", created_at: new Date().toISOString() });
    const denied: [string, PromiseLike<{ status: number; error: { code: string; message: string } | null }>][] = [
      ["prompt_results insert", a.owner.from("prompt_results").insert({ brand_id: brandA.id, prompt_id: ownResult, platform: "x", model: "y" })],
      ["prompt_results update", a.owner.from("prompt_results").update({ response: "edited" }).eq("id", ownResult)],
      ["prompt_results delete", a.owner.from("prompt_results").delete().eq("id", ownResult)],
      ["citations insert", a.owner.from("citations").insert({ result_id: ownResult, brand_id: brandA.id, position: 1, url: "u", normalized_url: "u", domain: "d" })],
      ["ai_traffic_logs insert", a.owner.from("ai_traffic_logs").insert({ brand_id: brandA.id, url: "u", path: "/", visitor_hash: "h" })],
      ["suggestions insert", a.owner.from("suggestions").insert({ brand_id: brandA.id, type: "t", key: "k", title: "x" })],
      ["suggestions title", a.owner.from("suggestions").update({ title: "edited" }).eq("brand_id", brandA.id)],
    ];
    for (const [what, pending] of denied) {
      const res = await pending;
      expect([what, res.status, res.error?.code, res.error?.message]).toEqual([what, 403, "42501", expect.stringContaining("permission denied")]);
    }
    await db.inspect("INSERT INTO suggestions (brand_id, type, key, title) VALUES (?, 'content_gap', 'a', 'A suggestion')", brandA.id);
    const triaged = await memberA.from("suggestions").update({ status: "accepted" }).eq("brand_id", brandA.id).select("status,title");
    expect(triaged.data).toEqual([{ status: "accepted", title: "A suggestion" }]);
    const bad = await memberA.from("suggestions").update({ status: "maybe" }).eq("brand_id", brandA.id);
    expect([bad.status, bad.error?.code]).toEqual([400, "22P02"]);
  });

  test("the service role bypasses row-level security", async () => {
    const service = serviceClient(server);
    const all = await service.from("brands").select("id").in("id", [brandA.id, brandB.id]);
    expect(all.data!.map((r) => r.id).sort()).toEqual([brandA.id, brandB.id].sort());
    const written = await service.from("suggestions").insert({ brand_id: brandB.id, type: "service", key: "s", title: "By the server" }).select("title").single();
    expect(written.data).toEqual({ title: "By the server" });
  });
});

async function seedPrompt(sb: SupabaseClient, brandId: string) {
  const set = await sb.from("prompt_sets").insert({ brand_id: brandId, name: "A set" }).select().single();
  return (await sb.from("prompts").insert({ prompt_set_id: set.data!.id, text: "a prompt" }).select().single()).data!;
}
