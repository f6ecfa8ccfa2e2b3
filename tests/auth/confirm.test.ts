// backends: sqlite, postgres
// Sign-up confirmation and GoTrue's admin invite (issue #31), through the real supabase-js client
// and a local SMTP sink. With AUTH_CONFIRM_EMAIL=true a new account gets no session: a mail carries
// a link and a code; until one is used, signing in answers email_not_confirmed; the code (verifyOtp
// type signup) or the link confirms the address and signs in once; resend replaces the code. An
// invited address (auth.admin.inviteUserByEmail) follows its link in, then chooses a password.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ParsedMail } from "mailparser";
import { ConfigError, loadConfig } from "../../src/config";
import { testServer } from "../helpers/app";
import { serverDb, usersTable } from "../helpers/server-db";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp";
import { client, uniqueEmail } from "../helpers/supabase";

let sink: SmtpSink;
let server: Awaited<ReturnType<typeof testServer>>;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await testServer({ SMTP_URL: sink.url, AUTH_CONFIRM_EMAIL: "true" });
  await server.runtime();
});
afterAll(async () => {
  await (await serverDb(server)).close();
  await server.stop();
  await sink.stop();
});

/** The n-th mail to `to` (waits for it): its link and its six-digit code. */
async function mailTo(to: string, n = 1): Promise<{ mail: ParsedMail; link: string; code: string }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const mail = sink.received.filter((m) => m.to && !Array.isArray(m.to) && m.to.text === to)[n - 1];
    if (mail) return { mail, link: mail.text!.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)![0], code: mail.text!.match(/code[^:]*: (\d{6})/)?.[1] ?? "" };
    if (Date.now() > until) throw new Error(`no mail ${n} to ${to}`);
    await Bun.sleep(20);
  }
}

const confirmedAt = async (email: string) => {
  const db = await serverDb(server);
  const [row] = await db.inspect<{ email_confirmed_at: unknown }>(`SELECT email_confirmed_at FROM ${usersTable(db)} WHERE email = ?`, email);
  return row?.email_confirmed_at ?? null;
};

test("the server says it asks for confirmation; without SMTP_URL that setting is refused at start", () => {
  expect(() => loadConfig({ AUTH_CONFIRM_EMAIL: "true" })).toThrow(ConfigError);
  expect(loadConfig({ AUTH_CONFIRM_EMAIL: "true", SMTP_URL: "smtp://127.0.0.1:2525" }).auth.confirmEmail).toBe(true);
});

test("signUp gives no session and mails a code; signing in waits for it; verifyOtp(type signup) confirms and signs in, once", async () => {
  const settings = await (await fetch(`${server.url}/auth/v1/settings`, { headers: { apikey: server.secrets.anonKey } })).json();
  expect(settings.mailer_autoconfirm).toBe(false);
  const email = uniqueEmail("confirm");
  const sb = client(server.url, server.secrets.anonKey);
  const made = await sb.auth.signUp({ email, password: "pass-word-1" });
  expect(made.error).toBeNull();
  expect(made.data.session).toBeNull();
  expect(made.data.user!.email).toBe(email);
  expect(await confirmedAt(email)).toBeNull();
  const { mail, code } = await mailTo(email);
  expect(mail.subject).toBe("Confirm your answerwatch account");
  const early = await sb.auth.signInWithPassword({ email, password: "pass-word-1" });
  expect(early.error?.code).toBe("email_not_confirmed");
  // A wrong password is the usual refusal: the state of an address is told only to whoever knows its password.
  expect((await sb.auth.signInWithPassword({ email, password: "wrong-password" })).error?.code).toBe("invalid_credentials");
  const verified = await sb.auth.verifyOtp({ email, token: code, type: "signup" });
  expect(verified.error).toBeNull();
  expect(verified.data.session?.user.email).toBe(email);
  expect(await confirmedAt(email)).not.toBeNull();
  expect((await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email, password: "pass-word-1" })).error).toBeNull();
  expect((await client(server.url, server.secrets.anonKey).auth.verifyOtp({ email, token: code, type: "signup" })).error?.code).toBe("otp_expired");
});

test("the mailed link confirms too (303 with the session in the fragment, type signup); resend replaces the code", async () => {
  const email = uniqueEmail("link");
  const sb = client(server.url, server.secrets.anonKey);
  expect((await sb.auth.signUp({ email, password: "pass-word-2", options: { emailRedirectTo: `${server.url}/onboarding` } })).error).toBeNull();
  const first = await mailTo(email);
  expect((await sb.auth.resend({ type: "signup", email, options: { emailRedirectTo: `${server.url}/onboarding` } })).error).toBeNull();
  const second = await mailTo(email, 2);
  expect((await sb.auth.verifyOtp({ email, token: first.code, type: "signup" })).error?.code).toBe("otp_expired");
  const res = await fetch(second.link, { redirect: "manual" });
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get("location")!);
  expect(location.origin + location.pathname).toBe(`${server.url}/onboarding`);
  const fragment = new URLSearchParams(location.hash.slice(1));
  expect(fragment.get("type")).toBe("signup");
  expect(fragment.get("access_token")).toBeTruthy();
  expect(await confirmedAt(email)).not.toBeNull();
  expect((await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email, password: "pass-word-2" })).error).toBeNull();
  expect((await fetch(first.link, { redirect: "manual" })).headers.get("location")).toContain("error_code=otp_expired");
});

test("admin inviteUserByEmail mails an invitation; its link signs the invited person in, who then chooses a password; only the service role invites", async () => {
  const email = uniqueEmail("invited");
  const admin = client(server.url, server.secrets.serviceRoleKey);
  const invited = await admin.auth.admin.inviteUserByEmail(email, { redirectTo: `${server.url}/account` });
  expect(invited.error).toBeNull();
  expect(invited.data.user!.email).toBe(email);
  const { mail, link } = await mailTo(email);
  expect(mail.subject).toBe("You have been invited to answerwatch");
  expect(link).toContain("type=invite");
  const res = await fetch(link, { redirect: "manual" });
  const fragment = new URLSearchParams(new URL(res.headers.get("location")!).hash.slice(1));
  expect(fragment.get("type")).toBe("invite");
  const sb = client(server.url, server.secrets.anonKey);
  const session = await sb.auth.setSession({ access_token: fragment.get("access_token")!, refresh_token: fragment.get("refresh_token")! });
  expect(session.error).toBeNull();
  expect((await sb.auth.updateUser({ password: "chosen-pass-3" })).error).toBeNull();
  expect((await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email, password: "chosen-pass-3" })).error).toBeNull();
  const asUser = await fetch(`${server.url}/auth/v1/invite`, { method: "POST", headers: { apikey: server.secrets.anonKey, authorization: `Bearer ${server.secrets.anonKey}`, "content-type": "application/json" }, body: JSON.stringify({ email: uniqueEmail("nope") }) });
  expect(asUser.status).toBe(403);
});

test("a new address given to updateUser counts once a link mailed to it is used: until then the account keeps its address, and an invitation to the new one is not its to see or accept", async () => {
  // A confirmed owner invites an address nobody has yet.
  const ownerEmail = uniqueEmail("inviter");
  const owner = client(server.url, server.secrets.anonKey);
  await owner.auth.signUp({ email: ownerEmail, password: "pass-word-5" });
  const ownerSession = (await owner.auth.verifyOtp({ email: ownerEmail, token: (await mailTo(ownerEmail)).code, type: "signup" })).data.session!;
  const orgId = ((await owner.from("organizations").select("id")).data as { id: string }[])[0]!.id;
  const invited = uniqueEmail("newhire");
  const api = (token: string, path: string, method = "GET", body?: unknown) =>
    fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const made = await api(ownerSession.access_token, `/api/organizations/${orgId}/invitations`, "POST", { email: invited, role: "admin" });
  expect(made.status).toBe(201);
  const key = new URL(((await made.json()) as { link: string }).link).searchParams.get("key");
  // Someone else, signed in, gives the invited address as theirs.
  const changerEmail = uniqueEmail("changer");
  const changer = client(server.url, server.secrets.anonKey);
  await changer.auth.signUp({ email: changerEmail, password: "pass-word-6" });
  expect((await changer.auth.verifyOtp({ email: changerEmail, token: (await mailTo(changerEmail)).code, type: "signup" })).error).toBeNull();
  const changed = await changer.auth.updateUser({ email: invited });
  expect(changed.error).toBeNull();
  expect([changed.data.user?.email, (changed.data.user as unknown as { new_email?: string })?.new_email]).toEqual([changerEmail, invited]);
  // A fresh token still names the old address; the invitation is neither listed nor accepted.
  const refreshed = (await changer.auth.refreshSession()).data.session!;
  expect(refreshed.user.email).toBe(changerEmail);
  const listed = (await (await api(refreshed.access_token, "/api/invitations")).json()) as { invitations: { id: string }[] };
  expect(listed.invitations).toEqual([]);
  const [invitation] = (await serverDb(server).then((db) => db.inspect<{ id: string }>("SELECT id FROM organization_invitations WHERE email = ?", invited)));
  expect((await api(refreshed.access_token, `/api/invitations/${invitation!.id}/accept`, "POST", { key })).status).toBe(404);
  const members = await serverDb(server).then((db) => db.inspect("SELECT 1 FROM organization_members WHERE organization_id = ? AND role = 'admin'", orgId));
  expect(members).toEqual([]);
  // The mail went to the new address only, with a link and no code; whoever reads it makes the change.
  let change = sink.received.find((m) => m.subject === "Confirm your new answerwatch address");
  for (let i = 0; i < 750 && !change; i++, await Bun.sleep(20)) change = sink.received.find((m) => m.subject === "Confirm your new answerwatch address");
  expect(change?.to && !Array.isArray(change.to) ? change.to.text : null).toBe(invited);
  const link = change!.text!.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)![0];
  expect(change!.text).not.toMatch(/code[^:]*: \d{6}/);
  // A link whose address was edited is no link at all (and leaves the real one working).
  const edited = link.replace(/token=[^.&]+\./, `token=${Buffer.from(uniqueEmail("someone")).toString("base64url")}.`);
  expect(edited).not.toBe(link);
  expect((await fetch(edited, { redirect: "manual" })).headers.get("location")).toContain("error_code=otp_expired");
  const followed = await fetch(link, { redirect: "manual" });
  expect(followed.status).toBe(303);
  expect(followed.headers.get("location")).toContain("access_token=");
  expect(await confirmedAt(invited)).not.toBeNull();
  // The former address is told (a takeover through a stolen session is seen by whoever held it).
  let notice = sink.received.find((m) => m.subject === "Your answerwatch address changed");
  for (let i = 0; i < 250 && !notice; i++, await Bun.sleep(20)) notice = sink.received.find((m) => m.subject === "Your answerwatch address changed");
  expect(notice?.to && !Array.isArray(notice.to) ? notice.to.text : null).toBe(changerEmail);
  expect(notice!.text).toContain(`changed from ${changerEmail} to ${invited}`);
  // Invitations follow the account's address as it is now, not the one a token was issued to: the
  // token from before the change (still naming the old address) finds the new address's invitation,
  // and one to the old address is no longer the account's to see or accept.
  expect(JSON.parse(Buffer.from(refreshed.access_token.split(".")[1]!, "base64url").toString()).email).toBe(changerEmail);
  const madeToOld = await api(ownerSession.access_token, `/api/organizations/${orgId}/invitations`, "POST", { email: changerEmail, role: "viewer" });
  expect(madeToOld.status).toBe(201);
  const oldKey = new URL(((await madeToOld.json()) as { link: string }).link).searchParams.get("key");
  const [toOld] = await serverDb(server).then((db) => db.inspect<{ id: string }>("SELECT id FROM organization_invitations WHERE email = ?", changerEmail));
  const nowListed = (await (await api(refreshed.access_token, "/api/invitations")).json()) as { invitations: { id: string }[] };
  expect(nowListed.invitations.map((i) => i.id)).toEqual([invitation!.id]);
  // Even where addresses are proven, an invitation is answered with its link's key (an account may predate AUTH_CONFIRM_EMAIL).
  expect((await api(refreshed.access_token, `/api/invitations/${invitation!.id}/accept`, "POST")).status).toBe(403);
  expect((await api(refreshed.access_token, `/api/invitations/${toOld!.id}/accept`, "POST", { key: oldKey })).status).toBe(404);
  expect((await api(refreshed.access_token, `/api/invitations/${toOld!.id}/decline`, "POST", { key: oldKey })).status).toBe(404);
  expect((await api(refreshed.access_token, `/api/invitations/${invitation!.id}/accept`, "POST", { key })).status).toBe(200);
  expect(await serverDb(server).then((db) => db.inspect<{ role: string }>("SELECT role FROM organization_members WHERE organization_id = ? AND role <> 'owner'", orgId))).toEqual([{ role: "admin" }]);
  expect((await client(server.url, server.secrets.anonKey).auth.signInWithPassword({ email: invited, password: "pass-word-6" })).error).toBeNull();
  // Once: the link is used up.
  const again = (await fetch(link, { redirect: "manual" })).headers.get("location")!;
  expect([again.includes("error_code=otp_expired"), again.includes("access_token")]).toEqual([true, false]);
});

test("a link to an address someone signed up with since is refused with email_exists, and the account keeps its own", async () => {
  const email = uniqueEmail("mover");
  const sb = client(server.url, server.secrets.anonKey);
  await sb.auth.signUp({ email, password: "pass-word-7" });
  expect((await sb.auth.verifyOtp({ email, token: (await mailTo(email)).code, type: "signup" })).error).toBeNull();
  const wanted = uniqueEmail("wanted");
  expect((await sb.auth.updateUser({ email: wanted })).error).toBeNull();
  const link = (await mailTo(wanted)).link;
  // Someone else signs up with that address before the link is used.
  expect((await client(server.url, server.secrets.anonKey).auth.signUp({ email: wanted, password: "pass-word-8" })).error).toBeNull();
  expect((await fetch(link, { redirect: "manual" })).headers.get("location")).toContain("error_code=email_exists");
  expect((await sb.auth.refreshSession()).data.session?.user.email).toBe(email);
  // A made-up link naming an address tells nothing of whether it has an account: both are expired links.
  for (const named of [wanted, uniqueEmail("nobody")]) {
    const forged = `${server.url}/auth/v1/verify?type=email_change&token=${Buffer.from(named).toString("base64url")}.x`;
    expect((await fetch(forged, { redirect: "manual" })).headers.get("location")).toContain("error_code=otp_expired");
  }
  // A second change asked within the minute is refused.
  expect((await sb.auth.updateUser({ email: uniqueEmail("again") })).error?.code).toBe("over_email_send_rate_limit");
});

test("wrong codes for one address from many client addresses: ten an hour in all, then 429 even for the right code; the mailed link still confirms", async () => {
  const email = uniqueEmail("guessed");
  const sb = client(server.url, server.secrets.anonKey);
  await sb.auth.signUp({ email, password: "pass-word-9" });
  const { code, link } = await mailTo(email);
  const verify = (token: string, from: string) =>
    fetch(`${server.url}/auth/v1/verify`, { method: "POST", headers: { apikey: server.secrets.anonKey, "content-type": "application/json", "x-forwarded-for": from }, body: JSON.stringify({ type: "signup", email, token }) }).then((r) => r.status);
  const wrong = (i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0");
  const statuses: number[] = [];
  // Each guess from its own client address (a proxy on loopback forwards them).
  for (let i = 0; i < 11; i++) statuses.push(await verify(wrong(i), `198.51.100.${i + 1}`));
  expect(statuses).toEqual([...Array(10).fill(403), 429]);
  expect(await verify(code, "198.51.100.99")).toBe(429);
  expect((await fetch(link, { redirect: "manual" })).headers.get("location")).toContain("access_token=");
});
