// A share link's insights on Postgres (review finding): they run as the server — a link's claims open
// no table — but in the request's own transaction, so the request's statement_timeout stops them as
// it stops an owner's, and a burst of link calls never holds every pooled connection while each
// waits for another (with as many readers as connections, that stalled the whole instance). And the
// reads a request starts outside /rest/v1 (the client report, the portfolio, the traffic report)
// stop at the same timeout: a statement of theirs waiting on a lock held elsewhere does not wait on.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/http/log";
import { startServer, type RunningServer } from "../../src/server";
import { testEnv } from "../helpers/app";
import { testPostgres } from "../helpers/postgres";
import { signedUpClient } from "../helpers/supabase";

const pg = await testPostgres();
let server: RunningServer;
let databaseUrl: string;
let brandId: string;
let ownerToken: string;
let linkToken: string;

beforeAll(async () => {
  if (!pg) return;
  databaseUrl = await pg.createDatabase("share_links");
  // As many readers as connections: the setting under which link calls taking a second connection deadlocked.
  server = await startServer(loadConfig(testEnv({ DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: "3", REST_READERS: "3", STATEMENT_TIMEOUT_MS: "400", REST_CACHE_MB: "0" })), createLogger("silent"), { scheduler: false });
  const { sb, session } = await signedUpClient(server.url, server.secrets.anonKey, "Shared Inc");
  ownerToken = session.access_token;
  const { data: org } = await sb.from("organizations").select("id").single();
  const { data: brand } = await sb.from("brands").insert({ organization_id: org!.id, name: "Shared", slug: "shared" }).select().single();
  brandId = brand!.id;
  const { data: set } = await sb.from("prompt_sets").insert({ brand_id: brandId, name: "Core" }).select().single();
  await sb.from("prompts").insert({ prompt_set_id: set!.id, brand_id: brandId, text: "Which tool is best?" });
  const made = await fetch(`${server.url}/api/share-links`, { method: "POST", headers: { authorization: `Bearer ${ownerToken}`, "content-type": "application/json" }, body: JSON.stringify({ brand_id: brandId }) });
  linkToken = String(((await made.json()) as { url: string }).url).split("/share/")[1]!;
});
afterAll(async () => {
  await server?.stop();
});

const rpc = (token: string) =>
  fetch(`${server.url}/rest/v1/rpc/insights_prompts`, {
    method: "POST",
    headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ p_brand_id: brandId }),
  });
/** The answer's status, or "still running" past `ms`. */
const within = (answer: Promise<Response>, ms: number) => Promise.race([answer.then((r) => r.status), Bun.sleep(ms).then(() => "still running")]);

test.skipIf(!pg)("a link's insights answer as the owner's do, and stop at the statement timeout like theirs", async () => {
  expect(await within(rpc(ownerToken), 5_000)).toBe(200);
  const shared = await rpc(linkToken);
  expect(shared.status).toBe(200);
  expect(((await shared.json()) as { id: string }[]).length).toBe(1);
  // Another session holds the prompts table: every insights read waits on it until the timeout (400 ms).
  const locker = new SQL(databaseUrl, { max: 1 });
  const held = await locker.reserve();
  try {
    await held`BEGIN`;
    await held`LOCK TABLE prompts IN ACCESS EXCLUSIVE MODE`;
    expect(await within(rpc(ownerToken), 3_000)).toBe(503);
    expect(await within(rpc(linkToken), 3_000)).toBe(503);
  } finally {
    await held`ROLLBACK`;
    held.release();
    await locker.close();
  }
});

test.skipIf(!pg)("a burst of link calls (more than the pool's connections) all answer, and the owner's requests still do", async () => {
  const burst = Array.from({ length: 8 }, () => within(rpc(linkToken), 10_000));
  const owner = within(rpc(ownerToken), 10_000);
  expect(await Promise.all(burst)).toEqual(Array.from({ length: 8 }, () => 200));
  expect(await owner).toBe(200);
});

test.skipIf(!pg)("the client report, the portfolio and the traffic report stop a statement at the timeout too", async () => {
  const get = (path: string) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${ownerToken}` } });
  const paths = [`/api/brands/${brandId}/report?from=2026-01-01&to=2026-01-31`, `/api/brands/${brandId}/traffic?from=2026-01-01&to=2026-01-31`, "/api/portfolio"];
  for (const path of paths) expect([path, await within(get(path), 5_000)]).toEqual([path, 200]);
  const locker = new SQL(databaseUrl, { max: 1 });
  const held = await locker.reserve();
  try {
    await held`BEGIN`;
    // The tables each of them reads: every such statement waits on the lock until its timeout (400 ms).
    await held`LOCK TABLE prompts, traffic_platform_daily IN ACCESS EXCLUSIVE MODE`;
    const started = performance.now();
    const [report, traffic, portfolio] = await Promise.all(paths.map((path) => Promise.race([get(path), Bun.sleep(3_000).then(() => null)])));
    expect(performance.now() - started).toBeLessThan(2_500);
    expect([report?.status, ((await report?.json()) as { error: { code: string } }).error.code]).toEqual([503, "statement_timeout"]);
    expect(traffic?.status).toBe(503);
    // The portfolio answers with what it had time for: the brand listed, its numbers not computed.
    expect(portfolio?.status).toBe(200);
    const listed = (await portfolio!.json()) as { brands: { brand: { id: string }; computed: boolean }[] };
    expect(listed.brands.map((b) => [b.brand.id, b.computed])).toEqual([[brandId, false]]);
  } finally {
    await held`ROLLBACK`;
    held.release();
    await locker.close();
  }
});
