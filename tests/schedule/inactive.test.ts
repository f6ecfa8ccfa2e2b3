// backends: sqlite, postgres
// Issue #16, acceptance 3: an inactive brand (is_active = false, Ansvisor's column) is skipped by
// the scheduler and refused by POST /api/tracking/start (409); switched back on, it is tracked.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { testServer } from "../helpers/app";
import { signedUpClient } from "../helpers/supabase";
import { countOf, organizationIn, seedBrandIn, serverDb, type ServerDb } from "../helpers/tracking-db";

let fake: FakeUpstream;
let server: Awaited<ReturnType<typeof testServer>>;
let db: ServerDb;
beforeAll(async () => {
  fake = await startFakeUpstream();
  server = await testServer({ ...fake.env() });
  db = await serverDb(server);
});
afterAll(async () => {
  await db.close();
  await server.stop();
  fake.stop();
});

test("an inactive brand is skipped by the scheduler and refused by /api/tracking/start; active again, it runs", async () => {
  const { sb, user, session } = await signedUpClient(server.url, server.secrets.anonKey);
  const orgId = await organizationIn(db, user.id);
  const due = [{ platform: "perplexity" as const, frequency: "daily" as const, lastCheckedAt: null }];
  const paused = (await seedBrandIn(db, orgId, { name: "Paused", prompts: 1, platforms: due })).brandId;
  const running = (await seedBrandIn(db, orgId, { name: "Running", prompts: 1, platforms: due })).brandId;
  // The way Ansvisor's brand pause writes it: through supabase-js as the user.
  const { error } = await sb.from("brands").update({ is_active: false }).eq("id", paused);
  expect(error).toBeNull();

  const cron = async () => {
    const res = await fetch(`${server.url}/cron/daily-tracking`, { method: "POST", headers: { authorization: `Bearer ${server.secrets.cronSecret}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as { enqueued: { brandId: string }[]; skipped: { brandId: string; reason: string }[] };
  };
  const first = await cron();
  expect(first.enqueued.map((e) => e.brandId)).toEqual([running]);
  expect(first.skipped).toContainEqual({ brandId: paused, reason: "the brand is inactive" });

  const start = await fetch(`${server.url}/api/tracking/start`, {
    method: "POST",
    headers: { authorization: `Bearer ${session.access_token}`, "content-type": "application/json" },
    body: JSON.stringify({ brandId: paused }),
  });
  expect(start.status).toBe(409);
  expect(((await start.json()) as { error: { code: string } }).error.code).toBe("brand_inactive");
  expect({ n: await countOf(db, "SELECT count(*) AS n FROM jobs WHERE brand_id = ?", paused) }).toEqual({ n: 0 });

  await sb.from("brands").update({ is_active: true }).eq("id", paused);
  const second = await cron();
  expect(second.enqueued.map((e) => e.brandId)).toContain(paused);
});
