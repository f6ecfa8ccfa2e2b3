// What Postgres would enforce with a trigger on organization_members: only owners grant or take
// away the owner and admin roles (admins manage members and viewers), and an organization always
// keeps at least one owner; anyone may leave (delete their own row) but its last owner. Runs inside
// the write's transaction, before and after the statement.
import { AppError } from "../../http/errors";
import { viaApiKey } from "../../common/identity";
import type { Caller } from "../auth/caller";
import type { WriteAction, WriteGuard } from "./policy-types";
import type { RestDialect } from "./dialect";
import { raw, sql, type Sql } from "./sql-fragment";

const PRIVILEGED = ["owner", "admin"];

interface Runner {
  values(query: Sql): Promise<unknown[][]>;
}

const rowsOf = (d: RestDialect, rowids: number[]) => d.inList(raw(d.rowId), rowids);

function ownedOrgs(caller: Caller): string[] {
  return [...caller.orgRoles].filter(([, role]) => role === "owner").map(([id]) => id);
}

/**
 * Rows among `rowids` holding a privileged role in an organization the caller does not own; with
 * `exceptOwn`, the caller's own rows do not count (an admin may leave).
 */
async function privilegedOutsideOwnership(run: Runner, d: RestDialect, caller: Caller, rowids: number[], exceptOwn = false): Promise<boolean> {
  const own = exceptOwn && caller.user ? sql` AND user_id != ${caller.user.id}` : sql``;
  const query = sql`SELECT 1 FROM organization_members WHERE ${rowsOf(d, rowids)} AND ${d.inList(raw("role"), PRIVILEGED)}
    AND ${d.inList(raw("organization_id"), ownedOrgs(caller), true)}${own} LIMIT 1`;
  return (await run.values(query)).length > 0;
}

async function organizationsOf(run: Runner, d: RestDialect, rowids: number[]): Promise<string[]> {
  return (await run.values(sql`SELECT DISTINCT organization_id FROM organization_members WHERE ${rowsOf(d, rowids)}`)).map((r) => r[0] as string);
}

async function assertEachKeepsAnOwner(run: Runner, d: RestDialect, orgIds: string[]): Promise<void> {
  if (!orgIds.length) return;
  const ownerless = await run.values(
    sql`SELECT o.id FROM organizations o WHERE ${d.inList(raw("o.id"), orgIds)}
      AND NOT EXISTS (SELECT 1 FROM organization_members m WHERE m.organization_id = o.id AND m.role = ${"owner"}) LIMIT 1`,
  );
  if (ownerless.length)
    throw new AppError(400, "P0001", "An organization must keep at least one owner", {
      hint: "Make another member owner first, or delete the organization.",
    });
}

// 42501 as policies.ts words it (not imported from there: policies.ts imports this module).
const refused = (caller: Caller, message: string) => new AppError(caller.role === "authenticated" ? 403 : 401, "42501", message);
const ownersOnly = (caller: Caller) => refused(caller, "Only owners can grant, change or remove the owner and admin roles");

export const membershipGuard: WriteGuard = {
  async begin(run: Runner, d: RestDialect, caller: Caller, action: WriteAction, targets: number[]) {
    const restricted = caller.role !== "service_role";
    // Leaving (deleting one's own row) is a person's, in a session of their own: not an API key's.
    const leaving = action === "delete" && !viaApiKey(caller.user);
    if (restricted && targets.length && (await privilegedOutsideOwnership(run, d, caller, targets, leaving))) throw ownersOnly(caller);
    const before = await organizationsOf(run, d, targets);
    return {
      async after(written: number[]) {
        if (restricted && action !== "delete" && written.length && (await privilegedOutsideOwnership(run, d, caller, written))) throw ownersOnly(caller);
        if (action !== "insert") await assertEachKeepsAnOwner(run, d, before);
      },
    };
  },
};

const MOVE_REFUSED = "Only owners and admins of both organizations can move a brand between them";

/**
 * A brand moved to another organization takes its history, share links and webhook endpoints with
 * it (a trigger on Postgres moves them): only a caller who manages both organizations may move one.
 * (policies.pg.ts: the same rule as a trigger.)
 */
export const brandMoveGuard: WriteGuard = {
  columns: ["organization_id"],
  async begin(run: Runner, d: RestDialect, caller: Caller, action: WriteAction, targets: number[]) {
    if (caller.role === "service_role" || action !== "update" || !targets.length) return { async after() {} };
    const orgsOf = async (rowids: number[]) => new Map((await run.values(sql`SELECT ${raw(d.rowId)}, organization_id FROM brands WHERE ${rowsOf(d, rowids)}`)).map((r) => [Number(r[0]), r[1] as string]));
    const before = await orgsOf(targets);
    const manages = (org: string | undefined) => !!org && PRIVILEGED.includes(caller.orgRoles.get(org) ?? "");
    return {
      async after(written: number[]) {
        for (const [rowid, org] of await orgsOf(written)) {
          const was = before.get(rowid);
          if (was !== undefined && was !== org && !(manages(was) && manages(org))) throw refused(caller, MOVE_REFUSED);
        }
      },
    };
  },
};

/** brandMoveGuard as a Postgres trigger, for writes under the REST roles. */
export function brandMoveGuardSql(privateSchema: string): string[] {
  const manages = (org: string) => `${org} = ANY (${privateSchema}.organizations_where(ARRAY['owner', 'admin']::text[]))`;
  return [
    `CREATE OR REPLACE FUNCTION ${privateSchema}.brand_moved_by_managers() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_user <> 'authenticated' THEN RETURN NEW; END IF;
      IF NOT (${manages("OLD.organization_id")} AND ${manages("NEW.organization_id")}) THEN
        RAISE EXCEPTION '${MOVE_REFUSED}' USING ERRCODE = 'insufficient_privilege';
      END IF;
      RETURN NEW;
    END $$`,
    `DROP TRIGGER IF EXISTS aw_brand_moved_by_managers ON brands`,
    `CREATE TRIGGER aw_brand_moved_by_managers BEFORE UPDATE OF organization_id ON brands FOR EACH ROW WHEN (OLD.organization_id IS DISTINCT FROM NEW.organization_id) EXECUTE FUNCTION ${privateSchema}.brand_moved_by_managers()`,
  ];
}
