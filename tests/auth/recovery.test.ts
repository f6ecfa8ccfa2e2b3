// backends: sqlite, postgres
// Password recovery as GoTrue does it (issue #31), through the real supabase-js client and a local
// SMTP sink: resetPasswordForEmail → a mail with a link and a code → verifyOtp (or the link) → a
// session → updateUser({ password }) → signing in with the new password; every token works once,
// for an hour; an unknown address gets the same answer and no mail; the link sends the session only
// to this server's own origin. Without SMTP_URL the endpoint says the server sends no mail.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ParsedMail } from "mailparser";
import { dirname } from "node:path";
import { ROOT, testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp";
import { client, uniqueEmail } from "../helpers/supabase";

let sink: SmtpSink;
let server: Awaited<ReturnType<typeof testServer>>;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await testServer({ SMTP_URL: sink.url });
  await server.runtime();
});
afterAll(async () => {
  await (await serverDb(server)).close();
  await server.stop();
  await sink.stop();
});

async function account(password = "old-password-1") {
  const email = uniqueEmail("recover");
  const sb = client(server.url, server.secrets.anonKey);
  const { error } = await sb.auth.signUp({ email, password });
  expect(error).toBeNull();
  await sb.auth.signOut();
  return { email, password };
}

/** The recovery mail to `to` (waits for it): its link and its six-digit code. */
async function recoveryMail(to: string): Promise<{ mail: ParsedMail; link: string; code: string }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const mail = sink.received.find((m) => m.to && !Array.isArray(m.to) && m.to.text === to);
    if (mail) {
      const link = mail.text!.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)![0];
      const code = mail.text!.match(/code where you asked: (\d{6})/)![1]!;
      return { mail, link, code };
    }
    if (Date.now() > until) throw new Error(`no recovery mail to ${to}`);
    await Bun.sleep(20);
  }
}

test("resetPasswordForEmail → the mailed code → verifyOtp → updateUser: the new password signs in, the old one and the used code do not", async () => {
  const { email, password } = await account();
  const sb = client(server.url, server.secrets.anonKey);
  const asked = await sb.auth.resetPasswordForEmail(email, { redirectTo: `${server.url}/reset` });
  expect(asked.error).toBeNull();
  const { mail, code, link } = await recoveryMail(email);
  expect(mail.subject).toBe("Reset your answerwatch password");
  expect(mail.html).toContain(code);
  // Hashed at rest: neither the link's token nor the code is in the database, and the token lives an hour.
  const db = await serverDb(server);
  const rows = await db.inspect<Record<string, unknown>>(`SELECT * FROM ${db.backend === "postgres" ? "auth." : ""}one_time_tokens`);
  const token = new URL(link).searchParams.get("token")!;
  expect(rows.length).toBeGreaterThan(0);
  expect(JSON.stringify(rows)).not.toContain(token);
  expect(JSON.stringify(rows)).not.toContain(`"${code}"`);
  const mine = rows.find((r) => r.used_at === null)!;
  expect(Date.parse(String(mine.expires_at)) - Date.parse(String(mine.created_at))).toBe(3_600_000);
  const verified = await sb.auth.verifyOtp({ email, token: code, type: "recovery" });
  expect(verified.error).toBeNull();
  expect(verified.data.user?.email).toBe(email);
  const updated = await sb.auth.updateUser({ password: "new-password-2" });
  expect(updated.error).toBeNull();
  await sb.auth.signOut();
  const fresh = client(server.url, server.secrets.anonKey);
  expect((await fresh.auth.signInWithPassword({ email, password: "new-password-2" })).error).toBeNull();
  expect((await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email, password })).error?.code).toBe("invalid_credentials");
  const again = await client(server.url, server.secrets.anonKey).auth.verifyOtp({ email, token: code, type: "recovery" });
  expect(again.error?.status).toBe(403);
  expect(again.error?.code).toBe("otp_expired");
});

test("the mailed link signs in once: a 303 to redirect_to with the session in the fragment; used again, the error there instead", async () => {
  const { email } = await account();
  await client(server.url, server.secrets.anonKey).auth.resetPasswordForEmail(email, { redirectTo: `${server.url}/reset?from=mail` });
  const { link } = await recoveryMail(email);
  expect(link).toStartWith(`${server.url}/auth/v1/verify?token=`);
  const first = await fetch(link, { redirect: "manual" });
  expect(first.status).toBe(303);
  const location = first.headers.get("location")!;
  expect(location).toStartWith(`${server.url}/reset?from=mail#access_token=`);
  const fragment = new URLSearchParams(location.split("#")[1]);
  expect(fragment.get("type")).toBe("recovery");
  expect(fragment.get("token_type")).toBe("bearer");
  // The session works: the user reads their account with it.
  const me = await fetch(`${server.url}/auth/v1/user`, { headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${fragment.get("access_token")}` } });
  expect((await me.json()).email).toBe(email);
  const second = await fetch(link, { redirect: "manual" });
  expect(second.headers.get("location")).toMatch(/#error=access_denied&error_code=otp_expired&/);
});

test("a newer request replaces the older link; the session never goes to another origin", async () => {
  const { email } = await account();
  const sb = client(server.url, server.secrets.anonKey);
  await sb.auth.resetPasswordForEmail(email, { redirectTo: "https://attacker.example/steal" });
  const first = await recoveryMail(email);
  expect(decodeURIComponent(first.link)).toContain(`redirect_to=${server.url}/`);
  expect(first.link).not.toContain("attacker");
  // One request a minute per address (GoTrue's rule): the second is refused, and mails nothing.
  const soon = await sb.auth.resetPasswordForEmail(email);
  expect(soon.error?.status).toBe(429);
  expect(sink.received.filter((m) => m.to && !Array.isArray(m.to) && m.to.text === email)).toHaveLength(1);
  // Even a link edited to point elsewhere lands on this server.
  const edited = first.link.replace(/redirect_to=[^&]+/, `redirect_to=${encodeURIComponent("https://attacker.example/steal")}`);
  const res = await fetch(edited, { redirect: "manual" });
  expect(res.headers.get("location")).toStartWith(`${server.url}/#access_token=`);
});

test("an unknown address gets the same answer and no mail; bad input is a 400, never a 5xx", async () => {
  const before = sink.received.length;
  const unknown = await client(server.url, server.secrets.anonKey).auth.resetPasswordForEmail(uniqueEmail("nobody"));
  expect(unknown.error).toBeNull();
  const post = (path: string, body: unknown) => fetch(`${server.url}/auth/v1${path}`, { method: "POST", headers: { apikey: server.secrets.anonKey, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect((await post("/recover", { email: "not an address" })).status).toBe(400);
  expect((await post("/verify", { type: "recovery" })).status).toBe(400);
  expect((await post("/verify", { type: "magiclink", email: "a@b.co", token: "123456" })).status).toBe(400);
  expect((await post("/verify", { type: "recovery", email: "a@b.co", token: "123456" })).status).toBe(403);
  await Bun.sleep(300);
  expect(sink.received.length).toBe(before);
});

test("without mail, an operator's `user recovery-link` gives a link and a code that work the same way, once", async () => {
  const { email } = await account();
  const database = server.backend.kind === "postgres" ? { DATABASE_URL: server.backend.url } : { DATA_DIR: dirname(server.backend.dbPath) };
  const run = (args: string[]) => Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, "user", ...args], { env: { PATH: Bun.env.PATH!, LOG_LEVEL: "silent", PUBLIC_URL: server.url, ...database }, stdout: "pipe", stderr: "pipe" });
  const made = run(["recovery-link", "--email", email.toUpperCase()]);
  expect(made.exitCode).toBe(0);
  const [link, codeLine] = made.stdout.toString().split("\n");
  expect(link).toStartWith(`${server.url}/auth/v1/verify?token=`);
  expect(codeLine).toMatch(/^code: \d{6}$/);
  const first = await fetch(link!, { redirect: "manual" });
  expect(first.headers.get("location")).toStartWith(`${server.url}/#access_token=`);
  expect((await fetch(link!, { redirect: "manual" })).headers.get("location")).toContain("error_code=otp_expired");
  const unknown = run(["recovery-link", "--email", "nobody-at-all@example.com"]);
  expect({ code: unknown.exitCode, err: unknown.stderr.toString().trim() }).toEqual({ code: 1, err: "answerwatch: no account has the address nobody-at-all@example.com" });
});

test("without SMTP_URL /recover says the server sends no mail", async () => {
  const plain = await testServer();
  try {
    const res = await client(plain.url, plain.secrets.anonKey).auth.resetPasswordForEmail("someone@example.com");
    expect(res.error?.status).toBe(422);
    expect(res.error?.message).toContain("sends no mail");
  } finally {
    await plain.stop();
  }
});
