// Secrets handed out once (session refresh tokens, share links, API keys, invitation keys): random,
// URL-safe, and kept only as their SHA-256.

/** 24 random bytes, base64url (32 characters). */
export function opaqueToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
}

/** The hex SHA-256 a handed-out secret is kept and looked up by. */
export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
