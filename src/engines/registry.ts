import { anthropicMessages } from './adapters/anthropic';
import { openaiCompatibleChat, perplexityChat } from './adapters/chat';
import { geminiGenerate } from './adapters/gemini';
import { openaiResponses, xaiResponses } from './adapters/responses';
import { googleAiMode, googleAiOverview, searchApiCopilot } from './adapters/serp';
import type { Adapter } from './adapters/shared';
import { SERP_PLATFORMS, type EngineConfig, type PlatformConfig, type ProviderId } from './config';
import { EngineError } from './errors';
import type { FetchLike } from './http';
import { createLimiter, type Limiter } from './limit';
import { PLATFORM_IDS, type Engine, type PlatformId } from './types';

const ADAPTERS: Record<PlatformId, Adapter> = {
  chatgpt: openaiResponses,
  perplexity: perplexityChat,
  gemini: geminiGenerate,
  claude: anthropicMessages,
  grok: xaiResponses,
  'google-ai-overview': googleAiOverview,
  'google-ai-mode': googleAiMode,
  copilot: searchApiCopilot,
  'openai-compatible': openaiCompatibleChat,
};

/** Model ids known per platform (the configured default is always added). */
export const KNOWN_MODELS: Record<PlatformId, readonly string[]> = {
  chatgpt: ['gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4o', 'gpt-4o-mini', 'o3', 'o4-mini'],
  perplexity: ['sonar', 'sonar-pro', 'sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research'],
  gemini: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite', 'gemini-2.0-flash'],
  claude: ['claude-opus-4-1', 'claude-opus-4-0', 'claude-sonnet-4-5', 'claude-sonnet-4-0', 'claude-haiku-4-5', 'claude-3-7-sonnet-latest', 'claude-3-5-haiku-latest'],
  grok: ['grok-4', 'grok-4-fast-reasoning', 'grok-4-fast-non-reasoning', 'grok-3', 'grok-3-mini'],
  'google-ai-overview': ['google-ai-overview'],
  'google-ai-mode': ['google-ai-mode'],
  copilot: ['copilot'],
  'openai-compatible': [],
};

/** Model families: new or dated ids (gpt-5-2025-08-07, claude-…-20250514) still name their platform. */
const FAMILIES: Array<[RegExp, PlatformId]> = [
  [/^(gpt-|chatgpt-|o\d)/, 'chatgpt'],
  [/^(sonar|r1-1776)/, 'perplexity'],
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
  knownModels(platform: PlatformId): readonly string[];
  /** Which platform a model id belongs to (exact known id, then family prefix, then the compatible model). */
  platformOfModel(model: string): PlatformId | undefined;
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
  const known = (p: PlatformId): readonly string[] => {
    const model = cfgOf(p).model;
    return model && !KNOWN_MODELS[p].includes(model) ? [model, ...KNOWN_MODELS[p]] : KNOWN_MODELS[p];
  };
  const engines = new Map<PlatformId, Engine>();

  const makeEngine = (platform: PlatformId): Engine => {
    const cfg = cfgOf(platform);
    const adapter = ADAPTERS[platform];
    return {
      platform,
      surface: SERP_PLATFORMS.has(platform) ? 'serp' : 'api',
      defaultModel: cfg.model,
      async ask(request) {
        const release = await limiterFor(cfg).acquire(platform, request.signal);
        try {
          return await adapter(
            {
              prompt: request.prompt,
              model: request.model || cfg.model,
              region: request.region || undefined,
              language: request.language || undefined,
            },
            { platform, fetch: fetchFn, timeoutMs: cfg.timeoutMs, authVariable: cfg.authVariable, signal: request.signal },
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
    platformOfModel(model) {
      const exact = PLATFORM_IDS.find((p) => known(p).includes(model));
      if (exact) return exact;
      return FAMILIES.find(([re]) => re.test(model))?.[1];
    },
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
