import { anthropicMessages } from './adapters/anthropic';
import { openaiCompatibleChat, perplexityChat } from './adapters/chat';
import { geminiGenerate } from './adapters/gemini';
import { perplexityAgent } from './adapters/perplexity-agent';
import { openaiResponses, xaiResponses } from './adapters/responses';
import { googleAiMode, googleAiOverview, searchApiCopilot } from './adapters/serp';
import type { Adapter } from './adapters/shared';
import {
  allModelIds,
  CATALOGUED_PLATFORMS,
  dayOf,
  isCatalogued,
  modelStatus as catalogueStatus,
  shippedModels,
  usableModels,
  type ModelStatus,
} from './catalogue';
import { SERP_PLATFORMS, type EngineConfig, type PlatformConfig, type ProviderId } from './config';
import { EngineError } from './errors';
import type { FetchLike } from './http';
import { createLimiter, type Limiter } from './limit';
import { PLATFORM_IDS, type Engine, type PlatformId } from './types';

const ADAPTERS: Record<PlatformId, Adapter> = {
  chatgpt: openaiResponses,
  // Replaced by perplexityChat when PERPLEXITY_API=sonar (see adapterOf).
  perplexity: perplexityAgent,
  gemini: geminiGenerate,
  claude: anthropicMessages,
  grok: xaiResponses,
  'google-ai-overview': googleAiOverview,
  'google-ai-mode': googleAiMode,
  copilot: searchApiCopilot,
  'openai-compatible': openaiCompatibleChat,
};

function adapterOf(cfg: PlatformConfig): Adapter {
  return cfg.platform === 'perplexity' && cfg.api === 'sonar' ? perplexityChat : ADAPTERS[cfg.platform];
}

/**
 * Model ids a caller may choose per platform in the shipped catalogue today (src/engines/data/models.json;
 * retired ones left out). Kept for callers of the old table; `registry.knownModels` is the live answer
 * (MODELS_FILE and the configured model included).
 */
export const KNOWN_MODELS: Record<PlatformId, readonly string[]> = Object.fromEntries(
  PLATFORM_IDS.map((p) => [p, isCatalogued(p) ? usableModels(shippedModels(), p, dayOf(new Date())) : SERP_PLATFORMS.has(p) ? [p] : []]),
) as unknown as Record<PlatformId, readonly string[]>;

/** Model families: new or dated ids (gpt-5-2025-08-07, claude-…-20250514) still name their platform. */
const FAMILIES: Array<[RegExp, PlatformId]> = [
  [/^(gpt-|chatgpt-|o\d)/, 'chatgpt'],
  [/^(sonar|r1-1776|perplexity\/)/, 'perplexity'],
  [/^gemini-/, 'gemini'],
  [/^claude-/, 'claude'],
  [/^grok-/, 'grok'],
];

export interface PlatformStatus {
  platform: PlatformId;
  surface: 'api' | 'serp';
  provider: ProviderId;
  configured: boolean;
  defaultModel: string;
  /** When not configured: the variable to set. */
  missing?: string;
}

export interface EngineRegistry {
  readonly platforms: readonly PlatformId[];
  defaultModel(platform: PlatformId): string;
  /** The models a caller may choose: the configured one, then the catalogue's active and deprecated ones (retired ones left out). */
  knownModels(platform: PlatformId): readonly string[];
  /** Which platform a model id belongs to (exact known id — retired ones too —, then family prefix, then the compatible model). */
  platformOfModel(model: string): PlatformId | undefined;
  /**
   * What the catalogue says about a model: its platform and status (`active`, `deprecated`,
   * `retired`, or `unknown` to the catalogue) and, when not active, the retirement date, the
   * replacement, the source and a one-sentence `message` naming the replacement.
   */
  modelStatus(model: string): ModelStatus;
  isConfigured(platform: PlatformId): boolean;
  /** The variable to set before the platform can be used; undefined when configured. */
  missingVariable(platform: PlatformId): string | undefined;
  status(): PlatformStatus[];
  /** The engine of a configured platform; an EngineError of kind 'config' naming the variable otherwise. */
  engine(platform: PlatformId): Engine;
}

export interface RegistryOptions {
  /** Defaults to the global fetch; tests pass their own. */
  fetch?: FetchLike;
  /** The clock retirement dates are compared with; defaults to now. */
  now?: () => Date;
}

export function createEngineRegistry(config: EngineConfig, options: RegistryOptions = {}): EngineRegistry {
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  // One limiter per upstream account (prefix): the two Google surfaces share SerpApi's or DataForSEO's.
  const limiters = new Map<string, Limiter>();
  const limiterFor = (cfg: PlatformConfig): Limiter => {
    let l = limiters.get(cfg.prefix);
    if (!l) {
      l = createLimiter({ concurrency: cfg.concurrency, rpm: cfg.rpm });
      limiters.set(cfg.prefix, l);
    }
    return l;
  };
  const cfgOf = (p: PlatformId) => config.platforms[p];
  const catalogue = config.catalogue;
  const today = () => dayOf(options.now?.() ?? new Date());
  const known = (p: PlatformId): readonly string[] => {
    const listed = isCatalogued(p) ? usableModels(catalogue, p, today()) : SERP_PLATFORMS.has(p) ? [p] : [];
    const model = cfgOf(p).model;
    return model && !listed.includes(model) ? [model, ...listed] : listed;
  };
  const platformOfModel = (model: string): PlatformId | undefined => {
    const exact = PLATFORM_IDS.find((p) => known(p).includes(model));
    if (exact) return exact;
    const catalogued = CATALOGUED_PLATFORMS.find((p) => allModelIds(catalogue, p).includes(model));
    if (catalogued) return catalogued;
    return FAMILIES.find(([re]) => re.test(model))?.[1];
  };
  const statusOf = (model: string): ModelStatus => {
    const st = catalogueStatus(catalogue, model, today());
    if (st.status !== 'unknown') return st;
    const platform = platformOfModel(model);
    // The SERP surfaces and the configured compatible model are what they are; no catalogue needed.
    const own = platform && (SERP_PLATFORMS.has(platform) || platform === 'openai-compatible') && known(platform).includes(model);
    return { model, ...(platform ? { platform } : {}), status: own ? 'active' : 'unknown' };
  };
  /** What to suggest when an upstream does not know a model. */
  const modelAdvice = (platform: PlatformId) => (model: string) => {
    const st = statusOf(model);
    if (st.status === 'retired' || st.status === 'deprecated') return { advice: st.message!, replacement: st.replacement };
    if (!isCatalogued(platform)) return { advice: 'check the model name against what the server serves (`answerwatch doctor` lists it)' };
    const fallback = catalogue.platforms[platform].default;
    if (st.status === 'active')
      return {
        advice: `the model catalogue lists it as available; run \`answerwatch doctor\` to see what this account may use, and record its retirement in MODELS_FILE`,
      };
    return {
      advice: `${fallback && fallback !== model ? `the default for ${platform} is ${fallback}; ` : ''}run \`answerwatch models\` to see the known models`,
      ...(fallback && fallback !== model ? { replacement: fallback } : {}),
    };
  };
  const engines = new Map<PlatformId, Engine>();

  const makeEngine = (platform: PlatformId): Engine => {
    const cfg = cfgOf(platform);
    const adapter = adapterOf(cfg);
    return {
      platform,
      surface: SERP_PLATFORMS.has(platform) ? 'serp' : 'api',
      defaultModel: cfg.model,
      async ask(request) {
        const model = request.model || cfg.model;
        // A retired model fails upstream for sure; say so here, with the replacement, and spend no call.
        const st = statusOf(model);
        if (st.status === 'retired') {
          throw new EngineError({
            kind: 'rejected',
            code: 'model_retired',
            platform,
            model,
            replacement: st.replacement,
            message: `${platform}: ${st.message}`,
          });
        }
        const release = await limiterFor(cfg).acquire(platform, request.signal);
        try {
          return await adapter(
            {
              prompt: request.prompt,
              model,
              region: request.region || undefined,
              language: request.language || undefined,
            },
            {
              platform,
              fetch: fetchFn,
              timeoutMs: cfg.timeoutMs,
              authVariable: cfg.authVariable,
              signal: request.signal,
              model,
              modelAdvice: modelAdvice(platform),
            },
            cfg,
          );
        } finally {
          release();
        }
      },
    };
  };

  return {
    platforms: PLATFORM_IDS,
    defaultModel: (p) => cfgOf(p).model,
    knownModels: known,
    platformOfModel,
    modelStatus: statusOf,
    isConfigured: (p) => cfgOf(p).missing === undefined,
    missingVariable: (p) => cfgOf(p).missing,
    status: () =>
      PLATFORM_IDS.map((p) => {
        const cfg = cfgOf(p);
        return {
          platform: p,
          surface: SERP_PLATFORMS.has(p) ? 'serp' : 'api',
          provider: cfg.provider,
          configured: cfg.missing === undefined,
          defaultModel: cfg.model,
          ...(cfg.missing ? { missing: cfg.missing } : {}),
        };
      }),
    engine(platform) {
      const cfg = cfgOf(platform);
      if (cfg.missing) {
        throw new EngineError({
          kind: 'config',
          platform,
          variable: cfg.missing,
          message: `${platform} is not configured: set ${cfg.missing}`,
        });
      }
      let e = engines.get(platform);
      if (!e) {
        e = makeEngine(platform);
        engines.set(platform, e);
      }
      return e;
    },
  };
}
