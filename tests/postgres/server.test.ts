// One server on DATABASE_URL, from the outside: sign-up and data through the real supabase-js
// client, a tracking run through /api with the fake upstream, /healthz with the instance count.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/http/log";
import { startServer, type RunningServer } from "../../src/server";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { testEnv } from "../helpers/app";
import { testPostgres } from "../helpers/postgres";
import { signedUpClient } from "../helpers/supabase";
import { apiClient } from "../helpers/tracking";

const pg = await testPostgres();
let fake: FakeUpstream;
let server: RunningServer;
let databaseUrl: string;

beforeAll(async () => {
  if (!pg) return;
  fake = await startFakeUpstream();
  databaseUrl = await pg.createDatabase("server");
  server = await startServer(loadConfig(testEnv({ ...fake.env(), DATABASE_URL: databaseUrl, WORKERS: "1", PERPLEXITY_RPM: "0" })), createLogger("silent"), { scheduler: false });
});
afterAll(async () => {
  await server?.stop();
  fake?.stop();
});

test.skipIf(!pg)("a brand made through supabase-js is tracked on Postgres; the rows and the job say the same", async () => {
  const health = await (await fetch(`${server.url}/healthz`)).json();
  expect(health).toMatchObject({ status: "ok", db: "ok", instances: 1 });
  const { sb, session } = await signedUpClient(server.url, server.secrets.anonKey, "Acme Inc");
  const { data: org } = await sb.from("organizations").select("id").single();
  const { data: brand, error } = await sb.from("brands").insert({ organization_id: org!.id, name: "Acme", slug: "acme" }).select().single();
  expect(error).toBeNull();
  const { data: set } = await sb.from("prompt_sets").insert({ brand_id: brand!.id, name: "Core" }).select().single();
  const texts = Array.from({ length: 12 }, (_, i) => `Which project tool is best for a team of ${i + 2}?`);
  const { error: promptError } = await sb.from("prompts").insert(texts.map((text) => ({ prompt_set_id: set!.id, brand_id: brand!.id, text })));
  expect(promptError).toBeNull();

  const api = apiClient(server.url, session.access_token);
  const started = await api.start({ brandId: brand!.id, platforms: ["perplexity"] });
  expect(started.status).toBe(200);
  expect(started.body.units).toBe(12);
  const { job } = await api.waitFor(started.body.jobId, 60_000);
  expect(job.status).toBe("completed");
  expect(job.progress).toEqual({ phase: "done", completed: 12, failed: 0, total: 12 });

  const { data: rows } = await sb.from("prompt_results").select("prompt_id, platform").eq("job_id", started.body.jobId);
  expect(rows!.length).toBe(12);
  expect(new Set(rows!.map((r) => r.prompt_id)).size).toBe(12);
  const { data: latest, error: rpcError } = await sb.rpc("get_latest_prompt_results", { p_brand_id: brand!.id });
  expect(rpcError).toBeNull();
  expect((latest as unknown[]).length).toBe(12);
});

test.skipIf(!pg)("a prompt written through /rest/v1 that names the brand reads as branded (the listener rechecks it)", async () => {
  const { sb } = await signedUpClient(server.url, server.secrets.anonKey, "Branded Org");
  const { data: org } = await sb.from("organizations").select("id").single();
  const { data: brand } = await sb.from("brands").insert({ organization_id: org!.id, name: "Zyntrax", slug: "zyntrax" }).select().single();
  const { data: set } = await sb.from("prompt_sets").insert({ brand_id: brand!.id, name: "Core" }).select().single();
  const { data: prompts } = await sb.from("prompts").insert([{ prompt_set_id: set!.id, brand_id: brand!.id, text: "Is Zyntrax any good?" }, { prompt_set_id: set!.id, brand_id: brand!.id, text: "Best CRM for startups" }]).select("id, text");
  const flags = async () => (await sb.from("prompts").select("text, is_branded").eq("brand_id", brand!.id).order("text")).data;
  let seen: unknown = null;
  for (let i = 0; i < 100; i++) {
    seen = await flags();
    if (JSON.stringify(seen) === JSON.stringify([{ text: "Best CRM for startups", is_branded: false }, { text: "Is Zyntrax any good?", is_branded: true }])) break;
    await Bun.sleep(20);
  }
  expect(prompts!.length).toBe(2);
  expect(seen).toEqual([{ text: "Best CRM for startups", is_branded: false }, { text: "Is Zyntrax any good?", is_branded: true }]);
});

test.skipIf(!pg)("`answerwatch rollups rebuild` on DATABASE_URL rebuilds Postgres' rollups (the insights read the same after); `vacuum` says it is for the SQLite file", async () => {
  const { ROOT, tempDir } = await import("../helpers/app");
  const cli = (...args: string[]) => Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, ...args], { env: { PATH: process.env.PATH!, DATA_DIR: tempDir("aw-cli-pg-"), LOG_LEVEL: "silent", DATABASE_URL: databaseUrl } });
  const { sb } = await signedUpClient(server.url, server.secrets.anonKey, "Rebuilt Co");
  const { data: org } = await sb.from("organizations").select("id").single();
  const { data: brand } = await sb.from("brands").insert({ organization_id: org!.id, name: "Rebuilt", slug: "rebuilt" }).select().single();
  const { data: set } = await sb.from("prompt_sets").insert({ brand_id: brand!.id, name: "Core" }).select().single();
  await sb.from("prompts").insert([1, 2, 3].map((i) => ({ prompt_set_id: set!.id, brand_id: brand!.id, text: `Best tool number ${i}?` })));
  const { session } = (await sb.auth.getSession()).data;
  const api = apiClient(server.url, session!.access_token);
  expect((await api.waitFor((await api.start({ brandId: brand!.id, platforms: ["perplexity"] })).body.jobId, 60_000)).job.status).toBe("completed");
  const overview = async () => (await sb.rpc("insights_overview", { p_brand_id: brand!.id })).data;
  const before = await overview();
  const rebuilt = cli("rollups", "rebuild");
  expect({ code: rebuilt.exitCode, err: rebuilt.stderr.toString() }).toEqual({ code: 0, err: "" });
  expect(rebuilt.stdout.toString()).toMatch(/^result_brand_daily: \d+ rows/m);
  expect(rebuilt.stdout.toString()).toMatch(/^prompt_results_latest: \d+ rows$/m);
  expect(await overview()).toEqual(before);
  const vacuum = cli("vacuum");
  expect(vacuum.exitCode).toBe(2);
  expect(vacuum.stderr.toString()).toContain("vacuum is for the SQLite file");
});
