// backends: sqlite, postgres
// Access tokens are verified once and then remembered until they expire: a remembered token must
// still expire on time, and a forged one must never borrow a remembered token's verdict.
import { expect, test } from "bun:test";
import { TokenError, createTokenService } from "../../src/platform/auth/tokens";

const SECRET = "a-test-secret-of-at-least-thirty-two-chars";
const claims = {
  sub: crypto.randomUUID(),
  role: "authenticated",
  email: "a@example.com",
  phone: "",
  app_metadata: {},
  user_metadata: {},
  aal: "aal1",
  amr: [],
  session_id: crypto.randomUUID(),
  is_anonymous: false,
};

test("a token verified before is refused as expired once its exp has passed", async () => {
  // Two seconds, not one: `exp` counts whole seconds from a whole-second `iat`, so a token signed at
  // x.999 with one second would expire a millisecond later, before its first verification (a flaky run).
  const tokens = await createTokenService({ jwtSecret: SECRET, expirySeconds: 2, issuer: "http://localhost/auth/v1" });
  const { token, expiresAt } = await tokens.sign(claims);
  expect((await tokens.verify(token)).sub).toBe(claims.sub);
  expect((await tokens.verify(token)).sub).toBe(claims.sub);
  await Bun.sleep(Math.max(0, expiresAt * 1000 - Date.now()) + 50);
  const error = await tokens.verify(token).catch((e) => e);
  expect(error).toBeInstanceOf(TokenError);
  expect((error as TokenError).problem).toBe("expired");
});

test("a token with a changed payload or signature is refused after the genuine one was verified", async () => {
  const tokens = await createTokenService({ jwtSecret: SECRET, expirySeconds: 3600, issuer: "http://localhost/auth/v1" });
  const { token } = await tokens.sign(claims);
  await tokens.verify(token);
  const [header, payload, signature] = token.split(".");
  const elevated = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), sub: crypto.randomUUID() })).toString("base64url");
  await expect(tokens.verify(`${header}.${elevated}.${signature}`)).rejects.toBeInstanceOf(TokenError);
  // The first character, not the last: the last one's low bits are padding, so replacing it can
  // leave the decoded signature unchanged.
  const forged = `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`;
  await expect(tokens.verify(`${header}.${payload}.${forged}`)).rejects.toBeInstanceOf(TokenError);
  const other = await createTokenService({ jwtSecret: `${SECRET}-other`, expirySeconds: 3600, issuer: "http://localhost/auth/v1" });
  await expect(other.verify(token)).rejects.toBeInstanceOf(TokenError);
});
