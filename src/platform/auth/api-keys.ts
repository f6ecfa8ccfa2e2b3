// The anon and service_role API keys: long-lived HS256 JWTs with a `role` claim and no `sub`,
// signed with JWT_SECRET, as Supabase issues them (DESIGN §4).
import { SignJWT, jwtVerify } from "jose";

export type ApiKeyRole = "anon" | "service_role";

const TEN_YEARS_S = 10 * 365 * 24 * 3600;

export function secretBytes(jwtSecret: string): Uint8Array {
  return new TextEncoder().encode(jwtSecret);
}

export async function signApiKey(jwtSecret: string, role: ApiKeyRole, nowS = Math.floor(Date.now() / 1000)): Promise<string> {
  return new SignJWT({ role, iss: "answerwatch" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + TEN_YEARS_S)
    .sign(secretBytes(jwtSecret));
}

/** The role of an API key signed with `jwtSecret`, or null when it is not one. */
export async function apiKeyRole(jwtSecret: string, token: string): Promise<ApiKeyRole | null> {
  try {
    const { payload } = await jwtVerify(token, secretBytes(jwtSecret), { algorithms: ["HS256"] });
    if (payload.sub !== undefined) return null;
    return payload.role === "anon" || payload.role === "service_role" ? payload.role : null;
  } catch {
    return null;
  }
}
