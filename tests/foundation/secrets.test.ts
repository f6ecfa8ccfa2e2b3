import { expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { decodeJwt } from "jose";
import { loadConfig } from "../../src/config";
import { apiKeyRole } from "../../src/platform/auth/api-keys";
import { ensureSecrets, SECRETS_FILE } from "../../src/secrets";
import { tempDir } from "../helpers/app";

test("first start generates secrets in a 0600 file; a restart reuses them", async () => {
  const dataDir = tempDir();
  const first = await ensureSecrets(loadConfig({ DATA_DIR: dataDir }));
  expect(statSync(join(dataDir, SECRETS_FILE)).mode & 0o777).toBe(0o600);
  const second = await ensureSecrets(loadConfig({ DATA_DIR: dataDir }));
  expect(second).toEqual(first);
  expect(decodeJwt(first.anonKey)).toMatchObject({ role: "anon" });
  expect(decodeJwt(first.serviceRoleKey)).toMatchObject({ role: "service_role" });
  expect(decodeJwt(first.anonKey).sub).toBeUndefined();
  // Signed by hand (Bun's HMAC), verified by jose like any HS256 token.
  expect(await apiKeyRole(first.jwtSecret, first.anonKey)).toBe("anon");
  expect(await apiKeyRole(first.jwtSecret, first.serviceRoleKey)).toBe("service_role");
  expect(await apiKeyRole("another-secret-of-at-least-32-chars!!", first.anonKey)).toBeNull();
});

test("secrets set in the environment win over generated ones", async () => {
  const dataDir = tempDir();
  await ensureSecrets(loadConfig({ DATA_DIR: dataDir }));
  const env = { DATA_DIR: dataDir, CRON_SECRET: "cron-secret-from-env-123", ANON_KEY: "anon-key-from-the-environment" };
  const secrets = await ensureSecrets(loadConfig(env));
  expect(secrets.cronSecret).toBe(env.CRON_SECRET);
  expect(secrets.anonKey).toBe(env.ANON_KEY);
});

test("a new JWT_SECRET re-signs the stored API keys so they verify", async () => {
  const dataDir = tempDir();
  const before = await ensureSecrets(loadConfig({ DATA_DIR: dataDir }));
  const after = await ensureSecrets(loadConfig({ DATA_DIR: dataDir, JWT_SECRET: "x".repeat(40) }));
  expect(after.jwtSecret).toBe("x".repeat(40));
  expect(after.anonKey).not.toBe(before.anonKey);
});
