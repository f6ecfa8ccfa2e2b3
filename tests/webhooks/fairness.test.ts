// The deliverer's slots are every organization's: one whose endpoints never answer (each attempt
// holds a slot for the whole timeout) gets its share of them, not all — another organization's
// delivery goes out meanwhile.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { DB_FILE } from "../../src/db/open";
import { openDatabase } from "../../src/database";
import { createLogger } from "../../src/http/log";
import { createDeliverer } from "../../src/webhooks/delivery";
import { recordEvent } from "../../src/webhooks/events.sqlite";
import { newSecret } from "../../src/webhooks/signing";
import { createSqliteWebhookStore } from "../../src/webhooks/store.sqlite";
import { tempDir } from "../helpers/app";

test("an organization whose endpoint hangs holds its share of the slots (a quarter); another organization's delivery is sent meanwhile", async () => {
  const dbh = openDatabase(join(tempDir("aw-fair-"), DB_FILE));
  const sqlite = dbh.sqlite;
  const org = (name: string, host: string) => {
    const id = crypto.randomUUID();
    sqlite.query("INSERT INTO organizations (id, name, slug) VALUES (?, ?, ?)").run(id, name, `${name.toLowerCase()}-${id.slice(0, 8)}`);
    sqlite.query("INSERT INTO webhook_endpoints (organization_id, url, secret) VALUES (?, ?, ?)").run(id, `https://${host}/hook`, newSecret());
    return id;
  };
  const noisy = org("Noisy", "hangs.example.com");
  const quiet = org("Quiet", "answers.example.com");
  // The noisy organization's twelve events first, so they are the oldest due.
  for (let i = 0; i < 12; i++) sqlite.transaction(() => recordEvent(sqlite, { organizationId: noisy, brandId: null, type: "webhook.test", data: { i } }, new Date(Date.now() - 60_000 + i).toISOString())).immediate();
  sqlite.transaction(() => recordEvent(sqlite, { organizationId: quiet, brandId: null, type: "webhook.test", data: { i: 0 } }, new Date().toISOString())).immediate();
  const calls: string[] = [];
  const hanging: (() => void)[] = [];
  const fetchStub = (async (input: string | URL | Request, init?: RequestInit) => {
    const host = (init?.headers as Record<string, string>).host;
    calls.push(host);
    if (host === "answers.example.com") return new Response(null, { status: 204 });
    // Never answers until the test lets go (or the deliverer's timeout aborts it).
    return new Promise<Response>((_, reject) => {
      hanging.push(() => reject(new Error("let go")));
      init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
    });
  }) as typeof fetch;
  const deliverer = createDeliverer({
    store: createSqliteWebhookStore(sqlite),
    logger: createLogger("silent"),
    allowPrivate: false,
    retryScheduleMs: [60_000],
    timeoutMs: 30_000,
    resolve: async () => ["93.184.216.34"],
    fetch: fetchStub,
    pollMs: 20,
    concurrency: 8,
  });
  try {
    const status = () => (sqlite.query("SELECT d.status FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.organization_id = ?").get(quiet) as { status: string }).status;
    for (let i = 0; i < 100 && status() !== "delivered"; i++) await Bun.sleep(20);
    expect(status()).toBe("delivered");
    await Bun.sleep(200);
    // Two of the eight slots (a quarter) held by the hanging endpoint, however many of its deliveries are due.
    expect(calls.filter((h) => h === "hangs.example.com")).toHaveLength(2);
  } finally {
    for (const letGo of hanging) letGo();
    await deliverer.stop();
    dbh.sqlite.close();
  }
});
