// What the web app needs from the server before anyone signs in: the anon key (public by design, as
// in Supabase: it only opens the door to row-level security), the version, and which engines the
// server has keys for (names only, never a key).
import { Elysia } from "elysia";
import type { EngineConfig } from "../engines/config";

export function webRoutes(deps: { anonKey: string; version: string; publicUrl: () => string; engines: EngineConfig }) {
  const platforms = Object.entries(deps.engines.platforms).map(([id, p]) => ({ id, configured: !p.missing, defaultModel: p.model ?? null }));
  return new Elysia().get("/api/app-config", () => ({ anonKey: deps.anonKey, version: deps.version, publicUrl: deps.publicUrl().replace(/\/$/, ""), platforms }));
}
