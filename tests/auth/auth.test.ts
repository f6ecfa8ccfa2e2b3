// backends: sqlite, postgres
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT, decodeJwt } from "jose";
import { TEST_BACKEND, testClock, testServer } from "../helpers/app";
import { testPostgres } from "../helpers/postgres";
import { countOf, serverDb, usersTable } from "../helpers/server-db";
import { pgHarnessOn } from "../contracts/harness.pg";
import { client, signedUpClient, uniqueEmail } from "../helpers/supabase";

const clock = testClock();
let server: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  // Every test here signs up from 127.0.0.1: more than the default per-address sign-up limit.
  server = await testServer({ AUTH_SIGNUP_RATE_LIMIT_PER_HOUR: "1000" }, { now: clock.now });
});
afterAll(async () => {
  await (await serverDb(server)).close();
  await server.stop();
});

const api = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);
const authHeaders = (token: string) => ({ apikey: server.secrets.anonKey, authorization: `Bearer ${token}` });

describe("session lifecycle through supabase-js", () => {
  test("signUp, signInWithPassword, getUser, refreshSession, reuse after the interval, signOut", async () => {
    const sb = client(server.url, server.secrets.anonKey);
    const email = uniqueEmail("life");
    const up = await sb.auth.signUp({ email: email.toUpperCase(), password: "s3cret-pass", options: { data: { organization_name: "Acme Inc" } } });
    expect(up.error).toBeNull();
    expect(up.data.session?.access_token.split(".")).toHaveLength(3);
    expect(up.data.user?.email).toBe(email);

    const signIn = await sb.auth.signInWithPassword({ email, password: "s3cret-pass" });
    expect(signIn.error).toBeNull();
    const session = signIn.data.session!;
    expect(session.token_type).toBe("bearer");
    expect(session.expires_in).toBe(3600);
    const claims = decodeJwt(session.access_token);
    for (const claim of ["sub", "aud", "role", "exp", "iat", "iss", "email", "phone", "app_metadata", "user_metadata", "aal", "amr", "session_id", "is_anonymous"]) {
      expect(claims).toHaveProperty(claim);
    }
    expect(claims).toMatchObject({ sub: up.data.user!.id, aud: "authenticated", role: "authenticated", email, aal: "aal1", is_anonymous: false });
    expect(claims.app_metadata).toMatchObject({ provider: "email", providers: ["email"] });

    const got = await sb.auth.getUser();
    expect(got.data.user?.id).toBe(up.data.user!.id);

    const oldRefresh = session.refresh_token;
    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session!.refresh_token).not.toBe(oldRefresh);
    expect(refreshed.data.session!.access_token).not.toBe(session.access_token);

    // Within GoTrue's 10 s reuse interval the replaced token still works (concurrent tabs)...
    const within = await client(server.url, server.secrets.anonKey).auth.refreshSession({ refresh_token: oldRefresh });
    expect(within.error).toBeNull();
    // ...after it, reuse is refused and revokes the session.
    clock.advance(11_000);
    const reused = await client(server.url, server.secrets.anonKey).auth.refreshSession({ refresh_token: oldRefresh });
    expect(reused.error?.code).toBe("refresh_token_already_used");
    const afterReuse = await api("/auth/v1/user", { headers: authHeaders(refreshed.data.session!.access_token) });
    expect(afterReuse.status).toBe(403);
  });

  test("signOut revokes the session: getUser fails with session_not_found, REST and /api answer 401", async () => {
    const { sb, session } = await signedUpClient(server.url, server.secrets.anonKey);
    expect((await api("/api/health", { headers: authHeaders(session.access_token) })).status).toBe(200);
    expect((await sb.auth.signOut()).error).toBeNull();
    const res = await api("/auth/v1/user", { headers: { ...authHeaders(session.access_token), "x-supabase-api-version": "2024-01-01" } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "session_not_found" });
    const viaClient = await client(server.url, server.secrets.anonKey).auth.getUser(session.access_token);
    // supabase-js turns session_not_found into its "signed out" error.
    expect(viaClient.error?.name).toBe("AuthSessionMissingError");
    expect((await api("/rest/v1/brands", { headers: authHeaders(session.access_token) })).status).toBe(401);
    expect((await api("/api/health", { headers: authHeaders(session.access_token) })).status).toBe(401);
  });

  test("logout scope=others keeps the current session and ends the others", async () => {
    const first = await signedUpClient(server.url, server.secrets.anonKey);
    const second = client(server.url, server.secrets.anonKey);
    const other = await second.auth.signInWithPassword({ email: first.email, password: first.password });
    await first.sb.auth.signOut({ scope: "others" });
    expect((await api("/api/health", { headers: authHeaders(first.session.access_token) })).status).toBe(200);
    expect((await api("/api/health", { headers: authHeaders(other.data.session!.access_token) })).status).toBe(401);
  });

  test("a new password ends every other session of the account (one stolen before a reset dies with the old password); the session that changed it stays", async () => {
    const first = await signedUpClient(server.url, server.secrets.anonKey);
    const stolen = await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email: first.email, password: first.password });
    expect((await api("/api/health", { headers: authHeaders(stolen.data.session!.access_token) })).status).toBe(200);
    // Metadata alone ends nothing.
    expect((await first.sb.auth.updateUser({ data: { seen: true } })).error).toBeNull();
    expect((await api("/api/health", { headers: authHeaders(stolen.data.session!.access_token) })).status).toBe(200);
    expect((await first.sb.auth.updateUser({ password: "a-new-secret" })).error).toBeNull();
    expect((await api("/api/health", { headers: authHeaders(stolen.data.session!.access_token) })).status).toBe(401);
    const refreshed = await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, { method: "POST", headers: { apikey: server.secrets.anonKey, "content-type": "application/json" }, body: JSON.stringify({ refresh_token: stolen.data.session!.refresh_token }) });
    expect(refreshed.status).toBe(400);
    expect((await api("/api/health", { headers: authHeaders(first.session.access_token) })).status).toBe(200);
  });

  test.skipIf(TEST_BACKEND !== "sqlite")("a made-up refresh token is refused while another connection holds SQLite's write lock (it never waits for the lock)", async () => {
    const { Database } = await import("bun:sqlite");
    if (server.backend.kind !== "sqlite") throw new Error("SQLite only");
    const holder = new Database(server.backend.dbPath);
    holder.run("BEGIN IMMEDIATE");
    try {
      const res = await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, { method: "POST", headers: { apikey: server.secrets.anonKey, "content-type": "application/json" }, body: JSON.stringify({ refresh_token: "made-up-token-0123456789" }) });
      expect([res.status, (await res.json()).error_code]).toEqual([400, "refresh_token_not_found"]);
    } finally {
      holder.run("ROLLBACK");
      holder.close();
    }
  });

  test("updateUser changes the password and metadata", async () => {
    const { sb, email } = await signedUpClient(server.url, server.secrets.anonKey);
    const updated = await sb.auth.updateUser({ password: "another-pass", data: { plan: "pro" } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata).toMatchObject({ plan: "pro" });
    const again = await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email, password: "another-pass" });
    expect(again.error).toBeNull();
  });

  test("metadata holds at most 16 KB of JSON: updates that would merge past it are 400 and change nothing; so is a sign-up carrying more", async () => {
    const { sb } = await signedUpClient(server.url, server.secrets.anonKey);
    expect((await sb.auth.updateUser({ data: { a: "x".repeat(10_000) } })).error).toBeNull();
    // Each update alone is under the cap; merged with what is there, over it.
    const grown = await sb.auth.updateUser({ data: { b: "y".repeat(10_000) } });
    expect([grown.error?.status, grown.error?.code]).toEqual([400, "validation_failed"]);
    const user = (await sb.auth.getUser()).data.user!;
    expect([user.user_metadata.a?.length, "b" in user.user_metadata]).toEqual([10_000, false]);
    const big = await client(server.url, server.secrets.anonKey).auth.signUp({ email: uniqueEmail("big"), password: "s3cret-pass", options: { data: { blob: "z".repeat(20_000) } } });
    expect([big.error?.status, big.error?.code]).toEqual([400, "validation_failed"]);
  });
});

describe("sign-in and sign-up errors", () => {
  test("wrong password and unknown e-mail give identical 400 invalid_credentials bodies", async () => {
    const { email } = await signedUpClient(server.url, server.secrets.anonKey);
    const post = (body: object) =>
      api("/auth/v1/token?grant_type=password", {
        method: "POST",
        headers: { apikey: server.secrets.anonKey, "content-type": "application/json", "x-supabase-api-version": "2024-01-01" },
        body: JSON.stringify(body),
      });
    const wrong = await post({ email, password: "not-the-password" });
    const unknown = await post({ email: uniqueEmail("nobody"), password: "not-the-password" });
    expect(wrong.status).toBe(400);
    expect(unknown.status).toBe(400);
    const wrongBody = await wrong.json();
    expect(wrongBody).toEqual({ code: "invalid_credentials", message: "Invalid login credentials" });
    expect(await unknown.json()).toEqual(wrongBody);
    expect(wrong.headers.get("x-sb-error-code")).toBe("invalid_credentials");
  });

  test("a second signup with the same e-mail is 422 user_already_exists; a 3-character password is 422 weak_password", async () => {
    const { email } = await signedUpClient(server.url, server.secrets.anonKey);
    const dup = await client(server.url, server.secrets.anonKey).auth.signUp({ email, password: "whatever-1" });
    expect(dup.error?.status).toBe(422);
    expect(dup.error?.code).toBe("user_already_exists");
    const weak = await client(server.url, server.secrets.anonKey).auth.signUp({ email: uniqueEmail(), password: "abc" });
    expect(weak.error?.status).toBe(422);
    expect(weak.error?.code).toBe("weak_password");
  });

  test("a malformed e-mail is 400 validation_failed and creates nothing", async () => {
    const res = await client(server.url, server.secrets.anonKey).auth.signUp({ email: "not-an-email", password: "long-enough" });
    expect(res.error?.status).toBe(400);
    expect(res.error?.code).toBe("validation_failed");
    expect(await countOf(await serverDb(server), `SELECT count(*) AS n FROM ${usersTable(await serverDb(server))} WHERE email = 'not-an-email'`)).toBe(0);
  });

  test("the 11th password attempt within a minute for one e-mail gets 429 over_request_rate_limit", async () => {
    const email = uniqueEmail("brute");
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await api("/auth/v1/token?grant_type=password", {
        method: "POST",
        headers: { apikey: server.secrets.anonKey, "content-type": "application/json", "x-supabase-api-version": "2024-01-01" },
        body: JSON.stringify({ email, password: `guess-${i}` }),
      });
      statuses.push(res.status);
      if (i === 10) expect(await res.json()).toMatchObject({ code: "over_request_rate_limit" });
    }
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  test("signup creates an organization owned by the user, named from organization_name", async () => {
    const { user } = await signedUpClient(server.url, server.secrets.anonKey, "Globex Corp");
    const [row] = await (await serverDb(server)).inspect("SELECT o.name, o.slug, m.role FROM organization_members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ?", user.id);
    expect(row).toMatchObject({ name: "Globex Corp", role: "owner" });
    expect((row as { slug: string }).slug).toMatch(/^globex-corp/);
  });
});

describe("the apikey gate and bad tokens on every surface", () => {
  test("no apikey → 401 'No API key found in request'; unknown apikey → 401 'Invalid API key'", async () => {
    for (const path of ["/auth/v1/settings", "/rest/v1/brands"]) {
      const none = await api(path);
      expect(none.status).toBe(401);
      expect(await none.json()).toMatchObject({ message: "No API key found in request" });
      const bad = await api(path, { headers: { apikey: "nope" } });
      expect(bad.status).toBe(401);
      expect(await bad.json()).toMatchObject({ message: "Invalid API key" });
    }
  });

  test("alg:none, wrong-key, expired and malformed tokens are rejected by /auth/v1/user, /api/health and /rest/v1", async () => {
    const { user, session } = await signedUpClient(server.url, server.secrets.anonKey);
    const claims = decodeJwt(session.access_token);
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const algNone = `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
    const wrongKey = await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("a-completely-different-secret-of-32+chars"));
    const expired = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 })
      .setProtectedHeader({ alg: "HS256" })
      .sign(new TextEncoder().encode(server.secrets.jwtSecret));
    const malformed = "this.is-not.a-jwt";
    expect(user.id).toBe(claims.sub as string);

    for (const [name, token] of Object.entries({ algNone, wrongKey, expired, malformed })) {
      const authRes = await api("/auth/v1/user", { headers: { ...authHeaders(token), "x-supabase-api-version": "2024-01-01" } });
      expect({ name, status: authRes.status }).toEqual({ name, status: 403 });
      expect(await authRes.json()).toMatchObject({ code: "bad_jwt" });

      const apiRes = await api("/api/health", { headers: { authorization: `Bearer ${token}` } });
      expect({ name, status: apiRes.status }).toEqual({ name, status: 401 });
      expect(await apiRes.json()).toMatchObject({ success: false, error: { code: name === "expired" ? "token_expired" : "invalid_token" } });

      const restRes = await api("/rest/v1/brands", { headers: authHeaders(token) });
      expect({ name, status: restRes.status }).toEqual({ name, status: 401 });
      expect(await restRes.json()).toMatchObject({ code: name === "expired" ? "PGRST303" : "PGRST301", details: null, hint: null });
    }
    expect((await api("/api/health")).status).toBe(401);
  });
});

describe("admin API", () => {
  test("the service_role key creates a user; the anon key and a user token cannot", async () => {
    const email = uniqueEmail("admin-made");
    const post = (token: string) =>
      api("/auth/v1/admin/users", {
        method: "POST",
        headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ email, password: "made-by-admin", email_confirm: true }),
      });
    const { session } = await signedUpClient(server.url, server.secrets.anonKey);
    expect((await post(server.secrets.anonKey)).status).toBe(403);
    expect((await post(session.access_token)).status).toBe(403);
    const ok = await post(server.secrets.serviceRoleKey);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ email, aud: "authenticated" });

    const admin = client(server.url, server.secrets.serviceRoleKey);
    const listed = await admin.auth.admin.listUsers();
    expect(listed.data.users.map((u) => u.email)).toContain(email);
    const signIn = await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email, password: "made-by-admin" });
    expect(signIn.error).toBeNull();
  });

  test("deleting a user who is an organization's last owner is refused (422), as `user remove` refuses it; a member is deleted", async () => {
    const admin = client(server.url, server.secrets.serviceRoleKey);
    const owner = await signedUpClient(server.url, server.secrets.anonKey, "Sole Owner Co");
    const refused = await admin.auth.admin.deleteUser(owner.user.id);
    expect(refused.error).toMatchObject({ status: 422 });
    expect(refused.error!.message).toContain('the last owner of "Sole Owner Co"');
    // Still there, and still signing in.
    expect((await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email: owner.email, password: owner.password })).error).toBeNull();
    // A member of that organization (the admin API puts a user in an existing one) is deleted.
    const orgId = ((await owner.sb.from("organizations").select("id")).data as { id: string }[])[0]!.id;
    const made = await (
      await api("/auth/v1/admin/users", {
        method: "POST",
        headers: { apikey: server.secrets.serviceRoleKey, authorization: `Bearer ${server.secrets.serviceRoleKey}`, "content-type": "application/json" },
        body: JSON.stringify({ email: uniqueEmail("deletable"), password: "correct-horse", organization_id: orgId, role: "member" }),
      })
    ).json();
    const gone = await admin.auth.admin.deleteUser(made.id);
    expect(gone.error).toBeNull();
    expect((await admin.auth.admin.getUserById(made.id)).error).toMatchObject({ status: 404 });
  });
});

test("the CLI adds a user to an organization with a role", async () => {
  const { ROOT, tempDir } = await import("../helpers/app");
  const dataDir = tempDir();
  // On Postgres the CLI writes to a database of its own on the test cluster (DATABASE_URL).
  const url = TEST_BACKEND === "postgres" ? await (await testPostgres())!.createDatabase("cli") : undefined;
  const run = (args: string[]) =>
    Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, "user", "add", ...args], { env: { PATH: Bun.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent", ...(url ? { DATABASE_URL: url } : {}) }, stdout: "pipe", stderr: "pipe" });
  const owner = run(["--email", "boss@acme.com", "--password", "boss-pass", "--org", "Acme"]);
  expect(owner.exitCode).toBe(0);
  const viewer = run(["--email", "eve@acme.com", "--password", "eve-pass", "--org", "Acme", "--role", "viewer"]);
  expect(viewer.exitCode).toBe(0);
  expect(viewer.stdout.toString()).toContain("viewer");
  const bad = run(["--email", "x@acme.com", "--password", "pw-long", "--role", "emperor"]);
  expect(bad.exitCode).toBe(2);
  const query = `SELECT u.email, m.role, o.name FROM organization_members m JOIN ${url ? "auth.users" : "users"} u ON u.id = m.user_id JOIN organizations o ON o.id = m.organization_id ORDER BY u.email`;
  let rows: unknown[];
  if (url) {
    const h = await pgHarnessOn(url);
    rows = await h.inspect(query);
    await h.close();
  } else {
    const { Database } = await import("bun:sqlite");
    const db = new Database(`${dataDir}/answerwatch.db`, { readonly: true });
    rows = db.query(query).all();
    db.close();
  }
  expect(rows).toEqual([
    { email: "boss@acme.com", role: "owner", name: "Acme" },
    { email: "eve@acme.com", role: "viewer", name: "Acme" },
  ]);
});
