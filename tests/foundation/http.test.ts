import { afterAll, beforeAll, expect, test } from "bun:test";
import { testApp, testServer } from "../helpers/app";

let server: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  server = await testServer({ MAX_BODY_BYTES: "2048" });
});
afterAll(() => server.stop());

test("GET /healthz answers ok with version, uptime and db state", async () => {
  const res = await fetch(`${server.url}/healthz`);
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body).toMatchObject({ status: "ok", db: "ok" });
  expect(typeof body.version).toBe("string");
  expect(typeof body.uptime_s).toBe("number");
});

test("GET /healthz answers 503 with db:error when the database cannot be read", async () => {
  const { request, dbh } = await testApp();
  dbh.sqlite.close();
  const res = await request("/healthz");
  expect(res.status).toBe(503);
  expect(await res.json()).toMatchObject({ db: "error" });
});

test("an unknown route is a JSON 404", async () => {
  const res = await fetch(`${server.url}/no/such/route`);
  expect(res.status).toBe(404);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(await res.json()).toEqual({ success: false, error: { code: "not_found", message: "No route for GET /no/such/route" } });
});

test("a body over MAX_BODY_BYTES is refused with 413", async () => {
  const res = await fetch(`${server.url}/api/anything`, { method: "POST", body: "x".repeat(4096), headers: { "content-type": "text/plain" } });
  expect(res.status).toBe(413);
});

test("a sane x-request-id is echoed, an insane one replaced, a missing one generated", async () => {
  const echoed = await fetch(`${server.url}/healthz`, { headers: { "x-request-id": "trace-123_abc" } });
  expect(echoed.headers.get("x-request-id")).toBe("trace-123_abc");
  const replaced = await fetch(`${server.url}/healthz`, { headers: { "x-request-id": "bad id with spaces" } });
  expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  const generated = await fetch(`${server.url}/nope`);
  expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
});

test("every request is logged as one JSON line with method, path, status, duration and request id", async () => {
  const lines: string[] = [];
  const { createApp } = await import("../../src/app");
  const { createLogger } = await import("../../src/http/log");
  const { config, secrets, stores } = await testApp();
  const app = await createApp({ config, secrets, stores, logger: createLogger("info", (l) => lines.push(l)), version: "t" });
  await app.handle(new Request("http://localhost/healthz", { headers: { "x-request-id": "log-me" } }));
  const entry = JSON.parse(lines.at(-1)!);
  expect(entry).toMatchObject({ level: "info", msg: "request", method: "GET", path: "/healthz", status: 200, request_id: "log-me" });
  expect(typeof entry.duration_ms).toBe("number");
  // A share link's token is its secret: not in the log.
  await app.handle(new Request("http://localhost/share/secret-token-123/csv/insights_trend"));
  expect(JSON.parse(lines.at(-1)!).path).toBe("/share/:token/csv/insights_trend");
  await app.handle(new Request("http://localhost/api/share/secret-token-123"));
  expect(JSON.parse(lines.at(-1)!).path).toBe("/api/share/:token");
  expect(lines.join("\n")).not.toContain("secret-token-123");
});
