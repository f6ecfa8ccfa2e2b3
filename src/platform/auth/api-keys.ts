// The anon and service_role API keys: long-lived HS256 JWTs with a `role` claim and no `sub`,
// signed with JWT_SECRET, as Supabase issues them (DESIGN §4).
import { decodeJwt, jwtVerify, type JWTPayload } from "jose";

import type { ApiKeyRole } from "../../common/identity";
export type { ApiKeyRole };

const TEN_YEARS_S = 10 * 365 * 24 * 3600;

export function secretBytes(jwtSecret: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(jwtSecret);
}

const base64url = (data: string | Uint8Array) => Buffer.from(data).toString("base64url");

/**
 * HS256 by hand with Bun's HMAC: the same token jose would make, without WebCrypto's key import,
 * which costs tens of milliseconds at start-up.
 */
export async function signApiKey(jwtSecret: string, role: ApiKeyRole, nowS = Math.floor(Date.now() / 1000)): Promise<string> {
  const input = `${base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${base64url(JSON.stringify({ role, iss: "answerwatch", iat: nowS, exp: nowS + TEN_YEARS_S }))}`;
  return `${input}.${new Bun.CryptoHasher("sha256", secretBytes(jwtSecret)).update(input).digest("base64url")}`;
}

/** A short fingerprint of the secret the stored keys were signed with, to know they still verify. */
export function secretFingerprint(jwtSecret: string): string {
  return new Bun.CryptoHasher("sha256").update(`answerwatch-api-keys:${jwtSecret}`).digest("hex").slice(0, 16);
}

/** The role of an API key signed with `jwtSecret` and carrying an exp, or null when it is not one. */
export async function apiKeyRole(jwtSecret: string, token: string): Promise<ApiKeyRole | null> {
  // Every user token passes through here first: one without an API key's claims is answered
  // without verifying (and importing the secret as a key), since the answer is null either way.
  let claims: JWTPayload;
  try {
    claims = decodeJwt(token);
  } catch {
    return null;
  }
  if (claims.sub !== undefined || (claims.role !== "anon" && claims.role !== "service_role")) return null;
  try {
    // exp is required: the configured keys are matched by equality before this (caller.ts), so
    // what reaches here is a key minted elsewhere with the secret, which must not live forever.
    const { payload } = await jwtVerify(token, secretBytes(jwtSecret), { algorithms: ["HS256"], requiredClaims: ["exp"] });
    if (payload.sub !== undefined) return null;
    return payload.role === "anon" || payload.role === "service_role" ? payload.role : null;
  } catch {
    return null;
  }
}
