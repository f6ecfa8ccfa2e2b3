// backends: sqlite, postgres
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { testServer } from "../helpers/app";
import { signedUpClient } from "../helpers/supabase";
import { apiClient } from "../helpers/tracking";
import { countOf, insertResultsIn, organizationIn, seedBrandIn, serverDb, type ServerDb } from "../helpers/tracking-db";
import { receiver } from "../helpers/webhooks";

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await Bun.sleep(20);
  }
}

let fake: FakeUpstream;
let server: Awaited<ReturnType<typeof testServer>>;
let db: ServerDb;
beforeAll(async () => {
  fake = await startFakeUpstream();
  server = await testServer({ ...fake.env(), WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCHEDULE: "0.2,0.6,1.5", AUTH_SIGNUP_RATE_LIMIT_PER_HOUR: "100" });
  db = await serverDb(server);
});
afterAll(async () => {
  await db.close();
  await server.stop();
  fake.stop();
});

async function ownerWithEndpoint(url: string, events?: string[]) {
  const signed = await signedUpClient(server.url, server.secrets.anonKey);
  const api = apiClient(server.url, signed.session.access_token);
  const created = await api.call("POST", "/api/webhooks", { url, events, description: "test receiver" });
  expect(created.status).toBe(200);
  return { ...signed, api, orgId: await organizationIn(db, signed.user.id), endpoint: created.body.endpoint, secret: created.body.secret as string };
}

describe("delivery", () => {
  test("a completed tracking job produces exactly one tracking.completed, verified with standardwebhooks", async () => {
    const hook = receiver();
    const { api, orgId, secret, endpoint } = await ownerWithEndpoint(hook.url, ["tracking.completed"]);
    hook.setSecret(secret);
    expect(secret).toMatch(/^whsec_/);
    const { brandId } = await seedBrandIn(db, orgId, { prompts: 2 });
    const started = await api.start({ brandId, platforms: ["perplexity"] });
    await api.waitFor(started.body.jobId);
    await waitUntil(() => hook.received.length >= 1);
    await Bun.sleep(300);
    expect(hook.received).toHaveLength(1);
    const [delivery] = hook.received;
    expect(delivery!.verified).toBe(true);
    expect(delivery!.body).toMatchObject({ type: "tracking.completed", organization_id: orgId, brand_id: brandId, data: { job_id: started.body.jobId, status: "completed" } });
    expect(delivery!.body.id).toBe(delivery!.id);
    expect(delivery!.body.data.result.units.total).toBe(2);
    const log = await api.call("GET", `/api/webhooks/${endpoint.id}/deliveries`);
    expect(log.body.deliveries).toHaveLength(1);
    expect(log.body.deliveries[0]).toMatchObject({ status: "delivered", attempts: 1, last_status: 200, event_type: "tracking.completed" });
    expect(typeof log.body.deliveries[0].duration_ms).toBe("number");
    hook.stop();
  });

  test("500 twice then 200: three attempts with growing gaps and one success", async () => {
    const hook = receiver((n) => (n <= 2 ? 500 : 200));
    const { api, secret, endpoint } = await ownerWithEndpoint(hook.url);
    hook.setSecret(secret);
    const sent = await api.call("POST", `/api/webhooks/${endpoint.id}/test`);
    expect(sent.status).toBe(200);
    await waitUntil(() => hook.received.length >= 3);
    await Bun.sleep(800);
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.received.map((r) => r.id)).size).toBe(1);
    expect(hook.received.every((r) => r.verified)).toBe(true);
    const gaps = [hook.received[1]!.at - hook.received[0]!.at, hook.received[2]!.at - hook.received[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(150);
    expect(gaps[1]).toBeGreaterThan(gaps[0]!);
    const log = await api.call("GET", `/api/webhooks/${endpoint.id}/deliveries`);
    expect(log.body.deliveries[0]).toMatchObject({ status: "delivered", attempts: 3, last_status: 200, event_type: "webhook.test" });
    hook.stop();
  });

  test("an endpoint that keeps failing is marked failed after the schedule, and can be retried by hand", async () => {
    let healthy = false;
    const hook = receiver(() => (healthy ? 200 : 503));
    const { api, secret, endpoint } = await ownerWithEndpoint(hook.url);
    hook.setSecret(secret);
    const sent = await api.call("POST", `/api/webhooks/${endpoint.id}/test`);
    await waitUntil(() => hook.received.length >= 4, 20_000);
    await Bun.sleep(300);
    let log = await api.call("GET", `/api/webhooks/${endpoint.id}/deliveries`);
    expect(log.body.deliveries[0]).toMatchObject({ status: "failed", attempts: 4, last_status: 503 });
    healthy = true;
    const retried = await api.call("POST", `/api/webhooks/deliveries/${sent.body.deliveryId}/retry`);
    expect(retried.status).toBe(200);
    await waitUntil(() => hook.received.length >= 5);
    await Bun.sleep(100);
    log = await api.call("GET", `/api/webhooks/${endpoint.id}/deliveries`);
    expect(log.body.deliveries[0]).toMatchObject({ status: "delivered", last_status: 200 });
    hook.stop();
  });

  test("410 disables the endpoint", async () => {
    const hook = receiver(() => 410);
    const { api, endpoint } = await ownerWithEndpoint(hook.url);
    await api.call("POST", `/api/webhooks/${endpoint.id}/test`);
    await waitUntil(() => hook.received.length >= 1);
    await Bun.sleep(300);
    expect(hook.received).toHaveLength(1);
    const got = await api.call("GET", `/api/webhooks/${endpoint.id}`);
    expect(got.body.endpoint.is_active).toBe(false);
    expect((await api.call("POST", `/api/webhooks/${endpoint.id}/test`)).status).toBe(409);
    hook.stop();
  });
});

describe("isolation and safety", () => {
  test("organization B's endpoints never receive organization A's events", async () => {
    const hookA = receiver();
    const hookB = receiver();
    const a = await ownerWithEndpoint(hookA.url);
    const b = await ownerWithEndpoint(hookB.url);
    const { brandId } = await seedBrandIn(db, a.orgId, { prompts: 1 });
    const started = await a.api.start({ brandId, platforms: ["perplexity"] });
    await a.api.waitFor(started.body.jobId);
    await a.api.call("POST", `/api/webhooks/${a.endpoint.id}/test`);
    await waitUntil(() => hookA.received.some((r) => r.body.type === "webhook.test"));
    await Bun.sleep(300);
    expect(hookA.received.map((r) => r.body.type)).toContain("tracking.completed");
    expect(hookA.received.every((r) => r.body.organization_id === a.orgId)).toBe(true);
    expect(hookB.received).toEqual([]);
    // B cannot see, test, or read the deliveries of A's endpoint.
    expect((await b.api.call("GET", `/api/webhooks/${a.endpoint.id}`)).status).toBe(404);
    expect((await b.api.call("POST", `/api/webhooks/${a.endpoint.id}/test`)).status).toBe(404);
    expect((await b.api.call("GET", `/api/webhooks/${a.endpoint.id}/deliveries`)).status).toBe(404);
    hookA.stop();
    hookB.stop();
  });

  test("the secret is shown on creation and rotation only; later reads do not contain it", async () => {
    const { api, endpoint, secret } = await ownerWithEndpoint("https://hooks.example.com/answerwatch");
    const read = JSON.stringify((await api.call("GET", `/api/webhooks/${endpoint.id}`)).body);
    const list = JSON.stringify((await api.call("GET", "/api/webhooks")).body);
    expect(read).not.toContain(secret);
    expect(list).not.toContain(secret);
    expect(read).not.toContain("whsec_");
    const rotated = await api.call("POST", `/api/webhooks/${endpoint.id}/rotate-secret`);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    expect(JSON.stringify((await api.call("GET", `/api/webhooks/${endpoint.id}`)).body)).not.toContain(rotated.body.secret);
  });

  test("private, link-local and metadata destinations are refused (400) without WEBHOOK_ALLOW_PRIVATE", async () => {
    const strict = await testServer();
    try {
      const signed = await signedUpClient(strict.url, strict.secrets.anonKey);
      const api = apiClient(strict.url, signed.session.access_token);
      for (const url of ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data", "http://127.0.0.1:8080/x", "http://[::1]/", "http://192.168.1.20/hook", "http://localhost/x", "http://metadata.google.internal/", "ftp://example.com/x", "not a url"]) {
        const res = await api.call("POST", "/api/webhooks", { url });
        expect({ url, status: res.status }).toEqual({ url, status: 400 });
        expect(res.body.success).toBe(false);
      }
      const strictDb = await serverDb(strict);
      expect(await countOf(strictDb, "SELECT count(*) AS n FROM webhook_endpoints")).toBe(0);
      await strictDb.close();
      const ok = await api.call("POST", "/api/webhooks", { url: "https://hooks.example.com/x", events: ["tracking.completed"] });
      expect(ok.status).toBe(200);
      expect((await api.call("POST", "/api/webhooks", { url: "https://hooks.example.com/x", events: ["nope"] })).status).toBe(400);
    } finally {
      await strict.stop();
    }
  });
});

/** Answers of earlier days written with the product's bulk path: `mentioned` of `total` per prompt and day. */
function history(brandId: string, promptIds: string[], daysAgo: number[], mentioned: (day: number, prompt: number) => boolean) {
  return insertResultsIn(
    db,
    daysAgo.flatMap((day) =>
      promptIds.map((promptId, i) => ({
        key: { id: crypto.randomUUID(), jobId: null, brandId, promptId, platform: "perplexity", model: "sonar", region: "US", createdAt: new Date(Date.now() - day * 86_400_000).toISOString() },
        values: { surface: "api", response: "earlier answer", mentioned: mentioned(day, i) ? 1 : 0, mention_count: mentioned(day, i) ? 1 : 0, mention_position: mentioned(day, i) ? 1 : null, competitor_mentions: "[]", citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: 0, search_queries: "[]", details: "{}", reported_model: "sonar" },
      })),
    ),
  );
}

test("visibility.changed fires once when a platform's last 7 days differ significantly from the 7 before, and not again that day", async () => {
  const hook = receiver();
  const { api, orgId, secret } = await ownerWithEndpoint(hook.url, ["visibility.changed"]);
  hook.setSecret(secret);
  const { brandId, promptIds } = await seedBrandIn(db, orgId, { prompts: 2, name: "San Francisco" });
  // The week before last: 14 answers, none naming the brand. The recorded Perplexity answer is
  // about San Francisco, so today's 6 answers (2 prompts × 3 samples) all name it.
  await history(brandId, promptIds, [7, 8, 9, 10, 11, 12, 13], () => false);
  const run = async () => (await api.waitFor((await api.start({ brandId, platforms: ["perplexity"], samples: 3 })).body.jobId)).job;
  await run();
  await waitUntil(() => hook.received.length >= 1);
  await Bun.sleep(300);
  expect(hook.received).toHaveLength(1);
  const { data } = hook.received[0]!.body;
  expect(hook.received[0]!.body).toMatchObject({ type: "visibility.changed", brand_id: brandId, data: { platform: "perplexity", change_points: 100 } });
  expect(hook.received[0]!.verified).toBe(true);
  expect(data.current).toMatchObject({ value: 1, n: 6 });
  // Each prompt had 7 answers the week before and 3 now: compared as 3 and 3 (each pair weighing
  // the same in both weeks), so 0 of 6 before.
  expect(data.previous).toMatchObject({ value: 0, n: 6 });
  // Wilson 6/6 and 0/6, then Newcombe's lower bound: computed here from the formulas, not the product.
  const z = 1.959964;
  const wilson = (x: number, n: number) => {
    const p = x / n, c = (p + (z * z) / (2 * n)) / (1 + (z * z) / n), h = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
    return [c - h, c + h] as const;
  };
  const [low6] = wilson(6, 6), [, high0] = wilson(0, 6);
  expect(data.change.verdict).toBe("up");
  expect(data.change.ci_low).toBeCloseTo(1 - Math.sqrt((1 - low6) ** 2 + high0 ** 2), 9);
  expect(data.window.to).toBe(new Date().toISOString().slice(0, 10));
  // A second run the same day, still significant: no second alert for this brand and platform today.
  await run();
  await Bun.sleep(500);
  expect(hook.received).toHaveLength(1);
  hook.stop();
});

test("a change within noise fires no visibility.changed", async () => {
  const hook = receiver();
  const { api, orgId, secret } = await ownerWithEndpoint(hook.url, ["visibility.changed"]);
  hook.setSecret(secret);
  const { brandId, promptIds } = await seedBrandIn(db, orgId, { prompts: 1, name: "San Francisco" });
  // 1 of 2 answers the week before, 1 of 1 today: 50 points, far inside the interval at these n.
  await history(brandId, promptIds, [8, 9], (day) => day === 8);
  const job = (await api.waitFor((await api.start({ brandId, platforms: ["perplexity"] })).body.jobId)).job;
  expect(job.result.per_platform.perplexity.visibility_rate.value).toBe(1);
  await Bun.sleep(600);
  expect(hook.received).toHaveLength(0);
  hook.stop();
});

test("through /rest/v1 owners and admins read and switch endpoints, never see the secret, and cannot create or retarget one", async () => {
  const { client } = await import("../helpers/supabase");
  const { sb, endpoint, secret } = await ownerWithEndpoint("https://hooks.example.com/rest");
  const listed = await sb.from("webhook_endpoints").select("*");
  expect(listed.error).toBeNull();
  expect(listed.data!.map((e) => e.id)).toContain(endpoint.id);
  expect(JSON.stringify(listed.data)).not.toContain(secret);
  expect((await sb.from("webhook_endpoints").select("secret")).error?.code).toBe("42501");
  const off = await sb.from("webhook_endpoints").update({ is_active: false }).eq("id", endpoint.id).select("is_active").single();
  expect(off.data).toEqual({ is_active: false });
  expect((await sb.from("webhook_endpoints").update({ url: "http://10.0.0.1/" }).eq("id", endpoint.id)).error?.code).toBe("42501");
  expect((await sb.from("webhook_endpoints").insert({ organization_id: endpoint.organization_id, url: "https://x.example.com", secret: "whsec_x" })).error?.code).toBe("42501");
  const memberEmail = `member.${crypto.randomUUID()}@example.com`;
  await fetch(`${server.url}/auth/v1/admin/users`, {
    method: "POST",
    headers: { apikey: server.secrets.serviceRoleKey, authorization: `Bearer ${server.secrets.serviceRoleKey}`, "content-type": "application/json" },
    body: JSON.stringify({ email: memberEmail, password: "member-pass", organization_id: endpoint.organization_id, role: "member" }),
  });
  const member = client(server.url, server.secrets.anonKey);
  await member.auth.signInWithPassword({ email: memberEmail, password: "member-pass" });
  expect((await member.from("webhook_endpoints").select("id")).data).toEqual([]);
});

test("redirects are not followed: a 302 is a failed attempt and the redirect target hears nothing", async () => {
  const target = receiver();
  const redirecting = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(null, { status: 302, headers: { location: target.url } }) });
  const { api, endpoint } = await ownerWithEndpoint(`http://127.0.0.1:${redirecting.port}/hook`);
  await api.call("POST", `/api/webhooks/${endpoint.id}/test`);
  let log: any;
  await waitUntil(async () => {
    [log] = await db.inspect("SELECT status, attempts, last_status FROM webhook_deliveries WHERE endpoint_id = ?", endpoint.id);
    return log?.attempts >= 1;
  });
  expect(log).toMatchObject({ status: "pending", attempts: 1, last_status: 302 });
  expect(target.received).toEqual([]);
  redirecting.stop(true);
  target.stop();
});

test("the receiver's answer is its status: an endless body is not read, the delivery is recorded at once", async () => {
  let chunks = 0;
  const endless = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      new Response(
        new ReadableStream({
          async pull(controller) {
            // A megabyte every 50 ms, for as long as anyone reads.
            await Bun.sleep(50);
            chunks++;
            controller.enqueue(new Uint8Array(1024 * 1024));
          },
        }),
        { status: 200 },
      ),
  });
  const { api, endpoint } = await ownerWithEndpoint(`http://127.0.0.1:${endless.port}/hook`);
  await api.call("POST", `/api/webhooks/${endpoint.id}/test`);
  let log: any;
  // Well within the server's 10 s timeout, which reading the body would have waited for.
  await waitUntil(async () => {
    [log] = await db.inspect("SELECT status, attempts, last_status FROM webhook_deliveries WHERE endpoint_id = ?", endpoint.id);
    return log?.status === "delivered";
  }, 3_000);
  expect(log).toMatchObject({ status: "delivered", attempts: 1, last_status: 200 });
  expect(chunks).toBeLessThan(20);
  endless.stop(true);
});

test("deliveries asked for by hand are limited to 10 a minute per organization, tests and retries alike, whatever the endpoints: the 11th is 429 and sends nothing", async () => {
  const hook = receiver();
  const { api, endpoint } = await ownerWithEndpoint(hook.url);
  // A second endpoint of the same organization to the same address shares the count.
  const second = await api.call("POST", "/api/webhooks", { url: hook.url, description: "another" });
  expect(second.status).toBe(200);
  const statuses: number[] = [];
  for (let i = 0; i < 9; i++) statuses.push((await api.call("POST", `/api/webhooks/${i % 2 ? second.body.endpoint.id : endpoint.id}/test`)).status);
  await waitUntil(() => hook.received.length >= 9);
  const [delivered] = await db.inspect<{ id: string }>("SELECT id FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'delivered' LIMIT 1", endpoint.id);
  // A retry counts as a test: the 10th is allowed, then nothing more this minute.
  statuses.push((await api.call("POST", `/api/webhooks/deliveries/${delivered!.id}/retry`)).status);
  statuses.push((await api.call("POST", `/api/webhooks/${second.body.endpoint.id}/test`)).status);
  statuses.push((await api.call("POST", `/api/webhooks/deliveries/${delivered!.id}/retry`)).status);
  expect(statuses).toEqual([...Array.from({ length: 10 }, () => 200), 429, 429]);
  await waitUntil(() => hook.received.length >= 10);
  await Bun.sleep(300);
  expect(hook.received).toHaveLength(10);
  // Another organization is counted apart.
  const other = await ownerWithEndpoint(hook.url);
  expect((await other.api.call("POST", `/api/webhooks/${other.endpoint.id}/test`)).status).toBe(200);
  hook.stop();
});
