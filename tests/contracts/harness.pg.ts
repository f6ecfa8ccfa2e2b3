// The Postgres side of the contract harness (harness.ts says what a harness gives): a database of
// its own on the test PostgreSQL (tests/helpers/postgres.ts), migrated as a server would, the same
// fixtures written in Postgres' SQL, and `inspect` answering in the shapes SQLite gives (so a
// contract's checks read the same on both backends): `?` placeholders, ISO strings for
// timestamps, 0/1 for booleans.
import type { SQL } from "bun";
import type { PgHandle } from "../../src/db/pg/open";
import { openPostgresDatabase } from "../../src/database";
import { recheckBranded } from "../../src/insights/branded.pg";
// The REST executor's own placeholder numbering: the contracts' inspect queries are written with `?`.
import { numberPlaceholders as numbered } from "../../src/platform/rest/executor.pg";
import { testPostgres } from "../helpers/postgres";
import type { Fixtures, Harness } from "./harness";

export interface PgHarness extends Harness {
  pg: PgHandle;
  /** The database's URL: a second pool on it is a second instance of the server. */
  url: string;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

function sqliteShaped(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = v instanceof Date ? v.toISOString() : typeof v === "boolean" ? (v ? 1 : 0) : v;
  return out;
}

/** Null when the suite runs without PostgreSQL (AW_SKIP_POSTGRES=1): the Postgres cases are skipped. */
export async function pgHarness(): Promise<PgHarness | null> {
  const server = await testPostgres();
  if (!server) return null;
  return pgHarnessOn(await server.createDatabase("contract"));
}

/** The fixtures and inspect over the database at `url` (migrated here if it is not yet: a server's is). */
export async function pgHarnessOn(url: string): Promise<PgHarness> {
  const pg = await openPostgresDatabase(url, { poolSize: 4 });
  const sql: SQL = pg.sql;
  const one = async (text: string, ...params: unknown[]) => ((await sql.unsafe(text, params as never[])) as { id: string }[])[0]!.id;
  const prompt = async (brandId: string, text = unique("best tools for"), topicId?: string) => {
    const set = await one("INSERT INTO prompt_sets (brand_id, name) VALUES ($1, $2) RETURNING id", brandId, unique("set"));
    const id = await one("INSERT INTO prompts (prompt_set_id, brand_id, text, topic_id) VALUES ($1, $2, $3, $4) RETURNING id", set, brandId, text, topicId ?? null);
    // is_branded is computed in TypeScript on Postgres: a writer of prompts rechecks its brand (as
    // the listener would a moment later), so a case reads the flag as SQLite's trigger leaves it.
    await recheckBranded(sql, [brandId]);
    return id;
  };
  const fixtures: Fixtures = {
    // As the server's sign-up inserts users: placing them itself, without the sign-up trigger's organization.
    user: (email = `${unique("user")}@example.com`) => one("WITH placed AS (SELECT set_config('answerwatch.signup', 'placed', true)) INSERT INTO auth.users (email) SELECT $1 FROM placed RETURNING id", email),
    organization: (name = unique("org")) => one("INSERT INTO organizations (name, slug) VALUES ($1, $2) RETURNING id", name, name.toLowerCase()),
    member: async (organizationId, userId, role = "member") => void (await sql`INSERT INTO organization_members (organization_id, user_id, role) VALUES (${organizationId}, ${userId}, ${role})`),
    brand: (organizationId, name = unique("Brand")) => one("INSERT INTO brands (organization_id, name, slug) VALUES ($1, $2, $3) RETURNING id", organizationId, name, name.toLowerCase()),
    prompt,
    job: async (brandId, status, units) => {
      const promptId = await prompt(brandId);
      const job = await one("INSERT INTO jobs (type, brand_id, status, run_at) VALUES ('tracking', $1, $2, now()) RETURNING id", brandId, status);
      for (const [seq, unitStatus] of units.entries())
        await sql`INSERT INTO job_units (job_id, seq, brand_id, prompt_id, platform, model, status) VALUES (${job}, ${seq}, ${brandId}, ${promptId}, 'chatgpt', 'gpt-4o', ${unitStatus})`;
      return job;
    },
    trackedBrand: async (organizationId, { domains = [], respectDnt = false } = {}) => {
      const name = unique("Tracked");
      const [row] = await sql`INSERT INTO brands (organization_id, name, slug, respect_dnt) VALUES (${organizationId}, ${name}, ${name.toLowerCase()}, ${respectDnt}) RETURNING id, tracking_code`;
      for (const domain of domains) await sql`INSERT INTO brand_domains (brand_id, domain) VALUES (${row.id}, ${domain})`;
      return { id: row.id, trackingCode: row.tracking_code };
    },
    deactivateBrand: async (brandId) => void (await sql`UPDATE brands SET is_active = false WHERE id = ${brandId}`),
    brandPlatform: async (brandId, platform, o = {}) =>
      void (await sql`INSERT INTO brand_platforms (brand_id, platform, model, samples, is_enabled, check_frequency, last_checked_at)
        VALUES (${brandId}, ${platform}, ${o.model ?? null}, ${o.samples ?? 1}, ${o.enabled !== false}, ${o.frequency ?? "daily"}, ${o.lastCheckedAt ?? null})`),
    competitor: (brandId, name = unique("Rival"), domain = null, createdAt) =>
      one("INSERT INTO competitors (brand_id, name, domain, created_at) VALUES ($1, $2, $3, coalesce($4::timestamptz, now())) RETURNING id", brandId, name, domain, createdAt ?? null),
    topic: (brandId, name = unique("topic")) => one("INSERT INTO topics (brand_id, name) VALUES ($1, $2) RETURNING id", brandId, name),
    result: async (r) => {
      const citations = (r.citations ?? []).map((c, i) => ({ position: i + 1, url: c.url, normalized_url: c.normalizedUrl, domain: c.domain, host: c.domain, title: c.title ?? "", is_brand: !!c.isBrand, competitor_id: null }));
      const competitors = (r.competitors ?? []).map((c) => ({ competitor_id: c.competitorId, mention_count: c.mentionCount, position: c.position }));
      return sql.begin(async (tx) => {
        const [{ id }] = await tx`INSERT INTO prompt_results (job_id, brand_id, prompt_id, platform, model, region, mentioned, mention_count, mention_position, competitor_mentions, citations, citation_count, brand_citation_count, search_queries, response, created_at)
          VALUES (${r.jobId ?? null}, ${r.brandId}, ${r.promptId}, ${r.platform}, ${r.model ?? "m-1"}, ${r.region ?? ""}, ${r.mentioned}, ${r.mentionCount ?? (r.mentioned ? 1 : 0)}, ${r.position ?? null},
                  ${competitors}, ${citations}, ${citations.length}, ${citations.filter((c) => c.is_brand).length}, ${r.searchQueries ?? []}, ${r.response ?? ""}, ${r.createdAt}) RETURNING id`;
        for (const c of citations) {
          const [found] = await tx`SELECT id FROM citation_urls WHERE url = ${c.url} AND normalized_url = ${c.normalized_url} AND title = ${c.title}`;
          const urlId = found?.id ?? (await tx`INSERT INTO citation_urls (url, normalized_url, title) VALUES (${c.url}, ${c.normalized_url}, ${c.title}) RETURNING id`)[0].id;
          await tx`INSERT INTO citations (result_id, brand_id, position, url_id, domain, is_brand, created_at) VALUES (${id}, ${r.brandId}, ${c.position}, ${urlId}, ${c.domain}, ${c.is_brand}, ${r.createdAt})`;
        }
        return id as string;
      });
    },
    visit: async (v) =>
      void (await sql`INSERT INTO ai_traffic_logs (brand_id, url, path, source_platform, visitor_hash, created_at) VALUES (${v.brandId}, ${`https://site.example${v.path}`}, ${v.path}, ${v.platform}, ${v.visitor}, ${v.at})`),
    crawlerHit: async (h) =>
      void (await sql`INSERT INTO crawler_hits (brand_id, at, method, path, status, bot, class, hit, verdict, record_key)
        VALUES (${h.brandId}, ${h.at}, 'GET', ${h.path}, ${h.status}, ${h.bot}, ${h.class}, ${h.hit}, ${h.verdict ?? null}, gen_random_uuid()::text::bytea)`),
  };
  return {
    backend: "postgres",
    pg,
    url,
    fixtures,
    inspect: async <T>(text: string, ...params: unknown[]) => ((await sql.unsafe(numbered(text), params as never[])) as Record<string, unknown>[]).map(sqliteShaped) as T[],
    close: () => pg.close(),
  };
}
