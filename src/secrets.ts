// Secrets bootstrap: JWT_SECRET, CRON_SECRET and the anon / service_role keys are generated on
// first start and kept by a SecretStore; the environment wins when it sets them. The store here is
// DATA_DIR/secrets.json (mode 0600); one shared by several instances (a database table) comes with
// Postgres (#29) and keeps the same rules (deriveSecrets).
import { chmodSync, linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { secretFingerprint, signApiKey, type ApiKeyRole } from "./platform/auth/api-keys";
import { errorCode, StartupError, type Config } from "./config";

export interface Secrets {
  jwtSecret: string;
  anonKey: string;
  serviceRoleKey: string;
  cronSecret: string;
}

/** Where the generated secrets are kept: each call loads them, creating (and keeping) what is missing. */
export interface SecretStore {
  ensure(): Promise<Secrets>;
}

/** The secrets as a store keeps them. */
export interface StoredSecrets {
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

// The same floors as the variables that override them (config.ts): a stored value below one is
// not a secret this program wrote.
const STORED_FIELDS = { jwt_secret: 32, anon_key: 20, service_role_key: 20, cron_secret: 16, keys_signed_with: 1 } as const;

/** secrets.json as stored, or undefined when there is none yet; a damaged file stops the start (exit 2). */
function readStoredSecrets(file: string): StoredSecrets | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw new StartupError(`DATA_DIR/${SECRETS_FILE} cannot be read (${errorCode(error)}): ${file}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // The parser quotes the token it stopped at, which may be a piece of a secret: left out.
    const reason = (error as Error).message.replace(/^JSON Parse error: /, "").replace(/"[^"]*"|'[^']*'/g, "…");
    throw new StartupError(`DATA_DIR/${SECRETS_FILE} is not valid JSON: ${reason} (${file})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new StartupError(`DATA_DIR/${SECRETS_FILE} must hold a JSON object (${file})`);
  for (const [field, minLength] of Object.entries(STORED_FIELDS)) {
    const value = (parsed as Record<string, unknown>)[field];
    if (value !== undefined && (typeof value !== "string" || value.length < minLength))
      throw new StartupError(`DATA_DIR/${SECRETS_FILE}: "${field}" must be a string of at least ${minLength} characters (${file})`);
  }
  return parsed as StoredSecrets;
}

/** Writes `secrets` when given (else only keeps the mode): 0600, as the file holds every secret. */
function writeStoredSecrets(file: string, secrets: StoredSecrets | undefined): void {
  try {
    if (secrets) writeFileSync(file, JSON.stringify(secrets, null, 2) + "\n", { mode: 0o600 });
    chmodSync(file, 0o600);
  } catch (error) {
    throw new StartupError(`DATA_DIR/${SECRETS_FILE} cannot be written (${errorCode(error)}): ${file}`);
  }
}

/**
 * Creates secrets.json whole, unless it exists: written aside, then hard-linked into place (which
 * fails when the name is taken), so a reader never sees a half-written file. False when another
 * process created it first.
 */
function createStoredSecrets(file: string, secrets: StoredSecrets): boolean {
  const aside = `${file}.${process.pid}.${randomSecret(6)}`;
  try {
    writeFileSync(aside, JSON.stringify(secrets, null, 2) + "\n", { mode: 0o600, flag: "wx" });
    linkSync(aside, file);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw new StartupError(`DATA_DIR/${SECRETS_FILE} cannot be written (${errorCode(error)}): ${file}`);
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // never written
    }
  }
}

type SecretsConfig = Pick<Config, "dataDir" | "secrets">;

/** The secrets in use given the stored ones and the environment's, and what the store should keep (`next`). */
export async function deriveSecrets(stored: StoredSecrets, config: Pick<Config, "secrets">): Promise<{ secrets: Secrets; next: StoredSecrets }> {
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
  return { secrets: { jwtSecret, anonKey, serviceRoleKey, cronSecret }, next };
}

/** DATA_DIR/secrets.json as the secret store (one instance per DATA_DIR). */
export function createFileSecretStore(config: SecretsConfig): SecretStore {
  const file = join(config.dataDir, SECRETS_FILE);
  async function load(): Promise<Secrets> {
    // Twice at most: a first start that loses the race to create the file reads the winner's.
    for (let attempt = 0; ; attempt++) {
      const found = readStoredSecrets(file);
      const stored: StoredSecrets = found ?? {};
      const { secrets, next } = await deriveSecrets(stored, config);
      if (!found) {
        if (createStoredSecrets(file, next)) return secrets;
        if (attempt === 0) continue;
        throw new StartupError(`DATA_DIR/${SECRETS_FILE} was created and could not be read back: ${file}`);
      }
      writeStoredSecrets(file, JSON.stringify(next) !== JSON.stringify(stored) ? next : undefined);
      return secrets;
    }
  }
  // Calls that overlap share one load: two would each sign keys, and the second write would win.
  let loading: Promise<Secrets> | undefined;
  return {
    ensure() {
      loading ??= load().finally(() => (loading = undefined));
      return loading;
    },
  };
}

export function ensureSecrets(config: SecretsConfig): Promise<Secrets> {
  return createFileSecretStore(config).ensure();
}
