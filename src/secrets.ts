// Secrets bootstrap: JWT_SECRET, CRON_SECRET and the anon / service_role keys are generated on
// first start and kept in DATA_DIR/secrets.json (mode 0600); the environment wins when it sets them.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { secretFingerprint, signApiKey, type ApiKeyRole } from "./platform/auth/api-keys";
import type { Config } from "./config";

export interface Secrets {
  jwtSecret: string;
  anonKey: string;
  serviceRoleKey: string;
  cronSecret: string;
}

interface StoredSecrets {
  jwt_secret?: string;
  anon_key?: string;
  service_role_key?: string;
  cron_secret?: string;
  /** Which JWT_SECRET signed the stored keys (secretFingerprint). */
  keys_signed_with?: string;
}

export const SECRETS_FILE = "secrets.json";

function randomSecret(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

export async function ensureSecrets(config: Pick<Config, "dataDir" | "secrets">): Promise<Secrets> {
  const file = join(config.dataDir, SECRETS_FILE);
  const stored: StoredSecrets = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  const next: StoredSecrets = { ...stored };

  const jwtSecret = config.secrets.jwtSecret ?? (next.jwt_secret ??= randomSecret(48));
  // Stored keys signed with another secret (JWT_SECRET changed) are useless: sign new ones.
  const fingerprint = secretFingerprint(jwtSecret);
  const keysValid = next.keys_signed_with === fingerprint;
  const key = async (role: ApiKeyRole, fromEnv: string | undefined, field: "anon_key" | "service_role_key") => {
    if (fromEnv) return fromEnv;
    if (keysValid && next[field]) return next[field]!;
    return (next[field] = await signApiKey(jwtSecret, role));
  };
  const anonKey = await key("anon", config.secrets.anonKey, "anon_key");
  const serviceRoleKey = await key("service_role", config.secrets.serviceRoleKey, "service_role_key");
  const cronSecret = config.secrets.cronSecret ?? (next.cron_secret ??= randomSecret(32));
  if (next.anon_key || next.service_role_key) next.keys_signed_with = fingerprint;

  if (JSON.stringify(next) !== JSON.stringify(stored) || !existsSync(file)) {
    writeFileSync(file, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  return { jwtSecret, anonKey, serviceRoleKey, cronSecret };
}
