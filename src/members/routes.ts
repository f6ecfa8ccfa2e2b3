// /api/organizations/:id/members: the members with their e-mail addresses (owners and admins), and
// adding an existing account by e-mail. Roles change and members leave through /rest/v1.
import { Elysia } from "elysia";
import type { CallerResolver } from "../platform/auth/caller";
import type { MembersService } from "./service";

export function memberRoutes(deps: { members: MembersService; callers: CallerResolver }) {
  const { members, callers } = deps;
  return new Elysia({ prefix: "/api/organizations/:id/members" })
    .get("/", async ({ request, params }) => members.list(await callers.apiUser(request), params.id))
    .post("/", async ({ request, params, body }) => members.add(await callers.apiUser(request), params.id, body as Record<string, unknown>, request.headers.get("authorization") ?? ""));
}
