// backends: sqlite, postgres
// GET responses are served from memory until the database changes, and never to the wrong caller:
// a repeat runs no SQL; any write — through REST, on the same connection, or by another
// connection to the file — is seen by the next read; the key separates callers and the headers
// that shape a response. On Postgres a commit by another connection (another instance) is seen
// once the executor's version poll (250 ms) has noticed it: within a few hundred milliseconds.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registerSqlFunctions } from "../../src/database";
import { createResponseCache } from "../../src/platform/rest/response-cache";
import { restRoutes } from "../../src/platform/rest/routes";
import { createSqliteRestExecutor } from "../../src/platform/rest/executor.sqlite";
import { createPgRestExecutor } from "../../src/platform/rest/executor.pg";
import { testApp } from "../helpers/app";
import { appDb, organizationOfUser, settled, type ServerDb } from "../helpers/server-db";
import type { PgHarness } from "../contracts/harness.pg";

let t: Awaited<ReturnType<typeof testApp>>;
let db: ServerDb;
let rest: ReturnType<typeof restRoutes>;
const statements: string[] = [];
const tokens: Record<string, string> = {};
const orgs: Record<string, string> = {};

async function signUp(name: string) {
  const res = await t.request("/auth/v1/signup", {
    method: "POST",
    headers: { apikey: t.secrets.anonKey, "content-type": "application/json" },
    body: JSON.stringify({ email: `${name}@example.com`, password: "correct-horse", data: { organization_name: name } }),
  });
  const session = await res.json();
  tokens[name] = session.access_token;
  orgs[name] = await organizationOfUser(db, session.user.id);
}

async function get(who: string, path: string, headers: Record<string, string> = {}) {
  statements.length = 0;
  const res = await rest.handle(new Request(`http://localhost/rest/v1${path}`, { headers: { apikey: t.secrets.anonKey, authorization: `Bearer ${tokens[who]}`, ...headers } }));
  return { status: res.status, headers: res.headers, text: await res.text(), statements: statements.length };
}

const LIST = "/brands?select=name,brand_domains(domain)&order=name";

beforeAll(async () => {
  t = await testApp();
  db = await appDb(t);
  const onStatement = (sql: string) => statements.push(sql);
  const executor = db.backend === "postgres" ? createPgRestExecutor((db as PgHarness).pg.sql, { onStatement }) : createSqliteRestExecutor(t.dbh.sqlite, { onStatement });
  rest = restRoutes({ executor, callers: t.app.callers });
  await signUp("alpha");
  await signUp("beta");
  for (const [who, name] of [["alpha", "Acme"], ["beta", "Bolt"]]) {
    const [brand] = await db.inspect<{ id: string }>("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?) RETURNING id", orgs[who], name, name.toLowerCase());
    await db.inspect("INSERT INTO brand_domains (brand_id, domain) VALUES (?, ?)", brand!.id, `${name.toLowerCase()}.com`);
  }
});
afterAll(() => db.close());

/** The list's first brand once a write elsewhere has been noticed (at once on SQLite; after the version poll on Postgres). */
const seen = async <T,>(pick: (rows: any[]) => T, expected: T) => settled(async () => pick(JSON.parse((await get("alpha", LIST)).text)), expected);

test("a repeated GET is answered without SQL, with the same status, headers and bytes", async () => {
  // On Postgres any commit in the cluster moves the version (polled every 250 ms): a pair with a
  // commit between its two requests is tried again.
  let first = await get("alpha", LIST);
  let again = await get("alpha", LIST);
  for (let i = 0; i < 10 && again.statements > 0; i++) {
    await Bun.sleep(300);
    first = await get("alpha", LIST);
    again = await get("alpha", LIST);
  }
  expect(JSON.parse(first.text)).toEqual([{ name: "Acme", brand_domains: [{ domain: "acme.com" }] }]);
  expect(again.statements).toBe(0);
  expect(again.text).toBe(first.text);
  expect(again.status).toBe(first.status);
  expect([...again.headers]).toEqual([...first.headers]);
});

test("another caller never gets an entry made for someone else", async () => {
  await get("alpha", LIST);
  const beta = await get("beta", LIST);
  expect(JSON.parse(beta.text)).toEqual([{ name: "Bolt", brand_domains: [{ domain: "bolt.com" }] }]);
  const anon = await rest.handle(new Request(`http://localhost/rest/v1${LIST}`, { headers: { apikey: t.secrets.anonKey } }));
  expect(await anon.json()).toEqual([]);
});

test("the headers that shape a response are part of the key", async () => {
  await get("alpha", LIST);
  const counted = await get("alpha", LIST, { prefer: "count=exact" });
  expect(counted.headers.get("content-range")).toBe("0-0/1");
  const csv = await get("alpha", "/brands?select=name&order=name", { accept: "text/csv" });
  expect(csv.text).toBe("name\nAcme");
  const single = await get("alpha", "/brands?select=name&order=name", { accept: "application/vnd.pgrst.object+json" });
  expect(JSON.parse(single.text)).toEqual({ name: "Acme" });
  const ranged = await get("alpha", "/brands?select=name&order=name", { range: "1-1" });
  expect(ranged.text).toBe("[]");
  expect(JSON.parse((await get("alpha", "/brands?select=name&order=name")).text)).toEqual([{ name: "Acme" }]);
});

test("a write through /rest/v1 is seen by the next read", async () => {
  await get("alpha", LIST);
  const patch = await rest.handle(
    new Request(`http://localhost/rest/v1/brands?name=eq.Acme`, {
      method: "PATCH",
      headers: { apikey: t.secrets.anonKey, authorization: `Bearer ${tokens.alpha}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Acme Corp" }),
    }),
  );
  expect(patch.status).toBe(204);
  const after = await get("alpha", LIST);
  expect(after.statements).toBeGreaterThan(0);
  expect(JSON.parse(after.text)[0].name).toBe("Acme Corp");
});

/** A write by another connection: another process's (SQLite: with the functions its triggers call), another instance's (Postgres). */
async function elsewhere(text: string, ...params: unknown[]): Promise<void> {
  if (db.backend === "postgres") {
    await db.inspect(text, ...params);
    return;
  }
  const other = new Database(t.dbh.sqlite.filename);
  registerSqlFunctions(other);
  other.run("PRAGMA busy_timeout = 5000");
  other.query(text).run(...(params as never[]));
  other.close();
}

test("a write outside /rest/v1 (a tracking result, say) is seen", async () => {
  await get("alpha", LIST);
  await (db.backend === "postgres" ? elsewhere("UPDATE brand_domains SET domain = 'acme.io' WHERE domain = 'acme.com'") : t.dbh.sqlite.run("UPDATE brand_domains SET domain = 'acme.io' WHERE domain = 'acme.com'"));
  expect(await seen((rows) => rows[0].brand_domains, [{ domain: "acme.io" }])).toEqual([{ domain: "acme.io" }]);
});

test("a commit by another connection (a worker thread, another process or instance) is seen", async () => {
  await get("alpha", LIST);
  expect((await get("alpha", LIST)).statements).toBe(0);
  await elsewhere("UPDATE brands SET name = 'Acme Group' WHERE organization_id = ?", orgs.alpha);
  expect(await seen((rows) => rows[0].name, "Acme Group")).toBe("Acme Group");
});

test("losing a membership takes effect on the next read", async () => {
  await get("beta", LIST);
  await elsewhere("DELETE FROM organization_members WHERE organization_id = ?", orgs.beta);
  // At once on both backends: the memberships are resolved for each request and are part of the key.
  expect(JSON.parse((await get("beta", LIST)).text)).toEqual([]);
});

describe("memory", () => {
  const anon = { role: "anon" as const, orgRoles: new Map() };
  const tiny = () => new Response("[]", { status: 200, headers: { "content-type": "application/json" } });

  test("keys and headers count: many distinct tiny answers stay within maxBytes", async () => {
    const cache = createResponseCache(createSqliteRestExecutor(new Database(":memory:")), { maxBytes: 64 * 1024, maxEntryBytes: 16 * 1024 });
    for (let i = 0; i < 2000; i++) {
      const request = new Request(`http://localhost/rest/v1/brands?select=id&n=${i}`, { headers: { prefer: `x=${"y".repeat(3000)}${i}` } });
      const miss = cache.lookup(request, anon);
      if (!("store" in miss)) throw new Error("expected a miss");
      await miss.store(tiny());
      expect(cache.bytes).toBeLessThanOrEqual(64 * 1024);
    }
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThan(20);
  });

  test("two identical requests computed side by side are counted once", async () => {
    const cache = createResponseCache(createSqliteRestExecutor(new Database(":memory:")), { maxBytes: 1024 * 1024, maxEntryBytes: 64 * 1024 });
    const request = () => new Request("http://localhost/rest/v1/brands?select=id");
    const first = cache.lookup(request(), anon);
    const second = cache.lookup(request(), anon);
    if (!("store" in first) || !("store" in second)) throw new Error("expected two misses");
    await first.store(tiny());
    const once = cache.bytes;
    await second.store(tiny());
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(once);
  });

  test("the memberships resolved for a request are part of its key", async () => {
    const cache = createResponseCache(createSqliteRestExecutor(new Database(":memory:")), { maxBytes: 1024 * 1024, maxEntryBytes: 64 * 1024 });
    const user = { id: "u1", email: "u@example.com", sessionId: "s", claims: {} as never };
    const member = { role: "authenticated" as const, user, orgRoles: new Map([["org-a", "member" as const]]) };
    const removed = { role: "authenticated" as const, user, orgRoles: new Map() };
    const request = () => new Request("http://localhost/rest/v1/brands?select=id");
    const miss = cache.lookup(request(), member);
    if (!("store" in miss)) throw new Error("expected a miss");
    await miss.store(new Response('[{"id":"secret"}]', { status: 200 }));
    expect("hit" in cache.lookup(request(), member)).toBe(true);
    expect("hit" in cache.lookup(request(), removed)).toBe(false);
  });
});
