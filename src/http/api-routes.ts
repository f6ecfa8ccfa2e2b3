// /api/health: the smallest bearer-guarded call, so a web app can check its session works.
import { Elysia } from "elysia";
import type { CallerResolver } from "../platform/auth/caller";

export function apiHealthRoutes(callers: CallerResolver) {
  return new Elysia().get("/api/health", async ({ request }) => {
    const { user } = await callers.apiUser(request);
    return { status: "ok", user: { id: user.id, email: user.email } };
  });
}
