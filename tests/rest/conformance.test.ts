// backends: sqlite, postgres
// Acceptance 3 (features): what DESIGN §5 lists, as supabase-js (or a browser) exercises it —
// select shapes and embeds, every filter operator, order, pagination and counts, Prefer, upserts,
// singular and CSV representations, HEAD and CORS.
import type { SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TEST_BACKEND, testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { createBrand, rest, signedUpOrg, type Org, type Server } from "./helpers";

let server: Server;
let org: Org;
let sb: SupabaseClient;
let brand: { id: string };
let other: { id: string };
let setId: string;
let promptIds: string[];

beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Conformance");
  sb = org.owner;
  brand = await createBrand(sb, org.id, "acme", { domains: 3, competitors: 0 });
  other = await createBrand(sb, org.id, "zeta", { domains: 0, competitors: 0 });
  const competitors = await sb
    .from("competitors")
    .insert(
      [
        { brand_id: brand.id, name: "Alpha", domain: "alpha.com", aliases: ["A", "Alpha Inc"] },
        { brand_id: brand.id, name: "beta", domain: null, aliases: ["B"] },
        { brand_id: brand.id, name: "Gamma, Ltd (UK)", domain: "gamma.co.uk", aliases: [] },
        { brand_id: brand.id, name: "Delta_Corp", domain: null, aliases: ["D", "Delta"] },
      ],
      { defaultToNull: false },
    )
    .select("id");
  expect(competitors.error).toBeNull();
  setId = (await sb.from("prompt_sets").insert({ brand_id: brand.id, name: "Core" }).select().single()).data!.id;
  const prompts = await sb
    .from("prompts")
    .insert([
      { prompt_set_id: setId, text: "first", is_active: true, category: "a" },
      { prompt_set_id: setId, text: "second", is_active: false, category: null },
      { prompt_set_id: setId, text: "third", is_active: true, category: "b" },
    ])
    .select("id");
  promptIds = prompts.data!.map((p) => p.id);
});
afterAll(() => server.stop());

const names = (rows: { name: string }[] | null) => (rows ?? []).map((r) => r.name);
const competitors = () => sb.from("competitors").select("name").eq("brand_id", brand.id);

describe("select", () => {
  test("columns, aliases, JSON paths and casts", async () => {
    const res = await sb.from("competitors").select("label:name,first_alias:aliases->0,aliases->>1,domain").eq("name", "Alpha").single();
    expect(res.data as unknown).toEqual({ label: "Alpha", first_alias: "A", aliases: "Alpha Inc", domain: "alpha.com" });
    const raw = await rest(server, `/prompts?select=text,is_active::text&id=eq.${promptIds[1]}`, { token: org.ownerToken });
    // The cast gives the backend's text of a boolean: SQLite stores 0/1, Postgres says false/true.
    expect(raw.body).toEqual([{ text: "second", is_active: TEST_BACKEND === "postgres" ? "false" : "0" }]);
  });

  test("to-many embeds are arrays, to-one embeds are objects, nested and aliased", async () => {
    const many = await sb.from("brands").select("id,domains:brand_domains(domain),prompt_sets(name,prompts(text))").eq("id", brand.id).single();
    expect(many.data!.domains).toHaveLength(3);
    expect(many.data!.prompt_sets).toEqual([{ name: "Core", prompts: [{ text: "first" }, { text: "second" }, { text: "third" }] }]);
    const one = await sb.from("prompts").select("text,prompt_sets(name,brands(slug))").eq("id", promptIds[0]).single();
    expect(one.data as unknown).toEqual({ text: "first", prompt_sets: { name: "Core", brands: { slug: "acme" } } });
    // Through a foreign-key column, and spread into the parent.
    const byColumn = await sb.from("prompts").select("text,set:prompt_set_id(name)").eq("id", promptIds[0]).single();
    expect(byColumn.data as unknown).toEqual({ text: "first", set: { name: "Core" } });
    const spread = await sb.from("prompts").select("text,...prompt_sets(set_name:name)").eq("id", promptIds[0]).single();
    expect(spread.data).toEqual({ text: "first", set_name: "Core" });
  });

  test("embedded filters, order and limit apply per parent; !inner and null filters filter parents", async () => {
    const res = await sb
      .from("brands")
      .select("slug,brand_domains(domain)")
      .eq("organization_id", org.id)
      .order("domain", { referencedTable: "brand_domains", ascending: false })
      .limit(2, { referencedTable: "brand_domains" })
      .order("slug");
    expect(res.data).toEqual([
      { slug: "acme", brand_domains: [{ domain: "acme-2.example.com" }, { domain: "acme-1.example.com" }] },
      { slug: "zeta", brand_domains: [] },
    ]);
    const filtered = await sb.from("brands").select("slug,brand_domains(domain)").eq("brand_domains.is_primary", true).order("slug");
    expect(filtered.data).toEqual([
      { slug: "acme", brand_domains: [{ domain: "acme-0.example.com" }] },
      { slug: "zeta", brand_domains: [] },
    ]);
    const inner = await sb.from("brands").select("slug,brand_domains!inner(domain)").eq("brand_domains.domain", "acme-1.example.com");
    expect(inner.data).toEqual([{ slug: "acme", brand_domains: [{ domain: "acme-1.example.com" }] }]);
    const withDomains = await sb.from("brands").select("slug,brand_domains(id)").not("brand_domains", "is", null);
    expect(withDomains.data!.map((b) => b.slug)).toEqual(["acme"]);
    const without = await sb.from("brands").select("slug,brand_domains(id)").is("brand_domains", null);
    expect(without.data!.map((b) => b.slug)).toEqual(["zeta"]);
    const offset = await rest(server, `/brands?select=slug,brand_domains(domain)&brand_domains.order=domain&brand_domains.offset=1&brand_domains.limit=1&id=eq.${brand.id}`, { token: org.ownerToken });
    expect(offset.body).toEqual([{ slug: "acme", brand_domains: [{ domain: "acme-1.example.com" }] }]);
  });

  test("order by a to-one embed's column", async () => {
    const res = await sb.from("prompts").select("text,prompt_sets(name)").order("prompt_sets(name)").order("text", { ascending: false });
    expect(res.data!.map((p) => p.text)).toEqual(["third", "second", "first"]);
  });
});

describe("filters", () => {
  test("eq neq gt gte lt lte", async () => {
    expect(names((await competitors().eq("name", "Alpha")).data)).toEqual(["Alpha"]);
    expect(names((await competitors().neq("name", "Alpha").order("name")).data)).toEqual(["Delta_Corp", "Gamma, Ltd (UK)", "beta"]);
    expect(names((await competitors().gt("name", "Delta_Corp").order("name")).data)).toEqual(["Gamma, Ltd (UK)", "beta"]);
    expect(names((await competitors().gte("name", "Delta_Corp").order("name")).data)).toEqual(["Delta_Corp", "Gamma, Ltd (UK)", "beta"]);
    expect(names((await competitors().lt("name", "Delta_Corp")).data)).toEqual(["Alpha"]);
    expect(names((await competitors().lte("name", "Delta_Corp").order("name")).data)).toEqual(["Alpha", "Delta_Corp"]);
  });

  test("like is case-sensitive, ilike is not; * and % are wildcards, _ one character", async () => {
    expect(names((await competitors().like("name", "*lph*")).data)).toEqual(["Alpha"]);
    expect(names((await competitors().like("name", "%LPH%")).data)).toEqual([]);
    expect(names((await competitors().ilike("name", "%LPH%")).data)).toEqual(["Alpha"]);
    expect(names((await competitors().like("name", "bet_")).data)).toEqual(["beta"]);
    expect(names((await competitors().like("name", "Delta\\_*")).data)).toEqual(["Delta_Corp"]);
    expect(names((await competitors().ilikeAnyOf("name", ["alp*", "BET*"]).order("name")).data)).toEqual(["Alpha", "beta"]);
  });

  test("is, in (with quoted values), not", async () => {
    expect(names((await competitors().is("domain", null).order("name")).data)).toEqual(["Delta_Corp", "beta"]);
    expect(names((await competitors().not("domain", "is", null).order("name")).data)).toEqual(["Alpha", "Gamma, Ltd (UK)"]);
    expect(names((await competitors().in("name", ["Alpha", "Gamma, Ltd (UK)"]).order("name")).data)).toEqual(["Alpha", "Gamma, Ltd (UK)"]);
    expect(names((await competitors().not("name", "in", '("Alpha","beta")').order("name")).data)).toEqual(["Delta_Corp", "Gamma, Ltd (UK)"]);
    const active = await sb.from("prompts").select("text").is("is_active", false);
    expect(active.data).toEqual([{ text: "second" }]);
    const eqBool = await sb.from("prompts").select("text").eq("is_active", true).order("text");
    expect(eqBool.data).toEqual([{ text: "first" }, { text: "third" }]);
  });

  test("cs cd ov on JSON arrays", async () => {
    expect(names((await competitors().contains("aliases", ["Alpha Inc"])).data)).toEqual(["Alpha"]);
    expect(names((await competitors().contains("aliases", ["D", "Delta"])).data)).toEqual(["Delta_Corp"]);
    expect(names((await competitors().containedBy("aliases", ["A", "Alpha Inc", "B"]).order("name")).data)).toEqual(["Alpha", "Gamma, Ltd (UK)", "beta"]);
    expect(names((await competitors().overlaps("aliases", ["B", "D"]).order("name")).data)).toEqual(["Delta_Corp", "beta"]);
    const json = await rest(server, `/competitors?select=name&aliases=cs.${encodeURIComponent('["A"]')}`, { token: org.ownerToken });
    expect(json.body).toEqual([{ name: "Alpha" }]);
  });

  test("or and and, nested and negated, at the root and inside an embed", async () => {
    expect(names((await competitors().or("name.eq.Alpha,and(domain.is.null,name.like.b*)").order("name")).data)).toEqual(["Alpha", "beta"]);
    const negated = await rest(server, `/competitors?select=name&brand_id=eq.${brand.id}&not.or=(name.eq.Alpha,name.eq.beta)&order=name`, { token: org.ownerToken });
    expect(negated.body).toEqual([{ name: "Delta_Corp" }, { name: "Gamma, Ltd (UK)" }]);
    const quoted = await competitors().or('name.eq."Gamma, Ltd (UK)",name.eq.beta').order("name");
    expect(names(quoted.data)).toEqual(["Gamma, Ltd (UK)", "beta"]);
    const embedded = await sb.from("brands").select("slug,brand_domains(domain)").or("domain.eq.acme-0.example.com,domain.eq.acme-2.example.com", { referencedTable: "brand_domains" }).eq("id", brand.id).single();
    expect(embedded.data!.brand_domains.map((d: { domain: string }) => d.domain).sort()).toEqual(["acme-0.example.com", "acme-2.example.com"]);
  });
});

describe("order, pagination and counts", () => {
  test("order with nullsfirst / nullslast (Postgres' defaults otherwise)", async () => {
    const first = await sb.from("competitors").select("name").eq("brand_id", brand.id).order("domain", { nullsFirst: true }).order("name");
    expect(names(first.data)).toEqual(["Delta_Corp", "beta", "Alpha", "Gamma, Ltd (UK)"]);
    const last = await sb.from("competitors").select("name").eq("brand_id", brand.id).order("domain", { ascending: false, nullsFirst: false });
    expect(names(last.data).slice(0, 2)).toEqual(["Gamma, Ltd (UK)", "Alpha"]);
    const descDefault = await sb.from("competitors").select("name").eq("brand_id", brand.id).order("domain", { ascending: false }).order("name");
    expect(names(descDefault.data).slice(0, 2)).toEqual(["Delta_Corp", "beta"]);
  });

  test("limit, offset, range() and the Range header; count=exact gives Content-Range and 206", async () => {
    const page = await sb.from("competitors").select("name", { count: "exact" }).eq("brand_id", brand.id).order("name").range(1, 2);
    expect(page.status).toBe(206);
    expect(page.count).toBe(4);
    expect(names(page.data)).toEqual(["Delta_Corp", "Gamma, Ltd (UK)"]);
    const all = await sb.from("competitors").select("name", { count: "exact" }).eq("brand_id", brand.id);
    expect([all.status, all.count]).toEqual([200, 4]);
    const header = await rest(server, `/competitors?select=name&brand_id=eq.${brand.id}&order=name`, { token: org.ownerToken, headers: { range: "2-", prefer: "count=exact" } });
    expect(header.status).toBe(206);
    expect(header.headers.get("content-range")).toBe("2-3/4");
    expect(header.headers.get("preference-applied")).toBe("count=exact");
    expect(header.body).toEqual([{ name: "Gamma, Ltd (UK)" }, { name: "beta" }]);
    const plain = await rest(server, `/competitors?select=name&brand_id=eq.${brand.id}&limit=1`, { token: org.ownerToken });
    expect(plain.headers.get("content-range")).toBe("0-0/*");
    const zero = await rest(server, `/competitors?select=name&limit=0`, { token: org.ownerToken, headers: { prefer: "count=exact" } });
    expect([zero.body, zero.headers.get("content-range")]).toEqual([[], "*/4"]);
  });

  test("HEAD answers headers only, with the count", async () => {
    const head = await sb.from("competitors").select("*", { count: "exact", head: true }).eq("brand_id", brand.id);
    expect([head.status, head.count, head.data]).toEqual([200, 4, null]);
  });
});

describe("representations", () => {
  test("single() and maybeSingle()", async () => {
    expect((await competitors().eq("name", "Alpha").single()).data).toEqual({ name: "Alpha" });
    expect((await competitors().eq("name", "nobody").maybeSingle()).data).toBeNull();
  });

  test("text/csv", async () => {
    const res = await sb.from("competitors").select("name,domain,aliases").eq("brand_id", brand.id).order("name").csv();
    expect(res.data).toBe(
      ['name,domain,aliases', 'Alpha,alpha.com,"[""A"",""Alpha Inc""]"', 'Delta_Corp,,"[""D"",""Delta""]"', '"Gamma, Ltd (UK)",gamma.co.uk,[]', 'beta,,"[""B""]"'].join("\n"),
    );
  });

  test("stripped nulls", async () => {
    const res = await competitors().select("name,domain").eq("name", "beta").stripNulls();
    expect(res.data as unknown).toEqual([{ name: "beta" }]);
  });
});

describe("writes and Prefer", () => {
  test("return=minimal gives 201 and no body; representation returns the rows", async () => {
    const minimal = await rest(server, "/prompt_sets", { token: org.ownerToken, method: "POST", body: JSON.stringify({ brand_id: other.id, name: "Minimal" }) });
    expect([minimal.status, minimal.text]).toEqual([201, ""]);
    const repr = await rest(server, "/prompt_sets?select=name", { token: org.ownerToken, method: "POST", body: JSON.stringify({ brand_id: other.id, name: "Repr" }), headers: { prefer: "return=representation" } });
    expect([repr.status, repr.body, repr.headers.get("preference-applied")]).toEqual([201, [{ name: "Repr" }], "return=representation"]);
    const patch = await sb.from("prompt_sets").update({ name: "Renamed" }).eq("name", "Repr").select("name");
    expect([patch.status, patch.data]).toEqual([200, [{ name: "Renamed" }]]);
    const del = await sb.from("prompt_sets").delete({ count: "exact" }).in("name", ["Minimal", "Renamed"]).select("name").order("name");
    expect([del.status, del.count, del.data]).toEqual([200, 2, [{ name: "Minimal" }, { name: "Renamed" }]]);
  });

  test("columns= picks the payload keys; missing=default fills defaults", async () => {
    const res = await rest(server, "/brand_platforms?columns=brand_id,platform&select=platform,check_frequency,is_enabled", {
      token: org.ownerToken,
      method: "POST",
      body: JSON.stringify([{ brand_id: other.id, platform: "chatgpt", ignored: "x" }]),
      headers: { prefer: "return=representation" },
    });
    expect([res.status, res.body]).toEqual([201, [{ platform: "chatgpt", check_frequency: "daily", is_enabled: true }]]);
    const nulls = await sb.from("brand_platforms").insert([{ brand_id: other.id, platform: "gemini", model: "gemini-2.5" }, { brand_id: other.id, platform: "claude" }]).select("platform,model");
    expect(nulls.data).toEqual([{ platform: "gemini", model: "gemini-2.5" }, { platform: "claude", model: null }]);
  });

  test("upsert: merge-duplicates on a unique key updates (200 when nothing is new), ignore-duplicates skips", async () => {
    const first = await sb.from("brand_platforms").upsert({ brand_id: brand.id, platform: "perplexity", check_frequency: "weekly" }, { onConflict: "brand_id,platform" }).select("platform,check_frequency");
    expect([first.status, first.data]).toEqual([201, [{ platform: "perplexity", check_frequency: "weekly" }]]);
    const again = await sb.from("brand_platforms").upsert({ brand_id: brand.id, platform: "perplexity", check_frequency: "hourly" }, { onConflict: "brand_id,platform" }).select("platform,check_frequency");
    expect([again.status, again.data]).toEqual([200, [{ platform: "perplexity", check_frequency: "hourly" }]]);
    const ignored = await sb.from("brand_platforms").upsert({ brand_id: brand.id, platform: "perplexity", check_frequency: "monthly" }, { onConflict: "brand_id,platform", ignoreDuplicates: true }).select();
    expect(ignored.data).toEqual([]);
    const now = await sb.from("brand_platforms").select("check_frequency").eq("brand_id", brand.id).eq("platform", "perplexity").single();
    expect(now.data).toEqual({ check_frequency: "hourly" });
    const byPk = await sb.from("brands").upsert({ id: other.id, organization_id: org.id, name: "Zeta 2", slug: "zeta" }).select("name");
    expect([byPk.status, byPk.data]).toEqual([200, [{ name: "Zeta 2" }]]);
    const noKey = await rest(server, "/competitors?on_conflict=name", { token: org.ownerToken, method: "POST", body: JSON.stringify({ brand_id: brand.id, name: "x" }), headers: { prefer: "resolution=merge-duplicates" } });
    expect([noKey.status, noKey.body.code]).toEqual([400, "42P10"]);
  });

  test("bulk insert keeps each row's values and reports the count", async () => {
    const rows = Array.from({ length: 120 }, (_, i) => ({ brand_id: other.id, name: `Bulk ${i}`, aliases: [`b${i}`] }));
    const res = await sb.from("competitors").insert(rows, { count: "exact" }).select("name,aliases");
    expect(res.status).toBe(201);
    expect(res.count).toBe(120);
    expect(res.data![119]).toEqual({ name: "Bulk 119", aliases: ["b119"] });
    await sb.from("competitors").delete().eq("brand_id", other.id);
  });

  test("an update of a prompt's set keeps brand_id consistent", async () => {
    const otherSet = (await sb.from("prompt_sets").insert({ brand_id: other.id, name: "Other" }).select().single()).data!;
    const moved = await sb.from("prompts").update({ prompt_set_id: otherSet.id }).eq("id", promptIds[2]).select("brand_id").single();
    expect(moved.data).toEqual({ brand_id: other.id });
    const inconsistent = await sb.from("prompts").update({ brand_id: brand.id }).eq("id", promptIds[2]);
    expect([inconsistent.status, inconsistent.error?.code]).toEqual([400, "23514"]);
    await sb.from("prompts").update({ prompt_set_id: setId }).eq("id", promptIds[2]);
  });
});

describe("stored data", () => {
  // SQLite-only: a jsonb column on Postgres cannot hold text that is not JSON.
  test.skipIf(TEST_BACKEND === "postgres")("a JSON column holding text that is not JSON is returned as text, not a 500", async () => {
    const db = await serverDb(server);
    await db.inspect("UPDATE competitors SET aliases = 'not json' WHERE name = 'beta'");
    const res = await competitors().select("name,aliases").eq("name", "beta").single();
    expect([res.status, res.data]).toEqual([200, { name: "beta", aliases: "not json" }]);
    const ok = await competitors().select("aliases").eq("name", "Alpha").single();
    expect(ok.data).toEqual({ aliases: ["A", "Alpha Inc"] });
    await db.inspect(`UPDATE competitors SET aliases = '["B"]' WHERE name = 'beta'`);
  });
});

describe("HTTP surface", () => {
  test("CORS: preflight allows supabase-js headers, responses expose Content-Range", async () => {
    const preflight = await fetch(`${server.url}/rest/v1/brands`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.com", "access-control-request-method": "PATCH", "access-control-request-headers": "apikey, authorization, content-type, prefer, range, accept-profile, x-client-info" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("prefer");
    const res = await rest(server, "/brands?select=id", { token: org.ownerToken, headers: { origin: "https://app.example.com" } });
    expect(res.headers.get("access-control-expose-headers")).toContain("content-range");
    expect(res.headers.get("content-range")).toBe("0-1/*");
  });

  test("schemas other than public are refused (PGRST106), unknown media types too (PGRST107)", async () => {
    const schema = await rest(server, "/brands", { token: org.ownerToken, headers: { "accept-profile": "private" } });
    expect([schema.status, schema.body.code]).toEqual([406, "PGRST106"]);
    const media = await rest(server, "/brands", { token: org.ownerToken, headers: { accept: "application/xml" } });
    expect([media.status, media.body.code]).toEqual([406, "PGRST107"]);
  });
});
