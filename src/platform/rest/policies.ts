// Row-level security of /rest/v1 (DESIGN §5): which tables are exposed, who may do what to them, and
// the caller's organizations turned into SQL predicates — a read filter (USING) and write checks
// (WITH CHECK). The service_role bypasses all of it, as it does in Supabase.
import { AppError } from "../../http/errors";
import type { Caller } from "../auth/caller";
import type { OrgRole } from "../auth/service";
import type { RestDialect } from "./dialect";
import type { SchemaCache } from "./schema-cache";
import { brandMoveGuard, membershipGuard } from "./membership";
import type { Action, WriteAction, WriteGuard } from "./policy-types";
import { ident, sql, type Sql } from "./sql-fragment";

export type { Action, WriteAction, WriteGuard } from "./policy-types";

const EVERYONE: readonly OrgRole[] = ["owner", "admin", "member", "viewer"];
const WRITERS: readonly OrgRole[] = ["owner", "admin", "member"];
const MANAGERS: readonly OrgRole[] = ["owner", "admin"];
const allWrites = (roles: readonly OrgRole[]) => ({ insert: roles, update: roles, delete: roles });

export interface TablePolicy {
  /**
   * The column that places a row in an organization: an organization id, or a foreign key to a
   * table whose own policy does (brand_id → brands.organization_id). organizations uses its `id`.
   */
  scope: string;
  /** Roles that may read (default: every member). */
  read?: readonly OrgRole[];
  /** Roles that may do each write; an action left out is granted to no user (server-written data). */
  write: Partial<Record<WriteAction, readonly OrgRole[]>>;
  /** When set, users may update only these columns. */
  updatableColumns?: readonly string[];
  /** Never readable through /rest/v1, not even with `*` (only the server uses them). */
  unreadableColumns?: readonly string[];
  /** false keeps the table out of /rest/v1 altogether (PGRST205), for every role. */
  exposed?: boolean;
  /** Rules a trigger would enforce, run inside the write's transaction. */
  guard?: WriteGuard;
  /**
   * Actions a user may also take on rows naming them in `column`, whatever their role (a member
   * leaves an organization by deleting their own membership).
   */
  ownRows?: { column: string; actions: readonly Action[] };
}


/**
 * The exposed tables. Anything not listed (users, sessions, refresh_tokens, jobs, job_units,
 * webhook_events, webhook_deliveries) is unknown to /rest/v1.
 */
export const REST_POLICIES: Record<string, TablePolicy> = {
  // Organizations are created at sign-up; owners and admins rename them (and change the slug and
  // logo), only owners delete them. Nothing else: a created_at set back put one first among others.
  organizations: { scope: "id", write: { update: MANAGERS, delete: ["owner"] }, updatableColumns: ["name", "slug", "logo"] },
  // Nobody is added by a write here: people join by accepting an invitation (src/members). Owners
  // and admins change roles and remove members; every member may remove themselves (leave).
  organization_members: {
    scope: "organization_id",
    write: { update: MANAGERS, delete: MANAGERS },
    // A membership's person and organization are fixed: a manager changes its role only (moving a
    // row to another user or organization would add someone without their consent).
    updatableColumns: ["role"],
    guard: membershipGuard,
    ownRows: { column: "user_id", actions: ["delete"] },
  },
  // Moving a brand to another organization takes its history and endpoints along: managers of both only.
  brands: { scope: "organization_id", write: allWrites(WRITERS), guard: brandMoveGuard },
  brand_domains: { scope: "brand_id", write: allWrites(WRITERS) },
  competitors: { scope: "brand_id", write: allWrites(WRITERS) },
  topics: { scope: "brand_id", write: allWrites(WRITERS) },
  prompt_sets: { scope: "brand_id", write: allWrites(WRITERS) },
  prompts: { scope: "brand_id", write: allWrites(WRITERS) },
  brand_platforms: { scope: "brand_id", write: allWrites(WRITERS) },
  // Written by the tracking run and the pixel only.
  prompt_results: { scope: "brand_id", write: {} },
  // url_id points into citation_urls, shared by every organization: never through /rest/v1.
  citations: { scope: "brand_id", write: {}, unreadableColumns: ["url_id"] },
  ai_traffic_logs: { scope: "brand_id", write: {} },
  // The analysis writes suggestions; people triage them.
  suggestions: { scope: "brand_id", write: { update: WRITERS }, updatableColumns: ["status"] },
  // Owners and admins read, switch, retarget by events and delete endpoints here; creating one
  // (the server makes the secret and shows it once) and changing its URL (checked against private
  // destinations) go through /api/webhooks. The signing secret is never readable.
  webhook_endpoints: {
    scope: "organization_id",
    read: MANAGERS,
    write: { update: MANAGERS, delete: MANAGERS },
    updatableColumns: ["events", "description", "is_active"],
    unreadableColumns: ["secret"],
  },
};

export type Policies = Record<string, TablePolicy>;

export function exposedPolicy(policies: Policies, table: string): TablePolicy | undefined {
  const policy = Object.hasOwn(policies, table) ? policies[table] : undefined;
  return policy && policy.exposed !== false ? policy : undefined;
}

/** The roles that may take `action` on the table's rows (SQLite's predicates and Postgres' policies both read this). */
export function rolesFor(policy: TablePolicy, action: Action): readonly OrgRole[] {
  return action === "read" ? (policy.read ?? EVERYONE) : (policy.write[action] ?? []);
}

/** 42501 answers 401 to a caller without a user token and 403 to a signed-in one (as PostgREST). */
export function insufficientPrivilege(caller: Caller, message: string): AppError {
  return new AppError(caller.role === "authenticated" ? 403 : 401, "42501", message);
}

export const rlsViolation = (caller: Caller, table: string) => insufficientPrivilege(caller, `new row violates row-level security policy for table "${table}"`);

/**
 * Table-level grants: a write no role may do (results, citations, traffic logs; suggestions except
 * their status) is "permission denied", as a missing GRANT is in Postgres.
 */
export function assertGranted(caller: Caller, policy: TablePolicy, table: string, action: WriteAction, columns: string[] = []): void {
  if (caller.role === "service_role") return;
  const granted = rolesFor(policy, action).length > 0;
  const columnsOk = action !== "update" || !policy.updatableColumns || columns.every((c) => policy.updatableColumns!.includes(c));
  if (!granted || !columnsOk) throw insufficientPrivilege(caller, `permission denied for table ${table}`);
}

/**
 * The predicate "the row whose scope column is `expr` belongs to an organization where the caller
 * may do `action`"; null when nothing is filtered (service_role). Identifiers come from the schema
 * cache: a brand_id scope follows its foreign key to brands and brands' own scope.
 */
export function scopePredicate(dialect: RestDialect, cache: SchemaCache, policies: Policies, caller: Caller, table: string, action: Action, expr: Sql): Sql | null {
  // Where the database enforces the policies, the planner keeps only what narrows a write's targets.
  if (caller.role === "service_role" || (dialect.enforcesRowSecurity && (action === "read" || action === "insert"))) return null;
  const policy = policies[table];
  const orgIds = [...caller.orgRoles].filter(([, role]) => rolesFor(policy, action).includes(role)).map(([id]) => id);
  return orgPredicate(dialect, cache, policies, table, policy.scope, expr, orgIds);
}

function orgPredicate(dialect: RestDialect, cache: SchemaCache, policies: Policies, table: string, column: string, expr: Sql, orgIds: string[]): Sql {
  const fk = cache.tables.get(table)?.foreignKeys.find((f) => f.column === column);
  if (table === "organizations" || fk?.refTable === "organizations") return dialect.inList(expr, orgIds);
  const parent = fk && policies[fk.refTable];
  if (!fk || !parent) throw new Error(`policy scope ${table}.${column} does not lead to an organization`);
  const inner = orgPredicate(dialect, cache, policies, fk.refTable, parent.scope, ident(parent.scope), orgIds);
  return sql`${expr} IN (SELECT ${ident(fk.refColumn)} FROM ${ident(fk.refTable)} WHERE ${inner})`;
}

/**
 * The organization id of the row aliased `alias` of `table`, as an SQL expression: its scope column,
 * or the organization of the row that column refers to (brand_id → brands.organization_id).
 */
export function organizationOf(cache: SchemaCache, policies: Policies, table: string, alias: string, depth = 0): Sql {
  const scope = policies[table].scope;
  const fk = cache.tables.get(table)?.foreignKeys.find((f) => f.column === scope);
  const here = sql`${ident(alias)}.${ident(scope)}`;
  if (table === "organizations" || fk?.refTable === "organizations") return here;
  if (!fk || !policies[fk.refTable]) throw new Error(`policy scope ${table}.${scope} does not lead to an organization`);
  const parentAlias = `o${depth}`;
  return sql`(SELECT ${organizationOf(cache, policies, fk.refTable, parentAlias, depth + 1)} FROM ${ident(fk.refTable)} AS ${ident(parentAlias)} WHERE ${ident(parentAlias)}.${ident(fk.refColumn)} = ${here})`;
}
