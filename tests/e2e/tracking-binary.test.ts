// Tracking through the compiled binary: worker threads load from inside it, and a run survives kill -9.
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../src/database";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { tempDir } from "../helpers/app";
import { startBinary } from "../helpers/binary";
import { apiClient, organizationOf, seedBrand } from "../helpers/tracking";

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.stop());

async function signUp(url: string, anonKey: string) {
  const res = await fetch(`${url}/auth/v1/signup`, {
    method: "POST",
    headers: { apikey: anonKey, "content-type": "application/json" },
    body: JSON.stringify({ email: `crash.${crypto.randomUUID()}@example.com`, password: "crash-pass" }),
  });
  return (await res.json()) as { access_token: string; user: { id: string } };
}

test("kill -9 mid-run: after a restart the job completes with exactly one row per unit", async () => {
  fake.reset();
  fake.setBehavior("perplexity", { latencyMs: 50 });
  const dir = tempDir("aw-crash-");
  const env = { ...fake.env(), WORKERS: "2", PERPLEXITY_CONCURRENCY: "8", PERPLEXITY_RPM: "0", TRACKING_LEASE_MS: "60000" };
  const first = await startBinary(env, dir);
  const anonKey = first.output().match(/anon key:\s+(\S+)/)![1];
  const { access_token, user } = await signUp(first.url, anonKey);

  const db = new Database(join(dir, "data", "answerwatch.db"));
  registerSqlFunctions(db);
  db.run("PRAGMA busy_timeout = 5000");
  const { brandId } = seedBrand(db, organizationOf(db, user.id), { prompts: 200 });
  const api = apiClient(first.url, access_token);
  const started = await api.start({ brandId, platforms: ["perplexity"] });
  expect(started.body.units).toBe(200);
  const jobId = started.body.jobId;

  for (;;) {
    const { body } = await api.job(jobId);
    if (body.progress.completed >= 40) break;
    await Bun.sleep(20);
  }
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  const before = (db.query("SELECT count(*) AS n FROM prompt_results WHERE job_id = ?").get(jobId) as { n: number }).n;
  expect(before).toBeGreaterThan(0);
  expect(before).toBeLessThan(200);

  // A restart takes the dead process's lease over at once (no waiting for it to expire). No request
  // is sent until the job is done: the work left in the database alone must set the runtime going.
  const second = await startBinary(env, dir);
  const deadline = Date.now() + 60_000;
  while ((db.query("SELECT status FROM jobs WHERE id = ?").get(jobId) as { status: string }).status !== "completed" && Date.now() < deadline) await Bun.sleep(50);
  const { job } = await apiClient(second.url, access_token).waitFor(jobId, 1_000);
  expect(job.status).toBe("completed");
  expect(job.progress).toEqual({ phase: "done", completed: 200, failed: 0, total: 200 });
  const rows = db.query("SELECT count(*) AS n, count(DISTINCT prompt_id) AS prompts FROM prompt_results WHERE job_id = ?").get(jobId);
  expect(rows).toEqual({ n: 200, prompts: 200 });
  const units = db.query("SELECT status, count(*) AS n FROM job_units WHERE job_id = ? GROUP BY status").all(jobId);
  expect(units).toEqual([{ status: "done", n: 200 }]);
  db.close();
  second.proc.kill("SIGTERM");
  expect(await second.proc.exited).toBe(0);
});

test("with PERPLEXITY_CONCURRENCY=2 and WORKERS=4 the upstream never sees more than 2 requests at once", async () => {
  fake.reset();
  fake.setBehavior("perplexity", { latencyMs: 40 });
  const bin = await startBinary({ ...fake.env(), WORKERS: "4", PERPLEXITY_CONCURRENCY: "2", PERPLEXITY_RPM: "0" });
  const anonKey = bin.output().match(/anon key:\s+(\S+)/)![1];
  const { access_token, user } = await signUp(bin.url, anonKey);
  const db = new Database(join(bin.dir, "data", "answerwatch.db"));
  registerSqlFunctions(db);
  db.run("PRAGMA busy_timeout = 5000");
  const { brandId } = seedBrand(db, organizationOf(db, user.id), { prompts: 24 });
  db.close();
  const api = apiClient(bin.url, access_token);
  const started = await api.start({ brandId, platforms: ["perplexity"] });
  const { job } = await api.waitFor(started.body.jobId, 60_000);
  expect(job.status).toBe("completed");
  expect(fake.requestsFor("perplexity")).toHaveLength(24);
  expect(fake.highWater("perplexity")).toBe(2);
  bin.proc.kill("SIGTERM");
  expect(await bin.proc.exited).toBe(0);
});
