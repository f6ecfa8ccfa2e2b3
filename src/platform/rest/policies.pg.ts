// Row-level security in PostgreSQL itself (issue #30), generated from the one source SQLite mode
// applies as predicates (REST_POLICIES in policies.ts; the membership rules of membership.ts), and
// shaped as a Supabase project has it, so the same database could sit behind PostgREST and GoTrue:
// - roles `anon`, `authenticated` and `service_role` (NOLOGIN; the server's user is made a member so
//   it can SET ROLE), `auth.jwt()` / `auth.uid()` / `auth.role()` over `request.jwt.claims`;
// - per exposed table and action a policy by `organization_id` (kept by trigger on every tenant
//   table, drizzle-pg/0001), its organizations from a SECURITY DEFINER helper in a schema /rest/v1
//   does not expose, wrapped as `(SELECT …)` so it runs once per statement, not once per row
//   (Supabase's RLS performance advice); service_role passes every policy (a policy, not BYPASSRLS,
//   which only a superuser may grant);
// - table and column privileges: reads of every exposed table minus its unreadable columns, writes
//   only where a role may write, updates only of the updatable columns;
// - the membership rules as a trigger, with the codes the REST path answers (42501, P0001).
// Claims carry the caller: a user's `sub`; the organizations and roles the server resolved for it as
// `aw_org_roles` (an API key's one organization and role, narrower than its user's); a share link
// (`aw_share_brand`) reads no table. /rest/v1 runs every request under the caller's role and claims
// (executor.pg.ts) and leaves reads and inserts to these policies alone (dialect.enforcesRowSecurity).
// The table owner (the server's own connection) is not subject to them: the features' stores check
// what they write. Besides the exposed tables: the internal tables /rest/v1 reads for a caller
// (INTERNAL_READS), citations' URLs through a checked function, and the inherited prompts.brand_id.
import type { SQL } from "bun";
import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import type { PgSchemaPart } from "../../db/pg/open";
import { isLogPartition } from "../../db/pg/partitions";
import { REST_ROLES } from "../../db/pg/roles";
import * as pgSchema from "../../db/pg/schema";
import { KEY_SESSION_PREFIX, ORG_ROLES, type OrgRole } from "../../common/identity";
import { INHERITED_COLUMNS, type InheritedColumn } from "./constraints";
import { brandMoveGuardSql } from "./membership";
import { ROLLUP_COUNTS } from "./counts";
import { REST_POLICIES, rolesFor, type Policies, type TablePolicy, type WriteAction } from "./policies";
import { keysTable, movedLater, PG_DIALECT as PG_ROLLUP_DIALECT, RETIRED_ROLLUPS, rollupSpecs } from "../../rollups/spec";

/**
 * Tables /rest/v1 reads on a caller's behalf without exposing them: the rollups its exact counts
 * sum (counts.ts) and the insights RPCs read (every rollup of src/rollups), and the latest results
 * its RPC joins (rpc.ts). Readable under the same rule as the brand's own rows.
 */
export const INTERNAL_READS = [
  ...new Set([...Object.values(ROLLUP_COUNTS).flatMap((choices) => choices.map((c) => c.rollup)), ...rollupSpecs(PG_ROLLUP_DIALECT).map((spec) => spec.table), "prompt_results_latest"]),
];

/**
 * Retired rollup tables while they stay (spec.ts RETIRED_ROLLUPS: an older instance may still run
 * and read them under its callers' roles): readable under the same rule until they are dropped.
 */
const RETIRED_READS = [
  ...RETIRED_ROLLUPS,
  // The former tables of running totals moved after the start: the insights read both layouts until they go.
  ...movedLater(rollupSpecs(PG_ROLLUP_DIALECT)).flatMap((m) => [m.formerTotals, m.formerKeys]),
].filter((table) => !INTERNAL_READS.includes(table));

/** The schema of the helpers the policies call; not exposed by /rest/v1. */
export const PRIVATE_SCHEMA = "aw_private";

/**
 * The shared URL dictionary as the insights read it for a brand, under the caller's rights (the
 * REST roles read neither the dictionary nor citations.url_id): `(brand, from, to)` each of the
 * brand's citations of that time with its URL, `(brand, urls)` the dictionary's rows of those
 * normalized URLs the brand has cited. Nothing unless the caller may read the brand.
 */
export const BRAND_CITED_URLS = `${PRIVATE_SCHEMA}.brand_cited_urls`;
export const BRAND_URL_PAGES = `${PRIVATE_SCHEMA}.brand_url_pages`;

/** A uuid, as text: claims are JSON, and a value that is not one must not fail the policy's cast. */
const UUID_PATTERN = "'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'";
const q = (name: string) => `"${name}"`;
/** The request comes from a session of the user's own, not an API key (identity.ts viaApiKey): what own rows need. */
const IN_OWN_SESSION = `coalesce((SELECT auth.jwt() ->> 'session_id'), '') NOT LIKE '${KEY_SESSION_PREFIX}%'`;
const roleArray = (roles: readonly OrgRole[]) => `ARRAY[${roles.map((r) => `'${r}'`).join(", ")}]::text[]`;
/** The row's organization is one where the caller holds one of `roles`; evaluated once per statement. */
/** Whether an organization id (an SQL expression) is one of the caller's with one of `roles`. */
const orgAmong = (expression: string, roles: readonly OrgRole[]) => `${expression} = ANY ((SELECT ${PRIVATE_SCHEMA}.organizations_where(${roleArray(roles)}))::uuid[])`;
const inOrganizations = (column: string, roles: readonly OrgRole[]) => orgAmong(q(column), roles);

/** The roles, the auth helpers and the private helpers: the same for every table. */
export function foundationSql(): string[] {
  const createRole = (role: string) => `DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role} NOLOGIN NOINHERIT; END IF;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; -- another database of the cluster made it meanwhile
  END $$`;
  return [
    ...REST_ROLES.map(createRole),
    `GRANT ${REST_ROLES.join(", ")} TO CURRENT_USER`,
    `CREATE SCHEMA IF NOT EXISTS auth`,
    `CREATE SCHEMA IF NOT EXISTS ${PRIVATE_SCHEMA}`,
    `GRANT USAGE ON SCHEMA auth, ${PRIVATE_SCHEMA}, public TO ${REST_ROLES.join(", ")}`,
    // As Supabase defines them: the request's claims (set per transaction by the server, or by PostgREST).
    `CREATE OR REPLACE FUNCTION auth.jwt() RETURNS jsonb LANGUAGE sql STABLE AS $$
      SELECT coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb $$`,
    `CREATE OR REPLACE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS $$
      SELECT CASE WHEN (auth.jwt() ->> 'sub') ~* ${UUID_PATTERN} THEN (auth.jwt() ->> 'sub')::uuid END $$`,
    `CREATE OR REPLACE FUNCTION auth.role() RETURNS text LANGUAGE sql STABLE AS $$ SELECT auth.jwt() ->> 'role' $$`,
    // The organizations where the caller holds one of `roles`. SECURITY DEFINER: it reads
    // organization_members, which the caller's own policy would filter. search_path pinned.
    // PL/pgSQL, not SQL: its statements' plans are kept for the session, where a SQL function with
    // SET clauses is planned again at every call (~0.3 ms each, measured: one call per table and statement).
    `CREATE OR REPLACE FUNCTION ${PRIVATE_SCHEMA}.organizations_where(roles text[]) RETURNS uuid[] LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    DECLARE
      claims jsonb := coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb;
    BEGIN
      IF claims ? 'aw_share_brand' THEN RETURN '{}'::uuid[]; END IF;
      IF claims ? 'aw_org_roles' THEN
        RETURN ARRAY(SELECT key::uuid FROM jsonb_each_text(claims -> 'aw_org_roles')
                      WHERE value = ANY (roles) AND key ~* ${UUID_PATTERN});
      END IF;
      RETURN ARRAY(SELECT organization_id FROM organization_members WHERE user_id = auth.uid() AND role = ANY (roles));
    END $$`,
    `REVOKE ALL ON FUNCTION ${PRIVATE_SCHEMA}.organizations_where(text[]) FROM PUBLIC`,
    `GRANT EXECUTE ON FUNCTION ${PRIVATE_SCHEMA}.organizations_where(text[]) TO ${REST_ROLES.join(", ")}`,
    // The triggers that keep organization_id read the parent row whoever writes: as definer, a
    // foreign brand is found (and the policy then refuses the row with 42501, as PostgREST would),
    // and a brand moved between organizations takes rows its writer may not touch directly.
    `ALTER FUNCTION aw_organization_from_brand() SECURITY DEFINER SET search_path = public, pg_temp`,
    `ALTER FUNCTION aw_brand_organization_moved() SECURITY DEFINER SET search_path = public, pg_temp`,
    `ALTER FUNCTION aw_organization_from_endpoint() SECURITY DEFINER SET search_path = public, pg_temp`,
    `ALTER FUNCTION aw_endpoint_organization_moved() SECURITY DEFINER SET search_path = public, pg_temp`,
    ...membershipGuardSql(),
    ...brandMoveGuardSql(PRIVATE_SCHEMA),
  ];
}

/**
 * membership.ts as triggers, for writes made under the REST roles (the server's own stores enforce
 * their rules themselves): only owners grant, change or take away owner and admin (an admin may
 * leave) — checked before the row changes, so an owner's own demotion is judged by the roles held
 * when the statement began; an organization that still exists keeps an owner, checked after the
 * statement, whoever writes under those roles (service_role too).
 */
/** First key of the per-organization owners lock (pg_advisory_xact_lock(int, int)); unused elsewhere. */
const OWNERS_LOCK = 424_205;

function membershipGuardSql(): string[] {
  const isOwnerOf = (org: string) => `${org} = ANY (${PRIVATE_SCHEMA}.organizations_where(ARRAY['owner']::text[]))`;
  return [
    `CREATE OR REPLACE FUNCTION ${PRIVATE_SCHEMA}.membership_owners_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Changes to an organization's owners queue, whoever makes them: two owners demoting each
      -- other at once would each see the other still owner (keeps_an_owner runs after, under READ
      -- COMMITTED) and both commit, leaving none. The second now waits and is judged on the first's result.
      IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.role = 'owner' THEN PERFORM pg_advisory_xact_lock(${OWNERS_LOCK}, hashtext(CAST(OLD.organization_id AS text))); END IF;
      IF current_user <> 'authenticated' THEN RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END; END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.role IN ('owner', 'admin') AND NOT ${isOwnerOf("OLD.organization_id")}
         AND NOT (TG_OP = 'DELETE' AND OLD.user_id IS NOT DISTINCT FROM auth.uid() AND ${IN_OWN_SESSION}) THEN
        RAISE EXCEPTION 'Only owners can grant, change or remove the owner and admin roles' USING ERRCODE = 'insufficient_privilege';
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.role IN ('owner', 'admin') AND NOT ${isOwnerOf("NEW.organization_id")} THEN
        RAISE EXCEPTION 'Only owners can grant, change or remove the owner and admin roles' USING ERRCODE = 'insufficient_privilege';
      END IF;
      RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END $$`,
    // Whether an organization that still exists has no owner left; as definer, past the caller's policies.
    `CREATE OR REPLACE FUNCTION ${PRIVATE_SCHEMA}.organization_lost_its_owners(org uuid) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
      SELECT EXISTS (SELECT 1 FROM organizations o WHERE o.id = org)
         AND NOT EXISTS (SELECT 1 FROM organization_members m WHERE m.organization_id = org AND m.role = 'owner') $$`,
    `REVOKE ALL ON FUNCTION ${PRIVATE_SCHEMA}.organization_lost_its_owners(uuid) FROM PUBLIC`,
    `GRANT EXECUTE ON FUNCTION ${PRIVATE_SCHEMA}.organization_lost_its_owners(uuid) TO ${REST_ROLES.join(", ")}`,
    // Not a definer itself: current_user is the role the write runs as.
    `CREATE OR REPLACE FUNCTION ${PRIVATE_SCHEMA}.membership_keeps_an_owner() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_user NOT IN (${REST_ROLES.map((r) => `'${r}'`).join(", ")}) THEN RETURN NULL; END IF;
      IF ${PRIVATE_SCHEMA}.organization_lost_its_owners(OLD.organization_id) THEN
        RAISE EXCEPTION 'An organization must keep at least one owner' USING ERRCODE = 'P0001', HINT = 'Make another member owner first, or delete the organization.';
      END IF;
      RETURN NULL;
    END $$`,
    `DROP TRIGGER IF EXISTS aw_membership_owners_only ON organization_members`,
    `CREATE TRIGGER aw_membership_owners_only BEFORE INSERT OR UPDATE OR DELETE ON organization_members FOR EACH ROW EXECUTE FUNCTION ${PRIVATE_SCHEMA}.membership_owners_only()`,
    `DROP TRIGGER IF EXISTS aw_membership_keeps_an_owner ON organization_members`,
    `CREATE TRIGGER aw_membership_keeps_an_owner AFTER UPDATE OR DELETE ON organization_members FOR EACH ROW WHEN (OLD.role = 'owner') EXECUTE FUNCTION ${PRIVATE_SCHEMA}.membership_keeps_an_owner()`,
  ];
}

/** The policies and privileges of one exposed table; `columns` are its columns in the database. */
export function tableSql(table: string, policy: TablePolicy, columns: string[]): string[] {
  const scope = table === "organizations" ? "id" : "organization_id";
  const readable = columns.filter((c) => !policy.unreadableColumns?.includes(c));
  // A table with an unreadable column grants the others one by one (then `SELECT *` and system
  // columns such as xmax are refused); the others are granted whole. service_role, the project's
  // admin key, is granted whole (the REST planner still never selects an unreadable column).
  const users = ["anon", "authenticated"].join(", ");
  const grants = [
    `REVOKE ALL ON ${q(table)} FROM ${REST_ROLES.join(", ")}`,
    readable.length < columns.length ? `GRANT SELECT (${readable.map(q).join(", ")}) ON ${q(table)} TO ${users}` : `GRANT SELECT ON ${q(table)} TO ${users}`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ${q(table)} TO service_role`,
  ];
  // Writes are granted to anon too where a user may write: with no policy of its own, anon's
  // update or delete touches no row and its insert fails the policy's check (401 42501), as the
  // planner answers on SQLite. The planner sets updated_at with an update's columns.
  for (const action of ["insert", "update", "delete"] as const) {
    if (!rolesFor(policy, action).length) continue;
    const updatable = policy.updatableColumns && [...policy.updatableColumns, ...(columns.includes("updated_at") ? ["updated_at"] : [])];
    const cols = action === "update" && updatable ? ` (${updatable.map(q).join(", ")})` : "";
    grants.push(`GRANT ${action.toUpperCase()}${cols} ON ${q(table)} TO ${users}`);
  }
  const own = (action: WriteAction) => (policy.ownRows?.actions.includes(action) ? ` OR (${q(policy.ownRows.column)} = (SELECT auth.uid()) AND ${IN_OWN_SESSION})` : "");
  const policies = [
    `ALTER TABLE ${q(table)} ENABLE ROW LEVEL SECURITY`,
    `CREATE POLICY aw_service ON ${q(table)} AS PERMISSIVE FOR ALL TO service_role USING (true) WITH CHECK (true)`,
    `CREATE POLICY aw_read ON ${q(table)} AS PERMISSIVE FOR SELECT TO authenticated USING (${inOrganizations(scope, rolesFor(policy, "read"))})`,
  ];
  if (rolesFor(policy, "insert").length) policies.push(`CREATE POLICY aw_insert ON ${q(table)} AS PERMISSIVE FOR INSERT TO authenticated WITH CHECK (${inOrganizations(scope, rolesFor(policy, "insert"))})`);
  if (rolesFor(policy, "update").length)
    policies.push(`CREATE POLICY aw_update ON ${q(table)} AS PERMISSIVE FOR UPDATE TO authenticated USING (${inOrganizations(scope, rolesFor(policy, "update"))}) WITH CHECK (${inOrganizations(scope, rolesFor(policy, "update"))})`);
  if (rolesFor(policy, "delete").length || policy.ownRows?.actions.includes("delete"))
    policies.push(`CREATE POLICY aw_delete ON ${q(table)} AS PERMISSIVE FOR DELETE TO authenticated USING (${inOrganizations(scope, rolesFor(policy, "delete"))}${own("delete")})`);
  return [...grants, ...policies];
}

/**
 * An internal table's read for the REST roles: its organization's members read it, nobody writes.
 * Totals keyed by id have no organization of their own: a row is read when its key is, looked up
 * by its id (a read of one brand's totals costs one key seek a row, whatever the organization holds;
 * a list of the organization's key ids built per statement would grow with all its brands' paths).
 */
export function internalReadSql(table: string): string[] {
  const readable = (pgSchema.ORGANIZATION_THROUGH_KEY as readonly string[]).includes(table)
    ? `EXISTS (SELECT 1 FROM ${q(keysTable({ table }))} AS k WHERE k.id = key_id AND ${orgAmong("k.organization_id", ORG_ROLES)})`
    : inOrganizations("organization_id", ORG_ROLES);
  return [
    `REVOKE ALL ON ${q(table)} FROM ${REST_ROLES.join(", ")}`,
    `GRANT SELECT ON ${q(table)} TO ${REST_ROLES.join(", ")}`,
    `ALTER TABLE ${q(table)} ENABLE ROW LEVEL SECURITY`,
    `CREATE POLICY aw_service ON ${q(table)} AS PERMISSIVE FOR SELECT TO service_role USING (true)`,
    `CREATE POLICY aw_read ON ${q(table)} AS PERMISSIVE FOR SELECT TO authenticated USING (${readable})`,
  ];
}

/**
 * citations' url, normalized_url and title read through citation_urls, shared by every
 * organization, by its id (url_id) — which the REST roles may not read. This function gives one
 * field of a citation's URL to a caller who may read that citation, and NULL to anyone else.
 */
function citationLinkSql(): string[] {
  return [
    `CREATE OR REPLACE FUNCTION ${PRIVATE_SCHEMA}.citation_link(citation uuid, field text) RETURNS text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
      SELECT CASE field WHEN 'url' THEN u.url WHEN 'normalized_url' THEN u.normalized_url WHEN 'title' THEN nullif(u.title, '') END
        FROM citations AS c JOIN citation_urls AS u ON u.id = c.url_id
       WHERE c.id = citation
         AND (auth.role() = 'service_role' OR c.organization_id = ANY (${PRIVATE_SCHEMA}.organizations_where(${roleArray(ORG_ROLES)}))) $$`,
    `REVOKE ALL ON FUNCTION ${PRIVATE_SCHEMA}.citation_link(uuid, text) FROM PUBLIC`,
    `GRANT EXECUTE ON FUNCTION ${PRIVATE_SCHEMA}.citation_link(uuid, text) TO ${REST_ROLES.join(", ")}`,
  ];
}

/** BRAND_CITED_URLS and BRAND_URL_PAGES (the insights' URL reads): definer functions that check the brand first. */
function brandUrlsSql(formerUrlKeys: boolean): string[] {
  const citedBy = (keyList: string) => `EXISTS (SELECT 1 FROM ${keyList} AS k WHERE k.brand_id = brand AND k.normalized_url = u.normalized_url)`;
  const mayReadBrand = `(auth.role() = 'service_role' OR (SELECT b.organization_id FROM brands AS b WHERE b.id = brand) = ANY (${PRIVATE_SCHEMA}.organizations_where(${roleArray(ORG_ROLES)})))`;
  return [
    `CREATE OR REPLACE FUNCTION ${BRAND_CITED_URLS}(brand uuid, since timestamptz, until timestamptz) RETURNS TABLE (citation_id uuid, url text, normalized_url text, title text) LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
      SELECT c.id, u.url, u.normalized_url, u.title FROM citations AS c JOIN citation_urls AS u ON u.id = c.url_id
       WHERE ${mayReadBrand} AND c.brand_id = brand AND c.created_at >= since AND c.created_at < until $$`,
    `CREATE OR REPLACE FUNCTION ${BRAND_URL_PAGES}(brand uuid, urls text[]) RETURNS SETOF citation_urls LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
      SELECT u.* FROM citation_urls AS u
       WHERE ${mayReadBrand}
         AND u.normalized_url = ANY (urls)
         AND (${citedBy("url_totals_keys")}${formerUrlKeys ? ` OR ${citedBy("url_running_keys")}` : ""}) $$`,
    ...[`${BRAND_CITED_URLS}(uuid, timestamptz, timestamptz)`, `${BRAND_URL_PAGES}(uuid, text[])`].flatMap((fn) => [`REVOKE ALL ON FUNCTION ${fn} FROM PUBLIC`, `GRANT EXECUTE ON FUNCTION ${fn} TO ${REST_ROLES.join(", ")}`]),
  ];
}

/**
 * constraints.ts' inherited columns as a trigger (prompts.brand_id is its prompt set's): filled when
 * left out, refused (23514, as the planner words it) when it names another. As definer, the parent
 * is found whoever writes — a caller who cannot read it cannot point a row of theirs at it either.
 */
export function inheritedColumnSql(rule: InheritedColumn): string[] {
  const name = `${rule.table}_${rule.column}_from_${rule.via}`;
  const constraint = `${rule.table}_${rule.column}_matches_${rule.via}`;
  return [
    `CREATE OR REPLACE FUNCTION ${PRIVATE_SCHEMA}.${name}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    DECLARE inherited ${rule.table}.${q(rule.column)}%TYPE;
    BEGIN
      IF NEW.${q(rule.via)} IS NULL THEN RETURN NEW; END IF;
      SELECT p.${q(rule.column)} INTO inherited FROM ${q(rule.parent)} AS p WHERE p.id = NEW.${q(rule.via)};
      IF NOT FOUND THEN RETURN NEW; END IF; -- the foreign key refuses it
      IF NEW.${q(rule.column)} IS NULL THEN
        NEW.${q(rule.column)} := inherited;
      ELSIF NEW.${q(rule.column)} IS DISTINCT FROM inherited THEN
        RAISE EXCEPTION 'new row for relation "${rule.table}" violates check constraint "${constraint}"' USING ERRCODE = 'check_violation', CONSTRAINT = '${constraint}',
          DETAIL = '${rule.table}.${rule.column} must equal the ${rule.column} of the row ${rule.via} refers to';
      END IF;
      RETURN NEW;
    END $$`,
    `DROP TRIGGER IF EXISTS ${q(name)} ON ${q(rule.table)}`,
    // Named to sort before <table>_organization_id: BEFORE triggers run in name order, and the organization follows the inherited brand.
    `CREATE TRIGGER ${q(name)} BEFORE INSERT OR UPDATE OF ${q(rule.via)}, ${q(rule.column)} ON ${q(rule.table)} FOR EACH ROW EXECUTE FUNCTION ${PRIVATE_SCHEMA}.${name}()`,
  ];
}

/**
 * query.ts' check that a row's references stay in its brand (or organization), for writes under
 * `authenticated`: the planner's own check runs under the caller's policies, where a row of another
 * organization is no row at all — so a prompt could name another organization's topic, and whether
 * the foreign key accepted it told whether that id exists. As definer, the trigger finds the parent
 * whoever writes. After the row's BEFORE triggers, so its organization is the one they derived.
 */
function sameOwnerReferenceSql(table: string, column: string, parent: string, parentColumn: string, columnsOf: Map<string, string[]>): string[] {
  const sameBrand = columnsOf.get(table)!.includes("brand_id") && columnsOf.get(parent)!.includes("brand_id");
  const owner = sameBrand ? "brand_id" : "organization_id";
  const parentOrganization = parent === "organizations" ? "id" : "organization_id";
  const parentOwner = sameBrand ? "brand_id" : parentOrganization;
  const name = `${table}_${column}_same_owner`;
  return [
    `CREATE OR REPLACE FUNCTION ${PRIVATE_SCHEMA}.${name}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    DECLARE found_owner uuid; found_organization uuid;
    BEGIN
      SELECT p.${q(parentOwner)}, p.${q(parentOrganization)} INTO found_owner, found_organization FROM ${q(parent)} AS p WHERE p.${q(parentColumn)} = NEW.${q(column)};
      IF FOUND AND found_owner IS DISTINCT FROM NEW.${q(owner)} THEN
        -- A row the caller may not read is, to them, no row: the foreign key's answer, not this rule's.
        IF NOT (${orgAmong("found_organization", ORG_ROLES)}) THEN
          RAISE EXCEPTION 'insert or update on table "${table}" violates foreign key constraint' USING ERRCODE = 'foreign_key_violation';
        END IF;
        RAISE EXCEPTION 'new row for relation "${table}" violates check constraint "${name}"' USING ERRCODE = 'check_violation', CONSTRAINT = '${name}',
          DETAIL = '${table}.${column} must refer to a ${parent} row of the same ${sameBrand ? "brand" : "organization"}';
      END IF;
      RETURN NULL;
    END $$`,
    `DROP TRIGGER IF EXISTS ${q(name)} ON ${q(table)}`,
    `CREATE TRIGGER ${q(name)} AFTER INSERT OR UPDATE OF ${q(column)}, ${q(owner)} ON ${q(table)} FOR EACH ROW
      WHEN (NEW.${q(column)} IS NOT NULL AND current_user = 'authenticated') EXECUTE FUNCTION ${PRIVATE_SCHEMA}.${name}()`,
  ];
}

/** The foreign keys of the policies' tables to other such tables, other than their scope: what sameOwnerReferenceSql guards. */
function ownedReferences(policies: Policies, columnsOf: Map<string, string[]>): string[] {
  const made: string[] = [];
  for (const model of Object.values(pgSchema)) {
    if (!is(model, PgTable)) continue;
    const config = getTableConfig(model);
    const policy = policies[config.name];
    if (!policy || !columnsOf.has(config.name)) continue;
    for (const fk of config.foreignKeys) {
      const reference = fk.reference();
      const parent = getTableConfig(reference.foreignTable).name;
      const column = reference.columns[0]!.name;
      if (column === policy.scope || !policies[parent] || !columnsOf.has(parent)) continue;
      made.push(...sameOwnerReferenceSql(config.name, column, parent, reference.foreignColumns[0]!.name, columnsOf));
    }
  }
  return made;
}

/**
 * Whether a table of the public schema is answerwatch's: its model's (`modelTables`), a month (or
 * the default) of a partitioned log table, or its own bookkeeping (answerwatch_*) — as opposed to an
 * operator's own tables in a shared database, which it leaves alone.
 */
export function isOwnTable(table: string, modelTables: ReadonlySet<string>): boolean {
  return modelTables.has(table) || table.startsWith("answerwatch_") || isLogPartition(table);
}


/**
 * The REST roles lose every privilege on answerwatch's tables they are not given below: the server
 * never grants them one, but a database whose default privileges grant new tables to them (a
 * Supabase project's do, to anon and authenticated alike) would otherwise let PostgREST, or any
 * session under those roles, read the secrets, API keys, jobs or raw logs of every organization.
 */
export function lockedDownSql(tables: string[]): string[] {
  return tables.map((table) => `REVOKE ALL ON ${q(table)} FROM ${REST_ROLES.join(", ")}`);
}

/** Everything, for the tables of `policies` that exist with the given columns; `ownTables` (isOwnTable) are locked down first. */
export function rowSecuritySql(policies: Policies, columnsOf: Map<string, string[]>, ownTables: string[] = []): string[] {
  const tables = Object.entries(policies).filter(([table, p]) => p.exposed !== false && columnsOf.has(table));
  const opened = new Set([...tables.map(([table]) => table), ...INTERNAL_READS, ...RETIRED_READS]);
  return [
    ...foundationSql(),
    ...lockedDownSql(ownTables.filter((t) => columnsOf.has(t) && !opened.has(t))),
    // The accounts (GoTrue's tables, made in public and moved to auth with whatever default
    // privileges gave them there): no REST role reads them; the server reads them as their owner.
    `REVOKE ALL ON ALL TABLES IN SCHEMA auth FROM ${REST_ROLES.join(", ")}`,
    ...tables.flatMap(([table, policy]) => tableSql(table, policy, columnsOf.get(table)!)),
    ...[...INTERNAL_READS, ...RETIRED_READS].filter((t) => columnsOf.has(t)).flatMap(internalReadSql),
    ...citationLinkSql(),
    // The URL keys of the layout before issue #32's move too, while they are there (made again at each start).
    ...(columnsOf.has("url_totals_keys") ? brandUrlsSql(columnsOf.has("url_running_keys")) : []),
    ...INHERITED_COLUMNS.filter((r) => columnsOf.has(r.table)).flatMap(inheritedColumnSql),
    ...ownedReferences(policies, columnsOf),
  ];
}

/**
 * Makes the roles, helpers, policies and grants match REST_POLICIES: when what would be made differs
 * from what was made last (a hash in answerwatch_schema_parts), every `aw_` policy of the exposed
 * tables is dropped and made again, in the migration's transaction (under its lock).
 */
export async function ensureRowSecurity(tx: SQL, policies: Policies = REST_POLICIES): Promise<boolean> {
  // Made before the tables are listed: it is one of those locked down.
  await tx`CREATE TABLE IF NOT EXISTS answerwatch_schema_parts (name text PRIMARY KEY, hash text NOT NULL, made_at timestamptz NOT NULL DEFAULT now())`;
  const rows = (await tx`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`) as { table_name: string; column_name: string }[];
  const columnsOf = new Map<string, string[]>();
  for (const r of rows) columnsOf.set(r.table_name, [...(columnsOf.get(r.table_name) ?? []), r.column_name]);
  const modelTables = new Set(Object.values(pgSchema).flatMap((v) => (is(v, PgTable) ? [getTableConfig(v)] : [])).filter((c) => (c.schema ?? "public") === "public").map((c) => c.name));
  const own = [...columnsOf.keys()].filter((t) => isOwnTable(t, modelTables));
  // The log months come and go (partitions.ts locks each new one down as it makes it): they are
  // locked down whenever the rest is made, outside the hash, so a new month alone remakes nothing.
  const statements = rowSecuritySql(policies, columnsOf, own.filter((t) => !isLogPartition(t)));
  const hash = Bun.hash(statements.join(";\n")).toString(16);
  const [made] = await tx`SELECT hash FROM answerwatch_schema_parts WHERE name = 'row-level security'`;
  const rolesPresent = Number((await tx`SELECT count(*) AS n FROM pg_roles WHERE rolname IN ('anon', 'authenticated', 'service_role')`)[0].n) === REST_ROLES.length;
  if (made?.hash === hash && rolesPresent) return false;
  const existing = (await tx`SELECT tablename, policyname FROM pg_policies WHERE schemaname = 'public' AND policyname LIKE 'aw\\_%'`) as { tablename: string; policyname: string }[];
  for (const p of existing) await tx.unsafe(`DROP POLICY ${q(p.policyname)} ON ${q(p.tablename)}`);
  for (const statement of [...statements, ...lockedDownSql(own.filter(isLogPartition))]) await tx.unsafe(statement);
  await tx`INSERT INTO answerwatch_schema_parts (name, hash) VALUES ('row-level security', ${hash}) ON CONFLICT (name) DO UPDATE SET hash = EXCLUDED.hash, made_at = now()`;
  return true;
}

export const rowSecurityPgSchema: PgSchemaPart = { name: "row-level security", ensure: (tx) => ensureRowSecurity(tx) };
