import {
  CatalogueError,
  dayOf,
  isCatalogued,
  loadCatalogue,
  modelStatus,
  shippedModels,
  type Catalogue,
} from './catalogue';
import { EngineError } from './errors';
import type { PlatformId } from './types';

/** The upstream account an adapter talks to; one per environment-variable prefix. */
export type ProviderId =
  | 'openai'
  | 'perplexity'
  | 'gemini'
  | 'anthropic'
  | 'xai'
  | 'serpapi'
  | 'dataforseo'
  | 'searchapi'
  | 'openai-compatible';

interface ProviderSpec {
  prefix: string;
  baseUrl: string;
  description: string;
}

export const PROVIDERS: Record<ProviderId, ProviderSpec> = {
  openai: { prefix: 'OPENAI', baseUrl: 'https://api.openai.com/v1', description: 'OpenAI Responses API (chatgpt)' },
  perplexity: { prefix: 'PERPLEXITY', baseUrl: 'https://api.perplexity.ai', description: 'Perplexity Agent API or Sonar (perplexity)' },
  gemini: {
    prefix: 'GEMINI',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    description: 'Gemini API (gemini)',
  },
  anthropic: { prefix: 'ANTHROPIC', baseUrl: 'https://api.anthropic.com/v1', description: 'Anthropic Messages API (claude)' },
  xai: { prefix: 'XAI', baseUrl: 'https://api.x.ai/v1', description: 'xAI Responses API (grok)' },
  serpapi: { prefix: 'SERPAPI', baseUrl: 'https://serpapi.com', description: 'SerpApi (google-ai-overview, google-ai-mode)' },
  dataforseo: {
    prefix: 'DATAFORSEO',
    baseUrl: 'https://api.dataforseo.com',
    description: 'DataForSEO SERP API (google-ai-overview, google-ai-mode)',
  },
  searchapi: { prefix: 'SEARCHAPI', baseUrl: 'https://www.searchapi.io/api/v1', description: 'SearchApi bing_copilot (copilot)' },
  'openai-compatible': {
    prefix: 'OPENAI_COMPATIBLE',
    baseUrl: 'http://localhost:11434/v1',
    description: 'any chat-completions endpoint: Ollama, vLLM, OpenRouter, … (openai-compatible)',
  },
};

/** The API platforms and the provider each one calls. */
export const API_PROVIDERS = {
  chatgpt: 'openai',
  perplexity: 'perplexity',
  gemini: 'gemini',
  claude: 'anthropic',
  grok: 'xai',
  'openai-compatible': 'openai-compatible',
} as const satisfies Partial<Record<PlatformId, ProviderId>>;

/** Platforms whose answer comes from a search results page; their "model" is the surface itself. */
export const SERP_PLATFORMS: ReadonlySet<PlatformId> = new Set(['google-ai-overview', 'google-ai-mode', 'copilot']);

/** The platform's model when the catalogue has none: the SERP surfaces are their own model; the compatible endpoint has no default. */
const UNCATALOGUED_MODELS: Record<string, string> = {
  'google-ai-overview': 'google-ai-overview',
  'google-ai-mode': 'google-ai-mode',
  copilot: 'copilot',
  'openai-compatible': '',
};

/** The default model of a platform in a catalogue (overridden by <P>_MODEL for the API platforms). */
export function defaultModelOf(catalogue: Catalogue, platform: PlatformId): string {
  return isCatalogued(platform) ? catalogue.platforms[platform].default : UNCATALOGUED_MODELS[platform]!;
}

/** Default model per platform in the shipped catalogue (src/engines/data/models.json); MODELS_FILE may change them. */
export const DEFAULT_MODELS: Record<PlatformId, string> = Object.fromEntries(
  (['chatgpt', 'perplexity', 'gemini', 'claude', 'grok', 'google-ai-overview', 'google-ai-mode', 'copilot', 'openai-compatible'] as const).map((p) => [
    p,
    defaultModelOf(shippedModels(), p),
  ]),
) as Record<PlatformId, string>;

/** How Perplexity is asked: the Agent API (POST /v1/agent) or Sonar chat completions (POST /chat/completions). */
export const PERPLEXITY_APIS = ['agent', 'sonar'] as const;
export type PerplexityApi = (typeof PERPLEXITY_APIS)[number];

export const DEFAULTS = { timeoutMs: 120_000, concurrency: 4, rpm: 60 } as const;

export interface PlatformConfig {
  platform: PlatformId;
  provider: ProviderId;
  /** Environment prefix of the provider account; platforms sharing it share its limits. */
  prefix: string;
  baseUrl: string;
  model: string;
  timeoutMs: number;
  concurrency: number;
  /** Requests per minute; 0 means no limit. */
  rpm: number;
  apiKey?: string;
  login?: string;
  password?: string;
  /** The variable(s) named when the upstream refuses the credentials. */
  authVariable: string;
  /** Set when the platform cannot be used yet: the variable to set. */
  missing?: string;
  /** Perplexity only: which of its APIs answers (PERPLEXITY_API). */
  api?: PerplexityApi;
}

export interface EngineConfig {
  platforms: Record<PlatformId, PlatformConfig>;
  /** The model catalogue: shipped, merged with MODELS_FILE. */
  catalogue: Catalogue;
  /** Configured models that still work but are deprecated (for the log at start-up). */
  warnings: string[];
}

export interface LoadEngineConfigOptions {
  /** The day retirement dates are compared with; defaults to now. */
  now?: Date;
  /**
   * A configured <P>_MODEL that the catalogue calls retired is a configuration error naming the
   * variable and the replacement (default). `answerwatch doctor` turns this off to report it itself.
   */
  refuseRetired?: boolean;
  /** Reads MODELS_FILE (tests). */
  readFile?: (path: string) => string;
}

type Env = Record<string, string | undefined>;

/** Reads env values, trimming, treating '' as unset, and collecting every invalid value. */
class EnvReader {
  readonly problems: Array<{ variable: string; problem: string }> = [];
  constructor(private readonly env: Env) {}

  str(name: string): string | undefined {
    const v = this.env[name]?.trim();
    return v ? v : undefined;
  }

  int(name: string, fallback: number, min: number): number {
    const raw = this.str(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min) {
      this.problems.push({ variable: name, problem: `expected an integer ≥ ${min}, got "${raw}"` });
      return fallback;
    }
    return Number(raw);
  }

  url(name: string, fallback: string): string {
    const raw = this.str(name);
    if (raw === undefined) return fallback;
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(raw).protocol);
    } catch {
      ok = false;
    }
    if (!ok) {
      this.problems.push({ variable: name, problem: `expected an http(s) URL, got "${raw}"` });
      return fallback;
    }
    return raw.replace(/\/+$/, '');
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const raw = this.str(name);
    if (raw === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push({ variable: name, problem: `expected one of ${allowed.join(', ')}, got "${raw}"` });
      return undefined;
    }
    return raw as T;
  }
}

type ProviderSettings = Pick<PlatformConfig, 'provider' | 'prefix' | 'baseUrl' | 'timeoutMs' | 'concurrency' | 'rpm'>;

function providerSettings(r: EnvReader, provider: ProviderId): ProviderSettings {
  const { prefix, baseUrl } = PROVIDERS[provider];
  return {
    provider,
    prefix,
    baseUrl: r.url(`${prefix}_BASE_URL`, baseUrl),
    timeoutMs: r.int(`${prefix}_TIMEOUT_MS`, DEFAULTS.timeoutMs, 1),
    concurrency: r.int(`${prefix}_CONCURRENCY`, DEFAULTS.concurrency, 1),
    rpm: r.int(`${prefix}_RPM`, DEFAULTS.rpm, 0),
  };
}

interface ModelContext {
  catalogue: Catalogue;
  today: string;
  refuseRetired: boolean;
  warnings: string[];
}

/** An API platform authenticated by `<PREFIX>_API_KEY`, with its model from `<PREFIX>_MODEL`. */
function keyed(r: EnvReader, m: ModelContext, platform: PlatformId, provider: ProviderId, keyOptional = false): PlatformConfig {
  const s = providerSettings(r, provider);
  const apiKey = r.str(`${s.prefix}_API_KEY`);
  const variable = `${s.prefix}_MODEL`;
  const configured = r.str(variable);
  const model = configured ?? defaultModelOf(m.catalogue, platform);
  if (configured && isCatalogued(platform)) {
    // A retired model fails every call: refuse it here, naming what to set instead.
    const st = modelStatus(m.catalogue, configured, m.today);
    if (st.status === 'retired' && m.refuseRetired) {
      const fix = st.replacement ? `set ${variable}=${st.replacement}` : `set ${variable} to another model`;
      r.problems.push({ variable, problem: `${st.message} — ${fix} (or unset it for the default ${defaultModelOf(m.catalogue, platform)})` });
    } else if (st.status === 'deprecated') m.warnings.push(`${variable}: ${st.message}`);
  }
  const cfg: PlatformConfig = { ...s, platform, model, apiKey, authVariable: `${s.prefix}_API_KEY` };
  if (!model) cfg.missing = `${s.prefix}_MODEL`;
  else if (!apiKey && !keyOptional) cfg.missing = `${s.prefix}_API_KEY`;
  return cfg;
}

/** The two Google surfaces go through SerpApi or DataForSEO, whichever is configured (or chosen). */
function googleSerp(r: EnvReader, m: ModelContext, platform: PlatformId): PlatformConfig {
  const chosen = r.oneOf('GOOGLE_SERP_PROVIDER', ['serpapi', 'dataforseo'] as const);
  const serpKey = r.str('SERPAPI_API_KEY');
  const login = r.str('DATAFORSEO_LOGIN');
  const password = r.str('DATAFORSEO_PASSWORD');
  const provider: ProviderId = chosen ?? (serpKey || !(login || password) ? 'serpapi' : 'dataforseo');
  const s = providerSettings(r, provider);
  const model = defaultModelOf(m.catalogue, platform);
  if (provider === 'serpapi') {
    const cfg: PlatformConfig = { ...s, platform, model, apiKey: serpKey, authVariable: 'SERPAPI_API_KEY' };
    if (!serpKey) cfg.missing = chosen ? 'SERPAPI_API_KEY' : 'SERPAPI_API_KEY (or DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD)';
    return cfg;
  }
  const cfg: PlatformConfig = {
    ...s,
    platform,
    model,
    login,
    password,
    authVariable: 'DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD',
  };
  if (!login) cfg.missing = 'DATAFORSEO_LOGIN';
  else if (!password) cfg.missing = 'DATAFORSEO_PASSWORD';
  return cfg;
}

function serpKeyed(r: EnvReader, m: ModelContext, platform: PlatformId, provider: ProviderId): PlatformConfig {
  const s = providerSettings(r, provider);
  const apiKey = r.str(`${s.prefix}_API_KEY`);
  const cfg: PlatformConfig = { ...s, platform, model: defaultModelOf(m.catalogue, platform), apiKey, authVariable: `${s.prefix}_API_KEY` };
  if (!apiKey) cfg.missing = `${s.prefix}_API_KEY`;
  return cfg;
}

/**
 * Environment → typed per-platform configuration. A platform without credentials is not an error
 * (it is reported as not configured, with the variable to set); an invalid value is, and the error
 * names every offending variable.
 */
export function loadEngineConfig(env: Env, options: LoadEngineConfigOptions = {}): EngineConfig {
  const r = new EnvReader(env);
  const now = options.now ?? new Date();
  let catalogue: Catalogue;
  try {
    catalogue = loadCatalogue(r.str('MODELS_FILE'), { now, readFile: options.readFile });
  } catch (error) {
    if (!(error instanceof CatalogueError)) throw error;
    for (const problem of error.problems) r.problems.push({ variable: 'MODELS_FILE', problem });
    catalogue = shippedModels();
  }
  const m: ModelContext = { catalogue, today: dayOf(now), refuseRetired: options.refuseRetired ?? true, warnings: [] };
  const platforms: Record<PlatformId, PlatformConfig> = {
    chatgpt: keyed(r, m, 'chatgpt', API_PROVIDERS.chatgpt),
    perplexity: { ...keyed(r, m, 'perplexity', API_PROVIDERS.perplexity), api: r.oneOf('PERPLEXITY_API', PERPLEXITY_APIS) ?? 'agent' },
    gemini: keyed(r, m, 'gemini', API_PROVIDERS.gemini),
    claude: keyed(r, m, 'claude', API_PROVIDERS.claude),
    grok: keyed(r, m, 'grok', API_PROVIDERS.grok),
    'google-ai-overview': googleSerp(r, m, 'google-ai-overview'),
    'google-ai-mode': googleSerp(r, m, 'google-ai-mode'),
    copilot: serpKeyed(r, m, 'copilot', 'searchapi'),
    // Local servers (Ollama, vLLM) need no key; the model is what says the platform is wanted.
    'openai-compatible': keyed(r, m, 'openai-compatible', API_PROVIDERS['openai-compatible'], true),
  };
  // The Google surfaces read the same variables twice; report each problem once.
  const seen = new Set<string>();
  const problems = r.problems.filter((p) => {
    const key = `${p.variable}\u0000${p.problem}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  if (problems.length > 0) {
    throw new EngineError({
      kind: 'config',
      variable: problems[0]!.variable,
      message: `invalid engine configuration: ${problems.map((p) => `${p.variable}: ${p.problem}`).join('; ')}`,
    });
  }
  return { platforms, catalogue, warnings: m.warnings };
}

/** Every variable the engines read, with its default and meaning (README and .env.example). */
export function engineVariables(): Array<{ name: string; default: string; meaning: string }> {
  const rows: Array<{ name: string; default: string; meaning: string }> = [];
  for (const [id, spec] of Object.entries(PROVIDERS) as Array<[ProviderId, ProviderSpec]>) {
    const p = spec.prefix;
    if (id === 'dataforseo') {
      rows.push({ name: 'DATAFORSEO_LOGIN', default: '', meaning: `API login for ${spec.description}` });
      rows.push({ name: 'DATAFORSEO_PASSWORD', default: '', meaning: 'API password for DataForSEO' });
    } else {
      rows.push({
        name: `${p}_API_KEY`,
        default: '',
        meaning: `API key for ${spec.description}${id === 'openai-compatible' ? ' (optional: local servers need none)' : ''}`,
      });
    }
    rows.push({ name: `${p}_BASE_URL`, default: spec.baseUrl, meaning: `base URL of ${spec.description}` });
    const platform = (Object.keys(API_PROVIDERS) as Array<keyof typeof API_PROVIDERS>).find((pl) => API_PROVIDERS[pl] === id);
    if (platform) {
      rows.push({
        name: `${p}_MODEL`,
        default: DEFAULT_MODELS[platform],
        meaning: `default model for ${platform}${id === 'openai-compatible' ? ' (required: setting it enables the platform)' : ' (a model the catalogue calls retired is refused, naming its replacement)'}`,
      });
    }
    if (id === 'perplexity') {
      rows.push({
        name: 'PERPLEXITY_API',
        default: 'agent',
        meaning: 'agent (Agent API, POST /v1/agent, model perplexity/sonar for sonar) or sonar (Sonar chat completions, POST /chat/completions)',
      });
    }
    rows.push({ name: `${p}_TIMEOUT_MS`, default: String(DEFAULTS.timeoutMs), meaning: 'per-call timeout in milliseconds' });
    rows.push({ name: `${p}_CONCURRENCY`, default: String(DEFAULTS.concurrency), meaning: 'calls in flight at once (per process)' });
    rows.push({ name: `${p}_RPM`, default: String(DEFAULTS.rpm), meaning: 'calls started per minute, 0 = unlimited (per process)' });
  }
  rows.push({
    name: 'MODELS_FILE',
    default: '',
    meaning: 'a JSON file in the format of src/engines/data/models.json whose entries merge over the shipped model catalogue',
  });
  rows.push({
    name: 'GOOGLE_SERP_PROVIDER',
    default: '',
    meaning: 'serpapi or dataforseo for the two Google surfaces; unset: SerpApi when SERPAPI_API_KEY is set, else DataForSEO',
  });
  return rows;
}
