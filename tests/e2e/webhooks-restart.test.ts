// A delivery that failed once is retried by the next process when the first was killed (-9) in between.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../helpers/app";
import { startBinary } from "../helpers/binary";
import { receiver } from "../helpers/webhooks";

test("a server killed between attempts delivers after restart", async () => {
  const hook = receiver((n) => (n === 1 ? 500 : 200));
  const attempts = hook.received;
  const dir = tempDir("aw-hook-restart-");
  const env = { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCHEDULE: "3" };
  const first = await startBinary(env, dir);
  const anonKey = first.output().match(/anon key:\s+(\S+)/)![1];
  const signup = await (
    await fetch(`${first.url}/auth/v1/signup`, { method: "POST", headers: { apikey: anonKey, "content-type": "application/json" }, body: JSON.stringify({ email: "hook@example.com", password: "hook-pass" }) })
  ).json();
  const auth = { authorization: `Bearer ${signup.access_token}`, "content-type": "application/json" };
  const created = await (await fetch(`${first.url}/api/webhooks`, { method: "POST", headers: auth, body: JSON.stringify({ url: hook.url }) })).json();
  hook.setSecret(created.secret);
  await fetch(`${first.url}/api/webhooks/${created.endpoint.id}/test`, { method: "POST", headers: auth });
  while (attempts.length < 1) await Bun.sleep(20);
  // Between attempts means after the first one is on record (killed during it, the delivery's
  // lease would hold it back for its whole length instead).
  const db = new Database(join(dir, "data", "answerwatch.db"), { readonly: true });
  while ((db.query("SELECT attempts FROM webhook_deliveries").get() as { attempts: number } | null)?.attempts !== 1) await Bun.sleep(20);
  db.close();
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  expect(attempts).toHaveLength(1);

  const second = await startBinary(env, dir);
  const deadline = Date.now() + 20_000;
  while (attempts.length < 2 && Date.now() < deadline) await Bun.sleep(50);
  expect(attempts).toHaveLength(2);
  expect(attempts.every((a) => a.verified)).toBe(true);
  expect(attempts[1]!.id).toBe(attempts[0]!.id);
  expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(2500);
  const log = await (await fetch(`${second.url}/api/webhooks/${created.endpoint.id}/deliveries`, { headers: auth })).json();
  expect(log.deliveries[0]).toMatchObject({ status: "delivered", attempts: 2, last_status: 200 });
  second.proc.kill("SIGTERM");
  expect(await second.proc.exited).toBe(0);
  hook.stop();
});
