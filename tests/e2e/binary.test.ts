import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../src/database";
import { expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { SERVER_ALLOCATOR_ENV } from "../../src/common/allocator";
import { join } from "node:path";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import * as schema from "../../src/db/schema";
import { environOf, startBinary } from "../helpers/binary";
import { BROKEN_SIGNING_KEY, tempDir } from "../helpers/app";
import { seedBrand } from "../helpers/tracking";

const designTables = Object.values(schema)
  .filter((v) => typeof v === "object" && v !== null && Symbol.for("drizzle:IsDrizzleTable") in (v as object))
  .map((t) => getTableConfig(t as any).name);

test("the binary, alone in an empty directory, creates its database, serves /healthz and exits 0 on SIGTERM", async () => {
  const dir = tempDir("aw-empty-");
  expect(readdirSync(dir)).toEqual([]);
  const bin = await startBinary({}, dir);
  expect(readdirSync(dir).sort()).toEqual(["answerwatch", "data"]);

  const health = await fetch(`${bin.url}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ status: "ok", db: "ok" });

  const db = new Database(join(dir, "data", "answerwatch.db"), { readonly: true });
  const tables = (db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
  db.close();
  for (const table of [
    "users", "sessions", "refresh_tokens", "organizations", "organization_members", "brands", "brand_domains",
    "competitors", "prompt_sets", "prompts", "brand_platforms", "prompt_results", "citations", "suggestions",
    "ai_traffic_logs", "jobs", "job_units", "webhook_endpoints", "webhook_deliveries",
  ]) expect(tables).toContain(table);
  for (const table of designTables) expect(tables).toContain(table);

  const started = performance.now();
  bin.proc.kill("SIGTERM");
  const code = await Promise.race([bin.proc.exited, Bun.sleep(5000).then(() => "timeout")]);
  expect(code).toBe(0);
  expect(performance.now() - started).toBeLessThan(5000);
});

test("the binary's server runs with the allocator's settings, in the process that was started; an operator's own setting is left alone", async () => {
  const bin = await startBinary();
  // execve keeps the process: the pid that was spawned is the server answering, now with the settings.
  expect((await fetch(`${bin.url}/healthz`)).status).toBe(200);
  const env = environOf(bin.proc.pid);
  for (const [name, value] of Object.entries(SERVER_ALLOCATOR_ENV)) expect(env[name]).toBe(value);
  bin.proc.kill("SIGTERM");
  expect(await bin.proc.exited).toBe(0);

  // Bun's own options (BUN_OPTIONS) reach the restarted binary as Bun's, not as the CLI's arguments.
  const smol = await startBinary({ BUN_OPTIONS: "--smol" });
  expect((await fetch(`${smol.url}/healthz`)).status).toBe(200);
  expect(environOf(smol.proc.pid).MIMALLOC_PURGE_HOLES).toBe(SERVER_ALLOCATOR_ENV.MIMALLOC_PURGE_HOLES);
  smol.proc.kill("SIGTERM");
  expect(await smol.proc.exited).toBe(0);

  const own = await startBinary({ MIMALLOC_PURGE_DELAY: "250" });
  expect((await fetch(`${own.url}/healthz`)).status).toBe(200);
  const ownEnv = environOf(own.proc.pid);
  expect(ownEnv.MIMALLOC_PURGE_DELAY).toBe("250");
  expect(ownEnv.MIMALLOC_PURGE_HOLES).toBeUndefined();
  own.proc.kill("SIGTERM");
  expect(await own.proc.exited).toBe(0);
});

test("a restart of the binary keeps the generated secrets; the secrets file is 0600", async () => {
  const dir = tempDir("aw-restart-");
  const first = await startBinary({}, dir);
  const anonKey = first.output().match(/anon key:\s+(\S+)/)![1];
  first.proc.kill("SIGTERM");
  await first.proc.exited;
  expect(statSync(join(dir, "data", "secrets.json")).mode & 0o777).toBe(0o600);

  const second = await startBinary({}, dir);
  expect(second.output().match(/anon key:\s+(\S+)/)![1]).toBe(anonKey);
  second.proc.kill("SIGTERM");
  expect(await second.proc.exited).toBe(0);
});

test("the binary answers --version and keys", async () => {
  const { buildBinary } = await import("../helpers/binary");
  const exe = buildBinary();
  const version = Bun.spawnSync([exe, "--version"]);
  expect(version.stdout.toString().trim()).toMatch(/^\d+\.\d+\.\d+$/);
  const keys = Bun.spawnSync([exe, "keys"], { env: { DATA_DIR: tempDir() } });
  expect(keys.exitCode).toBe(0);
  expect(keys.stdout.toString()).toMatch(/^ANON_KEY=ey.+\nSERVICE_ROLE_KEY=ey.+\n$/);
});

test("the feature runtime loads on first use: /healthz alone does not load it, a feature route does", async () => {
  const bin = await startBinary({ LOG_LEVEL: "info" });
  const loaded = () => bin.output().includes('"msg":"runtime loaded"');
  expect((await fetch(`${bin.url}/healthz`)).status).toBe(200);
  await Bun.sleep(500);
  expect(loaded()).toBe(false);
  const script = await fetch(`${bin.url}/t.js`);
  expect(script.status).toBe(200);
  expect(script.headers.get("content-type")).toContain("application/javascript");
  const deadline = Date.now() + 5_000;
  while (!loaded() && Date.now() < deadline) await Bun.sleep(20);
  expect(loaded()).toBe(true);
  bin.proc.kill("SIGTERM");
  expect(await bin.proc.exited).toBe(0);
});

test("with nothing asked of it, the server still runs its scheduler: a due brand gets a job", async () => {
  const dir = tempDir("aw-bin-cron-");
  const first = await startBinary({}, dir);
  first.proc.kill("SIGTERM");
  expect(await first.proc.exited).toBe(0);
  const db = new Database(join(dir, "data", "answerwatch.db"));
  registerSqlFunctions(db);
  db.run("PRAGMA busy_timeout = 5000");
  const organizationId = crypto.randomUUID();
  db.run("INSERT INTO organizations (id, name, slug) VALUES (?, 'Cron', 'cron')", [organizationId]);
  const { brandId } = seedBrand(db, organizationId, { prompts: 1, platforms: [{ platform: "perplexity", frequency: "daily" }] });

  // Every two seconds; the engine's address is closed, so the job's fate does not matter here.
  const second = await startBinary({ LOG_LEVEL: "info", CRON_SCHEDULE: "*/2 * * * * *", PERPLEXITY_API_KEY: "k", PERPLEXITY_BASE_URL: "http://127.0.0.1:9" }, dir);
  const deadline = Date.now() + 15_000;
  let job: { brand_id: string } | null = null;
  while (!job && Date.now() < deadline) {
    job = db.query("SELECT brand_id FROM jobs").get() as { brand_id: string } | null;
    if (!job) await Bun.sleep(50);
  }
  expect(job?.brand_id).toBe(brandId);
  expect(second.output()).toContain('"msg":"runtime loaded"');
  db.close();
  second.proc.kill("SIGTERM");
  expect(await second.proc.exited).toBe(0);
});

test("a runtime that cannot load ends the process with exit code 1 and says why", async () => {
  const bin = await startBinary({ JWT_SIGNING_KEY: BROKEN_SIGNING_KEY });
  await fetch(`${bin.url}/auth/v1/health`).catch(() => undefined);
  expect(await bin.proc.exited).toBe(1);
  expect(bin.output()).toContain('"msg":"runtime failed to load"');
});
