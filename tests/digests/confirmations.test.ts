// backends: sqlite, postgres
// Confirmation mails for digests (double opt-in) cannot be turned into a mailer for strangers: an
// account gets at most 5 a day whatever addresses it takes on (an address change is immediate
// where addresses are not proven), an address at most 3 a day whatever accounts pass it around;
// an expired link is refused; a confirmation for an address the account no longer has confirms
// nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { testServer } from "../helpers/app";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp";
import { uniqueEmail } from "../helpers/supabase";
import { signedUpOrg, type Org, type Server } from "../rest/helpers";

let sink: SmtpSink;
let server: Server;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await testServer({ SMTP_URL: sink.url, AUTH_SIGNUP_RATE_LIMIT_PER_HOUR: "100" });
  await server.runtime();
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const ask = (org: Org) => fetch(`${server.url}/api/digests/confirmation`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}` } }).then((r) => r.status);
const moveTo = async (org: Org, email: string) => expect((await org.owner.auth.updateUser({ email })).error).toBeNull();
const confirmationsTo = (to: string) => sink.received.filter((m) => m.to && !Array.isArray(m.to) && m.to.text === to && m.subject === "Confirm your address for answerwatch digests");
async function settle(count: () => number, expected: number) {
  for (let i = 0; i < 200 && count() < expected; i++) await Bun.sleep(25);
  await Bun.sleep(100);
  expect(count()).toBe(expected);
}

test("one account taking on address after address: five confirmation mails a day, then 429", async () => {
  const org = await signedUpOrg(server, "Hopper");
  const addresses = Array.from({ length: 7 }, () => uniqueEmail("stranger"));
  const statuses: number[] = [];
  for (const address of addresses) {
    await moveTo(org, address);
    statuses.push(await ask(org));
  }
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  await settle(() => addresses.reduce((n, a) => n + confirmationsTo(a).length, 0), 5);
});

test("one address passed between accounts: three confirmation mails a day, then 429", async () => {
  const victim = uniqueEmail("victim");
  const accounts = await Promise.all(Array.from({ length: 4 }, (_, i) => signedUpOrg(server, `Passer ${i}`)));
  const statuses: number[] = [];
  for (const account of accounts) {
    await moveTo(account, victim);
    statuses.push(await ask(account));
    await moveTo(account, uniqueEmail("elsewhere"));
  }
  expect(statuses).toEqual([200, 200, 200, 429]);
  await settle(() => confirmationsTo(victim).length, 3);
});

test("a link past its week is refused; a link for an address the account has left confirms nothing", async () => {
  const org = await signedUpOrg(server, "Mover");
  const first = (await (await fetch(`${server.url}/api/digests`, { headers: { authorization: `Bearer ${org.ownerToken}` } })).json()).address.email as string;
  const userId = JSON.parse(Buffer.from(org.ownerToken.split(".")[1]!, "base64url").toString()).sub as string;
  // A token as the server signs them, expired a second ago.
  const payload = `${userId}.${Date.now() - 1000}.${Buffer.from(first).toString("base64url")}`;
  const mac = createHmac("sha256", server.secrets.jwtSecret).update(`answerwatch digest address:${payload}`).digest("base64url");
  const expired = await fetch(`${server.url}/digests/confirm?token=${payload}.${mac}`, { method: "POST" });
  expect(expired.status).toBe(400);
  expect(await expired.text()).toContain("older than a week");
  // The same token unexpired is good (the signature is the server's) — until the account moves.
  const livePayload = `${userId}.${Date.now() + 60_000}.${Buffer.from(first).toString("base64url")}`;
  const live = `${server.url}/digests/confirm?token=${livePayload}.${createHmac("sha256", server.secrets.jwtSecret).update(`answerwatch digest address:${livePayload}`).digest("base64url")}`;
  expect(await ask(org)).toBe(200);
  await moveTo(org, uniqueEmail("moved"));
  const left = await fetch(live, { method: "POST" });
  expect(left.status).toBe(404);
  const after = (await (await fetch(`${server.url}/api/digests`, { headers: { authorization: `Bearer ${org.ownerToken}` } })).json()).address;
  expect(after.confirmed).toBe(false);
});
