// backends: sqlite, postgres
// Every route the OpenAPI document describes outside /rest/v1 (which has its own property tests),
// called with odd input: ids that are no ids, a missing one, one far too long; bodies that are not
// JSON, JSON of the wrong shape, fields of the wrong type, a nesting bomb, a body over the cap; as
// nobody, as a signed-in owner and with the service key. None may answer 5xx, and an error from an
// /api or /auth route is JSON saying what was wrong.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { serverDb, usersTable } from "../helpers/server-db";
import { createBrand, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let brandId: string;
let doc: { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema?: Schema }> } }>> };

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
}

beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Fuzz Co");
  brandId = (await createBrand(org.owner, org.id, `fuzz-${crypto.randomUUID().slice(0, 8)}`)).id;
  doc = await (await fetch(`${server.url}/openapi.json`)).json();
});
afterAll(async () => {
  await (await serverDb(server)).close();
  await server.stop();
});

/** Values of the wrong type for a field documented as `schema`. */
function wrongValues(schema: Schema | undefined): unknown[] {
  const type = Array.isArray(schema?.type) ? schema!.type[0] : schema?.type;
  const all: unknown[] = [null, 12345678901234567890, -1, true, "x".repeat(10_000), [], [[["deep"]]], { nested: { too: "deep" } }, { nul: "a\u0000b" }, "a\u0000b", "2026-13-45", "+010000-01-01T00:00:00Z", "../../etc/passwd"];
  return all.filter((v) => !(type === "string" && typeof v === "string") && !(type === "boolean" && typeof v === "boolean") && !(type === "array" && Array.isArray(v)));
}

/** Bodies for a route, most of them wrong. */
type Body = string | (() => ReadableStream<Uint8Array>);

/** A body sent chunked (no declared length): `total` bytes of `{`-led text. */
const chunked = (total: number) => () => {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(64 * 1024, total - sent);
      controller.enqueue(new TextEncoder().encode((sent === 0 ? "{" : "") + "x".repeat(sent === 0 ? n - 1 : n)));
      sent += n;
    },
  });
};

function bodiesFor(schema: Schema | undefined): { label: string; body: Body; type: string }[] {
  const bodies: { label: string; body: Body; type: string }[] = [
    { label: "not JSON", body: "{", type: "application/json" },
    { label: "null", body: "null", type: "application/json" },
    { label: "an array", body: "[1,2,3]", type: "application/json" },
    { label: "a string", body: '"text"', type: "application/json" },
    { label: "nesting bomb", body: "[".repeat(20_000) + "]".repeat(20_000), type: "application/json" },
    { label: "form", body: "a=1&b=2", type: "application/x-www-form-urlencoded" },
    { label: "over the cap", body: JSON.stringify({ padding: "x".repeat(3 * 1024 * 1024) }), type: "application/json" },
    { label: "chunked, over the cap", body: chunked(3 * 1024 * 1024), type: "application/json" },
    { label: "chunked, not JSON", body: chunked(10_000), type: "application/json" },
    { label: "NDJSON garbage", body: '{"a":1}\n{\n\u0000\n', type: "application/x-ndjson" },
  ];
  for (const [field, fieldSchema] of Object.entries(schema?.properties ?? {}))
    for (const [i, value] of wrongValues(fieldSchema).entries()) bodies.push({ label: `${field} = wrong value ${i}`, body: JSON.stringify({ [field]: value }), type: "application/json" });
  return bodies;
}

/** Path parameter values: the test brand's id, an id of nothing, no id, too long, odd characters. */
const PATH_VALUES = (name: string) => [name.toLowerCase().includes("brand") ? brandId : crypto.randomUUID(), "not-a-uuid", "0", "x".repeat(3000), "%00", "..%2F..%2Fadmin", "1e999"];

test("no route answers 5xx to odd input, whoever calls; /api and /auth errors are JSON", async () => {
  const callers: { label: string; headers: Record<string, string> }[] = [
    { label: "nobody", headers: {} },
    { label: "owner", headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${org.ownerToken}` } },
    { label: "service", headers: { apikey: server.secrets.serviceRoleKey, authorization: `Bearer ${server.secrets.serviceRoleKey}` } },
  ];
  const failures: string[] = [];
  let requests = 0;
  const routes = Object.entries(doc.paths)
    .filter(([path]) => !path.startsWith("/rest/v1"))
    .flatMap(([path, ops]) => Object.entries(ops).filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method)).map(([method, op]) => ({ path, method, op })));
  expect(routes.length).toBeGreaterThan(40);
  for (const { path, method, op } of routes) {
    // Destructive calls on the test's own account would leave later routes nothing to reach.
    if (method === "delete" && path.startsWith("/auth/v1/user")) continue;
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const pathVariants = names.length ? PATH_VALUES(names[0]!).map((v) => path.replace(/\{[^}]+\}/g, (whole) => (whole === `{${names[0]}}` ? v : crypto.randomUUID()))) : [path];
    const schema = op.requestBody?.content?.["application/json"]?.schema;
    const bodies = method === "get" || method === "delete" ? [{ label: "no body", body: undefined as Body | undefined, type: "" }] : bodiesFor(schema);
    for (const url of pathVariants)
      for (const caller of callers)
        for (const { label, body, type } of bodies) {
          // Signing the owner out would leave the routes after it only anonymous callers.
          if (caller.label === "owner" && path === "/auth/v1/logout") continue;
          // Odd query strings too: repeated, empty, overlong, not UTF-8.
          const query = method === "get" ? `?limit=-1&limit=abc&from=&to=9999-99-99&q=${"%FF".repeat(20)}&x=${"y".repeat(5000)}` : "";
          requests++;
          const res = await fetch(`${server.url}${url}${query}`, {
            method: method.toUpperCase(),
            headers: { ...caller.headers, ...(type ? { "content-type": type } : {}) },
            body: typeof body === "function" ? body() : body,
            redirect: "manual",
            duplex: "half",
          } as RequestInit);
          const text = await res.text();
          const where = `${method.toUpperCase()} ${url.slice(0, 80)} as ${caller.label} with ${label}: ${res.status} ${text.slice(0, 160)}`;
          if (res.status >= 500) failures.push(where);
          // A declared length over the cap is refused before anything else; a chunked body only
          // once read (a route that refuses the caller first never reads it), and never accepted.
          else if (label === "over the cap" ? res.status !== 413 : label.includes("over the cap") && res.status < 400) failures.push(`not 413: ${where}`);
          else if (res.status >= 400 && /^\/(api|auth)\//.test(url) && !(res.headers.get("content-type") ?? "").includes("json")) failures.push(`not JSON: ${where}`);
        }
  }
  expect(requests).toBeGreaterThan(3000);
  expect(failures.slice(0, 30)).toEqual([]);
  // The server still answers, and the owner still reads the test's brand.
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  expect((await org.owner.from("brands").select("id").eq("id", brandId)).data).toEqual([{ id: brandId }]);
}, 600_000);

test("a chunked body over the cap is cut off as it is read and answered 413 in the surface's error shape; under the cap it is served", async () => {
  const owner = { apikey: server.secrets.anonKey, authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" };
  const send = (path: string, body: ReadableStream<Uint8Array>) => fetch(`${server.url}${path}`, { method: "POST", headers: owner, body, duplex: "half" } as RequestInit);
  const api = await send("/api/tracking/start", chunked(3 * 1024 * 1024)());
  expect([api.status, ((await api.json()) as { success: boolean; error: { code: string } }).error.code]).toEqual([413, "payload_too_large"]);
  const auth = await send("/auth/v1/token?grant_type=password", chunked(3 * 1024 * 1024)());
  expect(auth.status).toBe(413);
  expect(((await auth.json()) as { msg?: string; message?: string }).msg ?? "").toContain("larger than");
  // The same route with a small chunked body: read whole, parsed, and answered for what it says.
  const small = JSON.stringify({ brandId: crypto.randomUUID() });
  const stream = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(new TextEncoder().encode(small)), c.close()) });
  const served = await send("/api/tracking/start", stream);
  expect([served.status, ((await served.json()) as { error: { code: string } }).error.code]).toEqual([404, "not_found"]);
});

test("values a column cannot hold (NUL, numbers and dates past their range, a key twice, too many filter values) are 4xx, and nothing is half-written", async () => {
  const anon = { apikey: server.secrets.anonKey, "content-type": "application/json" };
  const owner = { ...anon, authorization: `Bearer ${org.ownerToken}` };
  const post = async (path: string, headers: Record<string, string>, body: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  const refusedOrStored: string[] = [];
  // Sign-up, anonymous: a NUL in the user's data or the organization's name.
  for (const data of [{ k: "a\u0000b" }, { organization_name: "a\u0000b" }]) {
    const email = `nul-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await post("/auth/v1/signup", anon, { email, password: "correct-horse-battery", data });
    if (res.status >= 500) refusedOrStored.push(`signup ${JSON.stringify(data)}: ${res.status}`);
    // Refused, then no account of that address half-made.
    if (res.status >= 400) {
      const db = await serverDb(server);
      expect(await db.inspect(`SELECT id FROM ${usersTable(db)} WHERE email = ?`, email)).toEqual([]);
    }
  }
  // Expiries past year 9999 (an ISO string of `+010000-…`).
  for (const path of ["/api/share-links", "/api/keys"]) {
    const res = await post(path, owner, { brand_id: brandId, organization_id: org.id, name: "far", expires_at: "+010000-01-01T00:00:00Z" });
    expect([path, res.status, res.body?.error?.code]).toEqual([path, 400, "validation_failed"]);
  }
  // NUL in free text of /api writes.
  for (const [path, body] of [
    ["/api/keys", { organization_id: org.id, name: "k\u0000" }],
    ["/api/webhooks", { organization_id: org.id, url: "https://hooks.localhost.test/x", description: "a\u0000" }],
    [`/api/organizations/${org.id}/invitations`, { email: "a\u0000b@example.com", role: "viewer" }],
  ] as const) {
    const res = await post(path, owner, body);
    if (res.status >= 500) refusedOrStored.push(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  // A crawler record reporting more bytes than the totals can sum is refused alone.
  const crawl = await fetch(`${server.url}/api/brands/${brandId}/crawler-logs`, {
    method: "POST",
    headers: owner,
    body: `[{"timestamp":"2026-11-20T10:00:00Z","method":"GET","path":"/a","status":200,"ip":"203.0.113.9","user_agent":"curl/8","bytes":1e20},{"timestamp":"2026-11-20T10:00:01Z","method":"GET","path":"/b","status":200,"ip":"203.0.113.9","user_agent":"curl/8","bytes":1e400}]`,
  });
  expect([crawl.status, ((await crawl.json()) as { errors?: unknown[] }).errors?.length]).toEqual([200, 2]);
  // An upsert naming one key twice.
  const twice = await fetch(`${server.url}/rest/v1/brand_platforms?on_conflict=brand_id,platform`, {
    method: "POST",
    headers: { ...owner, prefer: "resolution=merge-duplicates" },
    body: JSON.stringify([{ brand_id: brandId, platform: "chatgpt" }, { brand_id: brandId, platform: "chatgpt" }]),
  });
  if (twice.status >= 500) refusedOrStored.push(`upsert twice: ${twice.status} ${await twice.text()}`);
  expect(refusedOrStored).toEqual([]);
  // An insights filter of more values than any brand has.
  const many = await post("/rest/v1/rpc/insights_trend", owner, { p_brand_id: brandId, p_platforms: Array.from({ length: 1001 }, (_, i) => `p${i}`) });
  expect([many.status, many.body?.code]).toEqual([400, "54000"]);
  // Most of a megabyte where a date or a number goes, anonymously: 400 at once (a pattern over the
  // spaces or digits once took minutes of a thread), in the body, in an RPC's arguments and in the URL.
  const spaces = `2020-01-01T00:00${" ".repeat(800_000)}x`;
  const digits = `${"1".repeat(6_000)}x`;
  const started = performance.now();
  const rpc = await post("/rest/v1/rpc/get_latest_prompt_results", anon, { p_brand_id: brandId, p_date_from: spaces });
  expect([rpc.status, rpc.body?.code]).toEqual([400, "22007"]);
  const patch = await fetch(`${server.url}/rest/v1/brands?id=eq.${brandId}`, { method: "PATCH", headers: owner, body: JSON.stringify({ created_at: spaces }) });
  expect([patch.status, ((await patch.json()) as { code: string }).code]).toEqual([400, "22007"]);
  const filter = await fetch(`${server.url}/rest/v1/brand_platforms?samples=eq.${digits}`, { headers: owner });
  expect([filter.status, ((await filter.json()) as { code: string }).code]).toEqual([400, "22P02"]);
  expect(performance.now() - started).toBeLessThan(10_000);
  // A tracking code goes into an HTML attribute on every page of the customer's site: no markup.
  const code = (tracking_code: string) => fetch(`${server.url}/rest/v1/brands?id=eq.${brandId}`, { method: "PATCH", headers: owner, body: JSON.stringify({ tracking_code }) });
  const markup = await code('aw_x"></script><script src="https://evil.example/x.js"></script>');
  expect([markup.status, ((await markup.json()) as { code: string }).code]).toEqual([400, "23514"]);
  expect((await code("my-site_01")).status).toBe(204);
});
