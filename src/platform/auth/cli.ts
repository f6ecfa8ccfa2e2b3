// `answerwatch user add --email E --password P [--org NAME] [--role owner|admin|member|viewer]`:
// creates a user straight in the database (works with AUTH_DISABLE_SIGNUP=true).
import { parseArgs } from "node:util";
import type { Config } from "../../config";
import { drizzleDb } from "../../db/drizzle";
import type { DbHandle } from "../../db/open";
import { AppError } from "../../http/errors";
import type { Secrets } from "../../secrets";
import { createAuthService, ORG_ROLES, type OrgRole } from "./service";
import { createTokenService } from "./tokens";

export async function runUserCommand(args: string[], deps: { config: Config; secrets: Secrets; dbh: DbHandle }, out = process.stdout, err = process.stderr): Promise<number> {
  const usage = "usage: answerwatch user add --email E --password P [--org NAME] [--role owner|admin|member|viewer]";
  let values: { email?: string; password?: string; org?: string; role?: string };
  try {
    const parsed = parseArgs({ args, allowPositionals: true, options: { email: { type: "string" }, password: { type: "string" }, org: { type: "string" }, role: { type: "string" } } });
    if (parsed.positionals[0] !== "add") throw new Error("unknown subcommand");
    values = parsed.values;
  } catch {
    err.write(`${usage}\n`);
    return 2;
  }
  if (!values.email || !values.password) {
    err.write(`${usage}\n`);
    return 2;
  }
  if (values.role && !ORG_ROLES.includes(values.role as OrgRole)) {
    err.write(`answerwatch: --role must be one of ${ORG_ROLES.join(", ")} (got "${values.role}")\n`);
    return 2;
  }
  const tokens = await createTokenService({ jwtSecret: deps.secrets.jwtSecret, expirySeconds: deps.config.auth.jwtExpirySeconds, issuer: "answerwatch" });
  const auth = createAuthService({ db: drizzleDb(deps.dbh.sqlite), config: deps.config, tokens });
  const existing = values.org ? auth.findOrganizationBySlugOrName(values.org) : undefined;
  try {
    const user = await auth.adminCreateUser({
      email: values.email,
      password: values.password,
      email_confirm: true,
      ...(existing ? { organization_id: existing.id, role: values.role ?? "member" } : { organization_name: values.org, role: values.role ?? "owner" }),
    });
    const orgs = [...auth.organizationRoles(user.id)].map(([id, role]) => `${id} (${role})`).join(", ");
    out.write(`created user ${user.email} (${user.id}) in organization ${orgs}\n`);
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      err.write(`answerwatch: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
