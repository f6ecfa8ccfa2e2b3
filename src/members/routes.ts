// /api/organizations/:id/members: the members with their e-mail addresses and the pending
// invitations (owners and admins), and inviting someone by e-mail. /api/invitations: the signed-in
// person's invitations, accepted or declined. Roles change and members leave through /rest/v1.
import { Elysia, t } from "elysia";
import { jsonBody, Role } from "../http/body-docs";

const InviteBody = t.Object({ email: t.String({ format: "email", maxLength: 320 }), role: t.Optional(Role) }, { description: "role default: member; only owners invite owners and admins" });
const answerBody = {
  detail: {
    requestBody: {
      required: true,
      content: { "application/json": { schema: t.Object({ key: t.String({ minLength: 1, maxLength: 100, description: "the key of the invitation's link (?key=)" }) }) } },
    },
  },
};
import type { CallerResolver } from "../platform/auth/caller";
import type { MembersService } from "./service";

export function memberRoutes(deps: { members: MembersService; callers: CallerResolver }) {
  const { members, callers } = deps;
  const invite = async ({ request, params, body, set }: { request: Request; params: { id: string }; body: unknown; set: { status?: number | string } }) => {
    const result = await members.invite(await callers.apiUser(request), params.id, body as Record<string, unknown>);
    set.status = 201;
    return result;
  };
  return new Elysia()
    .get("/api/organizations/:id/members", async ({ request, params }) => members.list(await callers.apiUser(request), params.id))
    .post("/api/organizations/:id/members", invite, jsonBody(InviteBody))
    .post("/api/organizations/:id/invitations", invite, jsonBody(InviteBody))
    .delete("/api/organizations/:id/invitations/:invitationId", async ({ request, params }) => members.withdraw(await callers.apiUser(request), params.id, params.invitationId))
    .get("/api/invitations", async ({ request }) => members.mine(await callers.apiUser(request)))
    .post("/api/invitations/:invitationId/open", async ({ request, params, body }) => members.open(await callers.apiUser(request), params.invitationId, body), answerBody)
    .post("/api/invitations/:invitationId/accept", async ({ request, params, body }) => members.accept(await callers.apiUser(request), params.invitationId, body), answerBody)
    .post("/api/invitations/:invitationId/decline", async ({ request, params, body }) => members.decline(await callers.apiUser(request), params.invitationId, body), answerBody);
}
