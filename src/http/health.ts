// GET /healthz: the process is up and its database answers (and, before the lazily loaded
// runtime is up, that it did not fail to load).
import type { Database } from "bun:sqlite";

export function healthResponse(sqlite: Database, version: string, startedAt: number, state: { runtimeFailed?: boolean } = {}): Response {
  const body = { status: "ok", version, uptime_s: Math.round((Date.now() - startedAt) / 1000), db: "ok" };
  if (state.runtimeFailed) return Response.json({ ...body, status: "error", runtime: "error" }, { status: 503 });
  try {
    sqlite.query("SELECT count(*) FROM sqlite_master").get();
    return Response.json(body);
  } catch {
    return Response.json({ ...body, status: "error", db: "error" }, { status: 503 });
  }
}
