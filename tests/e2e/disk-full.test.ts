// Issue #14, finding 6: with the disk full every write — sign-up and sign-in included — answers
// 503 in its surface's error shape (never a 500), nothing is half-written, reads keep working,
// /healthz reports the write failure, and writes work again once there is space. The data
// directory is a small tmpfs this test mounts (the tests run as root, as CI does).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../src/database";
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { startBinary, type StartedBinary } from "../helpers/binary";
import { tempDir } from "../helpers/app";

const mountPoint = tempDir("aw-tmpfs-");
const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mountPoint]).exitCode === 0;
let bin: StartedBinary;
let anon: string;
let token: string;
let brandId: string;
const filler = join(mountPoint, "filler");

async function call(path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set("apikey", anon);
  headers.set("x-supabase-api-version", "2024-01-01");
  if (token && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
  if (init.body) headers.set("content-type", "application/json");
  const res = await fetch(`${bin.url}${path}`, { ...init, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Writes zeros until the file system says no more. */
function fillDisk(): void {
  const fd = openSync(filler, "w");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
    const small = Buffer.alloc(512);
    try {
      for (;;) writeSync(fd, small);
    } catch {
      // the last bytes are taken
    }
  } finally {
    closeSync(fd);
  }
}

beforeAll(async () => {
  if (!mounted) return;
  bin = await startBinary({ DATA_DIR: join(mountPoint, "data") });
  anon = JSON.parse(readFileSync(join(mountPoint, "data", "secrets.json"), "utf8")).anon_key;
  const signup = await call("/auth/v1/signup", { method: "POST", body: JSON.stringify({ email: "full@example.com", password: "correct-horse" }) });
  token = signup.body.access_token;
  const org = (await call("/rest/v1/organizations?select=id")).body[0].id;
  brandId = (await call("/rest/v1/brands", { method: "POST", headers: { prefer: "return=representation" }, body: JSON.stringify({ organization_id: org, name: "Full", slug: "full" }) })).body[0].id;
}, 60_000);

afterAll(async () => {
  if (!mounted) return;
  bin?.proc.kill("SIGKILL");
  await bin?.proc.exited;
  Bun.spawnSync(["umount", "-l", mountPoint]);
});

test.skipIf(!mounted)("with the disk full, writes answer 503 in each surface's shape, reads work, /healthz says so; space back, writes work", async () => {
  // The WAL keeps the space it once had: empty it first, so that every new write needs new space.
  const db = new Database(join(mountPoint, "data", "answerwatch.db"));
  registerSqlFunctions(db);
  db.run("PRAGMA busy_timeout = 5000");
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  fillDisk();

  const signIn = await call("/auth/v1/token?grant_type=password", { method: "POST", headers: { authorization: "" }, body: JSON.stringify({ email: "full@example.com", password: "correct-horse" }) });
  expect(signIn.status).toBe(503);
  expect(signIn.body.code).toBe("storage_full");
  expect(signIn.headers.get("x-sb-error-code")).toBe("storage_full");

  const signUp = await call("/auth/v1/signup", { method: "POST", headers: { authorization: "" }, body: JSON.stringify({ email: "another@example.com", password: "correct-horse" }) });
  expect(signUp.status).toBe(503);

  const insert = await call("/rest/v1/competitors", { method: "POST", body: JSON.stringify([{ brand_id: brandId, name: "Rival A" }, { brand_id: brandId, name: "Rival B" }]) });
  expect(insert.status).toBe(503);
  expect(insert.body).toMatchObject({ code: "53100" });
  expect(insert.headers.get("retry-after")).toBe("60");

  const read = await call(`/rest/v1/brands?id=eq.${brandId}&select=name`);
  expect([read.status, read.body]).toEqual([200, [{ name: "Full" }]]);

  const health = await fetch(`${bin.url}/healthz`);
  expect(health.status).toBe(503);
  expect(await health.json()).toMatchObject({ status: "error", db: "ok", db_write: "error" });

  rmSync(filler);
  const again = await call("/auth/v1/token?grant_type=password", { method: "POST", headers: { authorization: "" }, body: JSON.stringify({ email: "full@example.com", password: "correct-horse" }) });
  expect(again.status).toBe(200);
  const retry = await call("/rest/v1/competitors", { method: "POST", body: JSON.stringify([{ brand_id: brandId, name: "Rival A" }, { brand_id: brandId, name: "Rival B" }]) });
  expect(retry.status).toBe(201);
  // Nothing of the refused insert was left behind: exactly the two rows of the retry.
  const rivals = await call(`/rest/v1/competitors?brand_id=eq.${brandId}&select=name&order=name`);
  expect(rivals.body).toEqual([{ name: "Rival A" }, { name: "Rival B" }]);
}, 60_000);
