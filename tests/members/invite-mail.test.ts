// backends: sqlite, postgres
// Invitations by mail (issue #31): with SMTP_URL, an invitation is mailed to the invited address —
// who invites, to which organization, at which role, until when, and the app's address to sign in
// or sign up with it and answer, through a link whose key answering needs (this server proves no
// address); inviting the same address again mails a new link and the old one stops working.
// Accepting still takes the invited person signed in (nobody joins from a mail alone).
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

test("the invited address gets a mail saying who, where, which role and until when, with the app's address; a second invitation mails a new link", async () => {
  const to = uniqueEmail("invitee");
  const res = await invite(to, "viewer");
  expect(res.status).toBe(201);
  const { invitation } = await res.clone().json();
  const [mail] = await sink.waitFor(1);
  expect(mailsTo(to)).toHaveLength(1);
  const owner = (await org.owner.auth.getUser()).data.user!.email!;
  expect(mail!.subject).toBe(`${owner} invited you to Mail Invites on answerwatch`);
  expect(mail!.text).toContain(`${owner} invited you to join Mail Invites on answerwatch (${server.url}) as viewer.`);
  const { link } = (await res.clone().json()) as { link: string };
  expect(mail!.text).toContain(`accept or decline: ${link}`);
  expect(link).toStartWith(`${server.url}/?invitation=${invitation.id}&key=`);
  expect(mail!.text).toContain(`until ${invitation.expires_at.slice(0, 10)}`);
  expect(mail!.html).toContain("<b>Mail Invites</b>");
  const again = await invite(to, "viewer");
  expect(again.status).toBe(201);
  const second = (await again.json()) as { link: string };
  const until = Date.now() + 10_000;
  while (mailsTo(to).length < 2 && Date.now() < until) await Bun.sleep(20);
  expect(mailsTo(to)).toHaveLength(2);
  expect(mailsTo(to)[1]!.text).toContain(second.link);
  expect(second.link).not.toBe(link);
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
  expect(pending.invitations.map((i: { role: string }) => i.role)).toEqual(["member"]);
  expect((await sb.from("organizations").select("name")).data!.map((o: { name: string }) => o.name)).not.toContain("Mail Invites");
  const link = new URL(mailsTo(to)[0]!.text!.match(/https?:\/\/\S+\?invitation=\S+/)![0]);
  expect(link.searchParams.get("invitation")).toBe(pending.invitations[0].id);
  // The link's key opens it in full.
  const opened = await (await fetch(`${server.url}/api/invitations/${pending.invitations[0].id}/open`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ key: link.searchParams.get("key") }) })).json();
  expect([opened.invitation.organization_name, opened.invitation.role]).toEqual(["Mail Invites", "member"]);
  const accepted = await fetch(`${server.url}/api/invitations/${pending.invitations[0].id}/accept`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ key: link.searchParams.get("key") }) });
  expect(accepted.status).toBe(200);
  expect((await sb.from("organizations").select("name")).data!.map((o: { name: string }) => o.name)).toContain("Mail Invites");
});

test("the invited person may decline from the mailed link's home page: no membership, and the invitation cannot be accepted afterwards", async () => {
  const to = uniqueEmail("decliner");
  await invite(to, "member");
  const until = Date.now() + 10_000;
  while (!mailsTo(to).length && Date.now() < until) await Bun.sleep(20);
  const link = new URL(mailsTo(to)[0]!.text!.match(/https?:\/\/\S+\?invitation=\S+/)![0]);
  const id = link.searchParams.get("invitation");
  const sb = client(server.url, server.secrets.anonKey);
  const { data } = await sb.auth.signUp({ email: to, password: "declining-now" });
  const headers = { authorization: `Bearer ${data.session!.access_token}`, "content-type": "application/json" };
  const body = JSON.stringify({ key: link.searchParams.get("key") });
  expect((await fetch(`${server.url}/api/invitations/${id}/decline`, { method: "POST", headers, body })).status).toBe(200);
  expect((await fetch(`${server.url}/api/invitations/${id}/accept`, { method: "POST", headers, body })).status).toBe(404);
  expect((await sb.from("organizations").select("name")).data!.map((o: { name: string }) => o.name)).not.toContain("Mail Invites");
  expect((await (await fetch(`${server.url}/api/invitations`, { headers })).json()).invitations).toEqual([]);
});
