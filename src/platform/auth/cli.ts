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
  const usage = "usage: answerwatch user add --email E --password P [--org NAME] [--role owner|admin|member|viewer] | user list | user remove --email E";
  let values: { email?: string; password?: string; org?: string; role?: string };
  let subcommand: string;
  try {
    const parsed = parseArgs({ args, allowPositionals: true, options: { email: { type: "string" }, password: { type: "string" }, org: { type: "string" }, role: { type: "string" } } });
    subcommand = parsed.positionals[0] ?? "";
    if (!["add", "list", "remove"].includes(subcommand)) throw new Error("unknown subcommand");
    values = parsed.values;
  } catch {
    err.write(`${usage}\n`);
    return 2;
  }
  if (subcommand === "list") return listUsers(deps.dbh, out);
  if (subcommand === "remove") return removeUser(deps.dbh, values.email, out, err, usage);
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

/** Every user with their organizations and roles, one per line. */
function listUsers(dbh: DbHandle, out: { write(text: string): void }): number {
  const rows = dbh.sqlite
    .query(
      `SELECT u.email, u.id, u.created_at, group_concat(o.name || ' (' || m.role || ')', ', ') AS orgs
         FROM users u LEFT JOIN organization_members m ON m.user_id = u.id LEFT JOIN organizations o ON o.id = m.organization_id
        GROUP BY u.id ORDER BY u.created_at`,
    )
    .all() as { email: string; id: string; created_at: string; orgs: string | null }[];
  if (!rows.length) out.write("no users yet: answerwatch user add --email E --password P --org NAME\n");
  for (const r of rows) out.write(`${r.email}\t${r.id}\t${r.orgs ?? "(no organization)"}\n`);
  return 0;
}

/** Removes a user (sessions and memberships go with them); refused when they are an organization's last owner. */
function removeUser(dbh: DbHandle, email: string | undefined, out: { write(text: string): void }, err: { write(text: string): void }, usage: string): number {
  if (!email) {
    err.write(`${usage}\n`);
    return 2;
  }
  const user = dbh.sqlite.query("SELECT id FROM users WHERE email = ?").get(email.trim().toLowerCase().normalize("NFC")) as { id: string } | null;
  if (!user) {
    err.write(`answerwatch: no user ${email}\n`);
    return 2;
  }
  const orphaned = dbh.sqlite
    .query(
      `SELECT o.name FROM organization_members m JOIN organizations o ON o.id = m.organization_id
        WHERE m.user_id = ?1 AND m.role = 'owner'
          AND NOT EXISTS (SELECT 1 FROM organization_members x WHERE x.organization_id = m.organization_id AND x.role = 'owner' AND x.user_id != ?1)`,
    )
    .all(user.id) as { name: string }[];
  if (orphaned.length) {
    err.write(`answerwatch: ${email} is the last owner of ${orphaned.map((o) => o.name).join(", ")}: make someone else owner first\n`);
    return 2;
  }
  dbh.sqlite.run("DELETE FROM users WHERE id = ?", [user.id]);
  out.write(`removed user ${email}\n`);
  return 0;
}
