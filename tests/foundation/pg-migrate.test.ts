// Issue #29: N instances may start at once on one PostgreSQL — the migrations run once, under an
// advisory lock, and every instance finds the schema complete when it opens.
import { expect, test } from "bun:test";
import { SQL } from "bun";
import { migratePostgres, openPostgres } from "../../src/db/pg/open";
import { testPostgres } from "../helpers/postgres";

const pg = await testPostgres();
const migrations = [
  { tag: "0000_a", when: 1, sql: "CREATE TABLE a (id int PRIMARY KEY);--> statement-breakpoint\nINSERT INTO a VALUES (1)" },
  // Slow on purpose: a second instance must wait for it rather than see half a schema.
  { tag: "0001_b", when: 2, sql: "SELECT pg_sleep(0.3);--> statement-breakpoint\nCREATE TABLE b (id int PRIMARY KEY REFERENCES a (id))" },
];

test.skipIf(!pg)("five instances opening at once apply each migration once; each part runs after them", async () => {
  const url = await pg!.createDatabase("migrate");
  const ensured: string[] = [];
  const part = { name: "probe", ensure: async (tx: SQL) => ensured.push(String((await tx`SELECT count(*)::int AS n FROM b`)[0].n)) };
  const handles = await Promise.all(Array.from({ length: 5 }, () => openPostgres(url, { migrations, parts: [part], poolSize: 2 })));
  try {
    const sql = handles[0]!.sql;
    expect((await sql`SELECT count(*)::int AS n FROM __drizzle_migrations`)[0].n).toBe(2);
    expect((await sql`SELECT count(*)::int AS n FROM a`)[0].n).toBe(1);
    // Every instance's part ran, each after both migrations (table b existed).
    expect(ensured).toEqual(["0", "0", "0", "0", "0"]);
    // A later start with one more migration applies only that one.
    const more = [...migrations, { tag: "0002_c", when: 3, sql: "INSERT INTO a VALUES (2)" }];
    expect(await migratePostgres(sql, { migrations: more, parts: [] })).toBe(1);
    expect(await migratePostgres(sql, { migrations: more, parts: [] })).toBe(0);
    expect((await sql`SELECT count(*)::int AS n FROM a`)[0].n).toBe(2);
  } finally {
    await Promise.all(handles.map((h) => h.close()));
  }
});

test.skipIf(!pg)("a failing migration leaves nothing of itself and releases the lock", async () => {
  const url = await pg!.createDatabase("migrate");
  const broken = [migrations[0]!, { tag: "0001_bad", when: 2, sql: "CREATE TABLE c (id int);--> statement-breakpoint\nSELECT no_such_function()" }];
  await expect(openPostgres(url, { migrations: broken, parts: [] })).rejects.toThrow(/no_such_function/);
  const h = await openPostgres(url, { migrations, parts: [] });
  try {
    expect((await h.sql`SELECT to_regclass('c') AS c`)[0].c).toBeNull();
    expect((await h.sql`SELECT count(*)::int AS n FROM __drizzle_migrations`)[0].n).toBe(2);
  } finally {
    await h.close();
  }
});

test.skipIf(!pg)("every connection of the pool runs with jit off (JIT compiled an import batch for longer than it ran)", async () => {
  const url = await pg!.createDatabase("migrate");
  const h = await openPostgres(url, { migrations, parts: [], poolSize: 3 });
  try {
    // Three at once: three connections of the pool, each asked.
    const settings = await Promise.all([0, 1, 2].map(() => h.sql.begin(async (tx) => (await tx`SELECT current_setting('jit') AS jit, pg_backend_pid() AS pid, pg_sleep(0.05)`)[0])));
    expect(new Set(settings.map((s) => s.pid)).size).toBe(3);
    expect(settings.map((s) => s.jit)).toEqual(["off", "off", "off"]);
    // The server's own default stays as it was for other clients.
    const other = new SQL(url, { max: 1 });
    try {
      expect((await other`SELECT current_setting('jit') AS jit`)[0].jit).toBe("on");
    } finally {
      await other.close();
    }
  } finally {
    await h.close();
  }
});
