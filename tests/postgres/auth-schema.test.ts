// Issue #30: accounts in Supabase's shape on Postgres (drizzle-pg/0008). The server's sign-up writes
// auth.users with GoTrue's column names and an argon2id encrypted_password; every user has an
// email identity in auth.identities, kept by a trigger; and a user inserted straight into
// auth.users — as a GoTrue in front of this database would — gets an organization they own, named
// as the server names one, while the server's own sign-up (which places its users itself) gets
// exactly one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { openPostgresDatabase } from "../../src/database";
import { migratePostgres } from "../../src/db/pg/open";
import { embeddedMigrations } from "../../src/db/pg/migrations.generated";
import { pgHarnessOn, type PgHarness } from "../contracts/harness.pg";
import { testServer } from "../helpers/app";
import { testPostgres } from "../helpers/postgres";
import { client, uniqueEmail } from "../helpers/supabase";

const pg = await testPostgres();
let server: Awaited<ReturnType<typeof testServer>>;
let h: PgHarness;
const sql = (): SQL => h.pg.sql;

beforeAll(async () => {
  if (!pg) return;
  const url = await pg.createDatabase("auth_schema");
  server = await testServer({ DATABASE_URL: url });
  h = await pgHarnessOn(url);
});
afterAll(async () => {
  await h?.close();
  await server?.stop();
});

describe.skipIf(!pg)("auth schema (Postgres)", () => {
  test("a sign-up through supabase-js lands in auth.users with GoTrue's columns, one email identity and one organization", async () => {
    const email = uniqueEmail("schema");
    const { data, error } = await client(server.url, server.secrets.anonKey).auth.signUp({ email, password: "correct-horse", options: { data: { organization_name: "Café Ünïcode" } } });
    expect(error).toBeNull();
    const id = data.user!.id;
    const [user] = await sql()`SELECT email, encrypted_password, raw_user_meta_data, raw_app_meta_data FROM auth.users WHERE id = ${id}`;
    expect(user.email).toBe(email);
    expect(user.encrypted_password).toStartWith("$argon2id$");
    expect(user.raw_user_meta_data).toMatchObject({ organization_name: "Café Ünïcode" });
    expect(await sql()`SELECT provider, provider_id, email, identity_data ->> 'sub' AS sub FROM auth.identities WHERE user_id = ${id}`).toEqual([{ provider: "email", provider_id: id, email, sub: id }]);
    const orgs = await sql()`SELECT o.name, o.slug, m.role FROM organization_members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ${id}`;
    expect(orgs).toHaveLength(1);
    expect(orgs[0]).toMatchObject({ name: "Café Ünïcode", role: "owner" });
    expect(orgs[0].slug).toMatch(/^cafe-unicode-[a-z0-9]{10}$/);
    // Nothing of it lives in public any more.
    expect(await sql()`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ('users', 'sessions', 'refresh_tokens')`).toEqual([]);
  });

  test("a user inserted straight into auth.users gets an organization named as the server would, an identity, and signs in", async () => {
    const email = uniqueEmail("gotrue");
    const hash = await Bun.password.hash("from-gotrue-1", { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 });
    const [{ id }] = await sql()`INSERT INTO auth.users (email, encrypted_password, raw_user_meta_data) VALUES (${email}, ${hash}, ${{ organization_name: "Straight In" }}) RETURNING id`;
    const orgs = await sql()`SELECT o.name, o.slug, m.role FROM organization_members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ${id}`;
    expect(orgs).toHaveLength(1);
    expect(orgs[0]).toMatchObject({ name: "Straight In", role: "owner" });
    expect(orgs[0].slug).toMatch(/^straight-in-[a-z0-9]{10}$/);
    // Without an organization_name: the e-mail's local part, as the server's sign-up names it.
    const [{ id: bare }] = await sql()`INSERT INTO auth.users (email) VALUES (${"solo.person@example.com"}) RETURNING id`;
    expect(await sql()`SELECT o.name FROM organization_members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ${bare}`).toEqual([{ name: "solo.person's organization" }]);
    expect((await sql()`SELECT count(*)::int AS n FROM auth.identities WHERE user_id = ${id}`)[0].n).toBe(1);
    // The server reads the row a GoTrue wrote: sign-in with the password, and the organization is theirs.
    const sb = client(server.url, server.secrets.anonKey);
    const signIn = await sb.auth.signInWithPassword({ email, password: "from-gotrue-1" });
    expect(signIn.error).toBeNull();
    expect((await sb.from("organizations").select("name")).data).toEqual([{ name: "Straight In" }]);
  });

  test("an e-mail change follows into the identity; deleting the user deletes it", async () => {
    const [{ id }] = await sql()`INSERT INTO auth.users (email) VALUES (${uniqueEmail("moving")}) RETURNING id`;
    await sql()`UPDATE auth.users SET email = 'moved@example.com' WHERE id = ${id}`;
    expect(await sql()`SELECT email FROM auth.identities WHERE user_id = ${id}`).toEqual([{ email: "moved@example.com" }]);
    await sql()`DELETE FROM auth.users WHERE id = ${id}`;
    expect((await sql()`SELECT count(*)::int AS n FROM auth.identities WHERE user_id = ${id}`)[0].n).toBe(0);
  });

  test("a database of the release before moves its accounts into auth without losing a row: sessions, tokens and memberships kept, identities filled, no organization added", async () => {
    const url = await pg!.createDatabase("auth_upgrade");
    const before = new SQL(url, { max: 2 });
    const upTo = embeddedMigrations.findIndex((m) => m.tag.startsWith("0008_"));
    expect(upTo).toBeGreaterThan(0);
    await migratePostgres(before, { migrations: embeddedMigrations.slice(0, upTo), parts: [] });
    const [{ id: user }] = await before`INSERT INTO users (email, password_hash, user_metadata) VALUES ('old@example.com', '$argon2id$old', ${{ plan: "pro" }}) RETURNING id`;
    const [{ id: session }] = await before`INSERT INTO sessions (user_id) VALUES (${user}) RETURNING id`;
    await before`INSERT INTO refresh_tokens (session_id, user_id, token_hash) VALUES (${session}, ${user}, 'hash-1')`;
    const [{ id: org }] = await before`INSERT INTO organizations (name, slug) VALUES ('Old Org', 'old-org') RETURNING id`;
    await before`INSERT INTO organization_members (organization_id, user_id, role) VALUES (${org}, ${user}, 'owner')`;
    await before.close();

    const after = await openPostgresDatabase(url, { poolSize: 2 });
    try {
      const q = after.sql;
      expect(await q`SELECT email, encrypted_password, raw_user_meta_data FROM auth.users`).toEqual([{ email: "old@example.com", encrypted_password: "$argon2id$old", raw_user_meta_data: { plan: "pro" } }]);
      expect((await q`SELECT count(*)::int AS n FROM auth.sessions WHERE user_id = ${user}`)[0].n).toBe(1);
      expect((await q`SELECT count(*)::int AS n FROM auth.refresh_tokens WHERE token_hash = 'hash-1'`)[0].n).toBe(1);
      expect(await q`SELECT provider, email FROM auth.identities WHERE user_id = ${user}`).toEqual([{ provider: "email", email: "old@example.com" }]);
      expect(await q`SELECT o.name FROM organizations o`).toEqual([{ name: "Old Org" }]);
      // The foreign keys moved with the table: deleting the account still takes its membership.
      await q`DELETE FROM auth.users WHERE id = ${user}`;
      expect((await q`SELECT count(*)::int AS n FROM organization_members`)[0].n).toBe(0);
    } finally {
      await after.close();
    }
  });

  test("the REST roles read none of auth's tables", async () => {
    for (const table of ["auth.users", "auth.sessions", "auth.refresh_tokens", "auth.identities"]) {
      for (const role of ["anon", "authenticated"]) {
        const code = await sql()
          .begin(async (tx) => {
            await tx.unsafe(`SET LOCAL ROLE ${role}`);
            await tx.unsafe(`SELECT count(*) FROM ${table}`);
            return "read";
          })
          .catch((e: { errno?: string }) => e.errno);
        expect({ table, role, code }).toEqual({ table, role, code: "42501" });
      }
    }
  });
});
