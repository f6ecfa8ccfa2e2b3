// backends: sqlite, postgres
// Acceptance 3 (errors): every PostgREST error the issue lists, with its status and the four-key
// body {code, details, hint, message}, worded as PostgREST 12–13 words it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TEST_BACKEND, testServer } from "../helpers/app";
import { createBrand, expectPgrstError, rest, signedUpOrg, type Org, type Server } from "./helpers";

let server: Server;
let a: Org;
let b: Org;
let brandA: { id: string };
let setA: string;
beforeAll(async () => {
  server = await testServer();
  [a, b] = await Promise.all([signedUpOrg(server, "Errors A"), signedUpOrg(server, "Errors B")]);
  brandA = await createBrand(a.owner, a.id, "err-a");
  setA = (await a.owner.from("prompt_sets").insert({ brand_id: brandA.id, name: "Set" }).select().single()).data!.id;
});
afterAll(() => server.stop());

const as = (path: string, init: RequestInit = {}) => rest(server, path, { ...init, token: a.ownerToken });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => as(path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers });

describe("request errors (PGRST1xx)", () => {
  test("PGRST100: a query string PostgREST cannot parse", async () => {
    const op = await as("/brands?select=*,brand_domains(*)&brand_domains.domain=noop.1");
    expectPgrstError(op, 400, "PGRST100");
    expect(op.body).toEqual({ code: "PGRST100", details: "unknown single value operator noop", hint: null, message: '"failed to parse filter (noop.1)" (line 1, column 6)' });
    expectPgrstError(await as("/brands?select=id,,name"), 400, "PGRST100");
    expectPgrstError(await as("/brands?order=name.sideways"), 400, "PGRST100");
    expectPgrstError(await as("/brands?or=(name.eq.a"), 400, "PGRST100");
  });

  test("PGRST102: a body that is not JSON, or rows with different keys", async () => {
    const bad = await post("/brands", "{not json");
    expectPgrstError(bad, 400, "PGRST102");
    expect(bad.body.message).toBe("Empty or invalid json");
    const mixed = await post("/brands", [{ name: "a" }, { slug: "b" }]);
    expectPgrstError(mixed, 400, "PGRST102");
    expect(mixed.body.message).toBe("All object keys must match");
  });

  test("PGRST103: an unsatisfiable range is 416", async () => {
    const reversed = await as("/brands", { headers: { range: "5-2" } });
    expectPgrstError(reversed, 416, "PGRST103");
    expect(reversed.body).toMatchObject({ message: "Requested range not satisfiable", details: "The lower boundary must be lower than or equal to the upper boundary in the Range header." });
    expectPgrstError(await as("/brands?limit=-1"), 416, "PGRST103");
    const beyond = await as("/brands?offset=10", { headers: { prefer: "count=exact" } });
    expectPgrstError(beyond, 416, "PGRST103");
    expect(beyond.body.details).toBe("An offset of 10 was requested, but there are only 1 rows.");
  });

  test("PGRST108: filtering an embed that is not selected", async () => {
    const res = await as("/brands?select=id&brand_domains.domain=eq.x");
    expectPgrstError(res, 400, "PGRST108");
    expect(res.body).toMatchObject({ message: "'brand_domains' is not an embedded resource in this request", hint: "Verify that 'brand_domains' is included in the 'select' query parameter." });
  });

  test("PGRST116: a singular response over zero or several rows is 406", async () => {
    const none = await a.owner.from("brands").select("id").eq("slug", "missing").single();
    expect(none.status).toBe(406);
    expect(none.error as unknown).toEqual({ code: "PGRST116", details: "The result contains 0 rows", hint: null, message: "Cannot coerce the result to a single JSON object" });
    await createBrand(a.owner, a.id, "err-a2", { domains: 0, competitors: 0 });
    const many = await as("/brands?select=id", { headers: { accept: "application/vnd.pgrst.object+json" } });
    expectPgrstError(many, 406, "PGRST116");
    expect(many.body.details).toBe("The result contains 2 rows");
    // A write that is not exactly one row under a singular Accept is rolled back.
    const patched = await as("/brands", { method: "PATCH", body: JSON.stringify({ industry: "both" }), headers: { accept: "application/vnd.pgrst.object+json" } });
    expectPgrstError(patched, 406, "PGRST116");
    expect((await a.owner.from("brands").select("industry").eq("industry", "both")).data).toEqual([]);
    await a.owner.from("brands").delete().eq("slug", "err-a2");
  });
});

describe("Prefer: max-affected", () => {
  test("PGRST124: with handling=strict an update or delete of more rows than max-affected is 400 and rolled back; lenient ignores it; a bad value is PGRST122", async () => {
    const set = (await a.owner.from("prompt_sets").insert({ brand_id: brandA.id, name: "Affected" }).select().single()).data!.id;
    expect((await a.owner.from("prompts").insert(["one?", "two?", "three?"].map((text) => ({ prompt_set_id: set, brand_id: brandA.id, text })))).error).toBeNull();
    const patch = (prefer: string, text: string) => as(`/prompts?prompt_set_id=eq.${set}`, { method: "PATCH", body: JSON.stringify({ text }), headers: { prefer } });
    const over = await patch("handling=strict, max-affected=2", "changed");
    expectPgrstError(over, 400, "PGRST124");
    expect(over.body).toEqual({ code: "PGRST124", details: "The query affects 3 rows", hint: null, message: "Query result exceeds max-affected preference constraint" });
    const texts = async () => ((await a.owner.from("prompts").select("text").eq("prompt_set_id", set)).data as { text: string }[]).map((p) => p.text).sort();
    expect(await texts()).toEqual(["one?", "three?", "two?"]);
    expect((await patch("handling=strict, max-affected=3", "exact")).status).toBe(204);
    expect(await texts()).toEqual(["exact", "exact", "exact"]);
    expect((await patch("handling=lenient, max-affected=1", "lenient")).status).toBe(204);
    expect(await texts()).toEqual(["lenient", "lenient", "lenient"]);
    expectPgrstError(await patch("handling=strict, max-affected=many", "x"), 400, "PGRST122");
    const removed = await as(`/prompts?prompt_set_id=eq.${set}`, { method: "DELETE", headers: { prefer: "handling=strict, max-affected=0" } });
    expectPgrstError(removed, 400, "PGRST124");
    expect(await texts()).toHaveLength(3);
  });
});

describe("schema cache errors (PGRST2xx)", () => {
  test("PGRST200: no relationship to embed", async () => {
    const res = await as("/brands?select=*,brand_domain(*)");
    expectPgrstError(res, 400, "PGRST200");
    expect(res.body).toEqual({
      code: "PGRST200",
      details: "Searched for a foreign key relationship between 'brands' and 'brand_domain' in the schema 'public', but no matches were found.",
      hint: "Perhaps you meant 'brand_domains' instead of 'brand_domain'.",
      message: "Could not find a relationship between 'brands' and 'brand_domain' in the schema cache",
    });
    // Relationships to tables that are not exposed do not exist either.
    expectPgrstError(await as("/organization_members?select=*,users(*)"), 400, "PGRST200");
  });

  test("PGRST202: no such function, or not with these arguments", async () => {
    const unknown = await post("/rpc/get_latest_prompt_result", { p_brand_id: brandA.id });
    expectPgrstError(unknown, 404, "PGRST202");
    expect(unknown.body).toMatchObject({
      message: "Could not find the function public.get_latest_prompt_result(p_brand_id) in the schema cache",
      hint: "Perhaps you meant to call the function public.get_latest_prompt_results",
    });
    const args = await post("/rpc/get_latest_prompt_results", { p_brand_id: brandA.id, p_colour: "red" });
    expectPgrstError(args, 404, "PGRST202");
    expect(args.body.details).toBe(
      "Searched for the function public.get_latest_prompt_results with parameters p_brand_id, p_colour or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
    );
  });

  test("PGRST204: a payload column the table does not have", async () => {
    const res = await post("/brands", { organization_id: a.id, name: "x", slug: "x", colour: "red" });
    expectPgrstError(res, 400, "PGRST204");
    expect(res.body.message).toBe("Could not find the 'colour' column of 'brands' in the schema cache");
    expectPgrstError(await post("/brands?columns=name,colour", [{ name: "x" }]), 400, "PGRST204");
  });

  test("PGRST205: unknown and unexposed tables are 404", async () => {
    const typo = await as("/brand");
    expectPgrstError(typo, 404, "PGRST205");
    expect(typo.body).toMatchObject({ message: "Could not find the table 'public.brand' in the schema cache", hint: "Perhaps you meant the table 'public.brands'" });
    for (const internal of ["users", "sessions", "refresh_tokens", "jobs", "job_units", "webhook_events", "webhook_deliveries"])
      expectPgrstError(await rest(server, `/${internal}`, { token: server.secrets.serviceRoleKey }), 404, "PGRST205");
  });

  test("PGRST301: a token that is not valid is 401", async () => {
    expectPgrstError(await rest(server, "/brands", { token: "not.a.jwt" }), 401, "PGRST301");
  });
});

describe("database errors", () => {
  test("a cast the column's type has none to is the request's error: 400 on Postgres (42846), a SQLite cast on SQLite, never a 5xx", async () => {
    const cast = await as("/brands?select=id::int");
    if (TEST_BACKEND === "postgres") {
      expectPgrstError(cast, 400, "42846");
      expect(cast.body.message).toBe("cannot cast type uuid to integer");
    } else expect(cast.status).toBe(200);
  });

  test("22P02: a malformed uuid, integer or enum value", async () => {
    const uuid = await as("/brands?id=eq.not-a-uuid");
    expectPgrstError(uuid, 400, "22P02");
    expect(uuid.body.message).toBe('invalid input syntax for type uuid: "not-a-uuid"');
    expectPgrstError(await post("/brand_domains", { brand_id: "nope", domain: "x.com" }), 400, "22P02");
    expectPgrstError(await as("/prompt_results?mention_count=gt.high"), 400, "22P02");
    expectPgrstError(await as("/brand_platforms?check_frequency=eq.fortnightly"), 400, "22P02");
  });

  test("23502: a NOT NULL column left empty", async () => {
    const res = await post("/brands", { organization_id: a.id, slug: "no-name" });
    expectPgrstError(res, 400, "23502");
    expect(res.body.message).toBe('null value in column "name" of relation "brands" violates not-null constraint');
    expect(res.body.details).toStartWith("Failing row contains (");
  });

  test("23503: a reference to a row that does not exist", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    const res = await post("/prompts", { prompt_set_id: missing, brand_id: brandA.id, text: "t" });
    expectPgrstError(res, 409, "23503");
    expect(res.body).toMatchObject({
      message: 'insert or update on table "prompts" violates foreign key constraint "prompts_prompt_set_id_prompt_sets_id_fk"',
      details: `Key (prompt_set_id)=(${missing}) is not present in table "prompt_sets".`,
    });
  });

  test("23505: a duplicate slug in the organization is 409 (another organization may reuse it)", async () => {
    const res = await post("/brands", { organization_id: a.id, name: "Again", slug: "err-a" });
    expectPgrstError(res, 409, "23505");
    expect(res.body).toMatchObject({ message: 'duplicate key value violates unique constraint "brands_org_slug_unique"', details: `Key (organization_id, slug)=(${a.id}, err-a) already exists.` });
    const elsewhere = await b.owner.from("brands").insert({ organization_id: b.id, name: "Same slug", slug: "err-a" });
    expect(elsewhere.status).toBe(201);
  });

  test("42501: writing into an organization the caller cannot write (403 user, 401 anon)", async () => {
    const user = await post("/brands", { organization_id: b.id, name: "x", slug: "x" });
    expectPgrstError(user, 403, "42501");
    expect(user.body.message).toBe('new row violates row-level security policy for table "brands"');
    const anon = await rest(server, "/brands", { method: "POST", body: JSON.stringify({ organization_id: a.id, name: "x", slug: "x" }) });
    expectPgrstError(anon, 401, "42501");
  });

  test("42703: a column the table does not have in select, filters or order", async () => {
    const res = await as("/brands?select=id,colour");
    expectPgrstError(res, 400, "42703");
    expect(res.body.message).toBe("column brands.colour does not exist");
    expectPgrstError(await as("/brands?colour=eq.red"), 400, "42703");
    expectPgrstError(await as("/brands?order=colour"), 400, "42703");
    expectPgrstError(await as("/brands?select=id,brand_domains(colour)"), 400, "42703");
  });

  test("23514: domains and slugs are validated", async () => {
    const slug = await post("/brands", { organization_id: a.id, name: "Bad", slug: "Bad Slug" });
    expectPgrstError(slug, 400, "23514");
    const domain = await post("/brand_domains", { brand_id: brandA.id, domain: "not a host" });
    expectPgrstError(domain, 400, "23514");
    expect(domain.body.details).toContain("hostname");
    expectPgrstError(await post("/competitors", { brand_id: brandA.id, name: "ip", domain: "http://127.0.0.1/" }), 400, "23514");
    const ok = await a.owner.from("competitors").insert({ brand_id: brandA.id, name: "Norm", domain: "HTTPS://WWW.Norm.Example.COM/path?q=1" }).select("domain").single();
    expect(ok.data).toEqual({ domain: "norm.example.com" });
    void setA;
  });
});
