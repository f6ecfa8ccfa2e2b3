// Postgres mode's schema (src/db/pg/schema.ts) mirrors the SQLite one (src/db/schema.ts, the source of
// truth): same tables, columns, nullability, defaults present, keys, foreign keys, indexes and checks.
// The only differences allowed are the type mapping written at the top of src/db/pg/schema.ts and the
// organization_id columns and indexes Postgres adds (ORGANIZATION_ID_ADDED, ORGANIZATION_INDEX_ADDED),
// kept by the triggers of drizzle-pg/0001. No database is needed.
import { PG_ROLLUPS } from "../../src/rollups/triggers.pg";
import { movedLater } from "../../src/rollups/spec";
import { describe, expect, test } from "bun:test";
import { Column, is, SQL, StringChunk } from "drizzle-orm";
import { IndexedColumn, getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { renderEmbeddedMigrations } from "../../src/db/migrations";
import { embeddedMigrations } from "../../src/db/pg/migrations.generated";
import * as pg from "../../src/db/pg/schema";
import * as lite from "../../src/db/schema";

const ROOT = new URL("../..", import.meta.url).pathname;
const ADDED = new Set<string>(pg.ORGANIZATION_ID_ADDED);
const INDEX_ADDED = new Set<string>(pg.ORGANIZATION_INDEX_ADDED);

/** SQL (an index expression, a check) as text, columns by name: comparable across dialects. */
function render(value: unknown): string {
  if (is(value, Column)) return value.name;
  if (is(value, IndexedColumn)) return value.name!;
  if (is(value, SQL)) return value.queryChunks.map(render).join("");
  if (is(value, StringChunk)) return value.value.join("");
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(render).join("");
  return String(value);
}

interface Shape {
  columns: Map<string, { type: string; sqlType: string; notNull: boolean; hasDefault: boolean; generated: boolean }>;
  primaryKey: string[];
  /** name → columns (or expression); unique indexes and unique constraints both. */
  uniques: Map<string, string>;
  indexes: Map<string, string>;
  foreignKeys: Set<string>;
  checks: Map<string, string>;
}

function shape(config: ReturnType<typeof pgConfig> | ReturnType<typeof sqliteConfig>): Shape {
  const columns = new Map<string, Shape["columns"] extends Map<string, infer V> ? V : never>();
  for (const c of config.columns as Column[]) {
    columns.set(c.name, { type: c.columnType, sqlType: c.getSQLType(), notNull: c.notNull, hasDefault: c.hasDefault, generated: !!c.generated });
  }
  const primaryKey = [
    ...(config.columns as Column[]).filter((c) => c.primary).map((c) => c.name),
    ...config.primaryKeys.flatMap((k) => k.columns.map((c) => c.name)),
  ];
  const uniques = new Map<string, string>();
  const indexes = new Map<string, string>();
  for (const c of config.columns as Column[]) if (c.isUnique) uniques.set(c.uniqueName ?? `${c.name} (unnamed)`, c.name);
  for (const u of config.uniqueConstraints) uniques.set(u.getName() ?? "(unnamed)", u.columns.map((c) => c.name).join(","));
  for (const i of config.indexes) {
    const cols = (i.config.columns as unknown[]).map(render).join(",");
    (i.config.unique ? uniques : indexes).set(i.config.name ?? `(unnamed: ${cols})`, cols);
  }
  const foreignKeys = new Set(
    config.foreignKeys.map((fk) => {
      const r = fk.reference();
      const target = (r.foreignTable as unknown as { [k: symbol]: string })[Symbol.for("drizzle:Name")];
      return `(${r.columns.map((c) => c.name)}) → ${target}(${r.foreignColumns.map((c) => c.name)}) on delete ${fk.onDelete ?? "no action"}`;
    }),
  );
  const checks = new Map(config.checks.map((c) => [c.name, render(c.value)]));
  return { columns, primaryKey, uniques, indexes, foreignKeys, checks };
}

function tables<T>(module: Record<string, unknown>, kind: abstract new (...args: never[]) => T, config: (t: T) => ReturnType<typeof pgConfig> | ReturnType<typeof sqliteConfig>): Map<string, Shape> {
  const out = new Map<string, Shape>();
  for (const value of Object.values(module).flatMap((v) => (Array.isArray(v) ? v : [v]))) {
    if (is(value, kind as never)) {
      const c = config(value as T);
      out.set(c.name, shape(c));
    }
  }
  return out;
}

const liteTables = tables(lite, SQLiteTable, (t) => sqliteConfig(t as never));
const pgTables = tables(pg, PgTable, (t) => pgConfig(t as never));

/** Text columns that hold something other than a UUID though their names end in _id. */
const TEXT_IDS = new Set(["ga_property_id"]);
const isIdName = (name: string) => !TEXT_IDS.has(name) && (name === "id" || name.endsWith("_id") || name === "created_by" || name === "invited_by");
const isTimeName = (name: string) => name.endsWith("_at") || name.endsWith("_until") || name === "at" || name === "first_seen";

/** The Postgres column types a SQLite column may become (src/db/pg/schema.ts, top). */
function allowedTypes(name: string, c: { type: string; sqlType: string }): string[] {
  switch (c.type) {
    case "SQLiteTextJson":
      return ["PgJsonb"];
    case "SQLiteBoolean":
      return ["PgBoolean"];
    case "SQLiteReal":
      return ["PgDoublePrecision"];
    case "SQLiteBlob":
    case "SQLiteBlobBuffer":
    case "SQLiteBlobJson":
    case "SQLiteBigInt":
      return ["bytea"];
    case "SQLiteInteger":
      // rowid keys and what refers to them, and byte sums, are bigint; every other counter an integer.
      return name === "id" || name === "url_id" || name === "agent_id" || name === "key_id" || name === "bytes" ? ["PgBigInt53"] : ["PgInteger"];
    case "SQLiteText":
      if (isIdName(name)) return ["PgUUID"];
      if (isTimeName(name)) return ["PgTimestampString"];
      return ["PgText"];
    default:
      return [`unmapped SQLite type ${c.type}`];
  }
}

test("the Postgres schema has the SQLite schema's tables, and no other", () => {
  expect([...pgTables.keys()].sort()).toEqual([...liteTables.keys()].sort());
  expect(liteTables.size).toBeGreaterThan(40);
});

test("organization_id is added exactly to the listed tables, and every tenant table has one", () => {
  for (const [name, t] of liteTables) {
    const hasLite = t.columns.has("organization_id");
    const hasPg = pgTables.get(name)!.columns.has("organization_id");
    expect({ name, added: hasPg && !hasLite }).toEqual({ name, added: ADDED.has(name) });
    if (!(pg.NOT_TENANT_TABLES as readonly string[]).includes(name) && !(pg.ORGANIZATION_THROUGH_KEY as readonly string[]).includes(name)) expect({ name, hasPg }).toEqual({ name, hasPg: true });
  }
  for (const name of pg.NOT_TENANT_TABLES) expect(liteTables.has(name)).toBe(true);
});

describe("each table mirrors its SQLite twin", () => {
  for (const [name, l] of liteTables) {
    test(name, () => {
      const p = pgTables.get(name)!;
      expect(p).toBeDefined();
      const added = ADDED.has(name);

      // Columns: the same names (GoTrue's names for the renamed ones), nullability, default
      // present, generated; types as mapped.
      const renamed = Object.fromEntries(Object.entries(pg.AUTH_RENAMED[name] ?? {}).map(([lite, pgName]) => [pgName, lite]));
      const pgColumns = new Map([...p.columns].map(([column, c]) => [renamed[column] ?? column, c]));
      if (added) {
        const org = pgColumns.get("organization_id")!;
        expect({ type: org.type, notNull: org.notNull }).toEqual({ type: "PgUUID", notNull: true });
        pgColumns.delete("organization_id");
      }
      expect([...pgColumns.keys()].sort()).toEqual([...l.columns.keys()].sort());
      for (const [column, lc] of l.columns) {
        const pc = pgColumns.get(column)!;
        expect({ column, notNull: pc.notNull, hasDefault: pc.hasDefault, generated: pc.generated }).toEqual({ column, notNull: lc.notNull, hasDefault: lc.hasDefault, generated: lc.generated });
        const type = pc.type === "PgCustomColumn" ? pc.sqlType : pc.type;
        expect({ column, type, allowed: allowedTypes(column, lc).includes(type) }).toEqual({ column, type, allowed: true });
      }

      expect(p.primaryKey).toEqual(l.primaryKey);
      expect(p.uniques).toEqual(l.uniques);
      const pgIndexes = new Map(p.indexes);
      if (added || INDEX_ADDED.has(name)) {
        expect(pgIndexes.get(`${name}_org_idx`)).toBe("organization_id");
        pgIndexes.delete(`${name}_org_idx`);
      }
      expect(pgIndexes).toEqual(l.indexes);
      expect(p.foreignKeys).toEqual(l.foreignKeys);
      expect(p.checks).toEqual(l.checks);
    });
  }
});

test("accounts live in the auth schema as Supabase keeps them, everything else in public", () => {
  const schemaOf = new Map(Object.values(pg).filter((v) => is(v, PgTable)).map((t) => [pgConfig(t as never).name, pgConfig(t as never).schema ?? "public"]));
  expect([...schemaOf].filter(([, schema]) => schema === "auth").map(([name]) => name).sort()).toEqual(["one_time_tokens", "refresh_tokens", "sessions", "users"]);
  expect(Object.keys(pg.users)).toContain("passwordHash");
  expect(pgConfig(pg.users).columns.map((c) => c.name)).toEqual(expect.arrayContaining(["encrypted_password", "raw_app_meta_data", "raw_user_meta_data"]));
});

describe("drizzle-pg/", () => {
  const sqlOf = (tag: string) => embeddedMigrations.find((m) => m.tag === tag)?.sql ?? "";
  const all = embeddedMigrations.map((m) => m.sql).join("\n");

  test("the embedded migrations module matches drizzle-pg/ (run npm run db:generate)", async () => {
    const expected = await renderEmbeddedMigrations(`${ROOT}drizzle-pg`, { source: "drizzle-pg/", typesFrom: "../migrations" });
    expect(await Bun.file(`${ROOT}src/db/pg/migrations.generated.ts`).text()).toBe(expected);
  });

  /** The last CREATE TRIGGER "<name>" statement of all migrations (0001 made the first ones; later migrations add and replace). */
  const lastTrigger = (name: string) => [...all.matchAll(new RegExp(`CREATE TRIGGER "${name}" [^;]*;`, "g"))].at(-1)?.[0] ?? null;
  const fromBrand = (t: string, when = "") => `CREATE TRIGGER "${t}_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."${t}" FOR EACH ROW ${when}EXECUTE FUNCTION "aw_organization_from_brand"();`;
  const throughKey = pg.ORGANIZATION_THROUGH_KEY as readonly string[];
  const rollupTables = [...PG_ROLLUPS.map((spec) => spec.table).filter((t) => !throughKey.includes(t)), "prompt_results_latest"];

  test("every table with a Postgres-kept organization_id has its trigger, and moves with its brand", () => {
    const viaBrand = [...pg.ORGANIZATION_ID_ADDED.filter((t) => t !== "webhook_deliveries"), ...pg.ORGANIZATION_FROM_BRAND_KEPT];
    for (const t of viaBrand.filter((t) => !rollupTables.includes(t))) expect(lastTrigger(`${t}_organization_id`)).toBe(fromBrand(t));
    expect(lastTrigger("webhook_deliveries_organization_id")).toStartWith(`CREATE TRIGGER "webhook_deliveries_organization_id" BEFORE INSERT OR UPDATE OF "endpoint_id", "organization_id" ON "public"."webhook_deliveries"`);
    const moved = [...all.matchAll(/"aw_brand_organization_moved"\(([^)]*)\);/g)].at(-1)?.[1] ?? "";
    // And the former tables of the running totals moved after the start (issue #32), while they are there.
    const formerTables = movedLater(PG_ROLLUPS).flatMap((m) => [m.formerTotals, m.formerKeys]);
    expect(formerTables).toHaveLength(10);
    expect(moved.split(",").map((s) => s.trim().replace(/'/g, "")).sort()).toEqual([...viaBrand, ...formerTables].sort());
    // Exactly these tables have a brand_id and an organization_id in Postgres.
    const withBoth = [...pgTables].filter(([n, t]) => n !== "brands" && t.columns.has("brand_id") && t.columns.has("organization_id")).map(([n]) => n);
    expect(withBoth.sort()).toEqual([...viaBrand].sort());
  });

  test("the tables only triggers write (rollups, latest results) skip the brand lookup only for rows a trigger filled", () => {
    // 0006 replaced the rollups' triggers of then (crawler_hourly's too, a table 0012 dropped); a rollup made later has this form from the start.
    for (const t of rollupTables) expect(lastTrigger(`${t}_organization_id`)).toBe(fromBrand(t, "WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) "));
    // Totals keyed by id have no organization_id to keep.
    expect(throughKey.length).toBe(7);
    for (const t of throughKey) expect(lastTrigger(`${t}_organization_id`)).toBeNull();
    expect(sqlOf("0012_drop_crawler_hourly")).toContain(`DROP TABLE "crawler_hourly"`);
  });

  test("the SQLite updated_at triggers have their Postgres twins", () => {
    const lite = Bun.spawnSync(["grep", "-ho", "CREATE TRIGGER `[a-z_]*_updated_at`", ...new Bun.Glob("drizzle/*.sql").scanSync({ cwd: ROOT, absolute: true })]).stdout.toString();
    const names = new Set([...lite.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
    expect(names.size).toBeGreaterThan(5);
    for (const n of names) expect(all).toContain(`CREATE TRIGGER "${n}" BEFORE UPDATE`);
  });

  test("the answer columns are TOAST-compressed with lz4", () => {
    for (const column of ["response", "citations", "sources", "details"]) expect(sqlOf("0003_answers_lz4")).toContain(`ALTER COLUMN "${column}" SET COMPRESSION lz4`);
  });
});
