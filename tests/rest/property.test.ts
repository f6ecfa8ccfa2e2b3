// backends: sqlite, postgres
// Acceptance 5: 5,000 generated query strings — random operators, nesting, quotes, Unicode and SQL
// fragments, read and write — never answer 5xx, never return or change a row of another
// organization, and never put user text into SQL: every executed statement contains only
// identifiers from the schema cache and the REST layer's own literals.
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import * as schema from "../../src/db/schema";
import { REST_POLICIES } from "../../src/platform/rest/policies";
import { restRoutes } from "../../src/platform/rest/routes";
import { createSqliteRestExecutor } from "../../src/platform/rest/executor.sqlite";
import { createPgRestExecutor } from "../../src/platform/rest/executor.pg";
import { buildSchemaCache } from "../../src/platform/rest/schema-cache";
import { buildPgSchemaCache } from "../../src/platform/rest/schema-cache.pg";
import { testApp } from "../helpers/app";
import { appDb, countOf, json, organizationOfUser, type ServerDb } from "../helpers/server-db";
import type { PgHarness } from "../contracts/harness.pg";

const RUNS = 5000;
const SECRET = "bravo-secret";

let t: Awaited<ReturnType<typeof testApp>>;
let db: ServerDb;
let rest: ReturnType<typeof restRoutes>;
let tokenA: string;
let orgA: string;
let userA: string;
const foreignIds: string[] = [];
const statements: string[] = [];

const cache = buildSchemaCache(schema);
const TABLES = Object.keys(REST_POLICIES);
const COLUMNS = [...new Set([...cache.tables.values()].flatMap((table) => [...table.columns.keys()]))];
const KNOWN_IDENTIFIERS = new Set([...cache.tables.keys(), ...COLUMNS]);

async function signUp(email: string, organization: string) {
  const res = await t.request("/auth/v1/signup", {
    method: "POST",
    headers: { apikey: t.secrets.anonKey, "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct-horse", data: { organization_name: organization } }),
  });
  const body = await res.json();
  const orgId = await organizationOfUser(db, body.user.id);
  return { token: body.access_token as string, orgId, userId: body.user.id as string };
}

async function seed(orgId: string, label: string): Promise<string[]> {
  const made: string[] = [];
  const one = async (sql: string, ...params: unknown[]) => {
    const [row] = await db.inspect<{ id: string }>(`${sql} RETURNING id`, ...params);
    made.push(row!.id);
    return row!.id;
  };
  const j = json(db);
  for (let i = 0; i < 3; i++) {
    const brand = await one(`INSERT INTO brands (organization_id, name, slug, industry, aliases) VALUES (?, ?, ?, ?, ${j})`, orgId, `${label} ${i}`, `${label}-${i}`, `${label} industry`, JSON.stringify([label, `${label}-${i}`]));
    await one("INSERT INTO brand_domains (brand_id, domain) VALUES (?, ?)", brand, `${label}-${i}.example.com`);
    await one(`INSERT INTO competitors (brand_id, name, domain, aliases) VALUES (?, ?, ?, ${j})`, brand, `${label} rival`, null, JSON.stringify([label]));
    const set = await one("INSERT INTO prompt_sets (brand_id, name) VALUES (?, ?)", brand, label);
    const prompt = await one(`INSERT INTO prompts (prompt_set_id, brand_id, text, platforms) VALUES (?, ?, ?, ${j})`, set, brand, `${label} prompt`, '["chatgpt"]');
    const result = await one("INSERT INTO prompt_results (brand_id, prompt_id, platform, model, response, mention_count, visibility_score) VALUES (?, ?, 'chatgpt', 'gpt-4o', ?, ?, ?)", brand, prompt, `${label} answer`, i, i * 10.5);
    await one("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain) VALUES (?, ?, 1, ?, ?, ?)", result, brand, `https://${label}.com`, `https://${label}.com/`, `${label}.com`);
    await one(`INSERT INTO suggestions (brand_id, type, key, title, evidence) VALUES (?, 'gap', ?, ?, ${j})`, brand, `k${i}`, `${label} suggestion`, JSON.stringify({ who: label, n: i }));
    await one("INSERT INTO ai_traffic_logs (brand_id, url, path, visitor_hash) VALUES (?, ?, '/', ?)", brand, `https://${label}.com/`, label);
  }
  return made;
}

/** Random writes empty A's organization (its owner may delete it); put it back so reads keep returning rows. */
async function reseedAlpha(): Promise<void> {
  await db.inspect("INSERT INTO organizations (id, name, slug) VALUES (?, 'Alpha', 'alpha-org') ON CONFLICT DO NOTHING", orgA);
  await db.inspect("INSERT INTO organization_members (organization_id, user_id, role) VALUES (?, ?, 'owner') ON CONFLICT DO NOTHING", orgA, userA);
  await db.inspect("UPDATE organization_members SET role = 'owner' WHERE organization_id = ? AND user_id = ?", orgA, userA);
  if ((await countOf(db, "SELECT count(*) AS n FROM brands WHERE organization_id = ?", orgA)) >= 3) return;
  await db.inspect("DELETE FROM brands WHERE organization_id = ?", orgA);
  await seed(orgA, "alpha");
}

/** Every row of B's organization as stored, to prove nothing wrote, added or removed any. */
async function foreignSnapshot(): Promise<string> {
  const scoped = (table: string) =>
    table === "organizations" ? "id = ?" : ["organization_members", "brands", "webhook_endpoints"].includes(table) ? "organization_id = ?" : "brand_id IN (SELECT id FROM brands WHERE organization_id = ?)";
  const tables: unknown[] = [];
  for (const table of TABLES) tables.push(await db.inspect(`SELECT * FROM ${table} WHERE ${scoped(table)} ORDER BY id`, foreignIds[0]));
  return JSON.stringify(tables);
}

beforeAll(async () => {
  t = await testApp();
  db = await appDb(t);
  const onStatement = (sql: string) => statements.push(sql);
  const executor = db.backend === "postgres" ? createPgRestExecutor((db as PgHarness).pg.sql, { onStatement }) : createSqliteRestExecutor(t.dbh.sqlite, { onStatement });
  rest = restRoutes({ executor, callers: t.app.callers });
  const a = await signUp("prop-a@example.com", "Alpha");
  const b = await signUp("prop-b@example.com", SECRET);
  tokenA = a.token;
  orgA = a.orgId;
  userA = a.userId;
  await seed(a.orgId, "alpha");
  foreignIds.push(b.orgId, ...(await seed(b.orgId, SECRET)));
  await db.inspect("CREATE TABLE canary (id INTEGER PRIMARY KEY)");
  await db.inspect("INSERT INTO canary (id) VALUES (1)");
});
afterAll(() => db.close());

// ---- generators -------------------------------------------------------------------------------

const nasty = fc.constantFrom(
  "' OR 1=1 --", '"); DROP TABLE canary; --', "1; DELETE FROM brands", "' UNION SELECT * FROM users --", "%", "*", "\\", "_", "\u0000", "𝔘𝔫𝔦", "ü", "null", "NULL",
  "true", "()", "(a,b)", '("a,b",c)', "{a,b}", '{"a":1}', "[1,2]", "1e309", "-1", "99999999999999999999", "2024-01-01", "2024-13-45T99:00", "", " ", ",", ".", "..", '"', "'", ";",
  "--", "/*", "a)b", "not", "or(", "and()", SECRET, "00000000-0000-4000-8000-000000000000",
);
const text = fc.oneof(nasty, fc.string({ maxLength: 8 }), fc.string({ unit: "grapheme", maxLength: 6 }));
const value = fc.oneof(nasty, text, fc.integer().map(String), fc.constantFrom("alpha", "alpha 0", "*alpha*", "alpha-1.example.com", "{alpha}", '["alpha"]', "{chatgpt}", "true"), fc.constant("FOREIGN"));
// Mostly well-formed pieces, so that most requests reach SQL; garbage in a minority of places.
const often = <T,>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>, ratio = 12) => fc.oneof({ weight: ratio, arbitrary: good }, { weight: 1, arbitrary: bad });
const jsonPath = fc.tuple(fc.constantFrom("->", "->>"), often(fc.constantFrom("0", "-1", "who", "n", "x", "ünï", '"a b"'), text, 6)).map(([arrow, key]) => `${arrow}${key}`);
const operator = often(
  fc.constantFrom("eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "cs", "cd", "ov", "is", "in", "isdistinct", "not.eq", "not.in", "not.is", "not.like", "eq(any)", "like(all)"),
  fc.constantFrom("match", "fts", "sl", "nope", "", "not"),
);
const list = fc.array(value, { maxLength: 4 }).map((items) => `(${items.map((v) => (v.includes(",") ? `"${v.replaceAll('"', '\\"')}"` : v)).join(",")})`);
const operand = fc.tuple(operator, fc.oneof(value, list), fc.constantFrom("null", "true", "false", "unknown", "NuLl")).map(([op, v, tri]) =>
  op.endsWith("in") ? `${op}.${v.startsWith("(") ? v : `(${v})`}` : op.endsWith("is") ? `${op}.${tri}` : `${op}.${v}`,
);
const embedName = often(fc.constantFrom("brand_domains", "competitors", "prompt_sets", "prompts", "brands", "organizations", "prompt_results", "citations", "suggestions", "brand_id"), fc.constantFrom("users", "nope"), 8);
const embedPath = fc.oneof({ weight: 3, arbitrary: fc.constant("") }, { weight: 1, arbitrary: embedName.map((n) => `${n}.`) });

/** Query parameters for a table: its own columns mostly, any column or garbage sometimes. */
function paramsFor(columns: string[]) {
  const column = often(fc.constantFrom(...columns), often(fc.constantFrom(...COLUMNS), text, 2), 6);
  const field = often(column, fc.tuple(fc.constantFrom("aliases", "evidence", "platforms", "citations"), jsonPath).map(([c, p]) => `${c}${p}`), 5);
  const { logic } = fc.letrec<{ logic: string; item: string }>((tie) => ({
    item: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.tuple(field, operand).map(([f, o]) => `${f}.${o}`), tie("logic")),
    logic: fc.tuple(fc.constantFrom("or", "and", "not.or", "not.and"), fc.array(tie("item"), { minLength: 1, maxLength: 3 })).map(([op, items]) => `${op}(${items.join(",")})`),
  }));
  const { select } = fc.letrec<{ select: string; selectItem: string }>((tie) => ({
    selectItem: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: 10, arbitrary: field },
      { weight: 8, arbitrary: fc.constant("*") },
      { weight: 4, arbitrary: fc.tuple(often(fc.constantFrom("x", "my_name", "ünï", "𝔘"), text, 8), field).map(([alias, f]) => `${alias}:${f}`) },
      { weight: 2, arbitrary: fc.tuple(field, fc.constantFrom("text", "int", "json", "bogus")).map(([f, cast]) => `${f}::${cast}`) },
      { weight: 8, arbitrary: fc.tuple(fc.constantFrom("", "", "", "!inner", "!left", "!brand_id", "..."), embedName, tie("select")).map(([mod, name, sub]) => (mod === "..." ? `...${name}(${sub})` : `${name}${mod}(${sub})`)) },
      { weight: 1, arbitrary: text },
    ),
    select: fc.array(tie("selectItem"), { minLength: 1, maxLength: 4 }).map((items) => items.join(",")),
  }));
  const param: fc.Arbitrary<[string, string]> = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.tuple(embedPath, field).map(([p, f]) => `${p}${f}`), operand) },
    { weight: 2, arbitrary: fc.tuple(fc.tuple(embedPath, fc.constantFrom("or", "and", "not.or")).map(([p, l]) => `${p}${l}`), logic.map((l) => l.slice(l.indexOf("(")))) },
    { weight: 2, arbitrary: fc.tuple(fc.tuple(embedPath, fc.constant("order")).map(([p, o]) => `${p}${o}`), fc.tuple(field, fc.constantFrom("", ".asc", ".desc", ".desc.nullslast", ".nullsfirst", ".sideways")).map(([f, d]) => `${f}${d}`)) },
    { weight: 2, arbitrary: fc.tuple(fc.tuple(embedPath, fc.constantFrom("limit", "offset")).map(([p, o]) => `${p}${o}`), often(fc.integer({ min: -3, max: 60 }).map(String), text, 4)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("columns", "on_conflict"), fc.array(column, { minLength: 1, maxLength: 3 }).map((c) => c.join(","))) },
    { weight: 1, arbitrary: fc.tuple(text, value) },
  );
  return fc.tuple(fc.option(select, { freq: 2 }), fc.array(param, { maxLength: 4 })).map(([sel, rest]) => (sel === null ? rest : [["select", sel] as [string, string], ...rest]));
}

const tableName = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...TABLES) }, { weight: 1, arbitrary: fc.oneof(text, fc.constantFrom("users", "sessions", "canary", "jobs")) });
const request = fc.tuple(fc.constantFrom("GET", "GET", "GET", "GET", "HEAD", "PATCH", "DELETE", "POST", "RPC"), tableName).chain(([method, table]) =>
  fc.record({
    method: fc.constant(method),
    table: fc.constant(table),
    params: paramsFor(method === "RPC" ? [...cache.tables.get("prompt_results")!.columns.keys()] : [...(cache.tables.get(table)?.columns.keys() ?? COLUMNS)]),
    prefer: often(fc.constantFrom("", "", "", "return=representation", "count=exact", "resolution=merge-duplicates", "missing=default, return=representation"), fc.constant("handling=strict, bogus"), 16),
    range: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom("0-1", "5-2", "1-", "x") }),
  }),
);

// ---- the property ------------------------------------------------------------------------------

const foreignValue = (v: unknown): boolean =>
  typeof v === "string" ? v.includes(SECRET) || foreignIds.some((id) => v.includes(id)) : Array.isArray(v) ? v.some(foreignValue) : v !== null && typeof v === "object" ? Object.values(v).some(foreignValue) : false;

const ALIAS = /^([tl][0-9]+|[pc]|o[0-9]+)$/; // plan aliases, link columns, and the write checks' parent/child/owner aliases
const OWN_LITERALS = new Set([
  "'true'", "'false'", "'{}'", "'{'", "'}'", "''", "'['", "']'", "','", "'\\'", "'array'", "'object'",
  // Postgres: timestamps as ISO text (dialect.pg.ts), citations' URL fields read through (schema-cache.pg.ts).
  "'UTC'", `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`, "'url'", "'normalized_url'", "'title'",
  // The schema's own column defaults, which `Prefer: missing=default` writes in place of a missing
  // field (inline on Postgres: `'[]'::jsonb`).
  ...[buildSchemaCache(schema), buildPgSchemaCache()].flatMap((c) => [...c.tables.values()].flatMap((table) => [...table.columns.values()].flatMap((column) => [...(column.defaultSql?.sql.matchAll(/'(?:[^']|'')*'/g) ?? [])].map((m) => m[0])))),
]);

/** What the SQL text of a statement may contain: schema identifiers, aliases, the layer's own literals. */
function checkStatement(sql: string): string | null {
  if (sql.includes(";") || sql.includes("--") || sql.includes("/*")) return `comment or separator in ${sql}`;
  for (const [literal] of sql.matchAll(/'(?:[^']|'')*'/g)) if (!OWN_LITERALS.has(literal)) return `literal ${literal} in ${sql}`;
  // Identifiers outside the (checked) literals: a format string may hold double quotes.
  for (const [quoted] of sql.replaceAll(/'(?:[^']|'')*'/g, "''").matchAll(/"(?:[^"]|"")*"/g)) {
    const name = quoted.slice(1, -1);
    if (!KNOWN_IDENTIFIERS.has(name) && !ALIAS.test(name)) return `identifier ${quoted} in ${sql}`;
  }
  return null;
}

test(`${RUNS} generated requests: no 5xx, no foreign row, no user text in SQL`, async () => {
  const before = await foreignSnapshot();
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      const search = new URLSearchParams(r.params.map(([k, v]) => [k, v.replaceAll("FOREIGN", foreignIds[1])]));
      const headers: Record<string, string> = { apikey: t.secrets.anonKey, authorization: `Bearer ${tokenA}`, "content-type": "application/json" };
      if (r.prefer) headers.prefer = r.prefer;
      if (r.range) headers.range = r.range;
      const rpc = r.method === "RPC";
      const path = rpc ? "/rpc/get_latest_prompt_results" : `/${encodeURIComponent(r.table)}`;
      const columns = cache.tables.get(r.table)?.columns;
      const scope = REST_POLICIES[r.table]?.scope;
      const textColumn = [...(columns?.values() ?? [])].find((c) => c.type === "text")?.name ?? "name";
      const body =
        r.method === "PATCH" ? JSON.stringify({ [textColumn]: "patched" })
        : r.method === "POST" ? JSON.stringify([{ ...(scope ? { [scope]: scope === "brand_id" ? foreignIds[1] : foreignIds[0] } : {}), [textColumn]: "inserted" }])
        : rpc ? JSON.stringify({ p_brand_id: foreignIds[1] })
        : undefined;
      statements.length = 0;
      const res = await rest.handle(new Request(`http://localhost/rest/v1${path}?${search}`, { method: rpc ? "POST" : r.method, headers, body }));
      const text = await res.text();
      expect(res.status).toBeLessThan(500);
      for (const sql of statements) expect(checkStatement(sql)).toBeNull();
      if (r.method !== "GET" && r.method !== "HEAD" && res.status < 300) await reseedAlpha();
      if (res.status < 300 && text && r.method !== "HEAD") {
        const parsed = res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
        expect(foreignValue(parsed)).toBe(false);
      }
    }),
    { numRuns: RUNS },
  );
  expect(await foreignSnapshot()).toBe(before);
  expect(await countOf(db, "SELECT count(*) AS n FROM canary")).toBe(1);
}, 240_000);
