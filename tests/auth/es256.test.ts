// backends: sqlite, postgres
import { afterAll, beforeAll, expect, test } from "bun:test";
import { decodeProtectedHeader } from "jose";
import { testServer } from "../helpers/app";
import { signedUpClient } from "../helpers/supabase";

let server: Awaited<ReturnType<typeof testServer>>;
let publicJwk: JsonWebKey;
beforeAll(async () => {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const privateJwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  publicJwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  server = await testServer({ JWT_SIGNING_KEY: JSON.stringify({ ...privateJwk, kid: "test-key-1" }) });
});
afterAll(() => server.stop());

test("ES256 mode: tokens carry the kid, the JWKS publishes the public key, getClaims() verifies a fresh token", async () => {
  const { sb, session, user } = await signedUpClient(server.url, server.secrets.anonKey);
  expect(decodeProtectedHeader(session.access_token)).toMatchObject({ alg: "ES256", kid: "test-key-1" });

  const jwks = await (await fetch(`${server.url}/auth/v1/.well-known/jwks.json`, { headers: { apikey: server.secrets.anonKey } })).json();
  expect(jwks.keys).toHaveLength(1);
  expect(jwks.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", kid: "test-key-1", alg: "ES256", x: publicJwk.x, y: publicJwk.y });
  expect(jwks.keys[0].d).toBeUndefined();

  const { data, error } = await sb.auth.getClaims();
  expect(error).toBeNull();
  expect(data?.claims.sub).toBe(user.id);
  expect(data?.header).toMatchObject({ alg: "ES256", kid: "test-key-1" });
});

test("ES256 mode: the user token works on /api and an HS256 token forged with another key does not", async () => {
  const { session } = await signedUpClient(server.url, server.secrets.anonKey);
  expect((await fetch(`${server.url}/api/health`, { headers: { authorization: `Bearer ${session.access_token}` } })).status).toBe(200);
  const [h, p] = session.access_token.split(".");
  const tampered = `${h}.${p}.${Buffer.from("x".repeat(64)).toString("base64url")}`;
  expect((await fetch(`${server.url}/api/health`, { headers: { authorization: `Bearer ${tampered}` } })).status).toBe(401);
});
