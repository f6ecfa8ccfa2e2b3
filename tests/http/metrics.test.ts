// backends: sqlite, postgres
// GET /metrics (issue #20): off without METRICS_TOKEN, bearer-guarded with it, and after a tracking
// run, a beacon and a few reads, the Prometheus text — parsed with a text-format parser — counts
// what happened.
import { afterAll, beforeAll, expect, test } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { testServer } from "../helpers/app";
import { organizationOfUser, seedBrandIn, serverDb } from "../helpers/server-db";
import { apiClient } from "../helpers/tracking";
import { signedUpClient } from "../helpers/supabase";

const TOKEN = "metrics-token-0123456789";
let fake: FakeUpstream;
let server: Awaited<ReturnType<typeof testServer>>;

beforeAll(async () => {
  fake = await startFakeUpstream();
  server = await testServer({ ...fake.env(), METRICS_TOKEN: TOKEN });
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
});

type Family = { name: string; type: string; metrics: { labels?: Record<string, string>; value?: string; count?: string; buckets?: Record<string, string> }[] };

async function scrape(): Promise<{ families: Map<string, Family>; text: string }> {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  const text = await res.text();
  return { families: new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f])), text };
}

/** A histogram's _count for a label set, from the text (the parser merges labelled histogram series). */
const histogramCount = (text: string, name: string, labels: string) => Number(text.match(new RegExp(`^${name}_count\\{${labels.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\} (\\S+)$`, "m"))?.[1] ?? NaN);

const value = (f: Family | undefined, labels: Record<string, string>) =>
  Number(f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? NaN);

test("without the token /metrics is 401; with METRICS_TOKEN unset it does not exist", async () => {
  expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
  expect((await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
  const off = await testServer();
  try {
    expect((await fetch(`${off.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
  } finally {
    await off.stop();
  }
});

test("after a run, a refused beacon and some reads, the scrape counts requests, jobs, units, upstream calls, beacons, the database and the reader pool", async () => {
  const signed = await signedUpClient(server.url, server.secrets.anonKey);
  const api = apiClient(server.url, signed.session.access_token);
  const db = await serverDb(server);
  const { brandId } = await seedBrandIn(db, await organizationOfUser(db, signed.user.id), { prompts: 3 });
  await db.close();
  const started = await api.start({ brandId, platforms: ["perplexity"] });
  expect(started.status).toBe(200);
  await api.waitFor(started.body.jobId);
  expect((await fetch(`${server.url}/t/collect`, { method: "POST", headers: { origin: "https://nowhere.example" }, body: "{}" })).status).toBeGreaterThanOrEqual(400);
  const rpc = await signed.sb.rpc("insights_overview", { p_brand_id: brandId });
  expect(rpc.data.answers).toBe(3);
  // A path nobody defined stays one label, whatever its name.
  await fetch(`${server.url}/api/no-such-thing-${crypto.randomUUID()}`);

  const { families: m, text } = await scrape();
  const requests = m.get("answerwatch_http_requests_total")!;
  expect(value(requests, { route: "/api/tracking/start", method: "POST", status: "200" })).toBe(1);
  expect(value(requests, { route: "/rest/v1/rpc/insights_overview", method: "POST", status: "200" })).toBe(1);
  expect(requests.metrics.some((x) => x.labels?.route?.includes("no-such-thing"))).toBe(false);
  expect(value(requests, { route: "other", method: "GET", status: "404" })).toBeGreaterThanOrEqual(1);
  const latency = m.get("answerwatch_http_request_duration_seconds")!;
  expect(latency.type).toBe("HISTOGRAM");
  expect(histogramCount(text, "answerwatch_http_request_duration_seconds", 'route="/api/tracking/start",method="POST"')).toBe(1);
  expect(value(m.get("answerwatch_jobs"), { state: "completed" })).toBe(1);
  expect(value(m.get("answerwatch_upstream_calls_total"), { platform: "perplexity", outcome: "answered" })).toBe(3);
  expect(m.get("answerwatch_upstream_call_duration_seconds")!.type).toBe("HISTOGRAM");
  expect(histogramCount(text, "answerwatch_upstream_call_duration_seconds", 'platform="perplexity"')).toBe(3);
  expect(value(m.get("answerwatch_beacons_total"), { outcome: "refused" })).toBe(1);
  expect(Number(m.get("answerwatch_queue_depth")!.metrics[0]!.value)).toBe(0);
  expect(Number(m.get("answerwatch_database_bytes")!.metrics[0]!.value)).toBeGreaterThan(100_000);
  expect(m.get("answerwatch_reader_pool_wait_seconds")!.type).toBe("HISTOGRAM");
  // Reader threads are SQLite's (src/platform/rest/thread-pool.ts): on Postgres reads take a pool connection, and nothing waits for a thread.
  expect(Number(text.match(/^answerwatch_reader_pool_wait_seconds_count (\S+)$/m)?.[1])).toBeGreaterThanOrEqual(1);
  expect(m.has("answerwatch_webhook_deliveries")).toBe(true);
}, 60_000);
