// backends: sqlite, postgres
// Acceptance 6: an embed level costs one SQL statement, not one per parent row. The REST plugin is
// built here with a statement hook over the same database and caller resolver as the app (on
// Postgres the request's BEGIN and set_config are not counted: they are no statement of the read).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { restRoutes } from "../../src/platform/rest/routes";
import { createSqliteRestExecutor } from "../../src/platform/rest/executor.sqlite";
import { createPgRestExecutor } from "../../src/platform/rest/executor.pg";
import { testApp } from "../helpers/app";
import { appDb, organizationOfUser } from "../helpers/server-db";
import type { PgHarness } from "../contracts/harness.pg";

let t: Awaited<ReturnType<typeof testApp>>;
let token: string;
let orgId: string;
const statements: string[] = [];
let rest: ReturnType<typeof restRoutes>;

const get = (path: string) =>
  rest.handle(new Request(`http://localhost/rest/v1${path}`, { headers: { apikey: t.secrets.anonKey, authorization: `Bearer ${token}` } }));

async function counted(path: string): Promise<{ statements: number; body: any[] }> {
  statements.length = 0;
  const res = await get(path);
  expect(res.status).toBe(200);
  return { statements: statements.length, body: await res.json() };
}

beforeAll(async () => {
  t = await testApp();
  const db = await appDb(t);
  // Without the response cache: every request here must reach the database to be counted.
  const onStatement = (sql: string) => statements.push(sql);
  const executor = db.backend === "postgres" ? createPgRestExecutor((db as PgHarness).pg.sql, { onStatement }) : createSqliteRestExecutor(t.dbh.sqlite, { onStatement });
  rest = restRoutes({ executor, callers: t.app.callers, responseCache: false });
  const signup = await t.request("/auth/v1/signup", {
    method: "POST",
    headers: { apikey: t.secrets.anonKey, "content-type": "application/json" },
    body: JSON.stringify({ email: "counter@example.com", password: "correct-horse", data: { organization_name: "Counter" } }),
  });
  const session = await signup.json();
  token = session.access_token;
  orgId = await organizationOfUser(db, session.user.id);
  const id = async (text: string, ...params: unknown[]) => (await db.inspect<{ id: string }>(`${text} RETURNING id`, ...params))[0]!.id;
  for (let i = 0; i < 50; i++) {
    const brand = await id("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?)", orgId, `Brand ${i}`, `brand-${i}`);
    for (let j = 0; j < 2; j++) {
      await db.inspect("INSERT INTO brand_domains (brand_id, domain) VALUES (?, ?)", brand, `b${i}-${j}.example.com`);
      await db.inspect("INSERT INTO competitors (brand_id, name) VALUES (?, ?)", brand, `Rival ${i}.${j}`);
    }
    const set = await id("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'Set')", brand);
    await db.inspect("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, 'p')", set, brand);
  }
});

afterAll(async () => {
  await (await appDb(t)).close();
});

test("listing 50 brands with two embeds runs 3 statements", async () => {
  const { statements: n, body } = await counted("/brands?select=*,brand_domains(*),competitors(*)");
  expect(body).toHaveLength(50);
  expect(body.every((b) => b.brand_domains.length === 2 && b.competitors.length === 2)).toBe(true);
  expect(n).toBe(3);
});

test("the count does not grow with the page, and a nested level adds one statement", async () => {
  expect((await counted("/brands?select=*,brand_domains(*),competitors(*)&limit=5")).statements).toBe(3);
  const nested = await counted("/brands?select=id,prompt_sets(id,prompts(id,prompt_sets(id)))");
  expect(nested.body.every((b) => b.prompt_sets[0].prompts[0].prompt_sets.id === b.prompt_sets[0].id)).toBe(true);
  expect(nested.statements).toBe(4);
  // Embedded pages and orders stay one statement per level.
  expect((await counted("/brands?select=id,brand_domains(domain)&brand_domains.order=domain.desc&brand_domains.limit=1")).statements).toBe(2);
});

test("every statement is parameterized: user text never reaches the SQL", async () => {
  const marker = "zz'; DROP TABLE brands; --";
  await get(`/brands?select=*,brand_domains(*)&name=eq.${encodeURIComponent(marker)}&brand_domains.domain=like.${encodeURIComponent(marker)}`);
  expect(statements.length).toBeGreaterThan(0);
  for (const sql of statements) expect(sql).not.toContain("DROP");
});
