// The caller resolver (src/platform/auth/caller.ts) on its own: an API key found wanting is 401 in
// each surface's shape, a key store that failed to answer is not (a script must not throw away a
// good key), and the anon and service keys are recognised as before their constant-time check.
import { describe, expect, test } from "bun:test";
import { AppError } from "../../src/http/errors";
import { createCallerResolver, type KeyResolver } from "../../src/platform/auth/caller";
import type { AuthService } from "../../src/platform/auth/service";
import type { Secrets } from "../../src/secrets";

const secrets = { anonKey: "anon-key-0123456789", serviceRoleKey: "service-key-0123456789", jwtSecret: "j".repeat(40) } as Secrets;
const resolverWith = (keys: KeyResolver) => createCallerResolver({ auth: {} as AuthService, secrets, keys });
const rest = (bearer: string, apikey = secrets.anonKey) => new Request("http://localhost/rest/v1/brands", { headers: { apikey, authorization: `Bearer ${bearer}` } });
const api = (bearer: string) => new Request("http://localhost/api/keys", { headers: { authorization: `Bearer ${bearer}` } });
const failure = async (p: Promise<unknown>) => p.then(() => null, (error: unknown) => error);

describe("API keys at the door", () => {
  test("an unknown key is 401 (PGRST301 under /rest/v1, invalid_api_key under /api)", async () => {
    const callers = resolverWith({ resolve: async () => null });
    expect(await failure(callers.restCaller(rest("aw_unknown")))).toMatchObject({ status: 401, code: "PGRST301" });
    expect(await failure(callers.apiUser(api("aw_unknown")))).toMatchObject({ status: 401, code: "invalid_api_key" });
  });

  test("a key store that fails to answer is that failure, not 'unknown, revoked or expired'", async () => {
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    const callers = resolverWith({ resolve: async () => Promise.reject(busy) });
    expect(await failure(callers.restCaller(rest("aw_fine")))).toBe(busy);
    expect(await failure(callers.apiUser(api("aw_fine")))).toBe(busy);
  });

  test("the anon and service keys open their roles; one character off is refused", async () => {
    const callers = resolverWith({ resolve: async () => null });
    expect(callers.requireApiKey(rest("x", secrets.anonKey))).toBe("anon");
    expect(callers.requireApiKey(rest("x", secrets.serviceRoleKey))).toBe("service_role");
    expect(() => callers.requireApiKey(rest("x", `${secrets.serviceRoleKey.slice(0, -1)}X`))).toThrow(AppError);
    expect((await callers.restCaller(rest(secrets.serviceRoleKey))).role).toBe("service_role");
  });
});
