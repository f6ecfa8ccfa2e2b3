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
  /** A tracking job of the brand in `status`, with one unit per entry of `units` (its status). */
  job(brandId: string, status: string, units: string[]): Promise<string>;
  /** A brand the pixel knows: its tracking code, domains as given, and whether it honours DNT. */
  trackedBrand(organizationId: string, options?: { domains?: string[]; respectDnt?: boolean }): Promise<{ id: string; trackingCode: string }>;
  topic(brandId: string, name: string): Promise<string>;
  /** Sets the brand's is_active to false. */
  deactivateBrand(brandId: string): Promise<void>;
  /** A platform setting of the brand (brand_platforms); defaults: enabled, daily, never checked, samples 1, no model. */
  brandPlatform(brandId: string, platform: string, options?: { model?: string | null; samples?: number; enabled?: boolean; frequency?: string; lastCheckedAt?: string | null }): Promise<void>;
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
  async function makePrompt(brandId: string, text = unique("best tools for")): Promise<string> {
    const set = insert("INSERT INTO prompt_sets (brand_id, name) VALUES (?, ?) RETURNING id", brandId, unique("set"));
    return insert("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, ?) RETURNING id", set, brandId, text);
  }
  return {
    backend: "sqlite",
    dbh,
    fixtures: {
      user: async (email = `${unique("user")}@example.com`) => insert("INSERT INTO users (email) VALUES (?) RETURNING id", email),
      organization: async (name = unique("org")) => insert("INSERT INTO organizations (name, slug) VALUES (?, ?) RETURNING id", name, name.toLowerCase()),
      member: async (organizationId, userId, role = "member") => void sqlite.run("INSERT INTO organization_members (organization_id, user_id, role) VALUES (?, ?, ?)", [organizationId, userId, role]),
      brand: async (organizationId, name = unique("Brand")) => insert("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?) RETURNING id", organizationId, name, name.toLowerCase()),
      prompt: makePrompt,
      job: async (brandId, status, units) => {
        const prompt = await makePrompt(brandId);
        const job = insert("INSERT INTO jobs (type, brand_id, status, run_at) VALUES ('tracking', ?, ?, ?) RETURNING id", brandId, status, new Date().toISOString());
        units.forEach((unitStatus, seq) =>
          sqlite.run("INSERT INTO job_units (job_id, seq, brand_id, prompt_id, platform, model, status) VALUES (?, ?, ?, ?, 'chatgpt', 'gpt-4o', ?)", [job, seq, brandId, prompt, unitStatus]),
        );
        return job;
      },
      trackedBrand: async (organizationId, { domains = [], respectDnt = false } = {}) => {
        const name = unique("Tracked");
        const row = sqlite.query("INSERT INTO brands (organization_id, name, slug, respect_dnt) VALUES (?, ?, ?, ?) RETURNING id, tracking_code").get(organizationId, name, name.toLowerCase(), respectDnt ? 1 : 0) as { id: string; tracking_code: string };
        for (const domain of domains) sqlite.run("INSERT INTO brand_domains (brand_id, domain) VALUES (?, ?)", [row.id, domain]);
        return { id: row.id, trackingCode: row.tracking_code };
      },
      topic: async (brandId, name) => insert("INSERT INTO topics (brand_id, name) VALUES (?, ?) RETURNING id", brandId, name),
      deactivateBrand: async (brandId) => void sqlite.run("UPDATE brands SET is_active = 0 WHERE id = ?", [brandId]),
      brandPlatform: async (brandId, platform, o = {}) =>
        void sqlite.run("INSERT INTO brand_platforms (brand_id, platform, model, samples, is_enabled, check_frequency, last_checked_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
          brandId,
          platform,
          o.model ?? null,
          o.samples ?? 1,
          o.enabled === false ? 0 : 1,
          o.frequency ?? "daily",
          o.lastCheckedAt ?? null,
        ]),
      competitor: async (brandId, name, domain = null) => insert("INSERT INTO competitors (brand_id, name, domain) VALUES (?, ?, ?) RETURNING id", brandId, name, domain),
    },
    inspect: async <T>(sql: string, ...params: unknown[]) => sqlite.query(sql).all(...(params as never[])) as T[],
    async close() {
      dbh.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
