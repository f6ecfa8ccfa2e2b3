// backends: sqlite, postgres
// Issue #14, acceptance 1: 5,000 generated write requests across two organizations and all four
// roles — every exposed table, every write verb (insert, bulk insert with columns=, upserts that
// merge or ignore, PATCH, DELETE), bodies that move rows to other parents (derived columns such as
// prompts.brand_id from prompt_set_id) — and after each one, a diff of every row of both
// organizations proves that nothing outside the caller's write rights was created, changed, moved
// or removed. The rights are written out here from the documented role table, not read from the
// product's policies, so the test is an independent oracle.
import { beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { testApp } from "../helpers/app";
import { appDb, type ServerDb } from "../helpers/server-db";

const RUNS = 5000;
type Role = "owner" | "admin" | "member" | "viewer";
type Verb = "insert" | "update" | "delete";

const WRITERS: Role[] = ["owner", "admin", "member"];
const MANAGERS: Role[] = ["owner", "admin"];
const all = (roles: Role[]) => ({ insert: roles, update: roles, delete: roles });

/** Who may do what (README "Security"): the oracle. */
const RIGHTS: Record<string, Partial<Record<Verb, Role[]>>> = {
  organizations: { update: MANAGERS, delete: ["owner"] },
  // People join by accepting an invitation (/api/invitations), never by a write here; anyone may
  // leave (delete their own row: see violations()).
  organization_members: { update: MANAGERS, delete: MANAGERS },
  brands: all(WRITERS),
  brand_domains: all(WRITERS),
  competitors: all(WRITERS),
  topics: all(WRITERS),
  prompt_sets: all(WRITERS),
  prompts: all(WRITERS),
  brand_platforms: all(WRITERS),
  prompt_results: {},
  citations: {},
  ai_traffic_logs: {},
  suggestions: { update: WRITERS },
  webhook_endpoints: { update: MANAGERS, delete: MANAGERS },
};
const TABLES = Object.keys(RIGHTS);
/** Columns pointing at a parent row: a row whose parent went in the same request went by cascade. */
const PARENTS: Record<string, string[]> = {
  organization_members: ["organization_id:organizations"],
  brands: ["organization_id:organizations"],
  brand_domains: ["brand_id:brands"],
  competitors: ["brand_id:brands"],
  topics: ["brand_id:brands"],
  prompt_sets: ["brand_id:brands"],
  prompts: ["brand_id:brands", "prompt_set_id:prompt_sets"],
  brand_platforms: ["brand_id:brands"],
  prompt_results: ["brand_id:brands", "prompt_id:prompts"],
  citations: ["brand_id:brands", "result_id:prompt_results"],
  ai_traffic_logs: ["brand_id:brands"],
  suggestions: ["brand_id:brands"],
  webhook_endpoints: ["organization_id:organizations", "brand_id:brands"],
};

let t: Awaited<ReturnType<typeof testApp>>;
const orgs: string[] = [];
interface CallerInfo {
  token: string;
  userId: string;
  baseline: [string, Role][];
}
const callers: CallerInfo[] = [];

let db: ServerDb;

async function signUp(email: string) {
  const res = await t.request("/auth/v1/signup", {
    method: "POST",
    headers: { apikey: t.secrets.anonKey, "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct-horse" }),
  });
  const body = await res.json();
  if (!body.access_token) throw new Error(`sign-up: ${JSON.stringify(body)}`);
  return { token: body.access_token as string, userId: body.user.id as string };
}

/** Two brands per organization with a row in every brand table. */
async function seedOrganization(orgId: string, label: string): Promise<void> {
  const one = async (sql: string, ...params: (string | number | null)[]) => (await db.inspect<{ id: string }>(`${sql} RETURNING id`, ...params))[0]!.id;
  await db.inspect("INSERT INTO organizations (id, name, slug) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", orgId, label, `${label}-org`);
  for (let i = 0; i < 2; i++) {
    const brand = await one("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?)", orgId, `${label} ${i}`, `${label}-${i}-${crypto.randomUUID().slice(0, 8)}`);
    await one("INSERT INTO brand_domains (brand_id, domain) VALUES (?, ?)", brand, `${label}${i}.example.com`);
    const competitor = await one("INSERT INTO competitors (brand_id, name) VALUES (?, ?)", brand, `${label} rival`);
    await one("INSERT INTO brand_platforms (brand_id, platform) VALUES (?, 'chatgpt')", brand);
    const topic = await one("INSERT INTO topics (brand_id, name) VALUES (?, ?)", brand, `${label} topic`);
    for (let s = 0; s < 2; s++) {
      const set = await one("INSERT INTO prompt_sets (brand_id, name) VALUES (?, ?)", brand, `${label} set ${s}`);
      // One prompt of each brand has no topic: its moves are guarded by the row checks alone.
      const prompt = await one("INSERT INTO prompts (prompt_set_id, brand_id, text, topic_id) VALUES (?, ?, ?, ?)", set, brand, `${label} prompt ${s}`, s === 0 ? topic : null);
      const result = await one("INSERT INTO prompt_results (brand_id, prompt_id, platform, model) VALUES (?, ?, 'chatgpt', 'gpt')", brand, prompt);
      await one("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain, competitor_id) VALUES (?, ?, 1, 'https://x.com', 'https://x.com/', 'x.com', ?)", result, brand, competitor);
    }
    await one("INSERT INTO suggestions (brand_id, type, key, title) VALUES (?, 'gap', ?, 't')", brand, `k${i}`);
    await one("INSERT INTO ai_traffic_logs (brand_id, url, path, visitor_hash) VALUES (?, 'https://x.com/', '/', 'v')", brand);
  }
  await one("INSERT INTO webhook_endpoints (organization_id, url, secret) VALUES (?, 'https://hooks.example.com/x', 's')", orgId);
}

/** Puts back what random writes took away: organizations, their brands, and the callers' roles. */
async function restore(): Promise<void> {
  for (const [i, orgId] of orgs.entries()) {
    const brands = Number((await db.inspect<{ n: number }>("SELECT count(*) AS n FROM brands WHERE organization_id = ?", orgId))[0]!.n);
    const exists = (await db.inspect("SELECT 1 FROM organizations WHERE id = ?", orgId)).length > 0;
    if (!exists || brands < 2) {
      await db.inspect("DELETE FROM brands WHERE organization_id = ?", orgId);
      await seedOrganization(orgId, `org${i}`);
    }
  }
  for (const caller of callers)
    for (const [orgId, role] of caller.baseline)
      await db.inspect("INSERT INTO organization_members (organization_id, user_id, role) VALUES (?, ?, ?) ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role", orgId, caller.userId, role);
}

type Row = Record<string, unknown>;
type Snapshot = Map<string, Map<string, Row>>;

async function snapshot(): Promise<Snapshot> {
  const tables = await Promise.all(TABLES.map(async (table) => [table, new Map((await db.inspect<Row>(`SELECT * FROM ${table}`)).map((r) => [r.id as string, r]))] as const));
  return new Map(tables);
}

function orgOf(snap: Snapshot, table: string, row: Row): string | undefined {
  if (table === "organizations") return row.id as string;
  if (row.organization_id) return row.organization_id as string;
  return snap.get("brands")!.get(row.brand_id as string)?.organization_id as string | undefined;
}

function roleIn(snap: Snapshot, userId: string, orgId: string | undefined): Role | undefined {
  if (!orgId) return undefined;
  for (const m of snap.get("organization_members")!.values()) if (m.user_id === userId && m.organization_id === orgId) return m.role as Role;
  return undefined;
}

const may = (table: string, verb: Verb, role: Role | undefined) => role !== undefined && (RIGHTS[table][verb] ?? []).includes(role);
const privileged = (row: Row | undefined) => row !== undefined && (row.role === "owner" || row.role === "admin");

/** The violations of the caller's rights between two snapshots. */
function violations(before: Snapshot, after: Snapshot, userId: string): string[] {
  const found: string[] = [];
  const deleted = (table: string, id: unknown) => before.get(table)!.has(id as string) && !after.get(table)!.has(id as string);
  const parentWent = (table: string, row: Row) =>
    (PARENTS[table] ?? []).some((p) => {
      const [column, parent] = p.split(":") as [string, string];
      return row[column] !== null && deleted(parent, row[column]);
    });
  for (const table of TABLES) {
    const was = before.get(table)!;
    const now = after.get(table)!;
    for (const [id, row] of now) {
      const old = was.get(id);
      const orgAfter = orgOf(after, table, row);
      if (!old) {
        const role = roleIn(before, userId, orgAfter);
        if (!may(table, "insert", role)) found.push(`${table} ${id} created in ${orgAfter} as ${role}`);
        if (table === "organization_members" && privileged(row) && role !== "owner") found.push(`${row.role} granted in ${orgAfter} as ${role}`);
        continue;
      }
      if (JSON.stringify(old) === JSON.stringify(row)) continue;
      // ON DELETE SET NULL of a reference whose row went in this request (citations.competitor_id).
      // Postgres keeps each row's organization_id from its brand (drizzle-pg/0001): a brand moved
      // (a write checked on brands) takes its rows along; that column is not the caller's write.
      const followsBrand = (k: string) => k === "organization_id" && row.brand_id != null && row.organization_id === after.get("brands")!.get(row.brand_id as string)?.organization_id;
      const changed = Object.keys(row).filter((k) => JSON.stringify(row[k]) !== JSON.stringify(old[k]) && !followsBrand(k));
      if (changed.every((k) => row[k] === null && k.endsWith("_id"))) continue;
      const orgBefore = orgOf(before, table, old);
      const roleBefore = roleIn(before, userId, orgBefore);
      const roleAfter = roleIn(before, userId, orgAfter);
      if (!may(table, "update", roleBefore) || !may(table, "update", roleAfter)) found.push(`${table} ${id} changed (${changed.join(",")}) ${orgBefore}→${orgAfter} as ${roleBefore}/${roleAfter}`);
      if (table === "organization_members" && (privileged(old) || privileged(row)) && (roleBefore !== "owner" || roleAfter !== "owner"))
        found.push(`membership ${old.role}→${row.role} changed as ${roleBefore}`);
    }
    for (const [id, old] of was) {
      if (now.has(id) || parentWent(table, old)) continue;
      const orgBefore = orgOf(before, table, old);
      const role = roleIn(before, userId, orgBefore);
      const leaving = table === "organization_members" && old.user_id === userId;
      if (!may(table, "delete", role) && !leaving) found.push(`${table} ${id} deleted from ${orgBefore} as ${role}`);
      if (table === "organization_members" && privileged(old) && role !== "owner" && !leaving) found.push(`${old.role} removed as ${role}`);
    }
  }
  // Invariants: every organization keeps an owner; a prompt's brand is its set's brand.
  for (const org of after.get("organizations")!.values())
    if (![...after.get("organization_members")!.values()].some((m) => m.organization_id === org.id && m.role === "owner")) found.push(`organization ${org.id} has no owner`);
  for (const prompt of after.get("prompts")!.values()) {
    if (after.get("prompt_sets")!.get(prompt.prompt_set_id as string)?.brand_id !== prompt.brand_id) found.push(`prompt ${prompt.id} is in another brand than its set`);
    if (prompt.topic_id && after.get("topics")!.get(prompt.topic_id as string)?.brand_id !== prompt.brand_id) found.push(`prompt ${prompt.id} has another brand's topic`);
  }
  return found;
}

beforeAll(async () => {
  t = await testApp();
  db = await appDb(t);
  const owners = [await signUp("rights-a@example.com"), await signUp("rights-b@example.com")];
  for (const owner of owners) orgs.push((await db.inspect<{ id: string }>("SELECT organization_id AS id FROM organization_members WHERE user_id = ?", owner.userId))[0]!.id);
  const others = [await signUp("rights-c@example.com"), await signUp("rights-d@example.com")];
  // Every role in both organizations: (A, B) = (owner, member), (admin, viewer), (member, owner), (viewer, admin).
  const plan: [typeof owners[0], Role, Role][] = [
    [owners[0]!, "owner", "member"],
    [others[0]!, "admin", "viewer"],
    [owners[1]!, "member", "owner"],
    [others[1]!, "viewer", "admin"],
  ];
  // The other two sign-ups made organizations of their own: only A and B take part.
  await db.inspect("DELETE FROM organizations WHERE id NOT IN (?, ?)", orgs[0]!, orgs[1]!);
  for (const [user, roleA, roleB] of plan) callers.push({ token: user.token, userId: user.userId, baseline: [[orgs[0]!, roleA], [orgs[1]!, roleB]] });
  for (const [i, orgId] of orgs.entries()) await seedOrganization(orgId, `org${i}`);
  await restore();
});

// ---- generated requests -------------------------------------------------------------------------

/** A value for a column, resolved against the rows that exist when the request is made. */
type Pick = { column: string; choice: number; kind: number };

const COLUMNS: Record<string, string[]> = {
  organizations: ["id", "name", "slug"],
  organization_members: ["id", "organization_id", "user_id", "role"],
  brands: ["id", "organization_id", "name", "slug", "aliases"],
  brand_domains: ["id", "brand_id", "domain", "is_primary"],
  competitors: ["id", "brand_id", "name", "domain"],
  topics: ["id", "brand_id", "name", "is_active"],
  prompt_sets: ["id", "brand_id", "name"],
  prompts: ["id", "prompt_set_id", "brand_id", "text", "platforms", "is_active", "topic_id"],
  brand_platforms: ["id", "brand_id", "platform", "is_enabled", "check_frequency"],
  prompt_results: ["id", "brand_id", "prompt_id", "platform", "model"],
  citations: ["id", "result_id", "brand_id", "position", "url", "normalized_url", "domain"],
  ai_traffic_logs: ["id", "brand_id", "url", "path", "visitor_hash"],
  suggestions: ["id", "brand_id", "status", "title", "type", "key"],
  webhook_endpoints: ["id", "organization_id", "brand_id", "is_active", "events", "url", "secret"],
};
const REFERENCES: Record<string, string> = {
  organization_id: "organizations",
  brand_id: "brands",
  prompt_set_id: "prompt_sets",
  prompt_id: "prompts",
  result_id: "prompt_results",
  topic_id: "topics",
};

function resolve(table: string, pick: Pick, snap: Snapshot): unknown {
  const { column, choice } = pick;
  const idsOf = (t2: string) => [...snap.get(t2)!.keys()];
  const fromList = <T,>(list: T[]) => list[choice % Math.max(1, list.length)];
  if (column === "id") return fromList(idsOf(table));
  if (REFERENCES[column]) return fromList(idsOf(REFERENCES[column]!));
  if (column === "user_id") return fromList(callers.map((c) => c.userId));
  switch (column) {
    case "role":
      return fromList(["owner", "admin", "member", "viewer"]);
    case "status":
      return fromList(["new", "accepted", "dismissed"]);
    case "check_frequency":
      return fromList(["daily", "weekly", "manual"]);
    case "slug":
      return `s-${choice}`;
    case "domain":
      return `d${choice % 7}.example.com`;
    case "aliases":
    case "platforms":
    case "events":
      return fromList([[], ["chatgpt"], ["x", "y"]]);
    case "is_primary":
    case "is_active":
    case "is_enabled":
      return choice % 2 === 0;
    case "position":
      return choice % 5;
    default:
      return `${column}-${choice % 11}`;
  }
}

const pick = (table: string) => fc.record({ column: fc.constantFrom(...COLUMNS[table]!), choice: fc.nat(), kind: fc.nat() });
const writeRequest = fc.constantFrom(...TABLES).chain((table) =>
  fc.record({
    table: fc.constant(table),
    caller: fc.nat({ max: 3 }),
    // Moves (a row given a parent elsewhere) are where derived columns could slip a check: weighted up.
    verb: fc.oneof(fc.constantFrom("insert", "bulk", "upsert-merge", "upsert-ignore", "patch", "delete"), fc.constant("move")),
    body: fc.uniqueArray(pick(table), { minLength: 1, maxLength: 4, selector: (p) => p.column }),
    second: fc.uniqueArray(pick(table), { minLength: 1, maxLength: 4, selector: (p) => p.column }),
    filter: fc.option(pick(table), { freq: 4 }),
    representation: fc.boolean(),
  }),
);

interface WriteRequest {
  table: string;
  caller: number;
  verb: string;
  body: Pick[];
  second: Pick[];
  filter: Pick | null;
  representation: boolean;
}

function toRequest(r: WriteRequest, snap: Snapshot): { path: string; init: RequestInit } {
  const object = (picks: Pick[]) => Object.fromEntries(picks.map((p) => [p.column, resolve(r.table, p, snap)]));
  const headers: Record<string, string> = { apikey: t.secrets.anonKey, authorization: `Bearer ${callers[r.caller]!.token}`, "content-type": "application/json" };
  const prefer = [r.representation ? "return=representation" : "return=minimal"];
  let query = "";
  let method = "POST";
  let body: unknown;
  let target: string | undefined;
  switch (r.verb) {
    case "insert":
      body = object(r.body);
      break;
    case "bulk": {
      const columns = [...new Set([...r.body, ...r.second].map((p) => p.column))];
      query = `columns=${columns.join(",")}`;
      body = [object(r.body), object(r.second)];
      break;
    }
    case "upsert-merge":
    case "upsert-ignore":
      prefer.push(r.verb === "upsert-merge" ? "resolution=merge-duplicates" : "resolution=ignore-duplicates");
      query = "on_conflict=id";
      body = [{ ...object(r.body), id: resolve(r.table, { column: "id", choice: r.body[0]!.choice, kind: 0 }, snap) }];
      break;
    case "patch":
      method = "PATCH";
      body = object(r.body.filter((p) => p.column !== "id"));
      break;
    case "move": {
      // A row the caller may update, given a parent in an organization where it may not write, and
      // nothing else: the derived columns (prompts.brand_id from its set) are the server's to fill
      // in, which is where a write could escape its check.
      method = "PATCH";
      const userId = callers[r.caller]!.userId;
      const mayUpdate = (t: string, row: Row) => may(t, "update", roleIn(snap, userId, orgOf(snap, t, row)));
      const own = [...snap.get(r.table)!.values()].filter((row) => mayUpdate(r.table, row));
      const parents = COLUMNS[r.table]!.filter((c) => c !== "id" && REFERENCES[c]);
      const column = parents[r.body[0]!.choice % Math.max(1, parents.length)];
      const foreign = column ? [...snap.get(REFERENCES[column]!)!.values()].filter((row) => !mayUpdate(r.table, { ...row, organization_id: orgOf(snap, REFERENCES[column]!, row) })) : [];
      target = own[r.second[0]!.choice % Math.max(1, own.length)]?.id as string | undefined;
      body = column && foreign.length ? { [column]: foreign[r.body[0]!.kind % foreign.length]!.id } : object(r.body);
      break;
    }
    case "delete":
      method = "DELETE";
      break;
  }
  if (r.verb === "move") query = `id=eq.${target ?? "00000000-0000-4000-8000-000000000000"}`;
  else if ((r.verb === "patch" || r.verb === "delete") && r.filter) query = `${r.filter.column}=eq.${encodeURIComponent(String(resolve(r.table, r.filter, snap)))}`;
  headers.prefer = prefer.join(", ");
  return { path: `/rest/v1/${r.table}${query ? `?${query}` : ""}`, init: { method, headers, body: body === undefined ? undefined : JSON.stringify(body) } };
}

test(`${RUNS} generated write requests: nothing outside the caller's write rights is created, changed, moved or removed`, async () => {
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(writeRequest, async (r) => {
      await restore();
      const before = await snapshot();
      const { path, init } = toRequest(r, before);
      const res = await t.request(path, init);
      await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect(res.status).toBeLessThan(500);
      const found = violations(before, await snapshot(), callers[r.caller]!.userId);
      if (found.length) throw new Error(`${init.method} ${path} ${String(init.body)} → ${res.status}: ${found.join("; ")}`);
    }),
    // The rows are shared state: shrinking would replay on a changed database, so the first failure is reported as it is.
    { numRuns: RUNS, endOnFailure: true },
  );
  // The generator reaches both sides: writes that succeed and writes that are refused.
  const ok = [...statuses].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
  const refused = [...statuses].filter(([s]) => s === 401 || s === 403).reduce((n, [, c]) => n + c, 0);
  console.log(`write statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
  expect(ok).toBeGreaterThan(RUNS / 10);
  expect(refused).toBeGreaterThan(RUNS / 20);
}, 300_000);
