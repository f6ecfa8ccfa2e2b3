// A /rest/v1 write that loses a deadlock on Postgres (review finding): the database rolls the whole
// request back, so the server runs it again — within the request's own time — instead of answering
// 503 for the client to retry. Made for real: another session holds topic A and then waits for B,
// while an upsert of [B, A] holds B and waits for A.
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
let token: string;
let brandId: string;
let topics: { id: string; name: string }[];

beforeAll(async () => {
  if (!pg) return;
  databaseUrl = await pg.createDatabase("rest_retry");
  server = await startServer(loadConfig(testEnv({ DATABASE_URL: databaseUrl, REST_CACHE_MB: "0" })), createLogger("silent"), { scheduler: false });
  const { sb, session } = await signedUpClient(server.url, server.secrets.anonKey, "Racing Inc");
  token = session.access_token;
  const { data: org } = await sb.from("organizations").select("id").single();
  const { data: brand } = await sb.from("brands").insert({ organization_id: org!.id, name: "Racing", slug: "racing" }).select().single();
  brandId = brand!.id;
  topics = (await sb.from("topics").insert([{ brand_id: brandId, name: "A" }, { brand_id: brandId, name: "B" }]).select("id, name").order("name")).data!;
});
afterAll(async () => {
  await server?.stop();
});

/** Until some session waits on a row lock of topics (the request reached its second row). */
async function someoneWaits(watcher: SQL) {
  for (let i = 0; i < 500; i++) {
    const [row] = await watcher`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    if (row.n > 0) return;
    await Bun.sleep(10);
  }
  throw new Error("nobody waited on a lock");
}

test.skipIf(!pg)("an upsert that loses a deadlock runs again and answers as if it had not: both rows written once", async () => {
  const [a, b] = topics;
  const locker = new SQL(databaseUrl, { max: 2 });
  const held = await locker.reserve();
  try {
    await held`BEGIN`;
    // The request, with the default 1 s, finds the deadlock first and is the one rolled back.
    await held`SET LOCAL deadlock_timeout = '10s'`;
    await held`UPDATE topics SET name = 'A by other' WHERE id = ${a!.id}`;
    const upsert = fetch(`${server.url}/rest/v1/topics?on_conflict=id&select=id,name`, {
      method: "POST",
      headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${token}`, "content-type": "application/json", prefer: "resolution=merge-duplicates,return=representation" },
      body: JSON.stringify([
        { id: b!.id, brand_id: brandId, name: "B by request" },
        { id: a!.id, brand_id: brandId, name: "A by request" },
      ]),
    });
    await someoneWaits(locker);
    // Now the other session waits for B, which the request holds: a deadlock, resolved against the request.
    await held`UPDATE topics SET name = 'B by other' WHERE id = ${b!.id}`;
    await held`COMMIT`;
    const res = await upsert;
    const body = (await res.json()) as { id: string; name: string }[];
    expect(res.status).toBe(200);
    expect(body.map((t) => t.name).sort()).toEqual(["A by request", "B by request"]);
  } finally {
    held.release();
    await locker.close();
  }
  // The request ran after the other session's commit: its names are the last written.
  const reader = new SQL(databaseUrl, { max: 1 });
  const rows = await reader`SELECT name FROM topics WHERE brand_id = ${brandId} ORDER BY name`;
  await reader.close();
  expect(rows.map((r: { name: string }) => r.name)).toEqual(["A by request", "B by request"]);
});
