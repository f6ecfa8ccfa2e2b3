// The secret store's contract (src/secrets.ts: SecretStore), for every backend: what is generated
// on first start, kept across restarts, and how the environment's secrets (Config["secrets"]) win.
import { afterEach, beforeEach, describe, expect, setSystemTime, test } from "bun:test";
import { decodeJwt } from "jose";
import type { Config } from "../../src/config";
import { apiKeyRole } from "../../src/platform/auth/api-keys";
import type { SecretStore } from "../../src/secrets";

export interface SecretStoreHarness {
  /** A store on a fresh place, with no secret set in the environment. */
  store: SecretStore;
  /** Another store on the same place (a restart, or a second instance) with `env` as the environment's secrets. */
  open(env?: Config["secrets"]): SecretStore;
  close(): Promise<void>;
}

const JWT_FROM_ENV = "jwt-secret-from-the-environment-0123456789";

export function describeSecretStoreContract(name: string, make: () => Promise<SecretStoreHarness>) {
  describe(`SecretStore contract (${name})`, () => {
    // Every case starts from nothing stored.
    let h: SecretStoreHarness;
    beforeEach(async () => void (h = await make()));
    afterEach(async () => {
      setSystemTime();
      await h.close();
    });
    // Keys are signed with an iat in whole seconds: a later clock tells a kept key from one signed again.
    const later = (seconds: number) => setSystemTime(new Date(Date.now() + seconds * 1000));

    test("the first ensure generates a JWT secret, a cron secret and anon / service_role keys signed with the JWT secret", async () => {
      const s = await h.store.ensure();
      expect(s.jwtSecret.length).toBeGreaterThanOrEqual(32);
      expect(s.cronSecret.length).toBeGreaterThanOrEqual(16);
      expect(s.cronSecret).not.toBe(s.jwtSecret);
      expect(decodeJwt(s.anonKey)).toMatchObject({ role: "anon", iss: "answerwatch" });
      expect(decodeJwt(s.serviceRoleKey)).toMatchObject({ role: "service_role", iss: "answerwatch" });
      expect(await apiKeyRole(s.jwtSecret, s.anonKey)).toBe("anon");
      expect(await apiKeyRole(s.jwtSecret, s.serviceRoleKey)).toBe("service_role");
    });

    test("a second ensure, and a restart on the same place, return the same secrets", async () => {
      const first = await h.store.ensure();
      later(5);
      expect(await h.store.ensure()).toEqual(first);
      expect(await h.open().ensure()).toEqual(first);
    });

    test("secrets set in the environment win and are not kept: without them the stored ones come back", async () => {
      const stored = await h.store.ensure();
      const env = { cronSecret: "cron-secret-from-env-123", anonKey: "anon-key-from-the-environment", serviceRoleKey: "service-key-from-the-environment" };
      expect(await h.open(env).ensure()).toEqual({ jwtSecret: stored.jwtSecret, ...env });
      later(5);
      expect(await h.open().ensure()).toEqual(stored);
    });

    test("a configured JWT secret wins: the stored keys are re-signed for it, kept, and re-signed back when it is unset", async () => {
      const before = await h.store.ensure();
      const withEnv = await h.open({ jwtSecret: JWT_FROM_ENV }).ensure();
      expect(withEnv.jwtSecret).toBe(JWT_FROM_ENV);
      expect(withEnv.cronSecret).toBe(before.cronSecret);
      expect(withEnv.anonKey).not.toBe(before.anonKey);
      expect(await apiKeyRole(JWT_FROM_ENV, withEnv.anonKey)).toBe("anon");
      expect(await apiKeyRole(JWT_FROM_ENV, withEnv.serviceRoleKey)).toBe("service_role");
      expect(await apiKeyRole(before.jwtSecret, withEnv.anonKey)).toBeNull();
      // The re-signed keys are kept while the secret stays the same.
      later(5);
      expect(await h.open({ jwtSecret: JWT_FROM_ENV }).ensure()).toEqual(withEnv);
      // Unset again: the stored secret is back, with keys that verify under it.
      const after = await h.open().ensure();
      expect(after.jwtSecret).toBe(before.jwtSecret);
      expect(await apiKeyRole(before.jwtSecret, after.anonKey)).toBe("anon");
      expect(await apiKeyRole(before.jwtSecret, after.serviceRoleKey)).toBe("service_role");
    });

    test("keys set in the environment are used as given next to a configured JWT secret", async () => {
      const s = await h.open({ jwtSecret: JWT_FROM_ENV, anonKey: "anon-key-from-the-environment" }).ensure();
      expect(s.anonKey).toBe("anon-key-from-the-environment");
      expect(await apiKeyRole(JWT_FROM_ENV, s.serviceRoleKey)).toBe("service_role");
    });

    test("concurrent ensures on a place that has its secrets agree", async () => {
      const stored = await h.store.ensure();
      later(5);
      expect(await Promise.all([h.store.ensure(), h.store.ensure(), h.open().ensure()])).toEqual([stored, stored, stored]);
    });

    test("concurrent first ensures, on one store and on two, agree with what is kept", async () => {
      const [a, b, c] = await Promise.all([h.store.ensure(), h.store.ensure(), h.open().ensure()]);
      expect(b).toEqual(a);
      expect(c).toEqual(a);
      expect(await h.open().ensure()).toEqual(a);
    });
  });
}
