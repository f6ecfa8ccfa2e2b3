// `answerwatch backup FILE`: a consistent copy of the SQLite database taken while the server runs
// (VACUUM INTO), the secrets beside it, never over an existing file.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir, testServer } from "../helpers/app";
import { signedUpClient } from "../helpers/supabase";

const dataDir = tempDir("aw-backup-");
let server: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  server = await testServer({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await server.stop();
});

const cli = (...args: string[]) => {
  const run = Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, ...args], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent" } });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
};

test("a backup taken while the server runs holds what was written, with the secrets beside it; a second one to the same file is refused", async () => {
  const { sb } = await signedUpClient(server.url, server.secrets.anonKey, "Backed Up");
  const { data: org } = await sb.from("organizations").select("id").single();
  const { error } = await sb.from("brands").insert({ organization_id: org!.id, name: "Kept", slug: "kept" });
  expect(error).toBeNull();
  const target = join(tempDir("aw-backup-out-"), "answerwatch-copy.db");
  const first = cli("backup", target);
  expect({ code: first.code, err: first.err }).toEqual({ code: 0, err: "" });
  expect(first.out).toContain(`secrets in ${target}.secrets.json`);
  const copy = new Database(target, { readonly: true });
  try {
    expect(copy.query("SELECT name FROM brands WHERE slug = 'kept'").all()).toEqual([{ name: "Kept" }]);
    expect((copy.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
  } finally {
    copy.close();
  }
  expect(statSync(`${target}.secrets.json`).mode & 0o777).toBe(0o600);
  expect(JSON.parse(await Bun.file(`${target}.secrets.json`).text())).toEqual(JSON.parse(await Bun.file(join(dataDir, "secrets.json")).text()));
  const again = cli("backup", target);
  expect(again.code).toBe(2);
  expect(again.err).toContain("exists: a backup is never written over a file");
  expect(cli("backup").code).toBe(2);
});
