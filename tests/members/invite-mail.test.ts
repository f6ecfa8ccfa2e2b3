// backends: sqlite, postgres
// Invitations by mail (issue #31): with SMTP_URL, an invitation is mailed to the invited address —
// who invites, to which organization, at which role, until when, and the app's address to sign in
// or sign up with it and answer; inviting the same address again mails nothing more. Accepting still
// takes the invited person signed in (nobody joins from a mail alone).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp";
import { client, uniqueEmail } from "../helpers/supabase";
import { signedUpOrg, type Org, type Server } from "../rest/helpers";

let sink: SmtpSink;
let server: Server;
let org: Org;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await testServer({ SMTP_URL: sink.url });
  await server.runtime();
  org = await signedUpOrg(server, "Mail Invites");
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const invite = (email: string, role = "member") =>
  fetch(`${server.url}/api/organizations/${org.id}/members`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify({ email, role }) });
const mailsTo = (to: string) => sink.received.filter((m) => m.to && !Array.isArray(m.to) && m.to.text === to);

test("the invited address gets a mail saying who, where, which role and until when, with the app's address; a second invitation mails nothing more", async () => {
  const to = uniqueEmail("invitee");
  const res = await invite(to, "viewer");
  expect(res.status).toBe(201);
  const { invitation } = await res.json();
  const [mail] = await sink.waitFor(1);
  expect(mailsTo(to)).toHaveLength(1);
  const owner = (await org.owner.auth.getUser()).data.user!.email!;
  expect(mail!.subject).toBe(`${owner} invited you to Mail Invites on answerwatch`);
  expect(mail!.text).toContain(`${owner} invited you to join Mail Invites on answerwatch (${server.url}) as viewer.`);
  expect(mail!.text).toContain(`on your home page: ${server.url}/?invitation=${invitation.id}`);
  expect(mail!.text).toContain(`until ${invitation.expires_at.slice(0, 10)}`);
  expect(mail!.html).toContain("<b>Mail Invites</b>");
  expect((await invite(to, "viewer")).status).toBe(201);
  await Bun.sleep(300);
  expect(mailsTo(to)).toHaveLength(1);
});

test("someone without an account signs up with the invited address and finds the invitation to accept; the mail alone joined nobody", async () => {
  const to = uniqueEmail("newcomer");
  await invite(to, "member");
  const until = Date.now() + 10_000;
  while (!mailsTo(to).length && Date.now() < until) await Bun.sleep(20);
  expect(mailsTo(to)).toHaveLength(1);
  const sb = client(server.url, server.secrets.anonKey);
  const { data, error } = await sb.auth.signUp({ email: to, password: "joining-now" });
  expect(error).toBeNull();
  const headers = { authorization: `Bearer ${data.session!.access_token}` };
  const pending = await (await fetch(`${server.url}/api/invitations`, { headers })).json();
  expect(pending.invitations.map((i: { organization_name: string; role: string }) => [i.organization_name, i.role])).toEqual([["Mail Invites", "member"]]);
  expect((await sb.from("organizations").select("name")).data!.map((o: { name: string }) => o.name)).not.toContain("Mail Invites");
  const accepted = await fetch(`${server.url}/api/invitations/${pending.invitations[0].id}/accept`, { method: "POST", headers });
  expect(accepted.status).toBe(200);
  expect((await sb.from("organizations").select("name")).data!.map((o: { name: string }) => o.name)).toContain("Mail Invites");
});

test("the invited person may decline from the mailed link's home page: no membership, and the invitation cannot be accepted afterwards", async () => {
  const to = uniqueEmail("decliner");
  await invite(to, "member");
  const until = Date.now() + 10_000;
  while (!mailsTo(to).length && Date.now() < until) await Bun.sleep(20);
  const link = mailsTo(to)[0]!.text!.match(/https?:\/\/\S+\?invitation=([0-9a-f-]{36})/)!;
  const sb = client(server.url, server.secrets.anonKey);
  const { data } = await sb.auth.signUp({ email: to, password: "declining-now" });
  const headers = { authorization: `Bearer ${data.session!.access_token}` };
  expect((await fetch(`${server.url}/api/invitations/${link[1]}/decline`, { method: "POST", headers })).status).toBe(200);
  expect((await fetch(`${server.url}/api/invitations/${link[1]}/accept`, { method: "POST", headers })).status).toBe(404);
  expect((await sb.from("organizations").select("name")).data!.map((o: { name: string }) => o.name)).not.toContain("Mail Invites");
  expect((await (await fetch(`${server.url}/api/invitations`, { headers })).json()).invitations).toEqual([]);
});
