// backends: sqlite, postgres
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { testServer } from "../helpers/app";
import { signedUpClient } from "../helpers/supabase";
import { apiClient } from "../helpers/tracking";
import { countOf, organizationIn, seedBrandIn, serverDb, textOf, type ServerDb } from "../helpers/tracking-db";

let fake: FakeUpstream;
let server: Awaited<ReturnType<typeof testServer>>;
let db: ServerDb;
beforeAll(async () => {
  fake = await startFakeUpstream();
  // No rate bound on perplexity: its lanes hand each next unit to the threads ahead (the cancel test covers those too).
  server = await testServer({ ...fake.env(), WORKERS: "2", TRACKING_RETRY_BASE_MS: "50", PERPLEXITY_RPM: "0", AUTH_SIGNUP_RATE_LIMIT_PER_HOUR: "100" });
  db = await serverDb(server);
});
afterAll(async () => {
  await db.close();
  await server.stop();
  fake.stop();
});
beforeEach(() => fake.reset());

async function owner() {
  const signed = await signedUpClient(server.url, server.secrets.anonKey);
  const orgId = await organizationIn(db, signed.user.id);
  return { ...signed, orgId, api: apiClient(server.url, signed.session.access_token) };
}

/** The webhook events a job raised. payload is JSON text on both backends: matched here rather than with either's JSON functions. */
async function eventsOf(jobId: string, typeLike = "%") {
  const rows = await db.inspect<{ type: string; payload: string }>("SELECT type, payload FROM webhook_events WHERE type LIKE ?", typeLike);
  return rows.filter((r) => JSON.parse(r.payload).job_id === jobId).map((r) => ({ type: r.type }));
}

describe("a tracking run end to end", () => {
  test("3 platforms, 5 prompts, 2 models on chatgpt: phases in order, one analysed row per unit, read back through the RPC", async () => {
    const { api, orgId, sb } = await owner();
    // The brand is set up the way the web app does it: supabase-js against /rest/v1.
    const brand = await sb.from("brands").insert({ organization_id: orgId, name: "Acme", slug: "acme", industry: "software", region: "US", language: "en" }).select().single();
    expect(brand.error).toBeNull();
    const brandId = brand.data!.id as string;
    expect((await sb.from("brand_domains").insert({ brand_id: brandId, domain: "https://www.Acme.com/" })).error).toBeNull();
    expect((await sb.from("competitors").insert([{ brand_id: brandId, name: "Globex", domain: "globex.com" }, { brand_id: brandId, name: "Initech", domain: "initech.com" }])).error).toBeNull();
    const set = await sb.from("prompt_sets").insert({ brand_id: brandId, name: "Core" }).select().single();
    const prompts = await sb
      .from("prompts")
      .insert(Array.from({ length: 5 }, (_, i) => ({ prompt_set_id: set.data!.id, brand_id: brandId, text: `Best project tool for a team of ${i + 2}?` })))
      .select("id");
    expect(prompts.error).toBeNull();
    const promptIds = prompts.data!.map((p) => p.id as string);
    const started = await api.start({ brandId, platforms: ["chatgpt", "perplexity", "claude"], models: ["gpt-6.1-terra", "gpt-6.1-sol"] });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ success: true, units: 20 });

    const { job, phases } = await api.waitFor(started.body.jobId);
    expect(job.status).toBe("completed");
    expect(job.progress).toEqual({ phase: "done", completed: 20, failed: 0, total: 20 });
    const order = ["waiting", "querying", "summarizing", "done"];
    expect(phases.map((p) => order.indexOf(p))).toEqual([...phases.map((p) => order.indexOf(p))].sort((a, b) => a - b));
    expect(phases.at(-1)).toBe("done");

    const rows = await db.inspect<{ prompt_id: string; platform: string; model: string; response: string; citation_count: number }>(
      `SELECT prompt_id, platform, model, region, ${textOf(db, "response")} AS response, citation_count, mentioned FROM prompt_results WHERE job_id = ? ORDER BY platform, model, prompt_id`,
      started.body.jobId,
    );
    expect(rows).toHaveLength(20);
    const keys = new Set(rows.map((r) => `${r.prompt_id}|${r.platform}|${r.model}`));
    expect(keys.size).toBe(20);
    for (const p of promptIds) {
      for (const [platform, model] of [["chatgpt", "gpt-6.1-terra"], ["chatgpt", "gpt-6.1-sol"], ["perplexity", "sonar"], ["claude", "claude-sonnet-5-5"]])
        expect(keys.has(`${p}|${platform}|${model}`)).toBe(true);
    }
    for (const r of rows) {
      expect(r.response.length).toBeGreaterThan(50);
      expect(r.citation_count).toBeGreaterThan(0);
    }
    // Every row's citations are also rows of their own, written with it.
    const citationRows = await db.inspect<{ n: number; rows: number | string }>(
      "SELECT r.citation_count AS n, count(c.id) AS rows FROM prompt_results r LEFT JOIN citations c ON c.result_id = r.id WHERE r.job_id = ? GROUP BY r.id",
      started.body.jobId,
    );
    expect(citationRows).toHaveLength(20);
    for (const c of citationRows) expect(Number(c.rows)).toBe(c.n);
    expect(job.result.units).toMatchObject({ total: 20, answered: 20, failed: 0 });
    expect(Object.keys(job.result.per_platform).sort()).toEqual(["chatgpt", "claude", "perplexity"]);
    expect(job.result.visibility_rate.n).toBe(20);
    expect(fake.requestsFor("chatgpt")).toHaveLength(10);
    expect(fake.requestsFor("claude")).toHaveLength(5);
    const event = await eventsOf(started.body.jobId, "tracking.%");
    expect(event).toEqual([{ type: "tracking.completed" }]);

    const latest = await sb.rpc("get_latest_prompt_results", { p_brand_id: brandId });
    expect(latest.error).toBeNull();
    expect(latest.data).toHaveLength(20);
    const latestKeys = new Set((latest.data as any[]).map((r) => `${r.prompt_id}|${r.platform}|${r.model}`));
    expect(latestKeys).toEqual(keys);
    for (const r of latest.data as any[]) {
      expect(r.job_id).toBe(started.body.jobId);
      expect(typeof r.mentioned).toBe("boolean");
      expect(typeof r.visibility_score).toBe("number");
      expect(Array.isArray(r.citations)).toBe(true);
      expect(Array.isArray(r.competitor_mentions)).toBe(true);
      expect(r.citation_count).toBe(r.citations.length);
      // Retrieved vs cited: every citation is a source marked cited; the rest are retrieved only.
      expect(r.source_count).toBe(r.sources.length);
      const cited = new Set(r.citations.map((c: any) => c.normalized_url));
      for (const url of cited) expect(r.sources.find((s: any) => s.normalized_url === url)?.cited).toBe(true);
      for (const s of r.sources) expect(s.cited).toBe(cited.has(s.normalized_url));
    }
    // The recorded ChatGPT and Claude answers read pages they did not cite.
    const retrievedOnly = (latest.data as any[]).filter((r) => r.platform !== "perplexity" && r.sources.some((s: any) => !s.cited));
    expect(retrievedOnly.length).toBe(15);
  });
});

describe("start validation", () => {
  test("bad input gets a 4xx that says what is allowed, and nothing is enqueued", async () => {
    const { api, orgId } = await owner();
    const { brandId } = await seedBrandIn(db, orgId);
    const jobsBefore = await countOf(db, "SELECT count(*) AS n FROM jobs");

    const malformed = await api.start({ brandId: "not-a-uuid" });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ success: false, error: { code: "invalid_id" } });

    const unknownPlatform = await api.start({ brandId, platforms: ["chatgpt", "altavista"] });
    expect(unknownPlatform.status).toBe(400);
    expect(unknownPlatform.body.error.message).toContain("altavista");
    expect(unknownPlatform.body.error.details.allowed).toContain("perplexity");

    const unknownModel = await api.start({ brandId, models: ["totally-unknown-model"] });
    expect(unknownModel.status).toBe(400);
    expect(unknownModel.body.error.code).toBe("invalid_model");

    const retired = await api.start({ brandId, models: ["grok-3"] });
    expect(retired.status).toBe(400);
    expect(retired.body.error.code).toBe("model_retired");
    expect(retired.body.error.message).toContain("grok-4.3");
    expect(retired.body.error.details.replacement).toBe("grok-4.3");

    const wrongPlatform = await api.start({ brandId, platforms: ["perplexity"], models: ["gpt-6.1-terra"] });
    expect(wrongPlatform.status).toBe(400);
    expect(wrongPlatform.body.error.message).toContain("chatgpt");

    const notObject = await api.call("POST", "/api/tracking/start", ["x"]);
    expect(notObject.status).toBe(400);

    const missing = await api.start({ brandId: crypto.randomUUID() });
    expect(missing.status).toBe(404);

    const jobsAfter = await countOf(db, "SELECT count(*) AS n FROM jobs");
    expect(jobsAfter).toBe(jobsBefore);
  });

  test("a start's lists and its run are bounded: 51 models or 10,001 prompt ids are 400, a run of over 50,000 units is 400 run_too_large, nothing enqueued", async () => {
    const { api, orgId, sb } = await owner();
    const brand = await sb.from("brands").insert({ organization_id: orgId, name: "Big", slug: "big" }).select().single();
    const brandId = brand.data!.id as string;
    const set = await sb.from("prompt_sets").insert({ brand_id: brandId, name: "Many" }).select().single();
    // 51 prompts of 100 regions each, at 10 samples on one platform: 51,000 units.
    const regions = Array.from({ length: 100 }, (_, i) => `r${i}`);
    const made = await sb.from("prompts").insert(Array.from({ length: 51 }, (_, i) => ({ prompt_set_id: set.data!.id, brand_id: brandId, text: `Prompt ${i}?`, regions })));
    expect(made.error).toBeNull();
    const jobsBefore = await countOf(db, "SELECT count(*) AS n FROM jobs");
    // Distinct spellings that each name a model family: before, each was checked and copied, the list once per model.
    const models = await api.start({ brandId, platforms: ["chatgpt"], models: Array.from({ length: 51 }, (_, i) => `gpt-6.1-x${i}`) });
    expect([models.status, models.body.error?.code]).toEqual([400, "validation_failed"]);
    const ids = await api.start({ brandId, promptIds: Array.from({ length: 10_001 }, () => crypto.randomUUID()) });
    expect(ids.status).toBe(400);
    const huge = await api.start({ brandId, platforms: ["chatgpt"], samples: 10 });
    expect([huge.status, huge.body.error?.code, huge.body.error?.details]).toEqual([400, "run_too_large", { units: 51_000, max: 50_000 }]);
    expect(await countOf(db, "SELECT count(*) AS n FROM jobs")).toBe(jobsBefore);
    expect(await countOf(db, "SELECT count(*) AS n FROM job_units WHERE job_id IN (SELECT id FROM jobs WHERE brand_id = ?)", brandId)).toBe(0);
  });

  test("a platform without a key → 400 naming the variable; a viewer cannot start (403)", async () => {
    const { testApp } = await import("../helpers/app");
    const bare = await testApp();
    const signup = await bare.request("/auth/v1/signup", {
      method: "POST",
      headers: { apikey: bare.secrets.anonKey, "content-type": "application/json" },
      body: JSON.stringify({ email: "solo@example.com", password: "solo-pass" }),
    });
    const { access_token, user } = await signup.json();
    const bareDb = await serverDb(bare);
    const orgId = await organizationIn(bareDb, user.id);
    const { brandId } = await seedBrandIn(bareDb, orgId);
    const start = (body: unknown) =>
      bare.request("/api/tracking/start", { method: "POST", headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const res = await start({ brandId, platforms: ["chatgpt"] });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ success: false, error: { code: "platform_not_configured", details: { variable: "OPENAI_API_KEY" } } });
    const none = await start({ brandId });
    expect(none.status).toBe(400);
    expect((await none.json()).error.code).toBe("no_platform_configured");

    // Enabled on a platform with a key and one without: a start naming no platform runs the one with a key.
    const keyed = await testApp({ OPENAI_API_KEY: "sk-test-only" });
    const keyedSignup = await (await keyed.request("/auth/v1/signup", { method: "POST", headers: { apikey: keyed.secrets.anonKey, "content-type": "application/json" }, body: JSON.stringify({ email: "keyed@example.com", password: "keyed-pass" }) })).json();
    const keyedDb = await serverDb(keyed);
    const mixed = await seedBrandIn(keyedDb, await organizationIn(keyedDb, keyedSignup.user.id), { prompts: 1, platforms: [{ platform: "chatgpt" }, { platform: "claude" }] });
    const runNow = await keyed.request("/api/tracking/start", { method: "POST", headers: { authorization: `Bearer ${keyedSignup.access_token}`, "content-type": "application/json" }, body: JSON.stringify({ brandId: mixed.brandId }) });
    expect([runNow.status, (await runNow.json()).platforms]).toEqual([200, ["chatgpt"]]);
    await keyedDb.close();

    await bareDb.inspect("UPDATE organization_members SET role = 'viewer' WHERE user_id = ?", user.id);
    expect((await start({ brandId, platforms: ["chatgpt"] })).status).toBe(403);
    expect(await countOf(bareDb, "SELECT count(*) AS n FROM jobs")).toBe(0);
    await bareDb.close();
  });

  test("no active prompts → 409; a second start for the same platforms → 409 with the jobId unless force", async () => {
    const { api, orgId } = await owner();
    const empty = await seedBrandIn(db, orgId, { prompts: 0 });
    expect((await api.start({ brandId: empty.brandId, platforms: ["perplexity"] })).status).toBe(409);

    const { brandId } = await seedBrandIn(db, orgId, { prompts: 2 });
    fake.setBehavior("perplexity", { latencyMs: 300 });
    const first = await api.start({ brandId, platforms: ["perplexity"] });
    const second = await api.start({ brandId, platforms: ["perplexity"] });
    expect(second.status).toBe(409);
    expect(second.body.error.details.jobId).toBe(first.body.jobId);
    const forced = await api.start({ brandId, platforms: ["perplexity"], force: true });
    expect(forced.status).toBe(200);
    await api.waitFor(first.body.jobId);
    await api.waitFor(forced.body.jobId);
  });

  test("open runs are bounded: 3 a brand, forced starts included, and 10 started by hand in an organization; past them 429 too_many_runs and nothing enqueued", async () => {
    const { api, orgId } = await owner();
    fake.setBehavior("perplexity", { latencyMs: 5_000 });
    const brands = await Promise.all(Array.from({ length: 4 }, () => seedBrandIn(db, orgId, { prompts: 1 })));
    const started: string[] = [];
    const forced = (brandId: string) => api.start({ brandId, platforms: ["perplexity"], force: true });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await forced(brands[0]!.brandId);
        expect(res.status).toBe(200);
        started.push(res.body.jobId);
      }
      const fourth = await forced(brands[0]!.brandId);
      expect([fourth.status, fourth.body.error?.code, fourth.body.error?.details]).toEqual([429, "too_many_runs", { max: 3 }]);
      // Another platform set (no forcing needed) counts the same.
      expect((await api.start({ brandId: brands[0]!.brandId, platforms: ["perplexity", "chatgpt"] })).status).toBe(429);
      expect(await countOf(db, "SELECT count(*) AS n FROM jobs WHERE brand_id = ?", brands[0]!.brandId)).toBe(3);
      // The organization: 3 + 3 + 3 + 1 by hand, then the eleventh is refused whichever brand it names.
      for (const { brandId } of brands.slice(1, 3))
        for (let i = 0; i < 3; i++) started.push((await forced(brandId)).body.jobId);
      const tenth = await forced(brands[3]!.brandId);
      expect(tenth.status).toBe(200);
      started.push(tenth.body.jobId);
      const eleventh = await forced(brands[3]!.brandId);
      expect([eleventh.status, eleventh.body.error?.code, eleventh.body.error?.details]).toEqual([429, "too_many_runs", { max: 10 }]);
      expect(await countOf(db, `SELECT count(*) AS n FROM jobs WHERE brand_id IN (${brands.map(() => "?").join(", ")})`, ...brands.map((b) => b.brandId))).toBe(10);
      // A run cancelled frees its place.
      expect((await api.cancel(started[0]!)).status).toBe(200);
      const again = await forced(brands[0]!.brandId);
      expect(again.status).toBe(200);
      started.push(again.body.jobId);
    } finally {
      for (const jobId of started.filter(Boolean)) await api.cancel(jobId);
    }
  });
});

describe("errors from the engines", () => {
  test("429 with Retry-After twice and one 500 per unit → completes, retries counted", async () => {
    const { api, orgId } = await owner();
    const { brandId } = await seedBrandIn(db, orgId, { prompts: 2 });
    const seen = new Map<string, number>();
    fake.setBehavior("perplexity", {
      respond: async (req) => {
        const key = JSON.stringify((req.body as { messages?: unknown } | undefined)?.messages);
        const n = (seen.get(key) ?? 0) + 1;
        seen.set(key, n);
        if (n <= 2) return new Response(JSON.stringify({ error: { message: "slow down" } }), { status: 429, headers: { "retry-after": "1", "content-type": "application/json" } });
        if (n === 3) return new Response(JSON.stringify({ error: { message: "boom" } }), { status: 500, headers: { "content-type": "application/json" } });
        fake.setBehavior("perplexity", undefined);
        return fetch(`${fake.url}${req.fullPath}`, { method: "POST", headers: req.headers as any, body: JSON.stringify(req.body) });
      },
    });
    const started = await api.start({ brandId, platforms: ["perplexity"] });
    const { job } = await api.waitFor(started.body.jobId, 60_000);
    expect(job.status).toBe("completed");
    expect(job.result.units).toMatchObject({ total: 2, answered: 2, failed: 0 });
    expect(job.result.retries).toBe(6);
    const attempts = await db.inspect<{ attempts: number }>("SELECT attempts FROM job_units WHERE job_id = ?", started.body.jobId);
    expect(attempts.map((a) => a.attempts)).toEqual([4, 4]);
  });

  test("401 on one platform → completes with that platform's units failed, failedReason naming platform and variable", async () => {
    const { api, orgId } = await owner();
    const { brandId } = await seedBrandIn(db, orgId, { prompts: 10 });
    fake.setBehavior("claude", { status: 401 });
    const started = await api.start({ brandId, platforms: ["perplexity", "claude"] });
    const { job } = await api.waitFor(started.body.jobId);
    expect(job.status).toBe("completed");
    expect(job.result.units).toMatchObject({ total: 20, answered: 10, failed: 10 });
    expect(job.failedReason).toContain("claude");
    expect(job.failedReason).toContain("ANTHROPIC_API_KEY");
    // A refused key is not hammered: once it is refused, the platform's later units fail without a
    // call; only those already in flight (ANTHROPIC_CONCURRENCY, 4 by default) reached it.
    expect(fake.requestsFor("claude").length).toBeLessThanOrEqual(4);
  });

  test("401 everywhere → failed", async () => {
    const { api, orgId } = await owner();
    const { brandId } = await seedBrandIn(db, orgId, { prompts: 2 });
    fake.setBehavior("*", { status: 401 });
    const started = await api.start({ brandId, platforms: ["perplexity", "chatgpt"] });
    const { job } = await api.waitFor(started.body.jobId);
    expect(job.status).toBe("failed");
    expect(job.failedReason).toContain("OPENAI_API_KEY");
    expect(job.failedReason).toContain("PERPLEXITY_API_KEY");
    const events = await eventsOf(started.body.jobId);
    expect(events).toEqual([{ type: "tracking.failed" }]);
  });
});

describe("cancellation", () => {
  test("cancel mid-run → cancelled within one unit; the upstream sees no request after that", async () => {
    const { api, orgId } = await owner();
    const { brandId } = await seedBrandIn(db, orgId, { prompts: 20 });
    fake.setBehavior("perplexity", { latencyMs: 150 });
    const started = await api.start({ brandId, platforms: ["perplexity"] });
    for (;;) {
      const { body } = await api.job(started.body.jobId);
      if (body.progress.completed >= 2) break;
      await Bun.sleep(10);
    }
    const cancelled = await api.cancel(started.body.jobId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    // Calls handed to their threads just before the cancel may still reach the upstream a moment
    // later (the abort travels behind them), at most one per lane; none may start after that —
    // the lanes would start four more every 150 ms had the cancel not stopped them.
    const requestsAtCancel = fake.requestsFor("perplexity").length;
    await Bun.sleep(50);
    const requestsSettled = fake.requestsFor("perplexity").length;
    expect(requestsSettled - requestsAtCancel).toBeLessThanOrEqual(4); // PERPLEXITY_CONCURRENCY lanes
    await Bun.sleep(600);
    expect(fake.requestsFor("perplexity").length).toBe(requestsSettled);
    const { body } = await api.job(started.body.jobId);
    expect(body.status).toBe("cancelled");
    expect(body.progress.phase).toBe("cancelled");
    expect(body.progress.completed).toBeLessThan(20);
    expect((await api.cancel(started.body.jobId)).status).toBe(409);
  });
});

describe("isolation", () => {
  test("another organization's member gets 404 polling or cancelling; a viewer can poll but not start or cancel", async () => {
    const { api, orgId } = await owner();
    const { brandId } = await seedBrandIn(db, orgId, { prompts: 1 });
    fake.setBehavior("perplexity", { latencyMs: 200 });
    const started = await api.start({ brandId, platforms: ["perplexity"] });
    expect(started.status).toBe(200);

    const stranger = await owner();
    expect((await stranger.api.job(started.body.jobId)).status).toBe(404);
    expect((await stranger.api.cancel(started.body.jobId)).status).toBe(404);
    expect((await stranger.api.start({ brandId, platforms: ["perplexity"] })).status).toBe(404);
    const listed = await stranger.api.call("GET", `/api/tracking/jobs`);
    expect(listed.body.jobs.map((j: any) => j.jobId)).not.toContain(started.body.jobId);

    const created = await fetch(`${server.url}/auth/v1/admin/users`, {
      method: "POST",
      headers: { apikey: server.secrets.serviceRoleKey, authorization: `Bearer ${server.secrets.serviceRoleKey}`, "content-type": "application/json" },
      body: JSON.stringify({ email: `viewer.${crypto.randomUUID()}@example.com`, password: "viewer-pass", organization_id: orgId, role: "viewer" }),
    });
    const viewerUser = await created.json();
    const { client } = await import("../helpers/supabase");
    const session = (await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email: viewerUser.email, password: "viewer-pass" })).data.session!;
    const viewer = apiClient(server.url, session.access_token);
    const polled = await viewer.job(started.body.jobId);
    expect(polled.status).toBe(200);
    expect(polled.body.jobId).toBe(started.body.jobId);
    expect((await viewer.start({ brandId, platforms: ["perplexity"], force: true })).status).toBe(403);
    expect((await viewer.cancel(started.body.jobId)).status).toBe(403);
    const list = await viewer.call("GET", `/api/tracking/jobs?brandId=${brandId}`);
    expect(list.body.jobs.map((j: any) => j.jobId)).toEqual([started.body.jobId]);
    await api.waitFor(started.body.jobId);
  });

  test("polling needs a valid token and a well-formed id", async () => {
    expect((await fetch(`${server.url}/api/tracking/job/${crypto.randomUUID()}`)).status).toBe(401);
    const { api } = await owner();
    expect((await api.job("not-a-uuid")).status).toBe(400);
    expect((await api.job(crypto.randomUUID())).status).toBe(404);
    expect((await api.call("GET", "/api/tracking/jobs?limit=0")).status).toBe(400);
    expect((await api.call("GET", "/api/tracking/jobs?status=exploded")).status).toBe(400);
  });
});

describe("restarts", () => {
  test("a clean stop hands a running job back without spending one of its attempts; the next start finishes it", async () => {
    const { testServer: start } = await import("../helpers/app");
    const { tempDir } = await import("../helpers/app");
    const dir = tempDir();
    const env: Record<string, string> = { ...fake.env(), DATA_DIR: dir, TRACKING_RETRY_BASE_MS: "50" };
    fake.setBehavior("perplexity", { latencyMs: 100 });
    let first = await start(env);
    // On Postgres each testServer() gets a fresh database unless told which: the restarts reopen this one.
    if (first.backend.kind === "postgres") env.DATABASE_URL = first.backend.url;
    const firstDb = await serverDb(first);
    const signed = await signedUpClient(first.url, first.secrets.anonKey);
    const { brandId } = await seedBrandIn(firstDb, await organizationIn(firstDb, signed.user.id), { prompts: 30 });
    await firstDb.close();
    const started = await apiClient(first.url, signed.session.access_token).start({ brandId, platforms: ["perplexity"] });
    const jobId = started.body.jobId;
    // Six clean restarts in the middle of the run: more than the job's five attempts.
    for (let i = 0; i < 6; i++) {
      await Bun.sleep(60);
      await first.stop();
      first = await start(env);
    }
    const api = apiClient(first.url, signed.session.access_token);
    const { job } = await api.waitFor(jobId, 30_000);
    expect(job.status).toBe("completed");
    expect(job.result.units).toMatchObject({ total: 30, answered: 30, failed: 0 });
    const lastDb = await serverDb(first);
    expect((await lastDb.inspect<{ attempts: number }>("SELECT attempts FROM jobs WHERE id = ?", jobId))[0]!.attempts).toBe(1);
    await lastDb.close();
    await first.stop();
  });
});
