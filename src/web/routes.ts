// What the web app needs from the server before anyone signs in: the anon key (public by design, as
// in Supabase: it only opens the door to row-level security), the version, and which engines the
// server has keys for (names only, never a key).
import { Elysia } from "elysia";
import { isLoopbackPublicUrl } from "../config";
import type { EngineConfig } from "../engines/config";

export function webRoutes(deps: { anonKey: string; version: string; publicUrl: () => string; engines: EngineConfig }) {
  // `missing` names the variable to set (never a value): the onboarding and Settings show it.
  const platforms = Object.entries(deps.engines.platforms).map(([id, p]) => ({ id, configured: !p.missing, defaultModel: p.model ?? null, missing: p.missing ?? null }));
  return new Elysia().get("/api/app-config", () => {
    const publicUrl = deps.publicUrl().replace(/\/$/, "");
    return { anonKey: deps.anonKey, version: deps.version, publicUrl, publicUrlIsLoopback: isLoopbackPublicUrl(publicUrl), platforms };
  });
}
