// backends: sqlite, postgres
// POST /t/collect and GET /t.js through the app (in process, with a peer address and an injected
// clock): what is accepted, what is refused, what a stored row holds, and what never is stored.
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../src/database";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Harness } from "../contracts/harness";
import { TEST_BACKEND, testClock, testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { CHROME_UA, beaconJson, seedBrandIn, trafficRowsIn, type SeededBrand } from "./fixtures";

const clock = testClock();
let server: Awaited<ReturnType<typeof testServer>>;
let acme: SeededBrand;
let db: Harness;
let peerCounter = 0;

beforeAll(async () => {
  server = await testServer({}, { now: clock.now });
  db = await serverDb(server);
  acme = await seedBrandIn(db, { domains: ["acme.com", "acme-shop.de"] });
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

interface Send {
  body?: string | Record<string, unknown>;
  origin?: string | null;
  userAgent?: string | null;
  peer?: string;
  headers?: Record<string, string>;
}

/** One beacon through the app; each from its own peer address unless told, so the limit stays out of the way. */
function send(options: Send = {}): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "text/plain;charset=UTF-8", ...options.headers };
  const origin = options.origin === undefined ? "https://www.acme.com" : options.origin;
  if (origin !== null) headers.origin = origin;
  const userAgent = options.userAgent === undefined ? CHROME_UA : options.userAgent;
  if (userAgent !== null) headers["user-agent"] = userAgent;
  const body = typeof options.body === "string" ? options.body : beaconJson({ brand: acme.trackingCode, url: "https://www.acme.com/pricing", ...options.body });
  const request = new Request("http://localhost/t/collect", { method: "POST", headers, body });
  return server.app.handle(request, options.peer ?? `203.0.113.${peerCounter++ % 250}`);
}

const count = async () => (await trafficRowsIn(db, acme.brandId)).length;

/**
 * Everything the database keeps, as text, by where it is kept: on SQLite the database files' bytes;
 * on Postgres every row of every table (the cluster's files are not the test's to read).
 */
async function storedText(): Promise<[string, string][]> {
  if (server.backend.kind === "sqlite") {
    const dir = join(server.backend.dbPath, "..");
    const out: [string, string][] = [];
    for (const file of ["answerwatch.db", "answerwatch.db-wal"]) {
      try {
        out.push([file, readFileSync(join(dir, file), "latin1")]);
      } catch {
        continue;
      }
    }
    return out;
  }
  const tables = await db.inspect<{ name: string }>(
    "SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'",
  );
  const out: [string, string][] = [];
  for (const { name } of tables) out.push([name, (await db.inspect<{ text: string | null }>(`SELECT string_agg(t::text, ' ') AS text FROM ${name} t`))[0]?.text ?? ""]);
  return out;
}

describe("accepted beacons", () => {
  test("an AI visit from a registered origin is stored with its classification, and 204 echoes the origin", async () => {
    // Ten days ahead of the real clock, so a row stamped by anything but the injected clock shows.
    clock.advance(10 * 86_400_000);
    const before = clock.now().toISOString();
    const res = await send({
      body: {
        url: "https://www.acme.com/pricing?utm_source=chatgpt.com&email=jane@example.com#plans",
        referrer: "https://chatgpt.com/c/abc-123?q=secret",
        language: "de-DE",
        screen: "390x844",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://www.acme.com");
    const row = (await trafficRowsIn(db, acme.brandId)).at(-1)!;
    expect(row).toMatchObject({
      brand_id: acme.brandId,
      // Only utm_* parameters survive: other query values may be personal.
      url: "https://www.acme.com/pricing?utm_source=chatgpt.com",
      path: "/pricing",
      // The referrer is kept only as its host.
      referrer_host: "chatgpt.com",
      source_platform: "ChatGPT",
      utm_source: "chatgpt.com",
      language: "de-DE",
      screen: "390x844",
      user_agent_family: "Chrome",
    });
    expect(row.visitor_hash).toMatch(/^[0-9a-f]{32}$/);
    // The injected clock stamps the row.
    expect(row.created_at as string >= before && (row.created_at as string) <= clock.now().toISOString()).toBe(true);
  });

  test("a 204 means committed: the row is visible at once to another connection", async () => {
    // Another connection than the server's: on SQLite a read-only one on the file, on Postgres the
    // harness' own pool.
    const other = server.backend.kind === "sqlite" ? new Database(server.backend.dbPath, { readonly: true }) : null;
    const countOf = async (path: string) =>
      other ? (other.query("SELECT count(*) AS n FROM ai_traffic_logs WHERE path = ?").get(path) as { n: number }) : { n: Number((await db.inspect<{ n: string }>("SELECT count(*) AS n FROM ai_traffic_logs WHERE path = ?", path))[0]!.n) };
    try {
      for (let i = 0; i < 5; i++) {
        const res = await send({ body: { url: `https://acme.com/committed/${i}` } });
        expect(res.status).toBe(204);
        expect(await countOf(`/committed/${i}`)).toEqual({ n: 1 });
      }
    } finally {
      other?.close();
    }
  });

  test("a visit with no AI source is stored without a platform (the denominator of the report)", async () => {
    const res = await send({ body: { url: "https://acme.com/blog", referrer: "https://www.google.com/" } });
    expect(res.status).toBe(204);
    expect((await trafficRowsIn(db, acme.brandId)).at(-1)).toMatchObject({ path: "/blog", source_platform: null, referrer_host: "google.com" });
  });

  test("subdomains of a registered domain, any case and any port, are accepted", async () => {
    for (const origin of ["https://acme.com", "https://shop.acme.com", "https://A.B.ACME.COM", "http://acme.com:8080", "https://acme-shop.de", "https://acme.com."]) {
      const res = await send({ origin, body: { url: `${origin}/` } });
      expect({ origin, status: res.status }).toEqual({ origin, status: 204 });
    }
  });

  test("any content type is read as the beacon's JSON (sendBeacon sends text/plain, other clients JSON)", async () => {
    const before = await count();
    for (const type of ["application/json", "text/plain", "application/x-www-form-urlencoded", "application/octet-stream"])
      expect({ type, status: (await send({ headers: { "content-type": type }, body: { url: `https://acme.com/type/${type}` } })).status }).toEqual({ type, status: 204 });
    expect(await count()).toBe(before + 4);
  });

  test("concurrent beacons are all stored (one group commit for many)", async () => {
    const before = await count();
    const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => send({ body: { url: `https://acme.com/burst/${i}` } })));
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(204));
    expect(await count()).toBe(before + 200);
  });
});

describe("refused beacons store nothing", () => {
  const cases: [string, Send, number, string][] = [
    ["look-alike suffix origin", { origin: "https://acme.com.evil.io" }, 403, "origin_not_allowed"],
    ["look-alike prefix origin", { origin: "https://notacme.com" }, 403, "origin_not_allowed"],
    ["other TLD", { origin: "https://acme.co" }, 403, "origin_not_allowed"],
    ["missing Origin", { origin: null }, 403, "origin_not_allowed"],
    ["opaque origin", { origin: "null" }, 403, "origin_not_allowed"],
    ["origin with a path", { origin: "https://acme.com/evil" }, 403, "origin_not_allowed"],
    ["origin with credentials", { origin: "https://acme.com@evil.io" }, 403, "origin_not_allowed"],
    ["non-web scheme", { origin: "ftp://acme.com" }, 403, "origin_not_allowed"],
    ["page URL off the brand's domains", { body: { url: "https://evil.io/" } }, 403, "url_not_allowed"],
    ["unknown tracking code", { body: { brand: "aw_unknown" } }, 404, "unknown_tracking_code"],
    ["bad JSON", { body: "{not json" }, 400, "bad_json"],
    ["JSON array", { body: "[1,2]" }, 400, "invalid_beacon"],
    ["JSON null", { body: "null" }, 400, "invalid_beacon"],
    ["empty body", { body: "" }, 400, "bad_json"],
    ["brand of the wrong type", { body: { brand: 42 } }, 400, "invalid_beacon"],
    ["brand with odd characters", { body: { brand: "aw_x'; DROP TABLE brands;--" } }, 400, "invalid_beacon"],
    ["url missing", { body: { url: "" } }, 400, "invalid_beacon"],
    ["url not a URL", { body: { url: "not a url" } }, 400, "invalid_beacon"],
    ["url with a script scheme", { body: { url: "javascript:alert(1)" } }, 400, "invalid_beacon"],
    ["url of the wrong type", { body: { url: ["https://acme.com/"] } }, 400, "invalid_beacon"],
    ["url too long", { body: { url: `https://acme.com/${"a".repeat(3000)}` } }, 400, "invalid_beacon"],
    // Within 2,048 characters, but ~17 KB once parsing percent-encodes it: past a database index's
    // limit (on Postgres such a row failed every beacon committed with it).
    ["url path of another script too long once encoded", { body: { url: `https://acme.com/${Array.from({ length: 1900 }, (_, i) => String.fromCharCode(0x4e00 + i)).join("")}` } }, 400, "invalid_beacon"],
    ["referrer not a URL", { body: { referrer: "nope" } }, 400, "invalid_beacon"],
    ["language not a tag", { body: { language: "<script>" } }, 400, "invalid_beacon"],
    ["screen not WxH", { body: { screen: "big" } }, 400, "invalid_beacon"],
    ["screen of the wrong type", { body: { screen: 1280 } }, 400, "invalid_beacon"],
    ["dnt of the wrong type", { body: { dnt: "yes" } }, 400, "invalid_beacon"],
  ];
  for (const [name, options, status, code] of cases) {
    test(`${name} → ${status} ${code}`, async () => {
      const before = await count();
      const res = await send(options);
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({ success: false, error: { code } });
      expect(await count()).toBe(before);
    });
  }

  test("a body over 8 KB → 413, with or without a Content-Length", async () => {
    const before = await count();
    const big = beaconJson({ brand: acme.trackingCode, url: "https://acme.com/", language: "en", screen: "1x1" }).replace("}", `,"pad":"${"x".repeat(9000)}"}`);
    expect((await send({ body: big })).status).toBe(413);
    const res = await fetch(`${server.url}/t/collect`, {
      method: "POST",
      headers: { origin: "https://acme.com", "user-agent": CHROME_UA, "x-forwarded-for": "198.51.100.7" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      }),
    });
    expect(res.status).toBe(413);
    expect(await count()).toBe(before);
  });

  test("a chunked body is refused once past 8 KB, not read to its end first (the request's cap was 1 MiB)", async () => {
    let pulled = 0;
    const chunk = new TextEncoder().encode("x".repeat(8192));
    const res = await fetch(`${server.url}/t/collect`, {
      method: "POST",
      headers: { origin: "https://acme.com", "user-agent": CHROME_UA, "x-forwarded-for": "198.51.100.7" },
      body: new ReadableStream({
        async pull(controller) {
          if (pulled++ >= 100) return controller.close();
          await Bun.sleep(5);
          controller.enqueue(chunk);
        },
      }),
    });
    expect(res.status).toBe(413);
    // 100 chunks (800 KB) on offer; the answer came after the first few.
    expect(pulled).toBeLessThan(30);
  });

  test("bots and crawlers get 204 but are not counted as visits", async () => {
    const before = await count();
    for (const ua of [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
      "curl/8.5.0",
      "",
      null,
    ]) {
      const res = await send({ userAgent: ua, body: { url: "https://acme.com/?utm_source=chatgpt.com" } });
      expect({ ua, status: res.status }).toEqual({ ua, status: 204 });
    }
    expect(await count()).toBe(before);
  });
});

describe("privacy", () => {
  test("Do-Not-Track and Global Privacy Control drop the visit for a brand that respects them, not for others", async () => {
    const careful = await seedBrandIn(db, { domains: ["careful.example"], respectDnt: true });
    const beacon = (extra: object) => ({ body: { brand: careful.trackingCode, url: "https://careful.example/", ...extra }, origin: "https://careful.example" });
    expect((await send(beacon({ dnt: true }))).status).toBe(204);
    expect((await send({ ...beacon({}), headers: { dnt: "1" } })).status).toBe(204);
    expect((await send({ ...beacon({}), headers: { "sec-gpc": "1" } })).status).toBe(204);
    expect(await trafficRowsIn(db, careful.brandId)).toHaveLength(0);
    expect((await send(beacon({ dnt: false }))).status).toBe(204);
    expect(await trafficRowsIn(db, careful.brandId)).toHaveLength(1);

    const before = await count();
    expect((await send({ body: { url: "https://acme.com/dnt", dnt: true } })).status).toBe(204);
    expect(await count()).toBe(before + 1);
  });

  test("no raw IP anywhere in the database files; the visitor hash is stable within a day and changes the next day", async () => {
    const hashOf = async (peer: string, forwarded?: string) => {
      const path = `/hash/${crypto.randomUUID()}`;
      const res = await send({ peer, body: { url: `https://acme.com${path}` }, headers: forwarded ? { "x-forwarded-for": forwarded } : {} });
      expect(res.status).toBe(204);
      return (await trafficRowsIn(db, acme.brandId)).find((r) => r.path === path)!.visitor_hash as string;
    };
    const first = await hashOf("198.51.100.23");
    expect(await hashOf("198.51.100.23")).toBe(first);
    // Behind a reverse proxy on loopback the visitor is the forwarded address, not the proxy.
    expect(await hashOf("127.0.0.1", "198.51.100.23")).toBe(first);
    expect(await hashOf("198.51.100.24")).not.toBe(first);
    const other = await seedBrandIn(db, { domains: ["other.example"] });
    const res = await send({ peer: "198.51.100.23", origin: "https://other.example", body: { brand: other.trackingCode, url: "https://other.example/" } });
    expect(res.status).toBe(204);
    expect((await trafficRowsIn(db, other.brandId))[0]!.visitor_hash).not.toBe(first);

    clock.advance(24 * 3600_000);
    const nextDay = await hashOf("198.51.100.23");
    expect(nextDay).not.toBe(first);
    expect(await hashOf("198.51.100.23")).toBe(nextDay);

    for (const [file, bytes] of await storedText()) {
      for (const ip of ["198.51.100.23", "198.51.100.24", "203.0.113.1"]) expect({ file, ip, found: bytes.includes(ip) }).toEqual({ file, ip, found: false });
    }
  });
});

describe("limits and caching", () => {
  test("at most 600 beacons per client address per minute; the window slides", async () => {
    const peer = "192.0.2.99";
    const statuses: number[] = [];
    for (let i = 0; i < 601; i++) statuses.push((await send({ peer, body: { url: "https://acme.com/limit" } })).status);
    expect(statuses.slice(0, 600).every((s) => s === 204)).toBe(true);
    const limited = await send({ peer });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(statuses[600]).toBe(429);
    // Another address is not affected; the same one is welcome again a minute later.
    expect((await send({ peer: "192.0.2.100" })).status).toBe(204);
    clock.advance(61_000);
    expect((await send({ peer })).status).toBe(204);
  });

  test("IPv6 clients are limited by their /64: 600 beacons from as many addresses of one /64, then 429; another /64 is not affected", async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 601; i++) statuses.push((await send({ peer: `2001:db8:77:1::${i.toString(16)}`, body: { url: "https://acme.com/limit6" } })).status);
    expect(statuses.slice(0, 600).every((s) => s === 204)).toBe(true);
    expect(statuses[600]).toBe(429);
    expect((await send({ peer: "2001:db8:77:2::1" })).status).toBe(204);
    clock.advance(61_000);
  });

  test("a domain added to a brand is honoured once the brand cache entry expires (30 s)", async () => {
    const brand = await seedBrandIn(db, { domains: ["first.example"] });
    const beacon = { origin: "https://second.example", body: { brand: brand.trackingCode, url: "https://second.example/" } };
    expect((await send(beacon)).status).toBe(403);
    await db.inspect("INSERT INTO brand_domains (brand_id, domain) VALUES (?, ?)", brand.brandId, "second.example");
    expect((await send(beacon)).status).toBe(403);
    clock.advance(31_000);
    expect((await send(beacon)).status).toBe(204);
  });
});

describe("CORS and the script", () => {
  test("the beacon's preflight is answered by the pixel for any web origin, not by the generic CORS rule", async () => {
    const res = await server.app.handle(
      new Request("http://localhost/t/collect", {
        method: "OPTIONS",
        headers: { origin: "https://shop.acme.com", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      }),
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.acme.com");
    expect(res.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect(res.headers.get("access-control-allow-headers")).toBe("content-type");
    // The generic rule would allow credentials; the beacon never needs them.
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  test("GET /t.js: small JavaScript with a long cache, an ETag and 304 on revalidation", async () => {
    const res = await fetch(`${server.url}/t.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toContain("max-age=86400");
    const body = await res.text();
    expect(new TextEncoder().encode(body).length).toBeLessThanOrEqual(2048);
    expect(body).toContain("sendBeacon");
    expect(body).not.toContain("\n  ");
    expect(() => new Function(body)).not.toThrow();
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-z]+"$/);
    const again = await fetch(`${server.url}/t.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect((await fetch(`${server.url}/t.js`, { headers: { "if-none-match": '"stale"' } })).status).toBe(200);
  });
});

describe("over the socket (native Bun.serve routes)", () => {
  test("a beacon, its preflight and t.js answer over HTTP with x-request-id; other methods get the JSON 404", async () => {
    const res = await fetch(`${server.url}/t/collect`, {
      method: "POST",
      headers: { origin: "https://www.acme.com", "user-agent": CHROME_UA, "content-type": "text/plain", "x-request-id": "beacon-1" },
      body: beaconJson({ brand: acme.trackingCode, url: "https://www.acme.com/socket" }),
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("x-request-id")).toBe("beacon-1");
    expect((await trafficRowsIn(db, acme.brandId)).some((r) => r.path === "/socket")).toBe(true);

    const refused = await fetch(`${server.url}/t/collect`, { method: "POST", headers: { origin: "https://evil.io" }, body: beaconJson({ brand: acme.trackingCode, url: "https://www.acme.com/x" }) });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("origin_not_allowed");

    const preflight = await fetch(`${server.url}/t/collect`, { method: "OPTIONS", headers: { origin: "https://www.acme.com" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");

    const script = await fetch(`${server.url}/t.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("application/javascript");

    const wrongMethod = await fetch(`${server.url}/t/collect`);
    expect(wrongMethod.status).toBe(404);
    expect(((await wrongMethod.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });
});

describe("a database that cannot take the rows", () => {
  // SQLite-only: one writer holding the database's write lock (BEGIN IMMEDIATE) and the busy_timeout
  // wait have no counterpart on Postgres, where writers do not lock the database.
  test.skipIf(TEST_BACKEND === "postgres")("beacons get 503 storage_unavailable after one lock wait, nothing is stored, and the next ones are written", async () => {
    const other = new Database(server.dbh.sqlite.filename);
    registerSqlFunctions(other);
    other.run("BEGIN IMMEDIATE");
    const before = await count();
    let released = false;
    try {
      // The writer waits out its busy_timeout (5 s) once for all of them — not once per row, and
      // not again for the batch that was sent while the first one waited.
      const started = Date.now();
      const first = send({ body: { url: "https://www.acme.com/locked-1" } });
      await Bun.sleep(100);
      const results = await Promise.all([first, ...[2, 3].map((i) => send({ body: { url: `https://www.acme.com/locked-${i}` } }))]);
      expect(results.map((r) => r.status)).toEqual([503, 503, 503]);
      expect((await results[0]!.json()).error.code).toBe("storage_unavailable");
      expect(results[0]!.headers.get("retry-after")).toBe("5");
      // One wait of 5 s; a wait per row or per batch would take 10–15 s.
      expect(Date.now() - started).toBeLessThan(9_000);
      other.run("ROLLBACK");
      released = true;
      expect(await count()).toBe(before);
      expect((await send({ body: { url: "https://www.acme.com/after-lock" } })).status).toBe(204);
      expect(await count()).toBe(before + 1);
    } finally {
      if (!released) other.run("ROLLBACK");
      other.close();
    }
  });
});
