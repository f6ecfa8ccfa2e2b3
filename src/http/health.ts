// GET /healthz: the process is up and its database answers.
import type { Database } from "bun:sqlite";

export function healthResponse(sqlite: Database, version: string, startedAt: number): Response {
  const body = { status: "ok", version, uptime_s: Math.round((Date.now() - startedAt) / 1000), db: "ok" };
  try {
    sqlite.query("SELECT count(*) FROM sqlite_master").get();
    return Response.json(body);
  } catch {
    return Response.json({ ...body, status: "error", db: "error" }, { status: 503 });
  }
}
