// backends: sqlite, postgres
// Security issue #14, finding 2: webhook destinations that are not globally reachable, in every
// spelling, are refused when an endpoint is created or retargeted (POST/PATCH /api/webhooks, on the
// real server, on the webhook routes with a stub resolver, and through the compiled binary) and
// again at delivery, without a connection. A delivery resolves once and connects to the address it
// checked, so DNS rebinding cannot redirect it. No test touches real DNS or any address other than
// 127.0.0.1: names resolve through a stub, and "public" receivers are answered by a fetch stub.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { join } from "node:path";
import { DB_FILE } from "../../src/db/open";
import { openDatabase } from "../../src/database";
import { errorResponse, toAppError } from "../../src/http/errors";
import { createLogger } from "../../src/http/log";
import { createDeliverer } from "../../src/webhooks/delivery";
import type { Resolver } from "../../src/webhooks/destination";
import { recordEvent } from "../../src/webhooks/events.sqlite";
import { webhookRoutes } from "../../src/webhooks/routes";
import { createWebhookService } from "../../src/webhooks/service";
import { createSqliteWebhookStore } from "../../src/webhooks/store.sqlite";
import { newSecret } from "../../src/webhooks/signing";
import { storesFor } from "../../src/stores";
import { TEST_BACKEND, tempDir, testServer } from "../helpers/app";
import { startBinary } from "../helpers/binary";
import { signedUpClient } from "../helpers/supabase";
import { testPostgres } from "../helpers/postgres";
import { apiClient } from "../helpers/tracking";
import { countOf, serverDb, type ServerDb } from "../helpers/tracking-db";

/** A listener on 127.0.0.1: refused destinations that point back at this machine must never reach it. */
function startSink() {
  const hits: { host: string | null; path: string }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      hits.push({ host: request.headers.get("host"), path: new URL(request.url).pathname + new URL(request.url).search });
      return new Response(null, { status: 200 });
    },
  });
  return { port: server.port!, hits, stop: () => server.stop(true) };
}

const sink = startSink();
const P = sink.port;
afterAll(() => sink.stop());

// Literal destinations in every notation; the ones that mean 127.0.0.1 carry the sink's port.
const REFUSED_LITERALS = [
  `http://127.0.0.1:${P}/`,
  `http://2130706433:${P}/`, // decimal
  `http://0177.0.0.1:${P}/`, // octal
  `http://017700000001:${P}/`, // octal, one number
  `http://0x7f.1:${P}/`, // hex, short
  `http://0x7f000001:${P}/`, // hex, one number
  `http://127.1:${P}/`, // short
  `http://127.0.0.1.:${P}/`, // trailing dot
  `http://[::ffff:127.0.0.1]:${P}/`, // IPv4-mapped
  `http://[::ffff:7f00:1]:${P}/`, // IPv4-mapped, hex
  `http://[0:0:0:0:0:ffff:7f00:1]:${P}/`, // IPv4-mapped, full
  `http://[::127.0.0.1]:${P}/`, // IPv4-compatible
  `http://[::ffff:0:127.0.0.1]/`, // IPv4-translated
  "http://[64:ff9b::7f00:1]/", // NAT64 well-known prefix
  "http://[64:ff9b::169.254.169.254]/", // NAT64, dotted tail
  "http://[64:ff9b:1:7f00:0:100::]/", // NAT64 local-use prefix
  "http://[2002:7f00:1::]/", // 6to4 of 127.0.0.1
  "http://[2002:a9fe:a9fe::]/", // 6to4 of the metadata address
  "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", // Teredo (client 127.0.0.1)
  "http://169.254.169.254/latest/meta-data",
  "http://[::ffff:a9fe:a9fe]/latest/meta-data", // metadata, mapped hex
  "http://[::ffff:169.254.169.254]/",
  "http://[fd00:ec2::254]/", // AWS metadata over IPv6 (unique local)
  "http://10.0.0.1/",
  "http://[::ffff:10.0.0.1]/",
  "http://172.16.0.1/",
  "http://192.168.1.1/",
  "http://100.64.0.1/", // shared address space
  "http://192.0.0.192/", // IETF protocol assignments
  "http://192.0.0.9/",
  "http://192.0.2.1/", // documentation
  "http://198.51.100.7/",
  "http://203.0.113.9/",
  "http://198.18.0.1/", // benchmarking
  "http://198.19.255.254/",
  "http://192.88.99.1/", // 6to4 relay anycast
  "http://0.0.0.0/",
  "http://0/",
  "http://255.255.255.255/", // broadcast
  "http://240.0.0.1/", // reserved
  "http://224.0.0.1/", // multicast
  "http://[::]/",
  "http://[::1]/",
  "http://[0:0:0:0:0:0:0:1]/",
  "http://[fe80::1]/", // link-local
  "http://[fc00::1]/", // unique local
  "http://[fd12:3456:789a::1]/",
  "http://[fec0::1]/", // site-local (deprecated)
  "http://[ff02::1]/", // multicast
  "http://[2001:db8::1]/", // documentation
  "http://[3fff::1]/",
  "http://[2001:10::1]/", // ORCHID
  "http://[2001:20::1]/", // ORCHIDv2
  "http://[100::1]/", // discard-only
  "http://[5f00::1]/", // segment routing
  "https://[::ffff:c0a8:101]:8443/hook",
];

// Names, and what the stub resolver answers for them.
const ANSWERS: Record<string, string[]> = {
  "loopback.test": ["127.0.0.1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "metadata.test": ["169.254.169.254"],
  "private.test": ["10.1.2.3"],
  "ula.test": ["fd00::1"],
  "nat64.test": ["64:ff9b::a9fe:a9fe"],
  "mixed.test": ["93.184.216.34", "192.168.0.1"],
  "v6loop.test": ["::1"],
  "public.test": ["93.184.216.34"],
  "public6.test": ["2606:4700:4700::1111"],
};
const stubResolver: Resolver = async (host) => {
  const answer = ANSWERS[host];
  if (!answer) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
  return answer;
};

const REFUSED_NAMES = [
  `http://loopback.test:${P}/hook`,
  `http://mapped.test:${P}/hook`,
  "http://metadata.test/latest/meta-data",
  "http://private.test/hook",
  "https://ula.test/hook",
  "http://nat64.test/",
  "https://mixed.test/hook",
  `http://v6loop.test:${P}/`,
];
// Private by name alone, no DNS needed.
const REFUSED_BY_NAME = [`http://localhost:${P}/`, `http://api.localhost:${P}/`, "http://metadata.google.internal/computeMetadata/v1/", "http://localhost./"];

const ACCEPTED_LITERALS = ["http://8.8.8.8/hook", "https://[2606:4700:4700::1111]/hook", "http://[::ffff:8.8.8.8]/hook", "https://1.1.1.1:8443/x"];
const ACCEPTED_NAMES = ["https://public.test/hook", "https://public6.test/hook", "https://not-yet-in-dns.test/hook"];

test("the refusal table is broad: at least 40 destinations", () => {
  expect(REFUSED_LITERALS.length + REFUSED_NAMES.length + REFUSED_BY_NAME.length).toBeGreaterThanOrEqual(40);
});

function expectRefusal(url: string, res: { status: number; body: any }) {
  expect({ url, status: res.status }).toEqual({ url, status: 400 });
  expect(res.body).toEqual({ success: false, error: { code: "invalid_url", message: expect.any(String) } });
}

describe("creation through HTTP (real server, WEBHOOK_ALLOW_PRIVATE unset)", () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  let api: ReturnType<typeof apiClient>;
  let routesOnly: ReturnType<typeof Bun.serve>;
  let stubbedApi: ReturnType<typeof apiClient>;
  let token: string;
  let db: ServerDb;
  beforeAll(async () => {
    server = await testServer();
    db = await serverDb(server);
    const signed = await signedUpClient(server.url, server.secrets.anonKey);
    token = signed.session.access_token;
    api = apiClient(server.url, token);
    // The app wires no resolver at creation, so names are resolved here on the same routes and
    // service, with the real caller resolution and the /api error shape, over a socket.
    const webhooks = createWebhookService({ store: storesFor(server.backend).webhooks, allowPrivate: false, wake: () => {}, resolve: stubResolver });
    const app = new Elysia().onError(({ error }) => errorResponse(toAppError(error), "api")).use(webhookRoutes({ webhooks, callers: server.app.callers }));
    routesOnly = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => app.handle(request) });
    stubbedApi = apiClient(`http://127.0.0.1:${routesOnly.port}`, signed.session.access_token);
  });
  afterAll(async () => {
    routesOnly.stop(true);
    await db.close();
    await server.stop();
  });
  const count = () => countOf(db, "SELECT count(*) AS n FROM webhook_endpoints");

  test.each([...REFUSED_LITERALS, ...REFUSED_BY_NAME])("POST %s → 400", async (url) => {
    const before = await count();
    expectRefusal(url, await api.call("POST", "/api/webhooks", { url }));
    expect(await count()).toBe(before);
  });

  test.each(ACCEPTED_LITERALS)("POST %s → 200 (a public address is accepted)", async (url) => {
    const res = await api.call("POST", "/api/webhooks", { url });
    expect(res.status).toBe(200);
    expect(res.body.endpoint.url).toBe(new URL(url).href);
  });

  test("PATCH cannot retarget an endpoint to any of them", async () => {
    const created = await api.call("POST", "/api/webhooks", { url: "https://hooks.example.com/ok" });
    expect(created.status).toBe(200);
    for (const url of [...REFUSED_LITERALS, ...REFUSED_BY_NAME]) expectRefusal(url, await api.call("PATCH", `/api/webhooks/${created.body.endpoint.id}`, { url }));
    expect((await api.call("GET", `/api/webhooks/${created.body.endpoint.id}`)).body.endpoint.url).toBe("https://hooks.example.com/ok");
  });

  test.each(REFUSED_NAMES)("POST %s → 400 (the name resolves to a private address)", async (url) => {
    expectRefusal(url, await stubbedApi.call("POST", "/api/webhooks", { url }));
  });

  test.each(ACCEPTED_NAMES)("POST %s → 200 (public, or not resolvable yet)", async (url) => {
    expect((await stubbedApi.call("POST", "/api/webhooks", { url })).status).toBe(200);
  });

  test("PATCH to a name that resolves to a private address → 400", async () => {
    const created = await stubbedApi.call("POST", "/api/webhooks", { url: "https://public.test/hook" });
    for (const url of REFUSED_NAMES) expectRefusal(url, await stubbedApi.call("PATCH", `/api/webhooks/${created.body.endpoint.id}`, { url }));
  });

  test("a PATCH or a test racing a DELETE answers 404 or 409 in the /api shape, never a 500", async () => {
    const real = storesFor(server.backend).webhooks;
    // The endpoint goes between the service's read and its write, as a DELETE at that moment would make it.
    const racing = { ...real, updateEndpoint: async (input: Parameters<typeof real.updateEndpoint>[0]) => (await real.deleteEndpoint(input.id), real.updateEndpoint(input)) };
    const disabling = { ...real, recordEvent: async (input: Parameters<typeof real.recordEvent>[0]) => (await real.deleteEndpoint(input.onlyEndpointId!), real.recordEvent(input)) };
    const serve = (store: typeof real) => {
      const webhooks = createWebhookService({ store, allowPrivate: false, wake: () => {}, resolve: stubResolver });
      const app = new Elysia().onError(({ error }) => errorResponse(toAppError(error), "api")).use(webhookRoutes({ webhooks, callers: server.app.callers }));
      return Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => app.handle(request) });
    };
    for (const [store, method, path, status, code] of [
      [racing, "PATCH", "", 404, "not_found"],
      [disabling, "POST", "/test", 409, "endpoint_disabled"],
    ] as const) {
      const created = await api.call("POST", "/api/webhooks", { url: "https://hooks.example.com/race" });
      const routes = serve(store);
      try {
        const client = apiClient(`http://127.0.0.1:${routes.port}`, token);
        const res = await client.call(method, `/api/webhooks/${created.body.endpoint.id}${path}`, method === "PATCH" ? { description: "x" } : undefined);
        expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
      } finally {
        routes.stop(true);
      }
    }
  });

  test("the listener on 127.0.0.1 heard nothing", () => {
    expect(sink.hits).toEqual([]);
  });
});

/** A database with one organization whose endpoints point at `urls`, and a deliverer over it. */
function deliveryBed(urls: string[], options: { allowPrivate: boolean; resolve: Resolver; fetch?: typeof fetch; timeoutMs?: number }) {
  const dbh = openDatabase(join(tempDir("aw-ssrf-"), DB_FILE));
  const sqlite: Database = dbh.sqlite;
  const orgId = crypto.randomUUID();
  sqlite.query("INSERT INTO organizations (id, name, slug) VALUES (?, 'Org', ?)").run(orgId, `org-${orgId}`);
  // Rows are written directly: these URLs would not pass creation, but older rows or a changed DNS can hold them.
  const ids = urls.map(
    (url) => (sqlite.query("INSERT INTO webhook_endpoints (organization_id, url, secret) VALUES (?, ?, ?) RETURNING id").get(orgId, url, newSecret()) as { id: string }).id,
  );
  sqlite.transaction(() => recordEvent(sqlite, { organizationId: orgId, brandId: null, type: "webhook.test", data: { n: 1 } }, new Date().toISOString())).immediate();
  const deliverer = createDeliverer({
    store: createSqliteWebhookStore(sqlite),
    logger: createLogger("silent"),
    allowPrivate: options.allowPrivate,
    retryScheduleMs: [60_000],
    timeoutMs: options.timeoutMs ?? 3000,
    resolve: options.resolve,
    fetch: options.fetch,
    pollMs: 20,
    concurrency: 16,
  });
  const rows = () =>
    sqlite.query("SELECT e.url, d.status, d.attempts, d.last_status, d.last_error FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id").all() as {
      url: string;
      status: string;
      attempts: number;
      last_status: number | null;
      last_error: string | null;
    }[];
  return {
    ids,
    rows,
    async settled(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (rows().some((r) => r.attempts === 0)) {
        if (Date.now() > deadline) throw new Error(`deliveries not attempted: ${JSON.stringify(rows())}`);
        await Bun.sleep(20);
      }
      return rows();
    },
    async close() {
      await deliverer.stop();
      dbh.sqlite.close();
    },
  };
}

/** A fetch that records every call and passes it on to the real fetch (which can only reach 127.0.0.1 here). */
function spyFetch() {
  const calls: string[] = [];
  const spy = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push(String(input instanceof Request ? input.url : input));
    return fetch(input, init);
  }) as typeof fetch;
  return { calls, spy };
}

describe("delivery refuses the same destinations without connecting", () => {
  const urls = [...REFUSED_LITERALS, ...REFUSED_NAMES, ...REFUSED_BY_NAME];
  const { calls, spy } = spyFetch();
  let results: Map<string, ReturnType<ReturnType<typeof deliveryBed>["rows"]>[number]>;
  let bed: ReturnType<typeof deliveryBed>;
  beforeAll(async () => {
    bed = deliveryBed(urls, { allowPrivate: false, resolve: stubResolver, fetch: spy });
    results = new Map((await bed.settled()).map((r) => [r.url, r]));
  });
  afterAll(() => bed.close());

  test.each(urls)("%s → failed at once, with a reason", (url) => {
    const row = results.get(url);
    // Failed on the first attempt (no retry: a refusal is final), no HTTP status: nothing answered.
    expect(row).toMatchObject({ status: "failed", attempts: 1, last_status: null });
    expect(row!.last_error).toMatch(/is not a globally reachable address|resolves to an address that is not globally reachable|must not point at/);
  });

  test("fetch was never called and the listener on 127.0.0.1 heard nothing", () => {
    expect(results.size).toBe(urls.length);
    expect(calls).toEqual([]);
    expect(sink.hits).toEqual([]);
  });
});

describe("delivery connects to the address it checked", () => {
  test("a public name is sent to the resolved address, with its own Host and TLS server name", async () => {
    const seen: { url: string; host: string | null; tls: unknown }[] = [];
    // Stands in for the Internet: records the request, answers 200, opens no socket.
    const internet = (async (input: string | URL, init?: RequestInit & { tls?: unknown }) => {
      seen.push({ url: String(input), host: new Headers(init?.headers).get("host"), tls: init?.tls });
      return new Response(null, { status: 200 });
    }) as typeof fetch;
    const bed = deliveryBed(["https://public.test/hook?a=1", "http://public6.test:8080/x"], { allowPrivate: false, resolve: stubResolver, fetch: internet });
    try {
      expect((await bed.settled()).map((r) => r.status)).toEqual(["delivered", "delivered"]);
      expect(seen.sort((a, b) => a.url.localeCompare(b.url))).toEqual([
        { url: "http://[2606:4700:4700::1111]:8080/x", host: "public6.test:8080", tls: undefined },
        { url: "https://93.184.216.34/hook?a=1", host: "public.test", tls: { serverName: "public.test" } },
      ]);
    } finally {
      await bed.close();
    }
  });

  test("with several checked answers, the next one is tried only when no connection was made", async () => {
    const dual: Resolver = async (host) => (host.endsWith("dual.test") ? ["2606:4700:4700::1111", "93.184.216.34"] : Promise.reject(new Error("ENOTFOUND")));
    const tried: string[] = [];
    // The IPv6 address refuses connections; a reset on reset.dual.test may come after the body was sent.
    const internet = (async (input: string | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      tried.push(`${new Headers(init?.headers).get("host")} ${url.hostname}`);
      if (url.hostname.startsWith("[")) throw Object.assign(new Error(url.port === "81" ? "reset" : "refused"), { code: url.port === "81" ? "ECONNRESET" : "ECONNREFUSED" });
      return new Response(null, { status: 204 });
    }) as typeof fetch;
    const bed = deliveryBed(["http://dual.test/hook", "http://reset.dual.test:81/hook"], { allowPrivate: false, resolve: dual, fetch: internet });
    try {
      const rows = new Map((await bed.settled()).map((r) => [r.url, r]));
      expect(rows.get("http://dual.test/hook")).toMatchObject({ status: "delivered", last_status: 204 });
      expect(rows.get("http://reset.dual.test:81/hook")).toMatchObject({ status: "pending", attempts: 1, last_error: "reset" });
      expect(tried.sort()).toEqual(["dual.test 93.184.216.34", "dual.test [2606:4700:4700::1111]", "reset.dual.test:81 [2606:4700:4700::1111]"]);
    } finally {
      await bed.close();
    }
  });

  test("DNS rebinding: a name that answers public for the check and 127.0.0.1 afterwards never reaches 127.0.0.1", async () => {
    let lookups = 0;
    const rebinding: Resolver = async (host) => {
      if (host !== "rebind.test") throw new Error(`ENOTFOUND ${host}`);
      return ++lookups === 1 ? ["93.184.216.34"] : ["127.0.0.1"];
    };
    const publicHits: string[] = [];
    // A network whose DNS is the rebinding resolver: a URL that still names the host is looked up
    // again (and lands on the listener); 127.0.0.1 is real; other addresses are the Internet.
    const network = (async (input: string | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      if (url.hostname === "rebind.test") url.hostname = (await rebinding(url.hostname))[0]!;
      if (url.hostname === "127.0.0.1") return fetch(url, init);
      publicHits.push(`${url.href} Host=${new Headers(init?.headers).get("host")}`);
      return new Response(null, { status: 200 });
    }) as typeof fetch;
    const bed = deliveryBed([`http://rebind.test:${P}/hook`], { allowPrivate: false, resolve: rebinding, fetch: network });
    try {
      expect((await bed.settled())[0]).toMatchObject({ status: "delivered", attempts: 1, last_status: 200 });
      expect(lookups).toBe(1);
      expect(publicHits).toEqual([`http://93.184.216.34:${P}/hook Host=rebind.test:${P}`]);
      expect(sink.hits).toEqual([]);
    } finally {
      await bed.close();
    }
  });

  test("http: the request arrives at the checked address with Host: hook.test:PORT (private allowed, real socket)", async () => {
    const receiver = startSink();
    let lookups = 0;
    const resolve: Resolver = async (host) => {
      lookups++;
      if (host !== "hook.test") throw new Error(`ENOTFOUND ${host}`);
      return ["127.0.0.1"];
    };
    const bed = deliveryBed([`http://hook.test:${receiver.port}/hook?x=1`], { allowPrivate: true, resolve });
    try {
      expect((await bed.settled())[0]).toMatchObject({ status: "delivered", attempts: 1, last_status: 200 });
      expect(receiver.hits).toEqual([{ host: `hook.test:${receiver.port}`, path: "/hook?x=1" }]);
      expect(lookups).toBe(1);
    } finally {
      await bed.close();
      receiver.stop();
    }
  });

  test("https: SNI and the certificate check use the original name while the socket goes to the checked address", async () => {
    // The server picks its certificate by SNI: hook.test's only when the client names hook.test;
    // otherwise a fallback certificate the client does not trust.
    const tlsServer = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      tls: [
        { key: FALLBACK_TEST.key, cert: FALLBACK_TEST.cert },
        { serverName: "hook.test", key: HOOK_TEST.key, cert: HOOK_TEST.cert },
      ],
      fetch: (request) => new Response(request.headers.get("host"), { status: 200 }),
    });
    const hosts: (string | null)[] = [];
    // The deliverer's own fetch options (the pinned URL, serverName) plus trust in the test certificate.
    const trusting = (async (input: string | URL, init?: RequestInit & { tls?: Record<string, unknown> }) => {
      hosts.push(new Headers(init?.headers).get("host"));
      return fetch(input, { ...init, tls: { ...init?.tls, ca: HOOK_TEST.cert } } as RequestInit);
    }) as typeof fetch;
    const resolve: Resolver = async (host) => (host === "hook.test" || host === "other.test" ? ["127.0.0.1"] : Promise.reject(new Error("ENOTFOUND")));
    const port = tlsServer.port;
    const bed = deliveryBed([`https://hook.test:${port}/hook`, `https://other.test:${port}/hook`], { allowPrivate: true, resolve, fetch: trusting });
    try {
      const rows = new Map((await bed.settled()).map((r) => [r.url, r]));
      expect(rows.get(`https://hook.test:${port}/hook`)).toMatchObject({ status: "delivered", last_status: 200 });
      // other.test gets the fallback certificate: verification is not skipped for a pinned address.
      expect(rows.get(`https://other.test:${port}/hook`)).toMatchObject({ status: "pending", attempts: 1, last_status: null });
      expect(rows.get(`https://other.test:${port}/hook`)!.last_error).toMatch(/cert|self.signed|SELF_SIGNED/i);
      expect(hosts.sort()).toEqual([`hook.test:${port}`, `other.test:${port}`]);
    } finally {
      await bed.close();
      tlsServer.stop(true);
    }
  });
});

test("through the compiled binary, POST /api/webhooks refuses mapped, NAT64, 6to4 and short forms of private addresses", async () => {
  // On the Postgres run the binary keeps its data in a database of the test cluster, as a deployment on DATABASE_URL would.
  const bin = await startBinary(TEST_BACKEND === "postgres" ? { DATABASE_URL: await (await testPostgres())!.createDatabase("ssrf-binary") } : {});
  try {
    const anonKey = bin.output().match(/anon key:\s+(\S+)/)![1];
    const signup = await (
      await fetch(`${bin.url}/auth/v1/signup`, { method: "POST", headers: { apikey: anonKey!, "content-type": "application/json" }, body: JSON.stringify({ email: "ssrf@example.com", password: "ssrf-pass-1" }) })
    ).json();
    const api = apiClient(bin.url, signup.access_token);
    for (const url of [`http://[::ffff:127.0.0.1]:${P}/`, "http://[::ffff:a9fe:a9fe]/", "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://192.0.0.192/", `http://0x7f.1:${P}/`])
      expectRefusal(url, await api.call("POST", "/api/webhooks", { url }));
    expect((await api.call("POST", "/api/webhooks", { url: "http://8.8.8.8/hook" })).status).toBe(200);
    expect(sink.hits).toEqual([]);
  } finally {
    bin.proc.kill("SIGTERM");
    await bin.proc.exited;
  }
}, 60_000);

// Self-signed test certificates (P-256, valid until 2126) for the SNI test above; test-only keys.
const HOOK_TEST = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg7Z3SjXnttEYhBT8n
vkfu4v8lDo9EgijzMh5vroGZmL6hRANCAARryuHNDvHgzB2QawHkHEA+r0r/NlZu
vhpq+YJ/TbBt0tJ4XEIHAGvfLH1skIO4nuuShBwEAFhDnNUsAmRCynKv
-----END PRIVATE KEY-----`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBljCCATugAwIBAgIUCNAqAFZuXg/vsCViq8D2ASbbKxwwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJaG9vay50ZXN0MCAXDTI2MTEyMzIxMTAwNloYDzIxMjYxMDMw
MjExMDA2WjAUMRIwEAYDVQQDDAlob29rLnRlc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARryuHNDvHgzB2QawHkHEA+r0r/NlZuvhpq+YJ/TbBt0tJ4XEIHAGvf
LH1skIO4nuuShBwEAFhDnNUsAmRCynKvo2kwZzAdBgNVHQ4EFgQUZgVsjEFnGbwK
6h0sbvnGAtX6mPgwHwYDVR0jBBgwFoAUZgVsjEFnGbwK6h0sbvnGAtX6mPgwDwYD
VR0TAQH/BAUwAwEB/zAUBgNVHREEDTALgglob29rLnRlc3QwCgYIKoZIzj0EAwID
SQAwRgIhANPLD/luyACzSTw1ahLKanXis69oaH2y2rf4SWESrjB8AiEAqnJRSDJW
2EBWlrXjGaiogKtSSZjJokEqnyWYUv8Tlkg=
-----END CERTIFICATE-----`,
};
const FALLBACK_TEST = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg5e3QCPG1k/PHnlPa
JnfAGnzD8oylFfyRkW3di3ywd76hRANCAASOsavtn01nn0inqKI976bp6C2EhQPI
ph7wuTkyhd6fGLJr4gloPGyt3mqsjzyCUSYoBV4Pe3bqGg+b6ao6oIyC
-----END PRIVATE KEY-----`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBoTCCAUegAwIBAgIULdxpvz84vfX+fLzEjjcaac7Yuy0wCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNZmFsbGJhY2sudGVzdDAgFw0yNjExMjMyMTEwMDZaGA8yMTI2
MTAzMDIxMTAwNlowGDEWMBQGA1UEAwwNZmFsbGJhY2sudGVzdDBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABI6xq+2fTWefSKeooj3vpunoLYSFA8imHvC5OTKF3p8Y
smviCWg8bK3eaqyPPIJRJigFXg97duoaD5vpqjqgjIKjbTBrMB0GA1UdDgQWBBSD
D62+acAV07ABGPE60wJ8Elbu9TAfBgNVHSMEGDAWgBSDD62+acAV07ABGPE60wJ8
Elbu9TAPBgNVHRMBAf8EBTADAQH/MBgGA1UdEQQRMA+CDWZhbGxiYWNrLnRlc3Qw
CgYIKoZIzj0EAwIDSAAwRQIhAM8gfuApzJRnotXKZCxwJ3B5sQzl3z1K13OSIWIj
ToSwAiBpM4Ljw1J7kTlj3KSu+cM5PuROK5bShzhzvK8447cn/A==
-----END CERTIFICATE-----`,
};
