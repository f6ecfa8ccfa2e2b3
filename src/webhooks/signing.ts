// Standard Webhooks signatures: webhook-signature = "v1," + base64(HMAC-SHA256(key, "id.timestamp.body")),
// where the key is the base64 part of the "whsec_…" secret.

export function newSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64")}`;
}

export function signatureHeaders(secret: string, messageId: string, timestampS: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signature = new Bun.CryptoHasher("sha256", key).update(`${messageId}.${timestampS}.${body}`).digest("base64");
  return { "webhook-id": messageId, "webhook-timestamp": String(timestampS), "webhook-signature": `v1,${signature}` };
}
