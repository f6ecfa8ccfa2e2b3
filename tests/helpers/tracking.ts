// Seeding brands for tracking tests and polling jobs through the real HTTP API.
import type { Database } from "bun:sqlite";

export interface SeededBrand {
  brandId: string;
  promptIds: string[];
  competitorIds: string[];
}

/** A brand with domains, competitors and active prompts, written as the REST API would. */
export interface SeedOptions {
  prompts?: number;
  name?: string;
  platforms?: { platform: string; frequency?: string; lastCheckedAt?: string | null; enabled?: boolean }[];
}

export function seedBrand(sqlite: Database, organizationId: string, options: SeedOptions = {}): SeededBrand {
  const id = (sql: string, ...params: unknown[]) => (sqlite.query(`${sql} RETURNING id`).get(...(params as [])) as { id: string }).id;
  const name = options.name ?? "Acme";
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${crypto.randomUUID().slice(0, 8)}`;
  const brandId = id("INSERT INTO brands (organization_id, name, slug, industry, region, language) VALUES (?, ?, ?, 'software', 'US', 'en')", organizationId, name, slug);
  id("INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, 'acme.com', 1)", brandId);
  const competitorIds = [
    id("INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Globex', 'globex.com')", brandId),
    id("INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Initech', 'initech.com')", brandId),
  ];
  const setId = id("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'Core')", brandId);
  const promptIds = Array.from({ length: options.prompts ?? 5 }, (_, i) =>
    id("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, ?)", setId, brandId, `What is the best project tool for a team of ${i + 2}?`),
  );
  for (const p of options.platforms ?? [])
    sqlite
      .query("INSERT INTO brand_platforms (brand_id, platform, check_frequency, last_checked_at, is_enabled) VALUES (?, ?, ?, ?, ?)")
      .run(brandId, p.platform, p.frequency ?? "daily", p.lastCheckedAt ?? null, p.enabled === false ? 0 : 1);
  return { brandId, promptIds, competitorIds };
}

export function organizationOf(sqlite: Database, userId: string): string {
  return (sqlite.query("SELECT organization_id FROM organization_members WHERE user_id = ?").get(userId) as { organization_id: string }).organization_id;
}

export interface JobView {
  status: string;
  progress: { phase: string; completed: number; failed: number; total: number };
  result: any;
  failedReason: string | null;
}

export function apiClient(baseUrl: string, accessToken: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return {
    call,
    start: (body: unknown) => call("POST", "/api/tracking/start", body),
    job: (jobId: string) => call("GET", `/api/tracking/job/${jobId}`),
    cancel: (jobId: string) => call("POST", `/api/tracking/job/${jobId}/cancel`),
    /** Polls until the job is terminal; returns the phases seen in order (deduplicated). */
    async waitFor(jobId: string, timeoutMs = 60_000, intervalMs = 25): Promise<{ job: JobView; phases: string[] }> {
      const phases: string[] = [];
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { body } = await call("GET", `/api/tracking/job/${jobId}`);
        if (phases.at(-1) !== body.progress.phase) phases.push(body.progress.phase);
        if (["completed", "failed", "cancelled"].includes(body.status)) return { job: body, phases };
        if (Date.now() > deadline) throw new Error(`job ${jobId} still ${body.status} (${JSON.stringify(body.progress)})`);
        await Bun.sleep(intervalMs);
      }
    },
  };
}
