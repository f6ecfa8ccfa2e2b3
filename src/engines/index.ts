/**
 * AI engine adapters: ask one platform one prompt, get one `Answer` (or `NoSurface` for a SERP page
 * without an AI answer). See README.md in this folder for the platforms and variables.
 */
export * from './types';
export { EngineError, isEngineError, retryAfterMs, type EngineErrorKind, type EngineErrorInit } from './errors';
export {
  loadEngineConfig,
  engineVariables,
  DEFAULT_MODELS,
  DEFAULTS,
  PROVIDERS,
  SERP_PLATFORMS,
  type EngineConfig,
  type PlatformConfig,
  type ProviderId,
} from './config';
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
