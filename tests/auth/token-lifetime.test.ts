// Real time on purpose: supabase-js refreshes on its own 30 s ticker, which no fake clock drives.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { decodeJwt } from "jose";
import { testServer } from "../helpers/app";
import { client, uniqueEmail } from "../helpers/supabase";

let server: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  server = await testServer({ JWT_EXPIRY: "120" });
});
afterAll(() => server.stop());

test(
  "with JWT_EXPIRY=120 the client's automatic refresh keeps REST calls working for 3 minutes",
  async () => {
    const sb = client(server.url, server.secrets.anonKey, { autoRefreshToken: true });
    const email = uniqueEmail("lifetime");
    await sb.auth.signUp({ email, password: "long-lived" });
    const first = (await sb.auth.getSession()).data.session!;
    expect(first.expires_in).toBe(120);
    const firstExp = decodeJwt(first.access_token).exp!;

    const started = Date.now();
    const tokens = new Set<string>();
    while (Date.now() - started < 180_000) {
      const res = await sb.from("brands").select("id");
      expect(res.status).not.toBe(401);
      expect(res.status).toBeLessThan(500);
      tokens.add((await sb.auth.getSession()).data.session!.access_token);
      await Bun.sleep(10_000);
    }
    // The first token expired during the run, yet calls kept working on refreshed ones.
    expect(Date.now() / 1000).toBeGreaterThan(firstExp);
    expect(tokens.size).toBeGreaterThan(1);
    await sb.auth.signOut();
  },
  { timeout: 200_000 },
);
