import { parseArgs } from 'node:util';
import { agentSelector } from './adapters/perplexity-agent';
import {
  CATALOGUED_PLATFORMS,
  CatalogueError,
  dayOf,
  isCatalogued,
  loadCatalogue,
  modelStatus,
  type Catalogue,
  type CataloguedPlatform,
} from './catalogue';
import { loadEngineConfig, PROVIDERS, SERP_PLATFORMS, type PlatformConfig, type ProviderId } from './config';
import { EngineError, isEngineError } from './errors';
import { callJson, type CallContext, type FetchLike } from './http';
import { createEngineRegistry, type EngineRegistry } from './registry';
import { isPlatformId, PLATFORM_IDS, type PlatformId } from './types';

export interface CommandOutput {
  stdout(s: string): void;
  stderr(s: string): void;
}

const consoleOutput: CommandOutput = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

const USAGE = `usage: answerwatch ask --platform P [--model M] [--region US] [--language en] "prompt"
platforms: ${PLATFORM_IDS.join(', ')}
`;

/**
 * `answerwatch ask`: asks one platform one prompt and prints the Answer (or the no-surface result)
 * as JSON. Exit codes: 0 answered, 1 the upstream failed (error JSON on stderr), 2 usage or
 * configuration problem, or a retired model (one line naming what to fix, the replacement included).
 */
export async function runAskCommand(
  args: string[],
  env: Record<string, string | undefined>,
  out: CommandOutput = consoleOutput,
  options: { fetch?: FetchLike; signal?: AbortSignal } = {},
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        platform: { type: 'string', short: 'p' },
        model: { type: 'string', short: 'm' },
        region: { type: 'string', short: 'r' },
        language: { type: 'string', short: 'l' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    out.stderr(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.stdout(USAGE);
    return 0;
  }
  const prompt = positionals.join(' ').trim();
  if (!values.platform || !isPlatformId(values.platform) || prompt === '') {
    out.stderr(values.platform && !isPlatformId(values.platform) ? `unknown platform "${values.platform}"\n${USAGE}` : USAGE);
    return 2;
  }

  try {
    const registry = createEngineRegistry(loadEngineConfig(env), { fetch: options.fetch });
    const missing = registry.missingVariable(values.platform);
    if (missing) {
      out.stderr(`${values.platform} is not configured: set ${missing}\n`);
      return 2;
    }
    const result = await registry.engine(values.platform).ask({
      prompt,
      model: values.model,
      region: values.region,
      language: values.language,
      signal: options.signal,
    });
    out.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    // A configuration problem, or a model the catalogue calls retired: one line naming what to fix.
    if (isEngineError(error) && (error.kind === 'config' || error.code === 'model_retired')) {
      out.stderr(`${error.message}\n`);
      return 2;
    }
    out.stderr(`${JSON.stringify({ error: isEngineError(error) ? error.toJSON() : { message: String(error) } }, null, 2)}\n`);
    return 1;
  }
}

/* ------------------------------------------------------------------------------------------------
 * answerwatch models
 * ---------------------------------------------------------------------------------------------- */

const MODELS_USAGE = `usage: answerwatch models [--platform P] [--json]
Lists the model catalogue: per platform the default, each known model's status (active, deprecated
with its retirement date, retired), its replacement and the source of the fact. MODELS_FILE adds to
or overrides the shipped catalogue.
`;

interface ModelRow {
  platform: CataloguedPlatform;
  model: string;
  aliases: string[];
  default: boolean;
  /** The model <P>_MODEL sets. */
  configured: boolean;
  status: string;
  retiresOn?: string;
  replacement?: string;
  note?: string;
  source?: { url: string; checked: string };
}

function modelRows(catalogue: Catalogue, env: Record<string, string | undefined>, today: string, only?: CataloguedPlatform): ModelRow[] {
  const rows: ModelRow[] = [];
  for (const platform of CATALOGUED_PLATFORMS) {
    if (only && platform !== only) continue;
    const cat = catalogue.platforms[platform];
    const configured = env[`${PROVIDERS[PROVIDER_OF[platform]].prefix}_MODEL`]?.trim() || undefined;
    let configuredListed = false;
    for (const m of cat.models) {
      const st = modelStatus(catalogue, m.id, today);
      const isConfigured = configured !== undefined && (configured === m.id || m.aliases.includes(configured));
      configuredListed ||= isConfigured;
      rows.push({
        platform,
        model: m.id,
        aliases: m.aliases,
        default: m.id === cat.default,
        configured: isConfigured,
        status: st.status,
        ...(m.retires ? { retiresOn: m.retires } : {}),
        ...(st.replacement ? { replacement: st.replacement } : {}),
        ...(m.note ? { note: m.note } : {}),
        source: m.source,
      });
    }
    if (configured && !configuredListed) {
      rows.push({ platform, model: configured, aliases: [], default: false, configured: true, status: 'unknown', note: 'not in the catalogue' });
    }
  }
  return rows;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

/** `answerwatch models`: the catalogue as a table (or JSON). Exit 0; 2 for a bad MODELS_FILE or usage. */
export async function runModelsCommand(
  args: string[],
  env: Record<string, string | undefined>,
  out: CommandOutput = consoleOutput,
  options: { now?: Date } = {},
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { platform: { type: 'string', short: 'p' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    out.stderr(`${(error as Error).message}\n${MODELS_USAGE}`);
    return 2;
  }
  if (values.help) {
    out.stdout(MODELS_USAGE);
    return 0;
  }
  if (values.platform !== undefined && !isCatalogued(values.platform)) {
    out.stderr(`"${values.platform}" has no model catalogue (catalogued: ${CATALOGUED_PLATFORMS.join(', ')})\n${MODELS_USAGE}`);
    return 2;
  }
  const now = options.now ?? new Date();
  let catalogue: Catalogue;
  try {
    catalogue = loadCatalogue(env.MODELS_FILE?.trim() || undefined, { now });
  } catch (error) {
    if (!(error instanceof CatalogueError)) throw error;
    out.stderr(`invalid MODELS_FILE: ${error.problems.join('; ')}\n`);
    return 2;
  }
  const rows = modelRows(catalogue, env, dayOf(now), values.platform as CataloguedPlatform | undefined);
  if (values.json) {
    out.stdout(`${JSON.stringify({ catalogue: catalogue.origins, today: dayOf(now), models: rows }, null, 2)}\n`);
    return 0;
  }
  const status = (r: ModelRow) =>
    r.status === 'retired' ? `retired${r.retiresOn ? ` ${r.retiresOn}` : ''}` : r.status === 'deprecated' ? `deprecated${r.retiresOn ? `, retires ${r.retiresOn}` : ''}` : r.status;
  const lines = [
    ['PLATFORM', 'MODEL', 'DEFAULT', 'STATUS', 'REPLACEMENT', 'SOURCE'],
    ...rows.map((r) => [
      r.platform,
      r.model,
      [r.default ? 'default' : '', r.configured ? 'configured' : ''].filter(Boolean).join(', ') || '-',
      status(r),
      r.replacement ?? '-',
      r.source ? `${r.source.url} (checked ${r.source.checked})` : '-',
    ]),
  ];
  out.stdout(
    `${table(lines)}\n\ncatalogue: ${catalogue.origins.join(' + ')}; dates compared with ${dayOf(now)}. ` +
      'google-ai-overview, google-ai-mode and copilot are their own model; openai-compatible uses OPENAI_COMPATIBLE_MODEL.\n',
  );
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * answerwatch doctor
 * ---------------------------------------------------------------------------------------------- */

const DOCTOR_USAGE = `usage: answerwatch doctor [--json]
Checks each configured platform's key and model against the provider's own models or account
endpoint (no paid call is made) and prints what works. Exit 0 when every configured platform is OK,
1 otherwise, 2 for a configuration the engines cannot even load.
`;

const PROVIDER_OF: Record<CataloguedPlatform, ProviderId> = {
  chatgpt: 'openai',
  perplexity: 'perplexity',
  gemini: 'gemini',
  claude: 'anthropic',
  grok: 'xai',
};

export type DoctorLevel = 'ok' | 'warn' | 'fail' | 'skip';

export interface DoctorLine {
  level: DoctorLevel;
  /** One platform, or the platforms sharing an account ("google-ai-overview, google-ai-mode"). */
  platform: string;
  text: string;
}

type Probe = { ok: true; body: unknown } | { ok: false; error: EngineError };

async function probe(ctx: CallContext, url: string, headers: Record<string, string> = {}): Promise<Probe> {
  try {
    return { ok: true, body: await callJson(ctx, { url, method: 'GET', headers }) };
  } catch (error) {
    if (isEngineError(error)) return { ok: false, error };
    throw error;
  }
}

/** The request path without the base URL or secrets, for the report. */
function shown(url: string): string {
  const u = new URL(url);
  for (const k of [...u.searchParams.keys()]) if (/key|token/i.test(k)) u.searchParams.set(k, '***');
  return `GET ${u.pathname}${u.search ? u.search.replace(/%2A/g, '*') : ''}`;
}

/** key refused / cannot check, from a failed probe. */
function keyProblem(platform: string, error: EngineError, variable: string): DoctorLine {
  if (error.kind === 'auth') return { level: 'fail', platform, text: `key refused (HTTP ${error.status ?? '?'}): check ${variable}` };
  return { level: 'fail', platform, text: `cannot check: ${error.message}` };
}

/** The ids of a models list: OpenAI/xAI/compatible `data[].id` (xAI may add `aliases`), or `models[]`. */
function listedIds(body: unknown): Set<string> {
  const b = body as { data?: unknown; models?: unknown } | undefined;
  const items = Array.isArray(b?.data) ? b!.data : Array.isArray(b?.models) ? b!.models : [];
  const ids = new Set<string>();
  for (const item of items as unknown[]) {
    if (typeof item === 'string') ids.add(item);
    const rec = item as { id?: unknown; name?: unknown; aliases?: unknown } | undefined;
    if (typeof rec?.id === 'string') ids.add(rec.id);
    if (typeof rec?.name === 'string') ids.add(rec.name.replace(/^models\//, ''));
    if (Array.isArray(rec?.aliases)) for (const a of rec!.aliases) if (typeof a === 'string') ids.add(a);
  }
  return ids;
}

function shutdownDate(body: unknown, model: string): string | undefined {
  const data = (body as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return undefined;
  const rec = data.find((d) => (d as { id?: unknown })?.id === model) as { shutdown_date?: unknown } | undefined;
  return typeof rec?.shutdown_date === 'string' ? rec.shutdown_date : undefined;
}

interface DoctorContext {
  registry: EngineRegistry;
  fetch: FetchLike;
  catalogue: Catalogue;
}

/** What the catalogue says about a configured model: retired (fail), deprecated (warn), else nothing. */
function catalogueLine(d: DoctorContext, platform: PlatformId, cfg: PlatformConfig): DoctorLine | undefined {
  const st = d.registry.modelStatus(cfg.model);
  const variable = `${cfg.prefix}_MODEL`;
  if (st.status === 'retired') return { level: 'fail', platform, text: `model ${cfg.model} (${variable}) is retired: ${st.message}` };
  if (st.status === 'deprecated') return { level: 'warn', platform, text: `model ${cfg.model} is deprecated: ${st.message}` };
  return undefined;
}

/** model listed / model missing (with the replacement: the catalogue's, else a catalogued model the account lists, else the default). */
function modelLine(
  d: DoctorContext,
  platform: PlatformId,
  cfg: PlatformConfig,
  listed: boolean,
  how: string,
  checkedAs = cfg.model,
  accountIds?: Set<string>,
): DoctorLine {
  if (listed) return { level: 'ok', platform, text: `model ${checkedAs} listed (${how})` };
  const st = d.registry.modelStatus(cfg.model);
  const variable = `${cfg.prefix}_MODEL`;
  let advice = st.message;
  if (!advice) {
    const candidates = d.registry.knownModels(platform).filter((m) => m !== cfg.model);
    const offered = accountIds && candidates.find((m) => accountIds.has(m));
    const fallback = isCatalogued(platform) ? d.catalogue.platforms[platform].default : undefined;
    advice = offered
      ? `the account lists ${offered}: set ${variable}=${offered} (see \`answerwatch models\`)`
      : fallback && fallback !== cfg.model
        ? `the default is ${fallback}: set ${variable}=${fallback} or unset it`
        : 'see `answerwatch models`';
  }
  return { level: 'fail', platform, text: `model ${checkedAs} missing (${how}): ${advice}` };
}

async function checkPlatform(d: DoctorContext, platform: PlatformId, cfg: PlatformConfig): Promise<DoctorLine[]> {
  const ctx: CallContext = { platform, fetch: d.fetch, timeoutMs: Math.min(cfg.timeoutMs, 30_000), authVariable: cfg.authVariable };
  const lines: DoctorLine[] = [];
  const retired = catalogueLine(d, platform, cfg);
  const skipModel = retired?.level === 'fail';
  const bearer = { authorization: `Bearer ${cfg.apiKey ?? ''}` };

  // Providers with a models list: one GET answers both questions.
  const listCheck = async (url: string, headers: Record<string, string>) => {
    const r = await probe(ctx, url, headers);
    if (!r.ok) return lines.push(keyProblem(platform, r.error, cfg.authVariable));
    // A local server without a key has no key to accept; it answered, which is what matters.
    lines.push({ level: 'ok', platform, text: `${cfg.apiKey ? 'key OK' : 'server answers (no key set)'} (${shown(url)})` });
    if (skipModel) return;
    const ids = listedIds(r.body);
    const listed = ids.has(cfg.model);
    lines.push(modelLine(d, platform, cfg, listed, shown(url), cfg.model, ids));
    const shutdown = listed ? shutdownDate(r.body, cfg.model) : undefined;
    if (shutdown && !retired) lines.push({ level: 'warn', platform, text: `model ${cfg.model}: the provider announces its shutdown on ${shutdown}` });
  };
  // Providers answering one model by id: 200 listed, 404 missing (the key was accepted), 401/403 refused.
  const retrieveCheck = async (url: string, headers: Record<string, string>) => {
    const r = await probe(ctx, url, headers);
    if (r.ok) {
      lines.push({ level: 'ok', platform, text: `key OK (${shown(url)})` });
      if (!skipModel) lines.push(modelLine(d, platform, cfg, true, shown(url)));
    } else if (r.error.kind === 'rejected' && r.error.status === 404) {
      lines.push({ level: 'ok', platform, text: `key OK (${shown(url)}: 404 for the model)` });
      if (!skipModel) lines.push(modelLine(d, platform, cfg, false, shown(url)));
    } else lines.push(keyProblem(platform, r.error, cfg.authVariable));
  };

  switch (cfg.provider) {
    case 'openai':
    case 'xai':
      await listCheck(`${cfg.baseUrl}/models`, bearer);
      break;
    case 'openai-compatible':
      await listCheck(`${cfg.baseUrl}/models`, cfg.apiKey ? bearer : {});
      break;
    case 'anthropic':
      await retrieveCheck(`${cfg.baseUrl}/models/${encodeURIComponent(cfg.model)}`, { 'x-api-key': cfg.apiKey ?? '', 'anthropic-version': '2023-06-01' });
      break;
    case 'gemini':
      await retrieveCheck(`${cfg.baseUrl}/models/${encodeURIComponent(cfg.model)}`, { 'x-goog-api-key': cfg.apiKey ?? '' });
      break;
    case 'perplexity': {
      // Perplexity's models list needs no key; reading a response does. An unknown id answers 404 (a
      // refusal of the id, not of the key) when the key is good, 401/403 when it is not.
      const keyUrl = `${cfg.baseUrl}/v1/responses/resp_00000000-0000-4000-8000-000000000000`;
      const k = await probe(ctx, keyUrl, bearer);
      if (k.ok || k.error.kind === 'rejected')
        lines.push({ level: 'ok', platform, text: `key OK (GET /v1/responses/<unknown id>: ${k.ok ? '200' : `HTTP ${k.error.status} for the id`})` });
      else lines.push(keyProblem(platform, k.error, cfg.authVariable));
      if (skipModel) break;
      if (cfg.api === 'sonar') {
        lines.push({ level: 'warn', platform, text: `model ${cfg.model}: cannot check (Perplexity's models list covers the Agent API; PERPLEXITY_API=sonar)` });
        break;
      }
      const selector = agentSelector(cfg.model);
      if ('preset' in selector) {
        lines.push({ level: 'warn', platform, text: `model ${cfg.model}: runs as Agent API preset "${selector.preset}"; presets are not listed, cannot check` });
        break;
      }
      const listUrl = `${cfg.baseUrl}/v1/models`;
      const l = await probe(ctx, listUrl);
      if (!l.ok) lines.push({ level: 'fail', platform, text: `cannot check the model: ${l.error.message}` });
      else lines.push(modelLine(d, platform, cfg, listedIds(l.body).has(selector.model), shown(listUrl), selector.model === cfg.model ? cfg.model : `${cfg.model} (${selector.model})`));
      break;
    }
    case 'serpapi': {
      const url = `${cfg.baseUrl}/account.json?api_key=${encodeURIComponent(cfg.apiKey ?? '')}`;
      const r = await probe(ctx, url);
      if (!r.ok) return [keyProblem(platform, r.error, cfg.authVariable)];
      const left = (r.body as { total_searches_left?: unknown } | undefined)?.total_searches_left;
      if (left === 0) lines.push({ level: 'fail', platform, text: `key OK but no searches left (${shown(url)})` });
      else lines.push({ level: 'ok', platform, text: `key OK${typeof left === 'number' ? ` (${left} searches left)` : ''} (${shown(url)})` });
      break;
    }
    case 'dataforseo': {
      const url = `${cfg.baseUrl}/v3/appendix/user_data`;
      const r = await probe(ctx, url, { authorization: `Basic ${btoa(`${cfg.login}:${cfg.password}`)}` });
      if (!r.ok) return [keyProblem(platform, r.error, cfg.authVariable)];
      const body = r.body as { status_code?: unknown; status_message?: unknown; tasks?: Array<{ result?: Array<{ money?: { balance?: unknown } }> }> };
      if (typeof body?.status_code === 'number' && body.status_code !== 20000) {
        const refused = body.status_code >= 40100 && body.status_code < 40300;
        lines.push({
          level: 'fail',
          platform,
          text: `${refused ? 'key refused' : 'cannot check'} (DataForSEO ${body.status_code} ${String(body.status_message ?? '')})${refused ? `: check ${cfg.authVariable}` : ''}`,
        });
        break;
      }
      const balance = body?.tasks?.[0]?.result?.[0]?.money?.balance;
      lines.push({ level: 'ok', platform, text: `key OK${typeof balance === 'number' ? ` (balance ${balance} USD)` : ''} (${shown(url)})` });
      break;
    }
    case 'searchapi': {
      const url = `${cfg.baseUrl}/me`;
      const r = await probe(ctx, url, bearer);
      if (!r.ok) return [keyProblem(platform, r.error, cfg.authVariable)];
      const left = (r.body as { account?: { remaining_credits?: unknown } } | undefined)?.account?.remaining_credits;
      if (typeof left === 'number' && left <= 0) lines.push({ level: 'fail', platform, text: `key OK but no credits left (${shown(url)})` });
      else lines.push({ level: 'ok', platform, text: `key OK${typeof left === 'number' ? ` (${left} credits left)` : ''} (${shown(url)})` });
      break;
    }
  }
  if (retired) lines.push(retired);
  return lines;
}

/**
 * Every configured platform's key and model checked against the provider's own models or account
 * endpoint (OpenAI, xAI and compatible servers: GET /models; Anthropic: GET /v1/models/{id}; Gemini:
 * GET /v1beta/models/{id}; Perplexity: GET /v1/models, and the key with GET /v1/responses/{unknown
 * id}; SerpApi: GET /account.json; DataForSEO: GET /v3/appendix/user_data; SearchApi: GET /me).
 */
export async function doctorReport(
  env: Record<string, string | undefined>,
  options: { fetch?: FetchLike; now?: Date } = {},
): Promise<{ lines: DoctorLine[]; ok: boolean }> {
  const now = options.now ?? new Date();
  const config = loadEngineConfig(env, { now, refuseRetired: false });
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const registry = createEngineRegistry(config, { fetch: fetchFn, now: () => now });
  const d: DoctorContext = { registry, fetch: fetchFn, catalogue: config.catalogue };
  const groups: Array<{ label: string; cfg: PlatformConfig; platform: PlatformId }> = [];
  const skipped: DoctorLine[] = [];
  for (const platform of PLATFORM_IDS) {
    const cfg = config.platforms[platform];
    if (cfg.missing) {
      skipped.push({ level: 'skip', platform, text: `not configured (set ${cfg.missing})` });
      continue;
    }
    // The two Google surfaces share one SerpApi or DataForSEO account: check it once.
    const shared = SERP_PLATFORMS.has(platform) && groups.find((g) => g.cfg.provider === cfg.provider && g.cfg.prefix === cfg.prefix);
    if (shared) shared.label = `${shared.label}, ${platform}`;
    else groups.push({ label: platform, cfg, platform });
  }
  const checked = await Promise.all(groups.map(async (g) => (await checkPlatform(d, g.platform, g.cfg)).map((l) => ({ ...l, platform: g.label }))));
  const lines = [...checked.flat(), ...skipped];
  return { lines, ok: groups.length > 0 && !lines.some((l) => l.level === 'fail') };
}

/** `answerwatch doctor`: exit 0 when every configured platform is OK, 1 otherwise, 2 when the configuration cannot load. */
export async function runDoctorCommand(
  args: string[],
  env: Record<string, string | undefined>,
  out: CommandOutput = consoleOutput,
  options: { fetch?: FetchLike; now?: Date } = {},
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    out.stderr(`${(error as Error).message}\n${DOCTOR_USAGE}`);
    return 2;
  }
  if (values.help) {
    out.stdout(DOCTOR_USAGE);
    return 0;
  }
  let report;
  try {
    report = await doctorReport(env, options);
  } catch (error) {
    if (isEngineError(error) && error.kind === 'config') {
      out.stderr(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const { lines, ok } = report;
  if (values.json) {
    out.stdout(`${JSON.stringify({ ok, checks: lines }, null, 2)}\n`);
    return ok ? 0 : 1;
  }
  const mark: Record<DoctorLevel, string> = { ok: 'ok', warn: 'WARN', fail: 'FAIL', skip: '--' };
  const width = Math.max(...lines.map((l) => l.platform.length));
  const failing = [...new Set(lines.filter((l) => l.level === 'fail').map((l) => l.platform))];
  out.stdout(
    `${lines.map((l) => `${mark[l.level].padEnd(4)}  ${l.platform.padEnd(width)}  ${l.text}`).join('\n')}\n\n` +
      (ok
        ? 'every configured platform is OK\n'
        : failing.length
          ? `needs attention: ${failing.join('; ')}\n`
          : 'no platform is configured: set an API key such as OPENAI_API_KEY (see .env.example)\n'),
  );
  return ok ? 0 : 1;
}
