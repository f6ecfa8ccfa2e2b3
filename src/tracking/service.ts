// Start, poll, cancel and list tracking jobs (DESIGN §6). Validation lives here so that every
// bad request gets a 4xx that says what is allowed, and nothing is enqueued half-way.
import { createEngineRegistry, type EngineConfig, type PlatformId } from "../engines";
import { AppError } from "../http/errors";
import { requireUuid } from "../http/validate";
import type { ApiUser } from "../common/identity";
import type { OrgRole } from "../common/identity";
import type { JobRow, JobStatus, NewUnit, QueueStore } from "../queue/store";
import type { TrackingStore } from "./store";

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
/** Longest lists a start may name: platforms and models (a handful exist), prompts (a brand's). */
export const START_LIST_LIMITS = { platforms: 50, models: 50, promptIds: 10_000 } as const;
/**
 * Most units one run may hold (prompts × platforms × models × regions × samples): each is a row
 * written at once and a paid call to an engine. Counted before any is made.
 */
export const MAX_UNITS_PER_RUN = 50_000;
/**
 * Runs of one brand waiting or running at once, however they were started (a forced start skips
 * only the look for a run of the same platforms): each is paid engine calls, and the queue takes
 * jobs in arrival order, so a loop of starts would hold every other brand's runs behind it.
 */
export const MAX_OPEN_RUNS_PER_BRAND = 3;
/** Runs started by hand (not by the schedule) waiting or running at once in one organization. */
export const MAX_OPEN_STARTS_PER_ORG = 10;

const tooManyRuns = (message: string, max: number) => new AppError(429, "too_many_runs", message, { details: { max } });

function stringList(value: unknown, field: keyof typeof START_LIST_LIMITS): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || !v.trim()))
    throw new AppError(400, "validation_failed", `${field} must be an array of non-empty strings`);
  if (value.length > START_LIST_LIMITS[field]) throw new AppError(400, "validation_failed", `${field} lists at most ${START_LIST_LIMITS[field]} values`);
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

/** `store` is the queue the runs go to; `tracking` what they are made of. */
export function createTrackingService(deps: { store: QueueStore; tracking: TrackingStore; engines: EngineConfig; notifier?: TrackingNotifier }) {
  const { store, tracking } = deps;
  const registry = createEngineRegistry(deps.engines);

  /** The brand, if the caller may see it, with the caller's role in its organization. */
  async function visibleBrand(user: ApiUser, brandId: string) {
    const brand = await tracking.brandForRun(brandId);
    const role = brand ? user.orgRoles.get(brand.organization_id) : undefined;
    if (!brand || !role) throw new AppError(404, "not_found", "Brand not found");
    return { brand, role };
  }

  async function visibleJob(user: ApiUser, jobId: unknown) {
    const id = requireUuid(jobId, "jobId");
    const job = await store.get(id);
    const role = job?.organization_id ? user.orgRoles.get(job.organization_id) : undefined;
    if (!job || !role) throw new AppError(404, "not_found", "Job not found");
    return { job, role };
  }

  async function describe(job: JobRow) {
    const progress = JSON.parse(job.progress || "{}") as { phase?: string; total?: number };
    const counts = await store.counts(job.id);
    return {
      success: true,
      jobId: job.id,
      brandId: job.brand_id,
      status: job.status,
      // completed: questions settled, answered or failed (failed: of them, those that got no answer).
      progress: { phase: progress.phase ?? job.status, completed: counts.done + counts.failed, failed: counts.failed, total: counts.total },
      result: job.result ? JSON.parse(job.result) : null,
      failedReason: job.failed_reason,
      platforms: (JSON.parse(job.data || "{}") as { platforms?: string[] }).platforms ?? [],
      createdAt: job.created_at,
      startedAt: job.started_at,
      finishedAt: job.finished_at,
    };
  }

  /** Which platforms and models a run covers; throws 400 naming what is allowed. */
  async function selectTargets(brandId: string, platformsIn?: string[], modelsIn?: string[]): Promise<Map<PlatformId, string[]>> {
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
      const listed = modelsByPlatform.get(platform);
      if (listed) listed.push(model);
      else modelsByPlatform.set(platform, [model]);
    }
    const enabled = await tracking.enabledPlatforms(brandId);
    let platforms: PlatformId[];
    if (platformsIn) platforms = platformsIn as PlatformId[];
    else if (modelsByPlatform.size) platforms = [...modelsByPlatform.keys()];
    else if (enabled.length) {
      // By default the enabled platforms that have a key, as the schedule runs them ("Run now" after
      // choosing one platform with a key and one without failed); none has one: the 400 names its key.
      const chosen = enabled.map((e) => e.platform as PlatformId).filter((p) => allowedPlatforms.includes(p));
      const ready = chosen.filter((p) => registry.isConfigured(p));
      platforms = ready.length ? ready : chosen;
    }
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
  /** `unlessAnyOpen`: the scheduler's — any run of the brand waiting or running is the answer (409), whatever its platforms. */
  async function enqueueRun(input: { brandId: string; platforms?: string[]; models?: string[]; promptIds?: string[]; force?: boolean; unlessAnyOpen?: boolean; samples?: number; createdBy: string | null }) {
    const brand = await tracking.brandForRun(input.brandId);
    if (!brand) throw new AppError(404, "not_found", "Brand not found");
    if (!brand.is_active) throw new AppError(409, "brand_inactive", "The brand is inactive (is_active = false): activate it to track it");
    const { brandId, promptIds } = input;
    const targets = await selectTargets(brandId, input.platforms, input.models);
    const platforms = [...targets.keys()].sort();
    const wanted = promptIds && new Set(promptIds);
    const prompts = (await tracking.activePrompts(brandId)).filter((p) => !wanted || wanted.has(p.id));
    if (!prompts.length) throw new AppError(409, "no_active_prompts", "The brand has no active prompts to track");

    // Asks per prompt × model × region: the request's `samples`, else the platform's setting (brand_platforms.samples).
    const platformSamples = new Map((await tracking.platformSamples(brandId)).map((r) => [r.platform, r.samples]));
    const samplesFor = (platform: string) => input.samples ?? platformSamples.get(platform) ?? 1;
    // Each prompt's platforms (those it is limited to, if any) and regions, read once: counted first, then made.
    const asked = prompts.map((prompt) => {
      const onlyPlatforms = storedStringList(prompt.platforms);
      const regions = storedStringList(prompt.regions);
      return { prompt, platforms: [...targets].filter(([platform]) => !onlyPlatforms.length || onlyPlatforms.includes(platform)), regions: regions.length ? regions : [brand.region ?? ""] };
    });
    const count = asked.reduce((n, a) => n + a.platforms.reduce((m, [platform, models]) => m + models.length * a.regions.length * samplesFor(platform), 0), 0);
    if (count > MAX_UNITS_PER_RUN)
      throw new AppError(400, "run_too_large", `This run would ask ${count} questions; one run asks at most ${MAX_UNITS_PER_RUN}: name fewer prompts, platforms, models or samples`, { details: { units: count, max: MAX_UNITS_PER_RUN } });
    const units: NewUnit[] = [];
    for (const { prompt, platforms: promptPlatforms, regions } of asked)
      for (const [platform, models] of promptPlatforms)
        for (const model of models)
          for (const region of regions)
            for (let sample = 0; sample < samplesFor(platform); sample++) units.push({ promptId: prompt.id, platform, model, region, sample });
    if (!units.length) throw new AppError(409, "no_active_prompts", "No active prompt is set to run on the selected platforms");

    const job = {
      type: "tracking",
      brandId,
      organizationId: brand.organization_id,
      data: { platforms, models: Object.fromEntries(targets), promptIds: promptIds ?? null, samples: input.samples ?? null },
      units,
      createdBy: input.createdBy,
    };
    // Unless forced, a run for exactly these platforms already waiting or running is the answer —
    // looked for and enqueued in one step, so two starts at once (two instances) make one run.
    // Either way the brand's open runs are counted in the same step (a throw rolls the step back).
    const samePlatforms = (open: { id: string; data: string }[]) => {
      if (input.unlessAnyOpen && open.length) return open[0]!.id;
      const same = input.force ? undefined : open.find((o) => ((JSON.parse(o.data) as { platforms?: string[] }).platforms ?? []).slice().sort().join(",") === platforms.join(","));
      if (same) return same.id;
      if (open.length >= MAX_OPEN_RUNS_PER_BRAND) throw tooManyRuns(`${open.length} tracking runs of this brand are already waiting or running (at most ${MAX_OPEN_RUNS_PER_BRAND}): wait for one to finish or cancel one`, MAX_OPEN_RUNS_PER_BRAND);
      return null;
    };
    const { jobId, enqueued } = await store.enqueueUnlessOpen(job, samePlatforms);
    if (!enqueued) throw new AppError(409, "job_in_progress", "A tracking run for these platforms is already waiting or running", { details: { jobId } });
    deps.notifier?.wake();
    return { success: true as const, jobId, units: units.length, platforms };
  }

  return {
    registry,

    async start(user: ApiUser, body: StartInput) {
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "validation_failed", "The body must be a JSON object");
      const brandId = requireUuid(body.brandId, "brandId");
      const platforms = stringList(body.platforms, "platforms");
      const models = stringList(body.models, "models");
      const promptIds = stringList(body.promptIds, "promptIds")?.map((id) => requireUuid(id, "promptIds[]"));
      if (body.force !== undefined && typeof body.force !== "boolean") throw new AppError(400, "validation_failed", "force must be a boolean");
      const samples = body.samples ?? undefined;
      if (samples !== undefined && (typeof samples !== "number" || !Number.isInteger(samples) || samples < 1 || samples > MAX_SAMPLES))
        throw new AppError(400, "validation_failed", `samples must be a whole number from 1 to ${MAX_SAMPLES}`);
      const { brand, role } = await visibleBrand(user, brandId);
      if (!WRITERS.includes(role)) throw new AppError(403, "forbidden", "Viewers cannot start tracking runs");
      // Counted before the brand's step, so two starts at once on two instances may pass it together: a bound, not an exact count.
      const open = (await Promise.all((["waiting", "active"] as const).map((status) => store.listJobs({ organizationIds: [brand.organization_id], type: "tracking", status, limit: 100 })))).flat();
      if (open.filter((j) => j.created_by !== null).length >= MAX_OPEN_STARTS_PER_ORG)
        throw tooManyRuns(`${MAX_OPEN_STARTS_PER_ORG} tracking runs started by hand are already waiting or running in this organization: wait for one to finish or cancel one`, MAX_OPEN_STARTS_PER_ORG);
      return enqueueRun({ brandId, platforms, models, promptIds, force: body.force === true, samples: samples as number | undefined, createdBy: user.user.id });
    },

    enqueueRun,

    async get(user: ApiUser, jobId: unknown) {
      return describe((await visibleJob(user, jobId)).job);
    },

    async cancel(user: ApiUser, jobId: unknown) {
      const { job, role } = await visibleJob(user, jobId);
      if (!WRITERS.includes(role)) throw new AppError(403, "forbidden", "Viewers cannot cancel tracking runs");
      if (!(await store.cancel(job.id))) throw new AppError(409, "job_finished", `The job is already ${job.status}`);
      deps.notifier?.cancel(job.id);
      return describe((await store.get(job.id))!);
    },

    async list(user: ApiUser, query: { brandId?: string; status?: string; limit?: string }) {
      const limit = query.limit === undefined ? 20 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new AppError(400, "validation_failed", "limit must be a whole number from 1 to 100");
      const statuses = ["waiting", "active", "completed", "failed", "cancelled"];
      if (query.status !== undefined && !statuses.includes(query.status))
        throw new AppError(400, "validation_failed", `status must be one of ${statuses.join(", ")}`);
      const orgs = [...user.orgRoles.keys()];
      if (query.brandId !== undefined) await visibleBrand(user, requireUuid(query.brandId, "brandId"));
      if (!orgs.length) return { success: true, jobs: [] };
      const rows = await store.listJobs({ organizationIds: orgs, type: "tracking", brandId: query.brandId ? query.brandId.toLowerCase() : undefined, status: query.status as JobStatus | undefined, limit });
      return { success: true, jobs: await Promise.all(rows.map(describe)) };
    },
  };
}

export type TrackingService = ReturnType<typeof createTrackingService>;
