// Access tokens (DESIGN §4): HS256 with JWT_SECRET by default, ES256 with a kid when
// JWT_SIGNING_KEY is set. Verification pins the algorithms, requires and checks exp, checks aud,
// and so rejects alg:none, other keys, malformed tokens and tokens that would never expire.
import { SignJWT, calculateJwkThumbprint, decodeProtectedHeader, errors as joseErrors, exportJWK, importJWK, jwtVerify, type CryptoKey, type JWK } from "jose";
import { secretBytes } from "./api-keys";
import type { AccessClaims } from "../../common/identity";

export type { AccessClaims } from "../../common/identity";

export type TokenProblem = "expired" | "invalid";

// Every token this server signs has exp; one without it would never expire. jose checks exp only
// when present, so it is required explicitly.
const REQUIRED_CLAIMS = ["exp"];

export class TokenError extends Error {
  constructor(readonly problem: TokenProblem, message: string) {
    super(message);
  }
}

export interface TokenService {
  issuer: string;
  expirySeconds: number;
  sign(claims: Omit<AccessClaims, "iat" | "exp" | "iss" | "aud">, nowS?: number): Promise<{ token: string; expiresAt: number }>;
  /** Verifies an access token; throws TokenError. */
  verify(token: string): Promise<AccessClaims>;
  jwks(): { keys: JWK[] };
}

export async function createTokenService(options: {
  jwtSecret: string;
  signingKey?: JsonWebKey & { kid?: string };
  expirySeconds: number;
  issuer: string;
}): Promise<TokenService> {
  // Imported once: handing jose the raw secret would import the key again on every request.
  const hmac = await crypto.subtle.importKey("raw", secretBytes(options.jwtSecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  let es: { privateKey: CryptoKey; publicKey: CryptoKey; kid: string; publicJwk: JWK } | undefined;
  if (options.signingKey) {
    // key_ops/ext of an exported private key would forbid importing its public half for verify.
    const { key_ops: _ops, ext: _ext, ...jwk } = options.signingKey as JWK;
    const { d: _d, ...publicPart } = jwk;
    const kid = jwk.kid ?? (await calculateJwkThumbprint(publicPart));
    const privateKey = (await importJWK({ ...jwk, alg: "ES256" }, "ES256")) as CryptoKey;
    const publicKey = (await importJWK({ ...publicPart, alg: "ES256" }, "ES256")) as CryptoKey;
    const exported = await exportJWK(publicKey);
    es = { privateKey, publicKey, kid, publicJwk: { ...exported, kid, alg: "ES256", use: "sig", key_ops: ["verify"] } };
  }

  // Tokens already verified, until they expire: a dashboard sends the same access token with every
  // request for an hour, and a signature check costs more than the rest of a cached read. Expiry
  // is still checked on each use, and revocation is the caller's session lookup, never cached.
  const verified = new Map<string, AccessClaims>();
  const VERIFIED_MAX = 10_000;

  return {
    issuer: options.issuer,
    expirySeconds: options.expirySeconds,
    async sign(claims, nowS = Math.floor(Date.now() / 1000)) {
      const expiresAt = nowS + options.expirySeconds;
      const jwt = new SignJWT({ ...claims })
        .setIssuer(options.issuer)
        .setAudience("authenticated")
        .setIssuedAt(nowS)
        .setExpirationTime(expiresAt)
        .setJti(crypto.randomUUID());
      const token = es
        ? await jwt.setProtectedHeader({ alg: "ES256", typ: "JWT", kid: es.kid }).sign(es.privateKey)
        : await jwt.setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(hmac);
      return { token, expiresAt };
    },
    async verify(token) {
      const known = verified.get(token);
      if (known) {
        if (known.exp! > Date.now() / 1000) return known;
        verified.delete(token);
        throw new TokenError("expired", "invalid JWT: token is expired");
      }
      let alg: string | undefined;
      try {
        alg = decodeProtectedHeader(token).alg;
      } catch {
        throw new TokenError("invalid", "invalid JWT: unable to parse or verify signature, token is malformed");
      }
      try {
        const { payload } =
          es && alg === "ES256"
            ? await jwtVerify(token, es.publicKey, { algorithms: ["ES256"], audience: "authenticated", requiredClaims: REQUIRED_CLAIMS })
            : await jwtVerify(token, hmac, { algorithms: ["HS256"], audience: "authenticated", requiredClaims: REQUIRED_CLAIMS });
        if (typeof payload.sub !== "string" || typeof payload.session_id !== "string") {
          throw new TokenError("invalid", "invalid JWT: missing sub or session_id claim");
        }
        if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
        verified.set(token, payload as AccessClaims);
        return payload as AccessClaims;
      } catch (error) {
        if (error instanceof TokenError) throw error;
        if (error instanceof joseErrors.JWTExpired) throw new TokenError("expired", "invalid JWT: token is expired");
        if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === "exp") throw new TokenError("invalid", "invalid JWT: token has no valid exp claim");
        throw new TokenError("invalid", "invalid JWT: unable to parse or verify signature");
      }
    },
    jwks() {
      return { keys: es ? [es.publicJwk] : [] };
    },
  };
}

/** `Authorization: Bearer <token>` → token, or null. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : "";
}
