// Start, poll, cancel and list tracking jobs (DESIGN §6). Validation lives here so that every
// bad request gets a 4xx that says what is allowed, and nothing is enqueued half-way.
import type { Database } from "bun:sqlite";
import { createEngineRegistry, type EngineConfig, type PlatformId } from "../engines";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { ApiUser } from "../common/identity";
import type { OrgRole } from "../common/identity";
import type { JobRow, NewUnit, QueueStore } from "../queue/store";

const WRITERS: OrgRole[] = ["owner", "admin", "member"];

export interface TrackingNotifier {
  wake(): void;
  cancel(jobId: string): void;
}

export interface StartInput {
  brandId?: unknown;
  platforms?: unknown;
  models?: unknown;
  promptIds?: unknown;
  force?: unknown;
  samples?: unknown;
}

export const MAX_SAMPLES = 10;

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || !v.trim()))
    throw new AppError(400, "validation_failed", `${field} must be an array of non-empty strings`);
  return [...new Set(value.map((v: string) => v.trim()))];
}

/**
 * A stored JSON list of strings; anything else (rows written before lists were checked) reads as
 * an empty list rather than failing the run.
 */
function storedStringList(json: string | null): string[] {
  try {
    const value: unknown = JSON.parse(json || "[]");
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

export function createTrackingService(deps: { sqlite: Database; store: QueueStore; engines: EngineConfig; notifier?: TrackingNotifier }) {
  const { sqlite, store } = deps;
  const registry = createEngineRegistry(deps.engines);
  const q = {
    brand: sqlite.prepare("SELECT id, organization_id, region, is_active FROM brands WHERE id = ?"),
    brandPlatforms: sqlite.prepare("SELECT platform, model, samples FROM brand_platforms WHERE brand_id = ? AND is_enabled = 1 ORDER BY platform"),
    samplesOf: sqlite.prepare("SELECT platform, samples FROM brand_platforms WHERE brand_id = ?"),
    prompts: sqlite.prepare("SELECT id, platforms, models, regions FROM prompts WHERE brand_id = ? AND is_active = 1 ORDER BY created_at, id"),
    openJobs: sqlite.prepare("SELECT id, data FROM jobs WHERE brand_id = ? AND type = 'tracking' AND status IN ('waiting', 'active') ORDER BY created_at"),
  };

  /** The brand, if the caller may see it, with the caller's role in its organization. */
  function visibleBrand(user: ApiUser, brandId: string) {
    const brand = q.brand.get(brandId) as { id: string; organization_id: string; region: string | null } | null;
    const role = brand ? user.orgRoles.get(brand.organization_id) : undefined;
    if (!brand || !role) throw new AppError(404, "not_found", "Brand not found");
    return { brand, role };
  }

  function visibleJob(user: ApiUser, jobId: unknown) {
    const id = requireUuid(jobId, "jobId");
    const job = store.get(id);
    const role = job?.organization_id ? user.orgRoles.get(job.organization_id) : undefined;
    if (!job || !role) throw new AppError(404, "not_found", "Job not found");
    return { job, role };
  }

  function describe(job: JobRow) {
    const progress = JSON.parse(job.progress || "{}") as { phase?: string; total?: number };
    const counts = store.counts(job.id);
    return {
      success: true,
      jobId: job.id,
      brandId: job.brand_id,
      status: job.status,
      progress: { phase: progress.phase ?? job.status, completed: counts.done + counts.failed, total: counts.total },
      result: job.result ? JSON.parse(job.result) : null,
      failedReason: job.failed_reason,
      platforms: (JSON.parse(job.data || "{}") as { platforms?: string[] }).platforms ?? [],
      createdAt: job.created_at,
      startedAt: job.started_at,
      finishedAt: job.finished_at,
    };
  }

  /** Which platforms and models a run covers; throws 400 naming what is allowed. */
  function selectTargets(brandId: string, platformsIn?: string[], modelsIn?: string[]): Map<PlatformId, string[]> {
    const allowedPlatforms = registry.platforms;
    const unknown = (platformsIn ?? []).filter((p) => !allowedPlatforms.includes(p as PlatformId));
    if (unknown.length)
      throw new AppError(400, "invalid_platform", `Unknown platform ${unknown.map((p) => `"${p}"`).join(", ")}; allowed: ${allowedPlatforms.join(", ")}`, {
        details: { allowed: allowedPlatforms },
      });
    const modelsByPlatform = new Map<PlatformId, string[]>();
    const allowedModels = Object.fromEntries(allowedPlatforms.map((p) => [p, registry.knownModels(p)]));
    for (const model of modelsIn ?? []) {
      const platform = registry.platformOfModel(model);
      if (!platform) throw new AppError(400, "invalid_model", `Unknown model "${model}"`, { details: { allowed: allowedModels } });
      // A model the provider has retired is refused before anything is queued, naming its replacement.
      const known = registry.modelStatus(model);
      if (known.status === "retired")
        throw new AppError(400, "model_retired", known.message!, { details: { model, platform, replacement: known.replacement, retiredOn: known.retiresOn, source: known.source?.url } });
      if (platformsIn && !platformsIn.includes(platform))
        throw new AppError(400, "invalid_model", `Model "${model}" belongs to ${platform}, which was not asked for (platforms: ${platformsIn.join(", ")})`, {
          details: { allowed: Object.fromEntries(platformsIn.map((p) => [p, allowedModels[p]])) },
        });
      modelsByPlatform.set(platform, [...(modelsByPlatform.get(platform) ?? []), model]);
    }
    const enabled = q.brandPlatforms.all(brandId) as { platform: string; model: string | null; samples: number }[];
    let platforms: PlatformId[];
    if (platformsIn) platforms = platformsIn as PlatformId[];
    else if (modelsByPlatform.size) platforms = [...modelsByPlatform.keys()];
    else if (enabled.length) platforms = enabled.map((e) => e.platform as PlatformId).filter((p) => allowedPlatforms.includes(p));
    else platforms = allowedPlatforms.filter((p) => registry.isConfigured(p));
    if (!platforms.length)
      throw new AppError(400, "no_platform_configured", "No AI platform is configured: set an API key such as OPENAI_API_KEY or PERPLEXITY_API_KEY");
    for (const p of platforms) {
      const missing = registry.missingVariable(p);
      if (missing) throw new AppError(400, "platform_not_configured", `${p} is not configured: set ${missing}`, { details: { platform: p, variable: missing } });
    }
    return new Map(
      platforms.map((p) => [p, modelsByPlatform.get(p) ?? [enabled.find((e) => e.platform === p)?.model || registry.defaultModel(p)]]),
    );
  }

  /** Turns a validated request into units and one waiting job; shared by the API and the scheduler. */
  function enqueueRun(input: { brandId: string; platforms?: string[]; models?: string[]; promptIds?: string[]; force?: boolean; samples?: number; createdBy: string | null }) {
    const brand = q.brand.get(input.brandId) as { id: string; organization_id: string; region: string | null; is_active: number } | null;
    if (!brand) throw new AppError(404, "not_found", "Brand not found");
    if (!brand.is_active) throw new AppError(409, "brand_inactive", "The brand is inactive (is_active = false): activate it to track it");
    const { brandId, promptIds } = input;
    const targets = selectTargets(brandId, input.platforms, input.models);
    const platforms = [...targets.keys()].sort();
    const prompts = (q.prompts.all(brandId) as { id: string; platforms: string; models: string; regions: string }[]).filter(
      (p) => !promptIds || promptIds.includes(p.id),
    );
    if (!prompts.length) throw new AppError(409, "no_active_prompts", "The brand has no active prompts to track");

    // Asks per prompt × model × region: the request's `samples`, else the platform's setting (brand_platforms.samples).
    const platformSamples = new Map((q.samplesOf.all(brandId) as { platform: string; samples: number }[]).map((r) => [r.platform, r.samples]));
    const samplesFor = (platform: string) => input.samples ?? platformSamples.get(platform) ?? 1;
    const units: NewUnit[] = [];
    for (const prompt of prompts) {
      const onlyPlatforms = storedStringList(prompt.platforms);
      const regions = storedStringList(prompt.regions);
      for (const [platform, models] of targets) {
        if (onlyPlatforms.length && !onlyPlatforms.includes(platform)) continue;
        for (const model of models)
          for (const region of regions.length ? regions : [brand.region ?? ""])
            for (let sample = 0; sample < samplesFor(platform); sample++) units.push({ promptId: prompt.id, platform, model, region, sample });
      }
    }
    if (!units.length) throw new AppError(409, "no_active_prompts", "No active prompt is set to run on the selected platforms");

    if (!input.force) {
      for (const open of q.openJobs.all(brandId) as { id: string; data: string }[]) {
        const openPlatforms = ((JSON.parse(open.data) as { platforms?: string[] }).platforms ?? []).slice().sort();
        if (openPlatforms.join(",") === platforms.join(","))
          throw new AppError(409, "job_in_progress", "A tracking run for these platforms is already waiting or running", { details: { jobId: open.id } });
      }
    }
    const jobId = store.enqueue({
      type: "tracking",
      brandId,
      organizationId: brand.organization_id,
      data: { platforms, models: Object.fromEntries(targets), promptIds: promptIds ?? null, samples: input.samples ?? null },
      units,
      createdBy: input.createdBy,
    });
    deps.notifier?.wake();
    return { success: true as const, jobId, units: units.length, platforms };
  }

  return {
    registry,

    start(user: ApiUser, body: StartInput) {
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "validation_failed", "The body must be a JSON object");
      const brandId = requireUuid(body.brandId, "brandId");
      const platforms = stringList(body.platforms, "platforms");
      const models = stringList(body.models, "models");
      const promptIds = stringList(body.promptIds, "promptIds")?.map((id) => requireUuid(id, "promptIds[]"));
      if (body.force !== undefined && typeof body.force !== "boolean") throw new AppError(400, "validation_failed", "force must be a boolean");
      const samples = body.samples ?? undefined;
      if (samples !== undefined && (typeof samples !== "number" || !Number.isInteger(samples) || samples < 1 || samples > MAX_SAMPLES))
        throw new AppError(400, "validation_failed", `samples must be a whole number from 1 to ${MAX_SAMPLES}`);
      const { role } = visibleBrand(user, brandId);
      if (!WRITERS.includes(role)) throw new AppError(403, "forbidden", "Viewers cannot start tracking runs");
      return enqueueRun({ brandId, platforms, models, promptIds, force: body.force === true, samples: samples as number | undefined, createdBy: user.user.id });
    },

    enqueueRun,

    get(user: ApiUser, jobId: unknown) {
      return describe(visibleJob(user, jobId).job);
    },

    cancel(user: ApiUser, jobId: unknown) {
      const { job, role } = visibleJob(user, jobId);
      if (!WRITERS.includes(role)) throw new AppError(403, "forbidden", "Viewers cannot cancel tracking runs");
      if (!store.cancel(job.id)) throw new AppError(409, "job_finished", `The job is already ${job.status}`);
      deps.notifier?.cancel(job.id);
      return describe(store.get(job.id)!);
    },

    list(user: ApiUser, query: { brandId?: string; status?: string; limit?: string }) {
      const limit = query.limit === undefined ? 20 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new AppError(400, "validation_failed", "limit must be a whole number from 1 to 100");
      const statuses = ["waiting", "active", "completed", "failed", "cancelled"];
      if (query.status !== undefined && !statuses.includes(query.status))
        throw new AppError(400, "validation_failed", `status must be one of ${statuses.join(", ")}`);
      const orgs = [...user.orgRoles.keys()];
      if (query.brandId !== undefined) visibleBrand(user, requireUuid(query.brandId, "brandId"));
      if (!orgs.length) return { success: true, jobs: [] };
      const where = [`organization_id IN (${orgs.map(() => "?").join(",")})`, "type = 'tracking'"];
      const params: (string | number)[] = [...orgs];
      if (query.brandId) (where.push("brand_id = ?"), params.push(query.brandId.toLowerCase()));
      if (query.status) (where.push("status = ?"), params.push(query.status));
      const rows = sqlite.query(`SELECT * FROM jobs WHERE ${where.join(" AND ")} ORDER BY created_at DESC LIMIT ${limit}`).all(...params) as JobRow[];
      return { success: true, jobs: rows.map(describe) };
    },
  };
}

export type TrackingService = ReturnType<typeof createTrackingService>;
