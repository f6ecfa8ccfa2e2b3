// backends: sqlite, postgres
// OpenAPI (issue #20): /openapi.json validates as OpenAPI 3.1 and covers every route the app
// registers (compared with the route table); /docs works offline; /rest/v1/ answers the service role
// a PostgREST-style root from which openapi-typescript generates types a client type-checks against.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import openapiTS from "openapi-typescript";
import { openApiPath } from "../../src/openapi/document";
import { REST_POLICIES } from "../../src/platform/rest/policies";
import { ROOT, tempDir, testApp, testServer } from "../helpers/app";
import { createBrand, signedUpOrg } from "../rest/helpers";

let server: Awaited<ReturnType<typeof testServer>>;
let doc: { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

beforeAll(async () => {
  server = await testServer();
  const res = await fetch(`${server.url}/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(() => server.stop());

test("/openapi.json is a valid OpenAPI 3.1 document", async () => {
  expect(doc.openapi).toBe("3.1.0");
  const result = await new Validator().validate(doc as never);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
});

test("it covers every route the app registers, every exposed table and every RPC", async () => {
  const { app } = await testApp();
  const registered = [
    ...app.elysia.routes.map((r) => ({ method: r.method.toLowerCase(), path: r.path })),
    ...Object.entries(app.direct).flatMap(([path, methods]) => Object.keys(methods).map((m) => ({ method: m.toLowerCase(), path }))),
  ].filter((r) => !r.path.startsWith("/rest/v1") && ["get", "post", "put", "patch", "delete", "head", "options"].includes(r.method));
  expect(registered.length).toBeGreaterThan(30);
  const missing = registered.filter((r) => !doc.paths[openApiPath(r.path)]?.[r.method]).map((r) => `${r.method} ${r.path}`);
  expect(missing).toEqual([]);
  for (const table of Object.keys(REST_POLICIES)) {
    expect(Object.keys(doc.paths[`/rest/v1/${table}`] ?? {}).sort()).toEqual(["delete", "get", "patch", "post"]);
    expect(doc.components.schemas[table]).toBeDefined();
  }
  for (const rpc of ["get_latest_prompt_results", "insights_overview", "insights_trend", "insights_competitors", "insights_head_to_head", "insights_citation_domains", "insights_citation_urls", "insights_prompts", "insights_search_queries"])
    expect(doc.paths[`/rest/v1/rpc/${rpc}`]?.post).toBeDefined();
  // Columns a client may not read are not described either.
  expect(JSON.stringify(doc.components.schemas.citations)).not.toContain("url_id");
});

test("every /api route that reads a JSON object documents its body, and the service agrees: the documented example is accepted, each required field left out is refused", async () => {
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  const bodies = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => (op as { requestBody?: unknown }).requestBody)
      .map(([method, op]) => [`${method} ${path}`, (op as { requestBody: { content: Record<string, { schema: object }> } }).requestBody.content["application/json"]!.schema] as const),
  );
  const apiBodies = Object.fromEntries(bodies.filter(([route]) => route.includes(" /api/")));
  // Routes under /api taking a JSON object; the others take none (accept, cancel, retry…) or NDJSON (crawler logs).
  expect(Object.keys(apiBodies).sort()).toEqual(["patch /api/webhooks/{id}", "post /api/invitations/{invitationId}/accept", "post /api/invitations/{invitationId}/decline", "post /api/invitations/{invitationId}/open", "post /api/keys", "post /api/organizations/{id}/invitations", "post /api/organizations/{id}/members", "post /api/share-links", "post /api/tracking/start", "post /api/webhooks", "put /api/brands/{id}/digest"]);
  for (const schema of Object.values(apiBodies)) ajv.compile(schema);

  const org = await signedUpOrg(server, "Bodies");
  const brand = await createBrand(org.owner, org.id, "bodies");
  const examples: [string, string, Record<string, unknown>][] = [
    ["post /api/keys", "/api/keys", { name: "reporting", organization_id: org.id, role: "viewer" }],
    ["post /api/share-links", "/api/share-links", { brand_id: brand.id, expires_at: new Date(Date.now() + 86_400_000).toISOString() }],
    ["post /api/organizations/{id}/invitations", `/api/organizations/${org.id}/invitations`, { email: "colleague@example.com", role: "member" }],
    ["put /api/brands/{id}/digest", `/api/brands/${brand.id}/digest`, { frequency: "weekly", alerts: true }],
  ];
  for (const [route, url, body] of examples) {
    const schema = apiBodies[route] as { required?: string[] };
    expect([route, ajv.validate(schema, body), ajv.errors ?? null]).toEqual([route, true, null]);
    const send = (b: unknown) => fetch(`${server.url}${url}`, { method: route.split(" ")[0]!.toUpperCase(), headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify(b) });
    const accepted = await send(body);
    expect([route, accepted.status === 200 || accepted.status === 201]).toEqual([route, true]);
    expect(schema.required?.length).toBeGreaterThan(0);
    for (const field of schema.required!) {
      const { [field]: _, ...without } = body;
      expect(ajv.validate(schema, without)).toBe(false);
      const res = await send(without);
      const code = (await res.json()).error?.code;
      expect([route, field, res.status, ["validation_failed", "invalid_id"].includes(code)]).toEqual([route, field, 400, true]);
    }
  }
});

test("/docs is a page of its own: nothing fetched from another host", async () => {
  const res = await fetch(`${server.url}/docs`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/html");
  const html = await res.text();
  expect(html.match(/(src|href)="https?:/g)).toBeNull();
  // Its script and styles are files of this server (no inline code: the page runs under the CSP).
  expect(html).toContain('<script src="/docs.js">');
  expect(html).not.toMatch(/<script>|<style>/);
  expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
  const script = await fetch(`${server.url}/docs.js`);
  expect(script.headers.get("content-type")).toContain("javascript");
  expect(await script.text()).toContain('fetch("/openapi.json")');
  expect((await fetch(`${server.url}/docs.css`)).headers.get("content-type")).toContain("text/css");
});

test("/rest/v1/ answers the service role an OpenAPI root; openapi-typescript's types type-check a client, and catch a wrong one", async () => {
  const anon = await fetch(`${server.url}/rest/v1/`, { headers: { apikey: server.secrets.anonKey } });
  expect(anon.status).toBe(404);
  expect((await anon.json()).code).toBe("PGRST126");
  const res = await fetch(`${server.url}/rest/v1/`, { headers: { apikey: server.secrets.serviceRoleKey, authorization: `Bearer ${server.secrets.serviceRoleKey}` } });
  expect(res.status).toBe(200);
  const root = await res.json();
  expect(root.servers[0].url).toBe(`${server.url}/rest/v1`);
  expect(Object.keys(root.paths)).toContain("/brands");
  const dir = tempDir("aw-openapi-");
  writeFileSync(join(dir, "api.ts"), await openapiTS(root));
  const client = (extra: string) => `import type { components, paths } from "./api";
type Brand = components["schemas"]["brands"];
type OverviewArgs = NonNullable<paths["/rpc/insights_overview"]["post"]["requestBody"]>["content"]["application/json"];
export const brand: Pick<Brand, "id" | "name" | "is_active"> = { id: "00000000-0000-0000-0000-000000000000", name: "Acme", is_active: true };
export const args: OverviewArgs = { p_brand_id: "00000000-0000-0000-0000-000000000000", p_platforms: ["chatgpt"], p_branded: null };
${extra}
`;
  const tsc = (file: string) => Bun.spawnSync([join(ROOT, "node_modules/.bin/tsc"), "--noEmit", "--strict", "--skipLibCheck", "--target", "es2022", "--module", "esnext", "--moduleResolution", "bundler", file], { cwd: dir });
  writeFileSync(join(dir, "good.ts"), client(""));
  const good = tsc("good.ts");
  expect({ code: good.exitCode, out: good.stdout.toString() }).toEqual({ code: 0, out: "" });
  writeFileSync(join(dir, "bad.ts"), client(`export const wrong: OverviewArgs = { p_brand_id: 42 };`));
  const bad = tsc("bad.ts");
  expect(bad.exitCode).not.toBe(0);
  expect(bad.stdout.toString()).toContain("bad.ts");
}, 60_000);
