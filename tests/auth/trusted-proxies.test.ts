// backends: sqlite, postgres
// TRUSTED_PROXIES=none, for a server clients reach directly (a `docker run -p` whose peers all come
// from the bridge's private address): X-Forwarded-For is the client's own writing, so sending a new
// one on every request must not buy a new sign-up allowance. With the default (loopback and private
// peers are proxies), the same requests from loopback count as the addresses they name.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { uniqueEmail } from "../helpers/supabase";

let direct: Awaited<ReturnType<typeof testServer>>;
let proxied: Awaited<ReturnType<typeof testServer>>;

beforeAll(async () => {
  [direct, proxied] = await Promise.all([testServer({ TRUSTED_PROXIES: "none" }), testServer()]);
});
afterAll(async () => {
  await Promise.all([direct?.stop(), proxied?.stop()]);
});

const signUp = (server: typeof direct, forwardedFor: string) =>
  fetch(`${server.url}/auth/v1/signup`, {
    method: "POST",
    headers: { apikey: server.secrets.anonKey, "content-type": "application/json", "x-forwarded-for": forwardedFor },
    body: JSON.stringify({ email: uniqueEmail("xff"), password: "correct-horse" }),
  }).then((r) => r.status);

test("with TRUSTED_PROXIES=none a forged X-Forwarded-For per request still counts as one client: 10 sign-ups an hour, then 429", async () => {
  const statuses: number[] = [];
  for (let i = 1; i <= 12; i++) statuses.push(await signUp(direct, `198.51.100.${i}`));
  expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
});

test("by default a loopback peer is a proxy: each forwarded address is its own client", async () => {
  const statuses: number[] = [];
  for (let i = 1; i <= 12; i++) statuses.push(await signUp(proxied, `198.51.100.${i}`));
  expect(statuses).toEqual(Array(12).fill(200));
});
