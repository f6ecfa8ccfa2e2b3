// The server's shell with a lazily loaded runtime (what `answerwatch serve` runs): what /healthz
// says before the runtime loads, and what happens when it cannot load.
import { expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/http/log";
import { startServer } from "../../src/server";
import { BROKEN_SIGNING_KEY, testEnv } from "../helpers/app";

test("before the runtime loads, /healthz answers GET with x-request-id and leaves the runtime unloaded", async () => {
  const server = await startServer(loadConfig(testEnv()), createLogger("silent"), { lazy: true, scheduler: false });
  try {
    const res = await fetch(`${server.url}/healthz`, { headers: { "x-request-id": "probe-1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("probe-1");
    expect((await res.json()).db).toBe("ok");
    expect(server.loaded).toBe(false);
    // Any other method goes through the app (which loads) and gets its JSON 404.
    const post = await fetch(`${server.url}/healthz`, { method: "POST" });
    expect(post.status).toBe(404);
    expect(server.loaded).toBe(true);
  } finally {
    await server.stop();
  }
});

test("a runtime that cannot load: requests get 503, /healthz says so, onLoadFailure is told, a later request tries again", async () => {
  const failures: unknown[] = [];
  const server = await startServer(loadConfig(testEnv({ JWT_SIGNING_KEY: BROKEN_SIGNING_KEY })), createLogger("silent"), {
    lazy: true,
    scheduler: false,
    onLoadFailure: (error) => failures.push(error),
  });
  try {
    const first = await fetch(`${server.url}/auth/v1/health`);
    expect(first.status).toBe(503);
    expect((await first.json()).error.code).toBe("unavailable");
    expect(failures).toHaveLength(1);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect((await health.json()).runtime).toBe("error");
    expect((await fetch(`${server.url}/t.js`)).status).toBe(503);
    expect(failures).toHaveLength(2);
  } finally {
    await server.stop();
  }
});
