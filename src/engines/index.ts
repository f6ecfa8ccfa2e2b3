/**
 * AI engine adapters: ask one platform one prompt, get one `Answer` (or `NoSurface` for a SERP page
 * without an AI answer). See README.md in this folder for the platforms and variables.
 */
export * from './types';
export { EngineError, isEngineError, retryAfterMs, type EngineErrorCode, type EngineErrorKind, type EngineErrorInit } from './errors';
export {
  loadEngineConfig,
  engineVariables,
  defaultModelOf,
  DEFAULT_MODELS,
  DEFAULTS,
  PERPLEXITY_APIS,
  PROVIDERS,
  SERP_PLATFORMS,
  type EngineConfig,
  type LoadEngineConfigOptions,
  type PerplexityApi,
  type PlatformConfig,
  type ProviderId,
} from './config';
export {
  CATALOGUED_PLATFORMS,
  CatalogueError,
  loadCatalogue,
  modelStatus,
  shippedModels,
  type Catalogue,
  type CataloguedPlatform,
  type CatalogueModel,
  type FactSource,
  type ModelStatus,
  type ModelStatusName,
} from './catalogue';
export {
  createEngineRegistry,
  KNOWN_MODELS,
  type EngineRegistry,
  type PlatformStatus,
  type RegistryOptions,
} from './registry';
export { createLimiter, type Limiter } from './limit';
export { stripTracking, uniqueSources } from './citations';
export type { FetchLike } from './http';
