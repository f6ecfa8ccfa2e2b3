// answerwatch in a database whose default privileges grant every new table to the REST roles, as a
// Supabase project's do (review finding): PostgREST, or any session under anon or authenticated,
// must still read none of answerwatch's unexposed tables — not the secrets, the API keys, the jobs,
// the raw logs or a month of them made later — while an operator's own table keeps its grants.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { ensureLogPartitions } from "../../src/db/pg/partitions";
import { openPostgresDatabase } from "../../src/database";
import { testPostgres } from "../helpers/postgres";

const pg = await testPostgres();
let url: string;
let admin: SQL;
let opened: Awaited<ReturnType<typeof openPostgresDatabase>> | undefined;

beforeAll(async () => {
  if (!pg) return;
  url = await pg.createDatabase("default_privileges");
  admin = new SQL(url, { max: 1 });
  // As a Supabase project is before answerwatch migrates: the roles exist, and new tables are theirs.
  for (const role of ["anon", "authenticated", "service_role"]) await admin.unsafe(`DO $$ BEGIN CREATE ROLE ${role} NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
  await admin.unsafe("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role");
  await admin.unsafe("CREATE TABLE operator_notes (note text); INSERT INTO operator_notes VALUES ('ours')");
  opened = await openPostgresDatabase(url, { poolSize: 2, migrate: true });
});
afterAll(async () => {
  await opened?.close?.();
  await admin?.close();
});

/** The error code of `text` run as `role` (null when it ran). */
async function codeAs(role: string, text: string): Promise<string | null> {
  let code: string | null = null;
  await admin
    .begin(async (tx) => {
      await tx.unsafe(`SET LOCAL ROLE ${role}`);
      try {
        await tx.unsafe(text);
      } catch (error) {
        code = String((error as { errno?: string; code?: string }).errno ?? (error as { code?: string }).code);
      }
      throw new Error("rollback");
    })
    .catch(() => {});
  return code;
}

test.skipIf(!pg)("the REST roles read none of answerwatch's unexposed tables, a month of logs made later included; an operator's own table is left as it was", async () => {
  const unexposed = ["answerwatch_secrets", "personal_api_keys", "share_links", "jobs", "job_units", "webhook_events", "mail_outbox", "crawler_hits", "crawler_agents", "citation_urls", "answerwatch_instances"];
  const months = (await admin`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'crawler_hits'::regclass ORDER BY 1`) as { name: string }[];
  expect(months.length).toBeGreaterThan(0);
  for (const role of ["anon", "authenticated", "service_role"])
    for (const table of [...unexposed, months[0]!.name]) expect({ role, table, code: await codeAs(role, `SELECT * FROM "${table}" LIMIT 1`) }).toEqual({ role, table, code: "42501" });
  // The accounts: made in public (default privileges and all) and moved to auth by a migration.
  const accounts = ((await admin`SELECT tablename FROM pg_tables WHERE schemaname = 'auth' ORDER BY 1`) as { tablename: string }[]).map((r) => `auth.${r.tablename}`);
  expect(accounts).toContain("auth.users");
  for (const role of ["anon", "authenticated", "service_role"])
    for (const table of accounts) expect({ role, table, code: await codeAs(role, `SELECT * FROM ${table} LIMIT 1`) }).toEqual({ role, table, code: "42501" });
  // A month made by a later upkeep run.
  const later = await ensureLogPartitions(opened!.sql, { now: new Date(Date.UTC(2031, 0, 15)) });
  expect(later).toContain("crawler_hits_y2031m01");
  for (const table of later) expect({ table, code: await codeAs("anon", `SELECT * FROM "${table}" LIMIT 1`) }).toEqual({ table, code: "42501" });
  // The exposed tables still answer under their policies (a control: the lock-down is not a blanket one).
  expect(await codeAs("authenticated", "SELECT id FROM brands LIMIT 1")).toBeNull();
  expect(await codeAs("anon", "SELECT note FROM operator_notes")).toBeNull();
});
