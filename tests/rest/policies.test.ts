// The policy table's switches that no exposed table uses yet, exercised on webhook_endpoints the
// way the issue that exposes it will: managers only, and a secret column no one reads.
import { beforeAll, expect, test } from "bun:test";
import { AppError } from "../../src/http/errors";
import { REST_POLICIES } from "../../src/platform/rest/policies";
import { createRestService } from "../../src/platform/rest/service";
import { createSqliteRestExecutor } from "../../src/platform/rest/executor.sqlite";
import { testApp } from "../helpers/app";

let t: Awaited<ReturnType<typeof testApp>>;
let service: ReturnType<typeof createRestService>;
let orgId: string;
let owner: Awaited<ReturnType<typeof callerFor>>;
let member: Awaited<ReturnType<typeof callerFor>>;

async function callerFor(token: string) {
  return t.app.callers.restCaller(new Request("http://localhost/rest/v1/x", { headers: { apikey: t.secrets.anonKey, authorization: `Bearer ${token}` } }));
}

async function signUp(email: string, body: Record<string, unknown>, path = "/auth/v1/signup", key = t.secrets.anonKey) {
  const res = await t.request(path, { method: "POST", headers: { apikey: key, authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ email, password: "correct-horse", ...body }) });
  return res.json();
}

beforeAll(async () => {
  t = await testApp();
  service = createRestService({ executor: createSqliteRestExecutor(t.dbh.sqlite), policies: { ...REST_POLICIES, webhook_endpoints: { ...REST_POLICIES.webhook_endpoints, exposed: true } } });
  const session = await signUp("owner@example.com", { data: { organization_name: "Hooks" } });
  orgId = (t.dbh.sqlite.query("SELECT organization_id AS id FROM organization_members").get() as { id: string }).id;
  await signUp("member@example.com", { organization_id: orgId, role: "member" }, "/auth/v1/admin/users", t.secrets.serviceRoleKey);
  const memberSession = await (await t.request("/auth/v1/token?grant_type=password", { method: "POST", headers: { apikey: t.secrets.anonKey, "content-type": "application/json" }, body: JSON.stringify({ email: "member@example.com", password: "correct-horse" }) })).json();
  owner = await callerFor(session.access_token);
  member = await callerFor(memberSession.access_token);
  t.dbh.sqlite.query("INSERT INTO webhook_endpoints (organization_id, url, secret) VALUES (?, 'https://hooks.example.com', 'whsec_top')").run(orgId);
});

/** The service's answer, or the error routes.ts would render. */
const get = async (path: string, caller: typeof owner, svc = service): Promise<{ status: number; body: any }> => {
  try {
    const res = await svc.handle(new Request(`http://localhost/rest/v1${path}`), caller);
    return { status: res.status, body: await res.json() };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, body: { code: error.code } };
  }
};

test("`*` leaves out an unreadable column, naming it is refused", async () => {
  const all = await get("/webhook_endpoints", owner);
  expect(all.status).toBe(200);
  expect(all.body).toEqual([expect.objectContaining({ url: "https://hooks.example.com" })]);
  expect(all.body[0]).not.toHaveProperty("secret");
  expect(JSON.stringify(all.body)).not.toContain("whsec_top");
  expect((await get("/webhook_endpoints?select=url,secret", owner)).body.code).toBe("42501");
  expect((await get("/webhook_endpoints?secret=eq.whsec_top", owner)).body.code).toBe("42501");
});

test("read roles narrower than every member hide the rows from the others", async () => {
  expect((await get("/webhook_endpoints?select=url", owner)).body).toEqual([{ url: "https://hooks.example.com" }]);
  expect((await get("/webhook_endpoints?select=url", member)).body).toEqual([]);
  // …also when embedded under a table every member reads.
  expect((await get("/organizations?select=id,webhook_endpoints(url)", member)).body).toEqual([{ id: orgId, webhook_endpoints: [] }]);
});

test("a table marked exposed: false is PGRST205 for everyone", async () => {
  const hidden = { ...REST_POLICIES, webhook_endpoints: { ...REST_POLICIES.webhook_endpoints!, exposed: false } };
  const res = await get("/webhook_endpoints", owner, createRestService({ executor: createSqliteRestExecutor(t.dbh.sqlite), policies: hidden }));
  expect([res.status, res.body.code]).toEqual([404, "PGRST205"]);
});
