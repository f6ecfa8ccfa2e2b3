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
  /** A tracking job of the brand in `status`, with one unit per entry of `units` (its status). */
  job(brandId: string, status: string, units: string[]): Promise<string>;
  /** A brand the pixel knows: its tracking code, domains as given, and whether it honours DNT. */
  trackedBrand(organizationId: string, options?: { domains?: string[]; respectDnt?: boolean }): Promise<{ id: string; trackingCode: string }>;
  /** Sets the brand's is_active to false. */
  deactivateBrand(brandId: string): Promise<void>;
  /** A platform setting of the brand (brand_platforms); defaults: enabled, daily, never checked, samples 1, no model. */
  brandPlatform(brandId: string, platform: string, options?: { model?: string | null; samples?: number; enabled?: boolean; frequency?: string; lastCheckedAt?: string | null }): Promise<void>;
  /** A prompt of the brand (its own prompt set), in `topicId` when given. */
  prompt(brandId: string, text?: string, topicId?: string): Promise<string>;
  /** `createdAt`: when it was added (the insights compare its change only over windows that began after). */
  competitor(brandId: string, name?: string, domain?: string | null, createdAt?: string): Promise<string>;
  topic(brandId: string, name?: string): Promise<string>;
  /** An answer as the tracking run writes it (its citations as rows too); the rollups follow by themselves. */
  result(input: ResultFixture): Promise<string>;
  /** A page view on the brand's site, as the pixel writes it (`platform`: the assistant that sent it, null: none). */
  visit(input: { brandId: string; at: string; path: string; platform: string | null; visitor: string }): Promise<void>;
  /** A request of a crawler to the brand's site, as the log import writes it. */
  crawlerHit(input: { brandId: string; at: string; bot: string | null; class: string; hit: "page" | "robots" | "sitemap" | "asset"; path: string; status: number; verdict?: string | null }): Promise<void>;
}

export interface ResultFixture {
  brandId: string;
  promptId: string;
  platform: string;
  model?: string;
  region?: string;
  /** The run's job (null: a result of no job). */
  jobId?: string | null;
  createdAt: string;
  mentioned: boolean;
  mentionCount?: number;
  position?: number | null;
  competitors?: { competitorId: string; mentionCount: number; position: number | null }[];
  citations?: { url: string; normalizedUrl: string; domain: string; title?: string; isBrand?: boolean }[];
  searchQueries?: string[];
  /** The answer's text (stored as given, uncompressed). */
  response?: string;
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
  const h = sqliteHarnessOn(openDatabase(join(dir, "answerwatch.db")));
  return {
    ...h,
    async close() {
      h.dbh.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The fixtures and inspect over a database someone else opened (a running server's); close() leaves it open. */
export function sqliteHarnessOn(dbh: DbHandle): SqliteHarness {
  const { sqlite } = dbh;
  const insert = (sql: string, ...params: unknown[]) => (sqlite.query(sql).get(...(params as never[])) as { id: string }).id;
  async function makePrompt(brandId: string, text = unique("best tools for"), topicId?: string): Promise<string> {
    const set = insert("INSERT INTO prompt_sets (brand_id, name) VALUES (?, ?) RETURNING id", brandId, unique("set"));
    return insert("INSERT INTO prompts (prompt_set_id, brand_id, text, topic_id) VALUES (?, ?, ?, ?) RETURNING id", set, brandId, text, topicId ?? null);
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
      competitor: async (brandId, name = unique("Rival"), domain = null, createdAt) =>
        insert("INSERT INTO competitors (brand_id, name, domain, created_at) VALUES (?, ?, ?, coalesce(?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) RETURNING id", brandId, name, domain, createdAt ?? null),
      topic: async (brandId, name = unique("topic")) => insert("INSERT INTO topics (brand_id, name) VALUES (?, ?) RETURNING id", brandId, name),
      result: async (r) => {
        const citations = (r.citations ?? []).map((c, i) => ({ position: i + 1, url: c.url, normalized_url: c.normalizedUrl, domain: c.domain, host: c.domain, title: c.title ?? "", is_brand: !!c.isBrand, competitor_id: null }));
        const competitors = (r.competitors ?? []).map((c) => ({ competitor_id: c.competitorId, mention_count: c.mentionCount, position: c.position }));
        const id = sqlite.transaction(() => {
          const resultId = insert(
            `INSERT INTO prompt_results (job_id, brand_id, prompt_id, platform, model, region, mentioned, mention_count, mention_position, competitor_mentions, citations, citation_count, brand_citation_count, search_queries, response, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
            r.jobId ?? null, r.brandId, r.promptId, r.platform, r.model ?? "m-1", r.region ?? "", r.mentioned ? 1 : 0, r.mentionCount ?? (r.mentioned ? 1 : 0), r.position ?? null,
            JSON.stringify(competitors), JSON.stringify(citations), citations.length, citations.filter((c) => c.is_brand).length, JSON.stringify(r.searchQueries ?? []), r.response ?? "", r.createdAt,
          );
          for (const c of citations) {
            const urlId =
              (sqlite.query("SELECT id FROM citation_urls WHERE url = ? AND normalized_url = ? AND title = ?").get(c.url, c.normalized_url, c.title) as { id: string } | null)?.id ??
              insert("INSERT INTO citation_urls (url, normalized_url, title) VALUES (?, ?, ?) RETURNING id", c.url, c.normalized_url, c.title);
            sqlite.run("INSERT INTO citations (result_id, brand_id, position, url_id, domain, is_brand, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [resultId, r.brandId, c.position, urlId, c.domain, c.is_brand ? 1 : 0, r.createdAt]);
          }
          return resultId;
        }).immediate();
        return id;
      },
      visit: async (v) =>
        void sqlite.run("INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)", [v.brandId, `https://site.example${v.path}`, v.path, v.platform, v.visitor, v.at]),
      crawlerHit: async (h) =>
        void sqlite.run("INSERT INTO crawler_hits (brand_id, at, method, path, status, bot, class, hit, verdict, record_key) VALUES (?, ?, 'GET', ?, ?, ?, ?, ?, ?, randomblob(16))", [h.brandId, h.at, h.path, h.status, h.bot, h.class, h.hit, h.verdict ?? null]),
    },
    inspect: async <T>(sql: string, ...params: unknown[]) => sqlite.query(sql).all(...(params as never[])) as T[],
    async close() {},
  };
}
