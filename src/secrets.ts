// Secrets bootstrap: JWT_SECRET, CRON_SECRET and the anon / service_role keys are generated on
// first start and kept in DATA_DIR/secrets.json (mode 0600); the environment wins when it sets them.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { apiKeyRole, signApiKey, type ApiKeyRole } from "./platform/auth/api-keys";
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
  // A stored key signed with another secret (JWT_SECRET changed) is useless: sign a new one.
  const key = async (role: ApiKeyRole, fromEnv: string | undefined, field: "anon_key" | "service_role_key") => {
    if (fromEnv) return fromEnv;
    const current = next[field];
    if (current && (await apiKeyRole(jwtSecret, current)) === role) return current;
    return (next[field] = await signApiKey(jwtSecret, role));
  };
  const anonKey = await key("anon", config.secrets.anonKey, "anon_key");
  const serviceRoleKey = await key("service_role", config.secrets.serviceRoleKey, "service_role_key");
  const cronSecret = config.secrets.cronSecret ?? (next.cron_secret ??= randomSecret(32));

  if (JSON.stringify(next) !== JSON.stringify(stored) || !existsSync(file)) {
    writeFileSync(file, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  return { jwtSecret, anonKey, serviceRoleKey, cronSecret };
}
