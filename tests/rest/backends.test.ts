// The main shapes of /rest/v1 on both backends (tests/rest/backends.ts), with the same expectations:
// the same data reads as the same JSON on SQLite and on Postgres — booleans as true/false, JSON
// columns as JSON, timestamps as ISO strings with Z — and writes, counts, row-level security and
// constraint errors answer alike.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeEachRestBackend, serviceRole, userCaller, type RestBackend } from "./backends";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

await describeEachRestBackend("REST main shapes", (make, backend) => {
  let b: RestBackend;
  let orgA: string;
  let orgB: string;
  let owner: ReturnType<typeof userCaller>;
  let stranger: ReturnType<typeof userCaller>;
  let brand: Record<string, any>;
  let otherBrand: string;

  beforeAll(async () => {
    b = await make();
    orgA = await b.fixtures.organization("Rest Org A");
    orgB = await b.fixtures.organization("Rest Org B");
    const ownerId = await b.fixtures.user();
    const strangerId = await b.fixtures.user();
    await b.fixtures.member(orgA, ownerId, "owner");
    await b.fixtures.member(orgB, strangerId, "owner");
    owner = userCaller(ownerId, [[orgA, "owner"]]);
    stranger = userCaller(strangerId, [[orgB, "owner"]]);
    otherBrand = await b.fixtures.brand(orgB, "Hidden Brand");
  });
  afterAll(() => b.close());

  test("insert with return=representation: every column, typed as on SQLite", async () => {
    const res = await b.request(owner, "POST", "/brands?select=*", { body: { organization_id: orgA, name: "Acme", slug: "acme", aliases: ["ac me", "acme inc"] }, prefer: "return=representation" });
    expect(res.status).toBe(201);
    expect(res.body).toHaveLength(1);
    brand = res.body[0];
    expect(brand).toMatchObject({ organization_id: orgA, name: "Acme", slug: "acme", aliases: ["ac me", "acme inc"], respect_dnt: false, is_active: true, shopping_mode_enabled: false, industry: null });
    expect(brand.id).toMatch(UUID);
    expect(brand.created_at).toMatch(ISO);
    expect(brand.tracking_code).toMatch(/^aw_[0-9a-f]{24}$/);
    // The columns and their order are the schema's (Postgres' own organization_id stays the REST one).
    expect(Object.keys(brand)).toEqual(["id", "organization_id", "name", "slug", "industry", "region", "language", "aliases", "tracking_code", "respect_dnt", "description", "logo_url", "is_active", "state", "shopping_mode_enabled", "gsc_property", "ga_property_id", "created_at", "updated_at"]);
  });

  test("bulk insert, missing=default, and the rows as written", async () => {
    const domains = await b.request(owner, "POST", "/brand_domains?columns=brand_id,domain,is_primary&select=domain,is_primary", {
      body: [
        { brand_id: brand.id, domain: "acme.com", is_primary: true },
        { brand_id: brand.id, domain: "acme.io" },
      ],
      prefer: "return=representation,missing=default",
    });
    expect(domains.body).not.toHaveProperty("code");
    expect(domains.status).toBe(201);
    expect(domains.body).toEqual([
      { domain: "acme.com", is_primary: true },
      { domain: "acme.io", is_primary: false },
    ]);
    const rivals = await b.request(owner, "POST", "/competitors", { body: [{ brand_id: brand.id, name: "Rival One", domain: "one.com" }, { brand_id: brand.id, name: "Rival Two", domain: null }] });
    expect(rivals.status).toBe(201);
    expect(rivals.body).toBeNull();
  });

  test("select with embeds (to-many, to-one, nested), ordered per level", async () => {
    const res = await b.request(owner, "GET", "/brands?select=name,brand_domains(domain,is_primary),competitors(name,domain)&brand_domains.order=domain.desc&competitors.order=name");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        name: "Acme",
        brand_domains: [
          { domain: "acme.io", is_primary: false },
          { domain: "acme.com", is_primary: true },
        ],
        competitors: [
          { name: "Rival One", domain: "one.com" },
          { name: "Rival Two", domain: null },
        ],
      },
    ]);
    const toOne = await b.request(owner, "GET", "/brand_domains?select=domain,brands(slug,organizations(name))&order=domain");
    expect(toOne.body).toEqual([
      { domain: "acme.com", brands: { slug: "acme", organizations: { name: "Rest Org A" } } },
      { domain: "acme.io", brands: { slug: "acme", organizations: { name: "Rest Org A" } } },
    ]);
    // An embed page: the first domain of each brand.
    const paged = await b.request(owner, "GET", "/brands?select=slug,brand_domains(domain)&brand_domains.order=domain&brand_domains.limit=1");
    expect(paged.body).toEqual([{ slug: "acme", brand_domains: [{ domain: "acme.com" }] }]);
  });

  test("filters: eq, neq, in, like, ilike, is, not, or, JSON paths and containment", async () => {
    const domains = async (query: string) => (await b.request(owner, "GET", `/brand_domains?select=domain&order=domain${query}`)).body.map((r: { domain: string }) => r.domain);
    expect(await domains("&domain=eq.acme.io")).toEqual(["acme.io"]);
    expect(await domains("&domain=neq.acme.io")).toEqual(["acme.com"]);
    expect(await domains("&domain=in.(acme.io,nope.org)")).toEqual(["acme.io"]);
    expect(await domains("&domain=like.*.com")).toEqual(["acme.com"]);
    expect(await domains("&domain=like.ACME*")).toEqual([]);
    expect(await domains("&domain=ilike.ACME*")).toEqual(["acme.com", "acme.io"]);
    expect(await domains("&is_primary=is.true")).toEqual(["acme.com"]);
    expect(await domains("&is_primary=eq.false")).toEqual(["acme.io"]);
    expect(await domains("&domain=not.like.*.io")).toEqual(["acme.com"]);
    expect(await domains("&or=(domain.eq.acme.io,is_primary.is.true)")).toEqual(["acme.com", "acme.io"]);
    expect(await domains(`&brand_id=eq.${brand.id}&created_at=gt.2000-01-01T00:00:00Z`)).toEqual(["acme.com", "acme.io"]);
    const json = await b.request(owner, "GET", "/brands?select=slug,first:aliases->>0,all:aliases&aliases=cs.[\"acme inc\"]");
    expect(json.body).toEqual([{ slug: "acme", first: "ac me", all: ["ac me", "acme inc"] }]);
    expect((await b.request(owner, "GET", "/brands?select=slug&aliases=cs.[\"nope\"]")).body).toEqual([]);
    expect((await b.request(owner, "GET", "/brands?select=slug&aliases=ov.[\"nope\",\"ac me\"]")).body).toEqual([{ slug: "acme" }]);
    expect((await b.request(owner, "GET", "/brands?select=slug&created_at=is.null")).body).toEqual([]);
  });

  test("order, limit, offset and count=exact: Content-Range as PostgREST", async () => {
    const page = await b.request(owner, "GET", "/brand_domains?select=domain&order=domain.desc&limit=1&offset=1", { prefer: "count=exact" });
    expect(page.status).toBe(206);
    expect(page.body).toEqual([{ domain: "acme.com" }]);
    expect(page.headers.get("content-range")).toBe("1-1/2");
    const all = await b.request(owner, "GET", "/competitors?select=name&order=domain.asc.nullsfirst", { prefer: "count=exact" });
    expect(all.body).toEqual([{ name: "Rival Two" }, { name: "Rival One" }]);
    expect(all.headers.get("content-range")).toBe("0-1/2");
    const planned = await b.request(owner, "GET", "/competitors?select=name&limit=1", { prefer: "count=planned" });
    expect(planned.headers.get("content-range")).toBe("0-0/2");
  });

  test("upsert: merge-duplicates updates the existing row and inserts the new one; ignore-duplicates keeps it", async () => {
    const first = await b.request(owner, "POST", "/brand_platforms", { body: { brand_id: brand.id, platform: "chatgpt", samples: 1 } });
    expect(first.status).toBe(201);
    const merged = await b.request(owner, "POST", "/brand_platforms?on_conflict=brand_id,platform&select=platform,samples", {
      body: [
        { brand_id: brand.id, platform: "chatgpt", samples: 3 },
        { brand_id: brand.id, platform: "perplexity", samples: 2 },
      ],
      prefer: "return=representation,resolution=merge-duplicates",
    });
    expect(merged.body).not.toHaveProperty("code");
    expect(merged.status).toBe(201);
    expect(merged.body).toEqual([
      { platform: "chatgpt", samples: 3 },
      { platform: "perplexity", samples: 2 },
    ]);
    const ignored = await b.request(owner, "POST", "/brand_platforms?on_conflict=brand_id,platform&select=platform,samples", {
      body: { brand_id: brand.id, platform: "chatgpt", samples: 5 },
      prefer: "return=representation,resolution=ignore-duplicates",
    });
    expect(ignored.body).toEqual([]);
    const rows = await b.request(owner, "GET", "/brand_platforms?select=platform,samples&order=platform", { prefer: "count=exact" });
    expect(rows.body).toEqual([
      { platform: "chatgpt", samples: 3 },
      { platform: "perplexity", samples: 2 },
    ]);
    // The check constraint (samples 1..10) words its error as Postgres does.
    const check = await b.request(owner, "POST", "/brand_platforms", { body: { brand_id: brand.id, platform: "gemini", samples: 11 } });
    expect(check.body.code).toBe("23514");
  });

  test("update with return=representation: the new values, updated_at moved", async () => {
    const res = await b.request(owner, "PATCH", `/brands?id=eq.${brand.id}&select=name,respect_dnt,aliases,updated_at`, { body: { name: "Acme Corp", respect_dnt: true, aliases: [] }, prefer: "return=representation" });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ name: "Acme Corp", respect_dnt: true, aliases: [] });
    expect(res.body[0].updated_at).toMatch(ISO);
    expect(res.body[0].updated_at >= brand.updated_at).toBe(true);
    const none = await b.request(owner, "PATCH", "/brands?slug=eq.nothing-here", { body: { name: "x" }, prefer: "return=representation" });
    expect(none.body).toEqual([]);
  });

  test("an update beside another transaction writing the same row waits for it, then applies", async () => {
    const { sql } = await import("../../src/platform/rest/sql-fragment");
    const d = b.executor.dialect;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const writing = new Promise<void>((resolve) => (started = resolve));
    const other = b.executor.session(10_000, (s) =>
      s.transaction(async (tx) => {
        await tx.values(sql`UPDATE ${d.ident("brands")} SET ${d.ident("description")} = ${"held"} WHERE ${d.ident("id")} = ${brand.id}`);
        started();
        await held;
      }),
    );
    await writing;
    const patch = b.request(owner, "PATCH", `/brands?slug=eq.acme&select=description,name`, { body: { name: "Acme Waited" }, prefer: "return=representation" });
    await Bun.sleep(50);
    release();
    await other;
    const res = await patch;
    expect(res.body).toEqual([{ description: "held", name: "Acme Waited" }]);
  });

  test("inherited columns: a prompt takes its set's brand; moving the set moves its prompts", async () => {
    const set = await b.request(owner, "POST", "/prompt_sets?select=id,brand_id", { body: { brand_id: brand.id, name: "Core" }, prefer: "return=representation" });
    expect(set.status).toBe(201);
    const prompt = await b.request(owner, "POST", "/prompts?select=text,brand_id,prompt_sets(name)", { body: { prompt_set_id: set.body[0].id, text: "best anvils" }, prompt: undefined, prefer: "return=representation" } as never);
    expect(prompt.status).toBe(201);
    expect(prompt.body).toEqual([{ text: "best anvils", brand_id: brand.id, prompt_sets: { name: "Core" } }]);
  });

  test("delete with return=representation: the rows as they were, then gone; a singular failure rolls back", async () => {
    const res = await b.request(owner, "DELETE", "/competitors?name=eq.Rival Two&select=name,domain", { prefer: "return=representation" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ name: "Rival Two", domain: null }]);
    expect((await b.request(owner, "GET", "/competitors?select=name")).body).toEqual([{ name: "Rival One" }]);
    const singular = await b.request(owner, "DELETE", "/brand_domains?select=domain", { headers: { accept: "application/vnd.pgrst.object+json" }, prefer: "return=representation" });
    expect(singular.status).toBe(406);
    expect((await b.request(owner, "GET", "/brand_domains?select=domain")).body).toHaveLength(2);
  });

  test("row-level security: another organization's rows are invisible and out of reach", async () => {
    expect((await b.request(stranger, "GET", "/brands?select=name")).body).toEqual([{ name: "Hidden Brand" }]);
    expect((await b.request(owner, "GET", `/brands?select=name&id=eq.${otherBrand}`)).body).toEqual([]);
    const insert = await b.request(stranger, "POST", "/brand_domains", { body: { brand_id: brand.id, domain: "evil.com" } });
    expect(insert.status).toBe(403);
    expect(insert.body.code).toBe("42501");
    const update = await b.request(stranger, "PATCH", `/brands?id=eq.${brand.id}`, { body: { name: "Owned" }, prefer: "return=representation" });
    expect(update.body).toEqual([]);
    // Moving a row into another organization is refused as the WITH CHECK would.
    const move = await b.request(owner, "PATCH", `/brands?id=eq.${brand.id}`, { body: { organization_id: orgB } });
    expect(move.status).toBe(403);
    // The service role sees everything.
    expect((await b.request(serviceRole, "GET", "/brands?select=name&order=name")).body.map((r: { name: string }) => r.name)).toContain("Hidden Brand");
  });

  test("constraint errors read as Postgres words them: 23505 with the key, 23503 with the missing row, 23502", async () => {
    const dup = await b.request(owner, "POST", "/brands", { body: { organization_id: orgA, name: "Again", slug: "acme" } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("23505");
    expect(dup.body.details).toContain("(organization_id, slug)");
    const missing = crypto.randomUUID();
    const fk = await b.request(serviceRole, "POST", "/brand_domains", { body: { brand_id: missing, domain: "x.com" } });
    expect(fk.status).toBe(409);
    expect(fk.body.code).toBe("23503");
    expect(fk.body.details).toContain(missing);
    const nn = await b.request(owner, "POST", "/brands", { body: { organization_id: orgA, slug: "no-name" } });
    expect(nn.body.code).toBe("23502");
    const badUuid = await b.request(owner, "GET", "/brands?id=eq.not-a-uuid");
    expect(badUuid.status).toBe(400);
    expect(badUuid.body.code).toBe("22P02");
  });

  test("results: typed result columns and count=exact by count(*)", async () => {
    const promptId = await b.fixtures.prompt(brand.id, "best anvils 2");
    await b.fixtures.result({ brandId: brand.id, promptId, platform: "chatgpt", createdAt: "2026-04-01T10:00:00.000Z", mentioned: false, mentionCount: 0 });
    await b.fixtures.result({ brandId: brand.id, promptId, platform: "chatgpt", createdAt: "2026-04-02T10:00:00.000Z", mentioned: true, mentionCount: 2, position: 1 });
    // A filter the rollups cannot answer (gte): counted over the rows.
    const rows = await b.request(owner, "GET", "/prompt_results?select=platform,mentioned,mention_count,mention_position,competitor_mentions,sentiment_score,created_at&created_at=gte.2026-04-01&order=created_at.desc", { prefer: "count=exact" });
    expect(rows.body).toEqual([
      { platform: "chatgpt", mentioned: true, mention_count: 2, mention_position: 1, competitor_mentions: [], sentiment_score: null, created_at: "2026-04-02T10:00:00.000Z" },
      { platform: "chatgpt", mentioned: false, mention_count: 0, mention_position: null, competitor_mentions: [], sentiment_score: null, created_at: "2026-04-01T10:00:00.000Z" },
    ]);
    expect(rows.headers.get("content-range")).toBe("0-1/2");
    const text = await b.request(owner, "GET", "/prompt_results?select=at:created_at::text&order=created_at&limit=1");
    expect(text.body).toEqual([{ at: "2026-04-01T10:00:00.000Z" }]);
    // The RPC's statements run with and without its optional arguments (its rows are checked below).
    for (const args of [{}, { p_platform: "chatgpt", p_date_from: "2026-01-01T00:00:00Z", p_date_to: "2026-12-31T00:00:00Z" }]) {
      const rpc = await b.request(owner, "POST", "/rpc/get_latest_prompt_results?select=platform", { body: { p_brand_id: brand.id, ...args } });
      expect(rpc.status).toBe(200);
    }
  });

  test("results: the latest-results RPC and a rollup-backed count", async () => {
    const latest = await b.request(owner, "POST", "/rpc/get_latest_prompt_results?select=platform,mentioned,mention_count,created_at", { body: { p_brand_id: brand.id } });
    expect(latest.body).not.toHaveProperty("code");
    expect(latest.body).toEqual([{ platform: "chatgpt", mentioned: true, mention_count: 2, created_at: "2026-04-02T10:00:00.000Z" }]);
    const before = await b.request(owner, "POST", "/rpc/get_latest_prompt_results?select=mentioned,created_at", { body: { p_brand_id: brand.id, p_date_to: "2026-04-01T23:00:00Z", p_platform: "chatgpt" } });
    expect(before.body).toEqual([{ mentioned: false, created_at: "2026-04-01T10:00:00.000Z" }]);
    const counted = await b.request(owner, "GET", `/prompt_results?select=mentioned,competitor_mentions,sentiment_score&brand_id=eq.${brand.id}&order=created_at&limit=1`, { prefer: "count=exact" });
    expect(counted.body).toEqual([{ mentioned: false, competitor_mentions: [], sentiment_score: null }]);
    expect(counted.headers.get("content-range")).toBe("0-0/2");
    // Another organization's brand: no rows, as for a brand without results.
    expect((await b.request(owner, "POST", "/rpc/get_latest_prompt_results", { body: { p_brand_id: otherBrand } })).body).toEqual([]);
  });

  test("membership rules: an organization keeps an owner", async () => {
    const res = await b.request(owner, "PATCH", `/organization_members?organization_id=eq.${orgA}&role=eq.owner`, { body: { role: "admin" } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("P0001");
  });
});
