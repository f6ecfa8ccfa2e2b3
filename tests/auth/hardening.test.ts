// backends: sqlite, postgres
// Security issue #14, finding 7, against the compiled binary: sign-up is rate-limited per client
// address; wrong passwords from one address cannot lock the real user out at another; e-mails are
// NFC-normalized and refuse invisible characters everywhere they enter; a token without exp is
// refused even when signed with the real secret; an absurd admin page number is a 400.
// Clients appear at different addresses by binding to different loopback addresses (127.0.0.0/8).
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { registerSqlFunctions } from "../../src/database";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import { join } from "node:path";
import { SignJWT, decodeJwt } from "jose";
import { addressKey } from "../../src/http/rate-limit";
import { backendEnv, tempDir } from "../helpers/app";
import { buildBinary, secretsOf, startBinary, type StartedBinary } from "../helpers/binary";
import { client, uniqueEmail } from "../helpers/supabase";

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

let bin: StartedBinary;
let secrets: { jwt_secret: string; anon_key: string; service_role_key: string };

beforeAll(async () => {
  bin = await startBinary();
  secrets = (await secretsOf(bin)) as typeof secrets;
}, 120_000);
afterAll(() => {
  bin?.proc.kill("SIGKILL");
});

// Every loopback address is a distinct client to the server; each test uses its own.
let nextHost = 10;
const newAddress = () => `127.0.0.${nextHost++}`;

/** One request from the loopback address `from`, with the 2024-01-01 GoTrue error shape. */
function call(method: string, path: string, options: { from: string; body?: unknown; headers?: Record<string, string> }): Promise<Reply> {
  const url = new URL(path, bin.url);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    apikey: secrets.anon_key,
    "x-supabase-api-version": "2024-01-01",
    ...(payload ? { "content-type": "application/json" } : {}),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, localAddress: options.from }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

const signUp = (from: string, email: string, password = "correct-horse") => call("POST", "/auth/v1/signup", { from, body: { email, password } });
const signIn = (from: string, email: string, password: string) => call("POST", "/auth/v1/token?grant_type=password", { from, body: { email, password } });
const serviceHeaders = () => ({ apikey: secrets.service_role_key, authorization: `Bearer ${secrets.service_role_key}` });

function expectGoTrueError(reply: Reply, status: number, code: string) {
  expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
  expect(typeof reply.body.message).toBe("string");
  expect(reply.headers["x-sb-error-code"]).toBe(code);
}

describe("sign-up rate limit", () => {
  test("a burst of 15 sign-ups from one address: 10 (the default per hour) succeed, 5 get 429; another address still signs up", async () => {
    const attacker = newAddress();
    const replies = await Promise.all(Array.from({ length: 15 }, () => signUp(attacker, uniqueEmail("burst"))));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(5).fill(429)]);
    expectGoTrueError(replies.find((r) => r.status === 429)!, 429, "over_request_rate_limit");

    expect((await signUp(newAddress(), uniqueEmail("other"))).status).toBe(200);
  }, 60_000);

  test("behind a local proxy the limit follows the X-Forwarded-For address, and an IPv6 client's whole /64 shares one limit", async () => {
    const proxy = newAddress();
    const viaProxy = (client: string) => call("POST", "/auth/v1/signup", { from: proxy, headers: { "x-forwarded-for": `198.51.100.7, ${client}` }, body: { email: uniqueEmail("proxied"), password: "correct-horse" } });
    for (let i = 1; i <= 10; i++) expect((await viaProxy(`2001:db8:aa:1::${i.toString(16)}`)).status).toBe(200);
    expectGoTrueError(await viaProxy("2001:db8:aa:1:ffff:ffff:ffff:ffff"), 429, "over_request_rate_limit");
    // Another /64 behind the same proxy, and the proxy's own address, are other clients.
    expect((await viaProxy("2001:db8:aa:2::1")).status).toBe(200);
    expect((await signUp(proxy, uniqueEmail("proxy-itself"))).status).toBe(200);
  }, 60_000);
});

test("addressKey: IPv4 as is, IPv6 by its /64 whatever the spelling", () => {
  expect(addressKey("203.0.113.9")).toBe("203.0.113.9");
  const key = addressKey("2001:db8:0:1::1");
  expect(addressKey("2001:0db8:0000:0001:ffff:0:0:1")).toBe(key);
  expect(addressKey("2001:DB8:0:1:2:3:4:5")).toBe(key);
  expect(addressKey("2001:db8:0:2::1")).not.toBe(key);
  expect(addressKey("::1")).toBe(addressKey("::2"));
  expect(addressKey("fe80::1%eth0")).toBe(addressKey("fe80::2"));
});

describe("password attempts are limited per address, not per e-mail", () => {
  test("wrong passwords from one address do not stop the right password from another; the attacker's own address is limited", async () => {
    const victimEmail = uniqueEmail("victim");
    expect((await signUp(newAddress(), victimEmail, "victim-pass")).status).toBe(200);

    const attacker = newAddress();
    for (let i = 0; i < 10; i++) expectGoTrueError(await signIn(attacker, victimEmail, `guess-${i}`), 400, "invalid_credentials");
    // Per (address, e-mail): the 11th attempt from the attacker's address is refused, even with the right password.
    expectGoTrueError(await signIn(attacker, victimEmail, `guess-10`), 429, "over_request_rate_limit");
    expectGoTrueError(await signIn(attacker, victimEmail, "victim-pass"), 429, "over_request_rate_limit");

    // The real user, from their own address, signs in — through the raw API and through supabase-js (127.0.0.1).
    const own = await signIn(newAddress(), victimEmail, "victim-pass");
    expect(own.status).toBe(200);
    expect(own.body.user.email).toBe(victimEmail);
    const viaClient = await client(bin.url, secrets.anon_key).auth.signInWithPassword({ email: victimEmail, password: "victim-pass" });
    expect(viaClient.error).toBeNull();

    // Per address: 50 failures (five times the per-minute limit) across other e-mails stop the attacker's address entirely.
    const sprayer = newAddress();
    for (let e = 0; e < 5; e++) {
      const target = uniqueEmail("spray");
      for (let i = 0; i < 10; i++) expect((await signIn(sprayer, target, `guess-${i}`)).status).toBe(400);
    }
    expectGoTrueError(await signIn(sprayer, uniqueEmail("spray"), "anything"), 429, "over_request_rate_limit");
    expect((await signIn(newAddress(), victimEmail, "victim-pass")).status).toBe(200);
  }, 60_000);
});

describe("e-mail normalization", () => {
  test("NFC and NFD spellings are one account: the second sign-up is 422 user_already_exists, sign-in with the NFD spelling finds the NFC account", async () => {
    const local = `zoë.${Date.now().toString(36)}`;
    const nfc = `${local}@exämple.com`.normalize("NFC");
    const nfd = nfc.normalize("NFD");
    expect(nfd).not.toBe(nfc);
    const from = newAddress();

    const first = await signUp(from, nfc);
    expect(first.status).toBe(200);
    expect(first.body.user.email).toBe(nfc);
    expectGoTrueError(await signUp(from, nfd), 422, "user_already_exists");
    expectGoTrueError(await signUp(from, ` ${nfd.toUpperCase()} `), 422, "user_already_exists");

    const viaNfd = await signIn(from, nfd, "correct-horse");
    expect(viaNfd.status).toBe(200);
    expect(viaNfd.body.user.id).toBe(first.body.user.id);
    const viaClient = await client(bin.url, secrets.anon_key).auth.signInWithPassword({ email: nfd.toUpperCase(), password: "correct-horse" });
    expect(viaClient.error).toBeNull();
    expect(viaClient.data.user?.id).toBe(first.body.user.id);

    // An NFD address is stored NFC, so the NFC spelling signs in too.
    const nfdFirst = `${uniqueEmail("renée")}`.normalize("NFD");
    const created = await signUp(newAddress(), nfdFirst);
    expect(created.status).toBe(200);
    expect(created.body.user.email).toBe(nfdFirst.normalize("NFC"));
    expect((await signIn(newAddress(), nfdFirst.normalize("NFC"), "correct-horse")).status).toBe(200);
  }, 30_000);

  test("an account stored NFD before normalization is still found by either spelling and cannot be registered again", async () => {
    const from = newAddress();
    const placeholder = uniqueEmail("legacy");
    const created = await signUp(from, placeholder);
    expect(created.status).toBe(200);
    const legacy = `noël.${Date.now().toString(36)}@example.com`.normalize("NFD");
    if (bin.databaseUrl) {
      const sql = new SQL(bin.databaseUrl, { max: 1 });
      await sql`UPDATE auth.users SET email = ${legacy} WHERE id = ${created.body.user.id}`;
      await sql.close();
    } else {
      const db = new Database(join(bin.dir, "data", "answerwatch.db"));
      registerSqlFunctions(db);
      db.exec("PRAGMA busy_timeout = 5000");
      db.query("UPDATE users SET email = ? WHERE id = ?").run(legacy, created.body.user.id);
      db.close();
    }

    for (const spelling of [legacy, legacy.normalize("NFC")]) {
      const reply = await signIn(from, spelling, "correct-horse");
      expect({ status: reply.status, id: reply.body.user?.id }).toEqual({ status: 200, id: created.body.user.id });
    }
    expectGoTrueError(await signUp(from, legacy.normalize("NFC")), 422, "user_already_exists");
  }, 30_000);

  const invisible: Record<string, string> = {
    "zero-width space": "\u200B",
    "zero-width joiner": "\u200D",
    "zero-width non-joiner": "\u200C",
    "soft hyphen": "\u00AD",
    "byte-order mark": "\uFEFF",
    "right-to-left override": "\u202E",
    "word joiner": "\u2060",
    "bell (control)": "\u0007",
  };

  test("an e-mail with an invisible or control character is 400 validation_failed on sign-up, sign-in, user update and admin creation, and creates nothing", async () => {
    const owner = uniqueEmail("owner");
    const session = (await signUp(newAddress(), owner)).body;
    expect(session.access_token).toBeString();

    for (const [name, char] of Object.entries(invisible)) {
      const [user, domain] = uniqueEmail("hidden").split("@");
      for (const email of [`${user}${char}@${domain}`, `${char}${user}@${domain}`, `${user}@${domain}${char}`]) {
        const from = newAddress();
        const where = `${name} in ${JSON.stringify(email)}`;
        const up = await signUp(from, email);
        expect({ where, status: up.status, code: up.body.code }).toEqual({ where, status: 400, code: "validation_failed" });
        expect(up.headers["x-sb-error-code"]).toBe("validation_failed");
        const inn = await signIn(from, email, "correct-horse");
        expect({ where, status: inn.status, code: inn.body.code }).toEqual({ where, status: 400, code: "validation_failed" });
        const admin = await call("POST", "/auth/v1/admin/users", { from, headers: serviceHeaders(), body: { email, password: "correct-horse" } });
        expect({ where, status: admin.status, code: admin.body.code }).toEqual({ where, status: 400, code: "validation_failed" });
        const update = await call("PUT", "/auth/v1/user", { from, headers: { authorization: `Bearer ${session.access_token}` }, body: { email } });
        expect({ where, status: update.status, code: update.body.code }).toEqual({ where, status: 400, code: "validation_failed" });
      }
    }

    const listed = await call("GET", "/auth/v1/admin/users?per_page=1000", { from: newAddress(), headers: serviceHeaders() });
    expect(listed.status).toBe(200);
    const emails: string[] = listed.body.users.map((u: { email: string }) => u.email);
    expect(emails.filter((e) => e.includes("hidden"))).toEqual([]);
    expect(emails).toContain(owner);
  }, 60_000);

  test("an address of most of a megabyte (spaces, dots) is 400 at once wherever an address enters, and /healthz keeps answering", async () => {
    // Before: the trimming pattern backtracked over the spaces — ~10 minutes of the serving thread for one anonymous sign-in.
    const spaced = `a${" ".repeat(900_000)}a@example.com`;
    const dotted = `a@${"a.".repeat(450_000)}`;
    const from = newAddress();
    const health = (async () => {
      const started = performance.now();
      const res = await fetch(`${bin.url}/healthz`);
      return { status: res.status, ms: performance.now() - started };
    })();
    for (const email of [spaced, dotted]) {
      for (const reply of [await signIn(from, email, "whatever-pass"), await signUp(newAddress(), email)]) expect({ status: reply.status, code: reply.body?.code }).toEqual({ status: 400, code: "validation_failed" });
      // Without SMTP these say so first (422); either way an answer, not minutes of work.
      for (const reply of [await call("POST", "/auth/v1/recover", { from, body: { email } }), await call("POST", "/auth/v1/resend", { from, body: { type: "signup", email } })]) expect([400, 422]).toContain(reply.status);
    }
    expect((await health).status).toBe(200);
  }, 30_000);

  test("the CLI's user add refuses an invisible character and an NFD duplicate (exit 2) and stores NFC", async () => {
    const dataDir = tempDir("aw-cli-");
    // A database of its own on Postgres (an empty DATA_DIR on SQLite).
    const database = await backendEnv();
    const run = (email: string) =>
      Bun.spawnSync([buildBinary(), "user", "add", "--email", email, "--password", "cli-pass-1"], {
        env: { PATH: "/usr/bin:/bin", DATA_DIR: dataDir, LOG_LEVEL: "silent", ...database },
        stdout: "pipe",
        stderr: "pipe",
      });
    const nfd = "chloé@acme.com".normalize("NFD");
    const added = run(nfd);
    expect(added.exitCode).toBe(0);
    expect(added.stdout.toString()).toContain("chloé@acme.com".normalize("NFC"));
    const duplicate = run("CHLOÉ@acme.com".normalize("NFC"));
    expect({ code: duplicate.exitCode, err: duplicate.stderr.toString() }).toEqual({ code: 2, err: expect.stringContaining("already registered") });
    const hidden = run("eve\u200B@acme.com");
    expect({ code: hidden.exitCode, err: hidden.stderr.toString() }).toEqual({ code: 2, err: expect.stringContaining("invisible") });
  }, 60_000);
});

describe("tokens must carry exp", () => {
  const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(new TextEncoder().encode(secrets.jwt_secret));

  test("a user token without exp, signed with the real secret, is 403 bad_jwt at /auth/v1/user and 401 PGRST301 at /rest/v1; with exp it works", async () => {
    const from = newAddress();
    const session = (await signUp(from, uniqueEmail("noexp"))).body;
    const { exp, ...claims } = decodeJwt(session.access_token);
    expect(exp).toBeNumber();
    const withExp = await sign({ ...claims, exp });
    const withoutExp = await sign(claims);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    // The same claims with exp are accepted: the refusal below is about exp alone.
    expect((await call("GET", "/auth/v1/user", { from, headers: bearer(withExp) })).status).toBe(200);
    expect((await call("GET", "/rest/v1/brands", { from, headers: bearer(withExp) })).status).toBe(200);

    expectGoTrueError(await call("GET", "/auth/v1/user", { from, headers: bearer(withoutExp) }), 403, "bad_jwt");
    const rest = await call("GET", "/rest/v1/brands", { from, headers: bearer(withoutExp) });
    expect(rest.status).toBe(401);
    expect(rest.body).toEqual({ code: "PGRST301", details: null, hint: null, message: expect.any(String) });
    const api = await call("GET", "/api/health", { from, headers: bearer(withoutExp) });
    expect(api.status).toBe(401);
    expect(api.body).toMatchObject({ success: false, error: { code: "invalid_token" } });
  }, 30_000);

  test("a forged role token without exp is neither the anon nor the service_role key; the configured keys keep working", async () => {
    const from = newAddress();
    const forgedService = await sign({ role: "service_role", iss: "answerwatch", iat: Math.floor(Date.now() / 1000) });
    const forgedAnon = await sign({ role: "anon" });
    expect(forgedService).not.toBe(secrets.service_role_key);

    // As the bearer: no admin rights, and /rest/v1 refuses it.
    const admin = await call("GET", "/auth/v1/admin/users", { from, headers: { authorization: `Bearer ${forgedService}` } });
    expectGoTrueError(admin, 403, "not_admin");
    for (const token of [forgedService, forgedAnon]) {
      const rest = await call("GET", "/rest/v1/brands", { from, headers: { authorization: `Bearer ${token}` } });
      expect(rest.status).toBe(401);
      expect(rest.body).toMatchObject({ code: "PGRST301", details: null, hint: null });
      // As the apikey: only the configured keys open the gate.
      const gate = await call("GET", "/rest/v1/brands", { from, headers: { apikey: token } });
      expect(gate.status).toBe(401);
    }

    // The generated keys (HS256, role, no sub) still work as apikey and bearer.
    expect((await call("GET", "/auth/v1/admin/users", { from, headers: serviceHeaders() })).status).toBe(200);
    expect((await call("GET", "/rest/v1/brands", { from, headers: serviceHeaders() })).status).toBe(200);
    expect((await call("GET", "/rest/v1/brands", { from, headers: { authorization: `Bearer ${secrets.anon_key}` } })).status).toBe(200);
  }, 30_000);
});

describe("admin pagination", () => {
  test("page and per_page that are not whole numbers within range are 400 validation_failed, not 5xx", async () => {
    const from = newAddress();
    for (const query of ["page=99999999999999999999", "per_page=99999999999999999999", "page=1e400", "page=-1", "page=abc", "page=1.5", "per_page=-5", "page=9007199254740993"]) {
      const reply = await call("GET", `/auth/v1/admin/users?${query}`, { from, headers: serviceHeaders() });
      expect({ query, status: reply.status, code: reply.body?.code }).toEqual({ query, status: 400, code: "validation_failed" });
    }
    // The largest page allowed is an empty page, not an error; ordinary pages still work.
    const far = await call("GET", "/auth/v1/admin/users?page=9007199254740&per_page=1000", { from, headers: serviceHeaders() });
    expect({ status: far.status, users: far.body.users }).toEqual({ status: 200, users: [] });
    const second = await call("GET", "/auth/v1/admin/users?page=2&per_page=1", { from, headers: serviceHeaders() });
    expect(second.status).toBe(200);
    expect(second.body.users).toHaveLength(1);
  }, 30_000);
});
