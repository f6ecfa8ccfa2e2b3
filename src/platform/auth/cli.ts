// `answerwatch user add --email E --password P [--org NAME] [--role owner|admin|member|viewer]`:
// creates a user straight in the database (works with AUTH_DISABLE_SIGNUP=true).
// `answerwatch user recovery-link --email E`: a recovery link and code to pass on by hand, for a
// server that sends no mail (what /auth/v1/recover would have mailed; works once, for an hour).
import { terminalSafe } from "../../common/terminal";
import { parseArgs } from "node:util";
import type { Config } from "../../config";
import { AppError } from "../../http/errors";
import type { Secrets } from "../../secrets";
import { createAuthService, ORG_ROLES, type OrgRole } from "./service";
import type { AuthStore } from "./store";
import { createTokenService } from "./tokens";

export async function runUserCommand(args: string[], deps: { config: Config; secrets: Secrets; store: AuthStore }, out = process.stdout, err = process.stderr): Promise<number> {
  const usage = "usage: answerwatch user add --email E --password P [--org NAME] [--role owner|admin|member|viewer] | user list | user remove --email E | user recovery-link --email E";
  let values: { email?: string; password?: string; org?: string; role?: string };
  let subcommand: string;
  try {
    const parsed = parseArgs({ args, allowPositionals: true, options: { email: { type: "string" }, password: { type: "string" }, org: { type: "string" }, role: { type: "string" } } });
    subcommand = parsed.positionals[0] ?? "";
    if (!["add", "list", "remove", "recovery-link"].includes(subcommand)) throw new Error("unknown subcommand");
    values = parsed.values;
  } catch {
    err.write(`${usage}\n`);
    return 2;
  }
  if (subcommand === "list") return listUsers(deps.store, out);
  if (subcommand === "remove") return removeUser(deps.store, values.email, out, err, usage);
  if (subcommand === "recovery-link") return recoveryLink(deps, values.email, out, err, usage);
  if (!values.email || !values.password) {
    err.write(`${usage}\n`);
    return 2;
  }
  if (values.role && !ORG_ROLES.includes(values.role as OrgRole)) {
    err.write(`answerwatch: --role must be one of ${ORG_ROLES.join(", ")} (got "${values.role}")\n`);
    return 2;
  }
  const auth = await cliAuthService(deps);
  const existing = values.org ? await auth.findOrganizationBySlugOrName(values.org) : null;
  return refusedAs2(err, async () => {
    const user = await auth.adminCreateUser({
      email: values.email,
      password: values.password,
      email_confirm: true,
      ...(existing ? { organization_id: existing.id, role: values.role ?? "member" } : { organization_name: values.org, role: values.role ?? "owner" }),
    });
    const orgs = [...(await auth.organizationRoles(user.id))].map(([id, role]) => `${id} (${role})`).join(", ");
    out.write(`created user ${user.email} (${user.id}) in organization ${orgs}\n`);
    return 0;
  });
}

/** The auth service as the CLI uses it (no mail, no rate limits of a server). */
async function cliAuthService(deps: { config: Config; secrets: Secrets; store: AuthStore }) {
  const tokens = await createTokenService({ jwtSecret: deps.secrets.jwtSecret, expirySeconds: deps.config.auth.jwtExpirySeconds, issuer: "answerwatch" });
  return createAuthService({ store: deps.store, config: deps.config, tokens });
}

/** A refusal by the service (bad input, a taken address) as one line and exit code 2. */
async function refusedAs2(err: NodeJS.WriteStream, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) {
      err.write(`answerwatch: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

/** Every user with their organizations and roles, one per line. */
async function listUsers(store: AuthStore, out: { write(text: string): void }): Promise<number> {
  const rows = await store.listUsersWithOrganizations();
  if (!rows.length) out.write("no users yet: answerwatch user add --email E --password P --org NAME\n");
  for (const r of rows) out.write(`${terminalSafe(r.email)}\t${r.id}\t${terminalSafe(r.orgs ?? "(no organization)")}\n`);
  return 0;
}

/** Removes a user (sessions and memberships go with them); refused when they are an organization's last owner. */
async function removeUser(store: AuthStore, email: string | undefined, out: { write(text: string): void }, err: { write(text: string): void }, usage: string): Promise<number> {
  if (!email) {
    err.write(`${usage}\n`);
    return 2;
  }
  const outcome = await store.removeUser({ email: email.trim().toLowerCase().normalize("NFC") });
  if (outcome.kind === "unknown") {
    err.write(`answerwatch: no user ${email}\n`);
    return 2;
  }
  if (outcome.kind === "last_owner") {
    err.write(`answerwatch: ${email} is the last owner of ${terminalSafe(outcome.organizations.join(", "))}: make someone else owner first\n`);
    return 2;
  }
  out.write(`removed user ${email}\n`);
  return 0;
}

async function recoveryLink(deps: { config: Config; secrets: Secrets; store: AuthStore }, email: string | undefined, out: NodeJS.WriteStream, err: NodeJS.WriteStream, usage: string): Promise<number> {
  if (!email) {
    err.write(`${usage}\n`);
    return 2;
  }
  const auth = await cliAuthService(deps);
  return refusedAs2(err, async () => {
    const made = await auth.recoveryLink(email);
    if (!made) {
      err.write(`answerwatch: no account has the address ${email}\n`);
      return 1;
    }
    out.write(`${made.link}\ncode: ${made.code}\nIt works once, for one hour; it signs the user in, and they choose a new password in the app.\n`);
    return 0;
  });
}
