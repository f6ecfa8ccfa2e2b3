// backends: sqlite, postgres
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { testServer } from "../helpers/app";
import { signedUpClient } from "../helpers/supabase";
import type { SeedOptions } from "../helpers/tracking";
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

const H = 3_600_000;
const D = 24 * H;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

async function cron(path: string, secret: string | null, body?: unknown, base = server.url) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { ...(secret ? { authorization: `Bearer ${secret}` } : {}), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test("exactly the due brands are enqueued, one job each with its due platforms; a repeat enqueues nothing", async () => {
  const { user } = await signedUpClient(server.url, server.secrets.anonKey);
  const orgId = await organizationIn(db, user.id);
  const brand = async (name: string, platforms: SeedOptions["platforms"]) => (await seedBrandIn(db, orgId, { name, prompts: 1, platforms })).brandId;
  const due = {
    hourly: await brand("hourly-due", [{ platform: "perplexity", frequency: "hourly", lastCheckedAt: ago(2 * H) }]),
    daily: await brand("daily-due", [{ platform: "perplexity", frequency: "daily", lastCheckedAt: ago(25 * H) }, { platform: "chatgpt", frequency: "weekly", lastCheckedAt: ago(D) }]),
    weekly: await brand("weekly-due", [{ platform: "chatgpt", frequency: "weekly", lastCheckedAt: ago(8 * D) }]),
    monthly: await brand("monthly-due", [{ platform: "claude", frequency: "monthly", lastCheckedAt: ago(40 * D) }]),
    never: await brand("never-checked", [{ platform: "perplexity", frequency: "daily", lastCheckedAt: null }]),
  };
  const notDue = [
    await brand("hourly-fresh", [{ platform: "perplexity", frequency: "hourly", lastCheckedAt: ago(10 * 60_000) }]),
    await brand("daily-fresh", [{ platform: "perplexity", frequency: "daily", lastCheckedAt: ago(3 * H) }]),
    await brand("weekly-fresh", [{ platform: "chatgpt", frequency: "weekly", lastCheckedAt: ago(2 * D) }]),
    await brand("monthly-fresh", [{ platform: "claude", frequency: "monthly", lastCheckedAt: ago(10 * D) }]),
    await brand("manual", [{ platform: "perplexity", frequency: "manual", lastCheckedAt: null }]),
    await brand("disabled", [{ platform: "perplexity", frequency: "daily", lastCheckedAt: null, enabled: false }]),
  ];

  const first = await cron("/cron/daily-tracking", server.secrets.cronSecret, { organizationId: orgId });
  expect(first.status).toBe(200);
  expect(first.body.success).toBe(true);
  const enqueued = new Map(first.body.enqueued.map((e: any) => [e.brandId, e.platforms]));
  expect([...enqueued.keys()].sort()).toEqual(Object.values(due).sort());
  expect(enqueued.get(due.daily)).toEqual(["perplexity"]);
  expect(enqueued.get(due.monthly)).toEqual(["claude"]);
  for (const id of notDue) expect(first.body.skipped.find((s: any) => s.brandId === id)?.reason).toBe("no platform is due");
  for (const e of first.body.enqueued) expect((await db.inspect("SELECT brand_id, status FROM jobs WHERE id = ?", e.jobId))[0]).toMatchObject({ brand_id: e.brandId });

  const second = await cron("/cron/daily-tracking", server.secrets.cronSecret, { organizationId: orgId });
  expect(second.status).toBe(200);
  expect(second.body.enqueued).toEqual([]);
});

test("a wrong or missing secret is 401 and enqueues nothing; a bad organizationId is 400", async () => {
  const before = await countOf(db, "SELECT count(*) AS n FROM jobs");
  expect((await cron("/cron/daily-tracking", "not-the-secret")).status).toBe(401);
  expect((await cron("/cron/daily-tracking", null)).status).toBe(401);
  expect((await cron("/cron/daily-tracking", server.secrets.cronSecret, { organizationId: "nope" })).status).toBe(400);
  const after = await countOf(db, "SELECT count(*) AS n FROM jobs");
  expect(after).toBe(before);
});

test("the web app's route mirrors the server route's 200 and 401, and answers 502 when it cannot reach it", async () => {
  const { user } = await signedUpClient(server.url, server.secrets.anonKey);
  const orgId = await organizationIn(db, user.id);
  await seedBrandIn(db, orgId, { prompts: 1, platforms: [{ platform: "perplexity", frequency: "daily", lastCheckedAt: null }] });
  const ok = await cron("/api/cron/daily-tracking", server.secrets.cronSecret, { organizationId: orgId });
  expect(ok.status).toBe(200);
  expect(ok.body.enqueued).toHaveLength(1);
  const get = await fetch(`${server.url}/api/cron/daily-tracking`, { headers: { authorization: `Bearer ${server.secrets.cronSecret}` } });
  expect(get.status).toBe(200);
  expect((await get.json()).success).toBe(true);
  expect((await cron("/api/cron/daily-tracking", "wrong")).status).toBe(401);

  const lonely = await testServer({ CRON_TARGET_URL: "http://127.0.0.1:9" });
  try {
    const unreachable = await cron("/api/cron/daily-tracking", lonely.secrets.cronSecret, undefined, lonely.url);
    expect(unreachable.status).toBe(502);
    expect(unreachable.body).toMatchObject({ success: false, error: { code: "upstream_unreachable" } });
  } finally {
    await lonely.stop();
  }
});

test("the internal scheduler runs the same function on CRON_SCHEDULE", async () => {
  const ticking = await testServer({ ...fake.env(), CRON_SCHEDULE: "* * * * * *" }, { scheduler: true });
  try {
    const { user } = await signedUpClient(ticking.url, ticking.secrets.anonKey);
    const tickingDb = await serverDb(ticking);
    const orgId = await organizationIn(tickingDb, user.id);
    const { brandId } = await seedBrandIn(tickingDb, orgId, { prompts: 1, platforms: [{ platform: "perplexity", frequency: "hourly", lastCheckedAt: null }] });
    const deadline = Date.now() + 10_000;
    let jobs = 0;
    while (Date.now() < deadline && !jobs) {
      await Bun.sleep(200);
      jobs = await countOf(tickingDb, "SELECT count(*) AS n FROM jobs WHERE brand_id = ?", brandId);
    }
    expect(jobs).toBe(1);
    await tickingDb.close();
  } finally {
    await ticking.stop();
  }
});

test("after a run, a platform with no surface is checked, one whose every unit failed waits an hour, and a run of some prompts checks nothing: none is due at the next tick", async () => {
  const { user, session } = await signedUpClient(server.url, server.secrets.anonKey);
  const orgId = await organizationIn(db, user.id);
  fake.setBehavior("google-ai-overview", { fixture: "serpapi-google-no-ai-overview.json" });
  fake.setBehavior("chatgpt", { status: 401 });
  try {
    const { brandId, promptIds } = await seedBrandIn(db, orgId, {
      prompts: 2,
      platforms: ["perplexity", "google-ai-overview", "chatgpt"].map((platform) => ({ platform, frequency: "daily", lastCheckedAt: null })),
    });
    // A platform name no engine has (written through /rest/v1) leaves the brand's others due.
    await db.inspect("INSERT INTO brand_platforms (brand_id, platform, check_frequency) VALUES (?, 'openai', 'hourly')", brandId);
    const finished = async (jobId: string) => {
      for (let i = 0; i < 300; i++) {
        const [job] = await db.inspect<{ status: string; created_at: string }>("SELECT status, created_at FROM jobs WHERE id = ?", jobId);
        if (job && job.status !== "waiting" && job.status !== "active") return job;
        await Bun.sleep(50);
      }
      throw new Error(`job ${jobId} did not finish`);
    };
    const platforms = async () =>
      Object.fromEntries((await db.inspect<{ platform: string; last_checked_at: string | null; failed_runs: number; retry_at: string | null }>("SELECT platform, last_checked_at, failed_runs, retry_at FROM brand_platforms WHERE brand_id = ?", brandId)).map(({ platform, ...r }) => [platform, r]));

    // A "Run now" of one prompt first: it asks, but checks nothing on the schedule.
    const api = await fetch(`${server.url}/api/tracking/start`, { method: "POST", headers: { authorization: `Bearer ${session.access_token}`, "content-type": "application/json" }, body: JSON.stringify({ brandId, platforms: ["perplexity"], promptIds: [promptIds[0]] }) });
    expect(api.status).toBe(200);
    expect((await finished(((await api.json()) as { jobId: string }).jobId)).status).toBe("completed");
    expect((await platforms()).perplexity).toEqual({ last_checked_at: null, failed_runs: 0, retry_at: null });

    const tick = await cron("/cron/daily-tracking", server.secrets.cronSecret, { organizationId: orgId });
    expect(tick.body.enqueued).toHaveLength(1);
    expect(tick.body.enqueued[0].platforms).toEqual(["chatgpt", "google-ai-overview", "perplexity"]);
    const job = await finished(tick.body.enqueued[0].jobId);
    const made = Date.parse(job.created_at);
    const after = await platforms();
    // Stamped with the job's making (the tick), so a daily check does not drift by the run's length.
    expect(after.perplexity).toEqual({ last_checked_at: new Date(made).toISOString(), failed_runs: 0, retry_at: null });
    expect(after["google-ai-overview"]).toEqual({ last_checked_at: new Date(made).toISOString(), failed_runs: 0, retry_at: null });
    expect(after.chatgpt).toEqual({ last_checked_at: null, failed_runs: 1, retry_at: new Date(made + H).toISOString() });
    expect(after.openai).toMatchObject({ last_checked_at: null, failed_runs: 0 });

    const next = await cron("/cron/daily-tracking", server.secrets.cronSecret, { organizationId: orgId });
    expect(next.body.enqueued).toEqual([]);
    expect(next.body.skipped.find((s: { brandId: string }) => s.brandId === brandId)?.reason).toBe("no platform is due");
  } finally {
    fake.setBehavior("google-ai-overview", undefined);
    fake.setBehavior("chatgpt", undefined);
  }
});
