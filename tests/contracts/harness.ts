// What a store contract suite is given (tests/contracts/*.contract.ts): a fresh, migrated database
// and fixtures that make the rows a case needs before it calls the store under test, plus `inspect`
// to read the backend directly. The suites are written against the store interfaces only; this file
// is the SQLite side of the harness (a temporary answerwatch.db per harness). The Postgres side
// (#29) provides the same shape.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DbHandle } from "../../src/db/open";
import { openDatabase } from "../../src/database";

export interface Fixtures {
  user(email?: string): Promise<string>;
  organization(name?: string): Promise<string>;
  member(organizationId: string, userId: string, role?: string): Promise<void>;
  brand(organizationId: string, name?: string): Promise<string>;
  /** A prompt of the brand (its own prompt set). */
  prompt(brandId: string, text?: string): Promise<string>;
  /** A platform setting of the brand (brand_platforms): enabled, samples 1 and no model unless given. */
  brandPlatform(brandId: string, platform: string, options?: { model?: string | null; samples?: number; enabled?: boolean }): Promise<void>;
  competitor(brandId: string, name: string, domain?: string | null): Promise<string>;
}

export interface Harness {
  backend: "sqlite" | "postgres";
  fixtures: Fixtures;
  /** Reads the backend directly (what a case checks besides the store's own answers). */
  inspect<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export interface SqliteHarness extends Harness {
  dbh: DbHandle;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

export function sqliteHarness(): SqliteHarness {
  const dir = mkdtempSync(join(tmpdir(), "aw-contract-"));
  const dbh = openDatabase(join(dir, "answerwatch.db"));
  const { sqlite } = dbh;
  const insert = (sql: string, ...params: unknown[]) => (sqlite.query(sql).get(...(params as never[])) as { id: string }).id;
  return {
    backend: "sqlite",
    dbh,
    fixtures: {
      user: async (email = `${unique("user")}@example.com`) => insert("INSERT INTO users (email) VALUES (?) RETURNING id", email),
      organization: async (name = unique("org")) => insert("INSERT INTO organizations (name, slug) VALUES (?, ?) RETURNING id", name, name.toLowerCase()),
      member: async (organizationId, userId, role = "member") => void sqlite.run("INSERT INTO organization_members (organization_id, user_id, role) VALUES (?, ?, ?)", [organizationId, userId, role]),
      brand: async (organizationId, name = unique("Brand")) => insert("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?) RETURNING id", organizationId, name, name.toLowerCase()),
      prompt: async (brandId, text = unique("best tools for")) => {
        const set = insert("INSERT INTO prompt_sets (brand_id, name) VALUES (?, ?) RETURNING id", brandId, unique("set"));
        return insert("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, ?) RETURNING id", set, brandId, text);
      },
      brandPlatform: async (brandId, platform, o = {}) =>
        void sqlite.run("INSERT INTO brand_platforms (brand_id, platform, model, samples, is_enabled) VALUES (?, ?, ?, ?, ?)", [brandId, platform, o.model ?? null, o.samples ?? 1, o.enabled === false ? 0 : 1]),
      competitor: async (brandId, name, domain = null) => insert("INSERT INTO competitors (brand_id, name, domain) VALUES (?, ?, ?) RETURNING id", brandId, name, domain),
    },
    inspect: async <T>(sql: string, ...params: unknown[]) => sqlite.query(sql).all(...(params as never[])) as T[],
    async close() {
      dbh.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
