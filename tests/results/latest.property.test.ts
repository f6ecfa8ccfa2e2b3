// get_latest_prompt_results against a brute force over the raw rows: on a random database (brands,
// prompts with and without topics, platforms, models, regions; many results per group with
// created_at drawn from a small pool so exact ties are common; groups whose results are all old)
// mutated in rounds through the product's paths (the result store; /rest/v1 with the service key:
// inserts, PATCHes of created_at — one row, or a whole group at once — and of the group columns,
// DELETEs of results and of whole prompts), every call of the RPC over HTTP, as a member of the
// brand's organization or with the service key, returns exactly the ids that the newest row per
// (prompt, platform, model, region) gives — ties to the greater id — computed here in TypeScript
// from `SELECT * FROM prompt_results`, for random combinations of the optional arguments.
// A user of another organization gets no rows.
import { seededRandom } from "../helpers/random";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { seedBrand } from "../helpers/tracking";
import { memberOf, signedUpOrg, type Org } from "../rest/helpers";
import { createResultStore } from "../../src/results/store.sqlite";

const SEED = Number(process.env.LATEST_SEED ?? Math.floor(Math.random() * 2 ** 32));
const ROUNDS = 5;
const QUERIES_PER_ROUND = 40;

const { random, int, pick, chance, sample } = seededRandom(SEED);

const PLATFORMS = ["chatgpt", "perplexity", "gemini"] as const;
const MODELS = ["gpt-4o", "sonar"] as const;
const REGIONS = ["", "US", "DE"] as const;

// 24 instants: "old" ones (2024) and "recent" ones (2025), some a millisecond apart, two on a day's edges.
const OLD = ["2024-03-01T00:00:00.000Z", "2024-03-01T12:00:00.000Z", "2024-03-01T12:00:00.001Z", "2024-05-15T08:30:00.000Z", "2024-06-30T23:59:59.999Z", "2024-07-01T00:00:00.000Z", "2024-09-10T10:10:10.100Z", "2024-11-11T11:11:11.111Z"];
const RECENT = Array.from({ length: 16 }, (_, i) => new Date(Date.UTC(2025, 0, 1 + 3 * i, 9 + (i % 3) * 5, 0, 0, i % 4 === 0 ? 0 : 500)).toISOString());
const INSTANTS = [...OLD, ...RECENT];

let server: Awaited<ReturnType<typeof testServer>>;
let orgA: Org;
let orgB: Org;
let memberToken: string;
let brandIds: string[] = [];
let foreignBrandId: string;
/** Groups that only ever get old results. */
const oldOnly = new Set<string>();

const db = () => server.dbh.sqlite;
const groupKey = (r: { prompt_id: unknown; platform: unknown; model: unknown; region: unknown }) => JSON.stringify([r.prompt_id, r.platform, r.model, r.region]);
const ids = (sql: string, ...params: string[]) => (db().query(sql).all(...params) as { id: string }[]).map((r) => r.id);
const promptsOf = (brandId: string) => ids("SELECT id FROM prompts WHERE brand_id = ? ORDER BY id", brandId);
const topicsOf = (brandId: string) => ids("SELECT id FROM topics WHERE brand_id = ? ORDER BY id", brandId);

async function service(method: string, path: string, body?: unknown): Promise<void> {
  const key = server.secrets.serviceRoleKey;
  const res = await fetch(`${server.url}/rest/v1${path}`, {
    method,
    headers: { apikey: key, authorization: `Bearer ${key}`, "content-type": "application/json", prefer: "return=minimal" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} ${JSON.stringify(body)} → ${res.status} ${await res.text()} (LATEST_SEED=${SEED})`);
}

/** A group's next result time: an old group only gets old ones. */
function instantFor(prompt: string, platform: string, model: string, region: string): string {
  return oldOnly.has(groupKey({ prompt_id: prompt, platform, model, region })) ? pick(OLD) : pick(INSTANTS);
}

function randomGroup(brandId: string) {
  const prompts = promptsOf(brandId);
  if (!prompts.length) return null;
  return { prompt: pick(prompts), platform: pick(PLATFORMS), model: pick(MODELS), region: pick(REGIONS) };
}

/** Results through the result store (the tracking run's writer), in one transaction. */
function storeInserts(n: number) {
  const store = createResultStore(db());
  db().transaction(() => {
    for (let i = 0; i < n; i++) {
      const brandId = pick(brandIds);
      const g = randomGroup(brandId);
      if (!g) continue;
      store.insert(
        { id: crypto.randomUUID(), jobId: chance(0.5) ? null : crypto.randomUUID(), brandId, promptId: g.prompt, platform: g.platform, model: g.model, region: g.region, createdAt: instantFor(g.prompt, g.platform, g.model, g.region) },
        {
          surface: "api", response: "answer", mentioned: int(2), mention_count: 0, mention_position: null, competitor_mentions: "[]", citations: "[]", citation_count: 0,
          brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: 50, search_queries: "[]", details: "{}",
        },
      );
    }
  })();
}

async function restInsert() {
  const brandId = pick(brandIds);
  const g = randomGroup(brandId);
  if (!g) return;
  await service("POST", "/prompt_results", { id: crypto.randomUUID(), brand_id: brandId, prompt_id: g.prompt, platform: g.platform, model: g.model, region: g.region, created_at: instantFor(g.prompt, g.platform, g.model, g.region) });
}

type Raw = { id: string; brand_id: string; prompt_id: string; platform: string; model: string; region: string; created_at: string };
const raw = () => db().query("SELECT * FROM prompt_results").all() as Raw[];
const newer = (a: Raw, b: Raw) => {
  const ta = Date.parse(a.created_at);
  const tb = Date.parse(b.created_at);
  return ta > tb || (ta === tb && a.id > b.id);
};
/** Each group's newest row by brute force (for aiming mutations at it). */
function newestRows(rows: Raw[]): Raw[] {
  const best = new Map<string, Raw>();
  for (const r of rows) {
    const k = groupKey(r);
    const b = best.get(k);
    if (!b || newer(r, b)) best.set(k, r);
  }
  return [...best.values()];
}

async function mutate() {
  storeInserts(60 + int(60));
  for (let i = 0; i < 8; i++) await restInsert();
  const rows = raw().filter((r) => brandIds.includes(r.brand_id));
  const newest = newestRows(rows);
  const oldOk = (r: Raw) => (oldOnly.has(groupKey(r)) ? pick(OLD) : pick(INSTANTS));
  // created_at of single rows: often a group's newest (it must give way), otherwise any row.
  for (const r of sample(newest, 8)) await service("PATCH", `/prompt_results?id=eq.${r.id}`, { created_at: pick(OLD) });
  for (const r of sample(rows, 10)) await service("PATCH", `/prompt_results?id=eq.${r.id}`, { created_at: oldOk(r) });
  // A whole group set to one instant in one PATCH: every row ties, the greatest id wins.
  for (const r of sample(newest, 3)) await service("PATCH", `/prompt_results?prompt_id=eq.${r.prompt_id}&platform=eq.${r.platform}&model=eq.${r.model}&region=eq.${r.region}`, { created_at: oldOk(r) });
  // A result moved to another group (platform, model or region).
  for (const r of sample(rows, 4)) {
    const move = pick([{ platform: pick(PLATFORMS) }, { model: pick(MODELS) }, { region: pick(REGIONS) }]);
    if (!oldOnly.has(groupKey({ ...r, ...move }))) await service("PATCH", `/prompt_results?id=eq.${r.id}`, move);
  }
  // Deletes: groups' newest rows, random rows, a list at once.
  for (const r of sample(newest, 6)) await service("DELETE", `/prompt_results?id=eq.${r.id}`);
  const victims = sample(rows, 12).map((r) => r.id);
  if (victims.length) await service("DELETE", `/prompt_results?id=in.(${victims.join(",")})`);
  // Now and then a whole prompt (its results go by cascade).
  if (chance(0.6)) {
    const prompts = promptsOf(pick(brandIds));
    if (prompts.length > 2) await service("DELETE", `/prompts?id=eq.${pick(prompts)}`);
  }
}

// ---- the oracle ------------------------------------------------------------------------------------

interface Args {
  p_brand_id: string;
  p_platform?: string;
  p_model?: string;
  p_region?: string;
  p_topic_id?: string;
  p_date_from?: string;
  p_date_to?: string;
}

function expectedIds(args: Args): string[] {
  const topicOf = new Map((db().query("SELECT id, topic_id FROM prompts").all() as { id: string; topic_id: string | null }[]).map((p) => [p.id, p.topic_id]));
  const from = args.p_date_from === undefined ? -Infinity : Date.parse(args.p_date_from);
  const to = args.p_date_to === undefined ? Infinity : Date.parse(args.p_date_to);
  const rows = raw().filter(
    (r) =>
      r.brand_id === args.p_brand_id &&
      (args.p_platform === undefined || r.platform === args.p_platform) &&
      (args.p_model === undefined || r.model === args.p_model) &&
      (args.p_region === undefined || r.region === args.p_region) &&
      (args.p_topic_id === undefined || topicOf.get(r.prompt_id) === args.p_topic_id) &&
      Date.parse(r.created_at) >= from &&
      Date.parse(r.created_at) <= to,
  );
  return newestRows(rows)
    .map((r) => r.id)
    .sort();
}

/** A bound of the window: an instant of the pool (inclusive edges), a millisecond off, a bare date, or another zone. */
function bound(): string {
  const t = Date.parse(pick(INSTANTS));
  const r = random();
  if (r < 0.4) return new Date(t).toISOString();
  if (r < 0.6) return new Date(t + (chance(0.5) ? 1 : -1)).toISOString();
  if (r < 0.8) return new Date(t).toISOString().slice(0, 10);
  // The same instant written at +02:00.
  const local = new Date(t + 2 * 3600_000).toISOString().replace("Z", "+02:00");
  return local;
}

function randomArgs(): Args {
  const brandId = pick(brandIds);
  const args: Args = { p_brand_id: brandId };
  if (chance(0.35)) args.p_platform = chance(0.9) ? pick(PLATFORMS) : "claude";
  if (chance(0.3)) args.p_model = pick(MODELS);
  if (chance(0.3)) args.p_region = pick(REGIONS);
  if (chance(0.2)) {
    const topics = topicsOf(chance(0.85) ? brandId : pick(brandIds));
    if (topics.length) args.p_topic_id = pick(topics);
  }
  if (chance(0.55)) {
    if (chance(0.7)) args.p_date_from = bound();
    if (chance(0.7) || args.p_date_from === undefined) args.p_date_to = bound();
  }
  return args;
}

async function callRpc(args: Args, token: string, get: boolean): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { apikey: server.secrets.anonKey, authorization: `Bearer ${token}` };
  let res: Response;
  if (get) {
    const qs = new URLSearchParams({ ...args, select: "id" } as Record<string, string>);
    res = await fetch(`${server.url}/rest/v1/rpc/get_latest_prompt_results?${qs}`, { headers });
  } else {
    res = await fetch(`${server.url}/rest/v1/rpc/get_latest_prompt_results?select=id`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(args) });
  }
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  server = await testServer();
  [orgA, orgB] = await Promise.all([signedUpOrg(server, "Latest A"), signedUpOrg(server, "Latest B")]);
  memberToken = (await memberOf(server, orgA.id, "member")).token;
  for (const name of ["Acme", "Bravo", "Charlie"]) {
    const { brandId, promptIds } = seedBrand(db(), orgA.id, { prompts: 5, name });
    brandIds.push(brandId);
    const topics = [0, 1].map((i) => (db().query("INSERT INTO topics (brand_id, name) VALUES (?, ?) RETURNING id").get(brandId, `${name} topic ${i}`) as { id: string }).id);
    for (const p of promptIds) if (chance(0.7)) db().run("UPDATE prompts SET topic_id = ? WHERE id = ?", [pick(topics), p]);
    for (const p of promptIds) for (const platform of PLATFORMS) for (const model of MODELS) for (const region of REGIONS) if (chance(0.15)) oldOnly.add(groupKey({ prompt_id: p, platform, model, region }));
  }
  const foreign = seedBrand(db(), orgB.id, { prompts: 2, name: "Foreign" });
  foreignBrandId = foreign.brandId;
  const store = createResultStore(db());
  for (const p of foreign.promptIds)
    store.insert(
      { id: crypto.randomUUID(), jobId: null, brandId: foreignBrandId, promptId: p, platform: "chatgpt", model: "gpt-4o", region: "", createdAt: pick(INSTANTS) },
      { surface: "api", response: "x", mentioned: 0, mention_count: 0, mention_position: null, competitor_mentions: "[]", citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: 0, search_queries: "[]", details: "{}" },
    );
  storeInserts(900);
});
afterAll(() => server?.stop());

test(`get_latest_prompt_results equals the brute-force newest row per group (${ROUNDS * QUERIES_PER_ROUND} random calls)`, async () => {
  let nonEmpty = 0;
  let windowed = 0;
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) await mutate();
    for (let q = 0; q < QUERIES_PER_ROUND; q++) {
      const args = randomArgs();
      const asService = chance(0.4);
      const get = chance(0.25);
      const res = await callRpc(args, asService ? server.secrets.serviceRoleKey : memberToken, get);
      const want = expectedIds(args);
      const context = `round ${round}, query ${q}, ${asService ? "service role" : "member"}, ${get ? "GET" : "POST"} ${JSON.stringify(args)} (LATEST_SEED=${SEED})`;
      expect(res.status, context).toBe(200);
      const got = (res.body as { id: string }[]).map((r) => r.id).sort();
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        const missing = want.filter((id) => !got.includes(id));
        const extra = got.filter((id) => !want.includes(id));
        const describe = (id: string) => JSON.stringify(db().query("SELECT id, prompt_id, platform, model, region, created_at FROM prompt_results WHERE id = ?").get(id));
        throw new Error(`${context}\nmissing: ${missing.map(describe).join("\n  ")}\nextra: ${extra.map(describe).join("\n  ")}`);
      }
      if (want.length) nonEmpty++;
      if (args.p_date_from !== undefined || args.p_date_to !== undefined) windowed++;

      // Another organization's user sees nothing of the brand, with or without a window.
      if (q % 8 === 0) {
        const foreign = await callRpc(args, orgB.ownerToken, chance(0.5));
        expect([foreign.status, foreign.body], `other organization: ${context}`).toEqual([200, []]);
      }
    }
  }
  // The member of A sees nothing of B's brand; B's owner sees B's.
  expect((await callRpc({ p_brand_id: foreignBrandId }, memberToken, false)).body).toEqual([]);
  expect(((await callRpc({ p_brand_id: foreignBrandId }, orgB.ownerToken, false)).body as unknown[]).length).toBe(expectedIds({ p_brand_id: foreignBrandId }).length);
  // Not vacuous: most calls had rows to return, and windows were exercised.
  expect(nonEmpty, `seed ${SEED}`).toBeGreaterThan(ROUNDS * QUERIES_PER_ROUND * 0.5);
  expect(windowed, `seed ${SEED}`).toBeGreaterThan(ROUNDS * QUERIES_PER_ROUND * 0.3);
});
