/**
 * The model catalogue: per platform the default model and the known models with their retirement
 * dates and replacements, each fact with its source. Data, not code: `data/models.json` is shipped
 * inside the binary (a JSON import, which `bun build --compile` embeds), and `MODELS_FILE` may name a
 * file in the same format whose entries merge over the shipped ones (see `mergeCatalogues`).
 */
import { readFileSync } from 'node:fs';
import shipped from './data/models.json' with { type: 'json' };
import type { PlatformId } from './types';

/** The platforms whose models come and go; the SERP surfaces and the compatible endpoint are not catalogued. */
export const CATALOGUED_PLATFORMS = ['chatgpt', 'perplexity', 'gemini', 'claude', 'grok'] as const;
export type CataloguedPlatform = (typeof CATALOGUED_PLATFORMS)[number];

export function isCatalogued(platform: string): platform is CataloguedPlatform {
  return (CATALOGUED_PLATFORMS as readonly string[]).includes(platform);
}

/** Who retires the models of each platform (for messages). */
export const MODEL_PROVIDERS: Record<CataloguedPlatform, string> = {
  chatgpt: 'OpenAI',
  perplexity: 'Perplexity',
  gemini: 'Google',
  claude: 'Anthropic',
  grok: 'xAI',
};

/** Where a fact comes from: the page, and the day it was read. */
export interface FactSource {
  url: string;
  checked: string;
}

export interface CatalogueModel {
  id: string;
  /** Other ids naming the same model (dated snapshots, `-latest` aliases); they share its status. */
  aliases: string[];
  /** Set when there is no date to go by; otherwise the status follows from `retires`. */
  status?: 'active' | 'deprecated' | 'retired';
  /** YYYY-MM-DD: the first day requests fail. Before it the model is deprecated, from it retired. */
  retires?: string;
  replacement?: string;
  note?: string;
  source: FactSource;
}

export interface CataloguePlatform {
  default: string;
  source: FactSource;
  models: CatalogueModel[];
}

export interface Catalogue {
  platforms: Record<CataloguedPlatform, CataloguePlatform>;
  /** Where the entries came from: "shipped", then the MODELS_FILE path when one was merged. */
  origins: string[];
}

export type ModelStatusName = 'active' | 'deprecated' | 'retired' | 'unknown';

export interface ModelStatus {
  model: string;
  /** The platform the id belongs to, when known. */
  platform?: PlatformId;
  status: ModelStatusName;
  /** The catalogue entry's id (the model may be one of its aliases). */
  id?: string;
  retiresOn?: string;
  /** The model to use instead; followed through replacements that are themselves retired. */
  replacement?: string;
  note?: string;
  source?: FactSource;
  /** One sentence for a deprecated or retired model: what happened, what to use, and the source. */
  message?: string;
}

/** A MODELS_FILE (or the shipped file) that does not have the catalogue's shape; `problems` name file and field. */
export class CatalogueError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'CatalogueError';
  }
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isDate(value: unknown): value is string {
  return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
}

function isUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const show = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The platform parts a file may carry; in MODELS_FILE every part is optional. */
interface PartialPlatform {
  default?: string;
  source?: FactSource;
  replace?: boolean;
  models: CatalogueModel[];
}

/**
 * Validates a parsed catalogue file. `complete` (the shipped file) requires every catalogued platform
 * with its default; an override may name only what it changes. Every problem names the file and the
 * field, e.g. `models.json: platforms.grok.models[2].retires: expected a date YYYY-MM-DD, got "May 15"`.
 */
export function parseCatalogueFile(
  value: unknown,
  origin: string,
  complete: boolean,
): { platforms: Partial<Record<CataloguedPlatform, PartialPlatform>>; problems: string[] } {
  const problems: string[] = [];
  const bad = (field: string, problem: string) => problems.push(`${origin}: ${field}: ${problem}`);
  const platforms: Partial<Record<CataloguedPlatform, PartialPlatform>> = {};
  if (!isObj(value)) {
    bad('(top level)', `expected an object with "platforms", got ${show(value)}`);
    return { platforms, problems };
  }
  for (const key of Object.keys(value)) {
    if (!['version', 'platforms', '$schema', '$comment'].includes(key)) bad(key, 'unknown field (allowed: version, platforms)');
  }
  if (value.version !== undefined && value.version !== 1) bad('version', `expected 1, got ${show(value.version)}`);
  if (!isObj(value.platforms)) {
    bad('platforms', `expected an object keyed by platform (${CATALOGUED_PLATFORMS.join(', ')}), got ${show(value.platforms)}`);
    return { platforms, problems };
  }

  const source = (field: string, v: unknown): FactSource | undefined => {
    if (!isObj(v)) {
      bad(field, `expected {"url": "https://…", "checked": "YYYY-MM-DD"}, got ${show(v)}`);
      return undefined;
    }
    let ok = true;
    if (!isUrl(v.url)) (bad(`${field}.url`, `expected an http(s) URL, got ${show(v.url)}`), (ok = false));
    if (!isDate(v.checked)) (bad(`${field}.checked`, `expected a date YYYY-MM-DD, got ${show(v.checked)}`), (ok = false));
    for (const k of Object.keys(v)) if (k !== 'url' && k !== 'checked') bad(`${field}.${k}`, 'unknown field (allowed: url, checked)');
    return ok ? { url: v.url as string, checked: v.checked as string } : undefined;
  };
  const modelId = (field: string, v: unknown): v is string => {
    if (typeof v === 'string' && v.trim() !== '' && v === v.trim()) return true;
    bad(field, `expected a model id (a non-empty string without surrounding spaces), got ${show(v)}`);
    return false;
  };

  for (const [name, raw] of Object.entries(value.platforms)) {
    const at = `platforms.${name}`;
    if (!isCatalogued(name)) {
      bad(at, `unknown platform (allowed: ${CATALOGUED_PLATFORMS.join(', ')})`);
      continue;
    }
    if (!isObj(raw)) {
      bad(at, `expected an object with default, source and models, got ${show(raw)}`);
      continue;
    }
    for (const key of Object.keys(raw)) {
      if (!['default', 'source', 'models', 'replace'].includes(key)) bad(`${at}.${key}`, 'unknown field (allowed: default, source, models, replace)');
    }
    const platform: PartialPlatform = { models: [] };
    if (raw.default !== undefined || complete) {
      if (modelId(`${at}.default`, raw.default)) platform.default = raw.default;
    }
    if (raw.source !== undefined || complete || raw.default !== undefined) platform.source = source(`${at}.source`, raw.source);
    if (raw.replace !== undefined) {
      if (typeof raw.replace === 'boolean') platform.replace = raw.replace;
      else bad(`${at}.replace`, `expected true or false, got ${show(raw.replace)}`);
    }
    if (raw.models !== undefined || complete) {
      if (!Array.isArray(raw.models)) bad(`${at}.models`, `expected an array of models, got ${show(raw.models)}`);
      else {
        const seen = new Set<string>();
        raw.models.forEach((m: unknown, i: number) => {
          const mat = `${at}.models[${i}]`;
          if (!isObj(m)) {
            bad(mat, `expected an object with id and source, got ${show(m)}`);
            return;
          }
          for (const key of Object.keys(m)) {
            if (!['id', 'aliases', 'status', 'retires', 'replacement', 'note', 'source'].includes(key))
              bad(`${mat}.${key}`, 'unknown field (allowed: id, aliases, status, retires, replacement, note, source)');
          }
          const before = problems.length;
          const id = modelId(`${mat}.id`, m.id) ? (m.id as string) : undefined;
          const aliases: string[] = [];
          if (m.aliases !== undefined) {
            if (!Array.isArray(m.aliases)) bad(`${mat}.aliases`, `expected an array of model ids, got ${show(m.aliases)}`);
            else m.aliases.forEach((a: unknown, j: number) => modelId(`${mat}.aliases[${j}]`, a) && aliases.push(a as string));
          }
          for (const n of [id, ...aliases]) {
            if (n === undefined) continue;
            if (seen.has(n)) bad(`${mat}.id`, `"${n}" appears twice in ${at}.models`);
            seen.add(n);
          }
          if (m.status !== undefined && !['active', 'deprecated', 'retired'].includes(m.status as string))
            bad(`${mat}.status`, `expected active, deprecated or retired, got ${show(m.status)}`);
          if (m.retires !== undefined && !isDate(m.retires)) bad(`${mat}.retires`, `expected a date YYYY-MM-DD, got ${show(m.retires)}`);
          if (m.status === 'active' && m.retires !== undefined) bad(`${mat}.status`, 'a model with a retirement date cannot be active');
          if (m.replacement !== undefined) {
            if (modelId(`${mat}.replacement`, m.replacement) && m.replacement === id) bad(`${mat}.replacement`, 'a model cannot replace itself');
          }
          if (m.note !== undefined && typeof m.note !== 'string') bad(`${mat}.note`, `expected a string, got ${show(m.note)}`);
          const src = source(`${mat}.source`, m.source);
          if (problems.length === before && id && src) {
            platform.models.push({
              id,
              aliases,
              ...(m.status !== undefined ? { status: m.status as CatalogueModel['status'] } : {}),
              ...(m.retires !== undefined ? { retires: m.retires as string } : {}),
              ...(m.replacement !== undefined ? { replacement: m.replacement as string } : {}),
              ...(m.note !== undefined ? { note: m.note as string } : {}),
              source: src,
            });
          }
        });
      }
    }
    platforms[name] = platform;
  }
  if (complete) {
    for (const p of CATALOGUED_PLATFORMS) if (!platforms[p]) bad(`platforms.${p}`, 'missing');
  }
  return { platforms, problems };
}

/**
 * Override semantics: a platform's `default` (with its `source`) replaces the shipped one when
 * given; a model entry replaces the shipped entry with the same id whole (a fact comes with its own
 * source, so fields are not mixed from two files); new ids are added; `"replace": true` drops the
 * shipped models of that platform first. Platforms the override does not name stay as shipped.
 */
export function mergeCatalogues(base: Catalogue, override: Partial<Record<CataloguedPlatform, PartialPlatform>>, origin: string): Catalogue {
  const platforms = { ...base.platforms };
  for (const p of CATALOGUED_PLATFORMS) {
    const o = override[p];
    if (!o) continue;
    const b = base.platforms[p];
    const byId = new Map(o.models.map((m) => [m.id, m]));
    const kept = o.replace ? [] : b.models.filter((m) => !byId.has(m.id));
    platforms[p] = {
      default: o.default ?? b.default,
      source: o.default !== undefined && o.source ? o.source : b.source,
      models: [...o.models, ...kept],
    };
  }
  return { platforms, origins: [...base.origins, origin] };
}

function complete(platforms: Partial<Record<CataloguedPlatform, PartialPlatform>>): Record<CataloguedPlatform, CataloguePlatform> {
  return Object.fromEntries(
    CATALOGUED_PLATFORMS.map((p) => [p, { default: platforms[p]!.default!, source: platforms[p]!.source!, models: platforms[p]!.models }]),
  ) as Record<CataloguedPlatform, CataloguePlatform>;
}

let shippedCatalogue: Catalogue | undefined;

/** The catalogue built into the binary. */
export function shippedModels(): Catalogue {
  if (!shippedCatalogue) {
    const { platforms, problems } = parseCatalogueFile(shipped, 'src/engines/data/models.json', true);
    if (problems.length) throw new CatalogueError(problems);
    shippedCatalogue = { platforms: complete(platforms), origins: ['shipped'] };
  }
  return shippedCatalogue;
}

/** YYYY-MM-DD in UTC: the day a retirement date is compared with. */
export function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * The shipped catalogue, merged with `modelsFile` when given. Throws a CatalogueError whose problems
 * each name the file and the field. A merged default must not be a retired model.
 */
export function loadCatalogue(modelsFile: string | undefined, options: { now?: Date; readFile?: (path: string) => string } = {}): Catalogue {
  const base = shippedModels();
  if (!modelsFile) return base;
  let text: string;
  try {
    text = (options.readFile ?? ((p) => readFileSync(p, 'utf8')))(modelsFile);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CatalogueError([`${modelsFile}: cannot be read${typeof code === 'string' ? ` (${code})` : ''}`]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CatalogueError([`${modelsFile}: not valid JSON: ${(error as Error).message}`]);
  }
  const { platforms, problems } = parseCatalogueFile(value, modelsFile, false);
  if (problems.length) throw new CatalogueError(problems);
  const merged = mergeCatalogues(base, platforms, modelsFile);
  const today = dayOf(options.now ?? new Date());
  for (const p of CATALOGUED_PLATFORMS) {
    const st = modelStatus(merged, merged.platforms[p].default, today);
    if (st.status === 'retired') problems.push(`${modelsFile}: platforms.${p}.default: ${st.message}`);
  }
  if (problems.length) throw new CatalogueError(problems);
  return merged;
}

function findEntry(catalogue: Catalogue, model: string): { platform: CataloguedPlatform; entry: CatalogueModel } | undefined {
  for (const p of CATALOGUED_PLATFORMS) {
    const entry = catalogue.platforms[p].models.find((m) => m.id === model || m.aliases.includes(model));
    if (entry) return { platform: p, entry };
  }
  return undefined;
}

function entryStatus(entry: CatalogueModel, today: string): 'active' | 'deprecated' | 'retired' {
  if (entry.retires) return entry.retires <= today ? 'retired' : 'deprecated';
  return entry.status ?? 'active';
}

/**
 * What the catalogue says about a model id: its platform, status, retirement date, replacement and
 * source. `today` is YYYY-MM-DD; a model is retired from its `retires` day on. The replacement is
 * followed while it is itself retired, so the advice is a model that works.
 */
export function modelStatus(catalogue: Catalogue, model: string, today: string): ModelStatus {
  const found = findEntry(catalogue, model);
  if (!found) return { model, status: 'unknown' };
  const { platform, entry } = found;
  const status = entryStatus(entry, today);
  let replacement = entry.replacement;
  for (let hops = 0; replacement && hops < 5; hops++) {
    const next = findEntry(catalogue, replacement);
    if (!next || entryStatus(next.entry, today) !== 'retired' || !next.entry.replacement) break;
    replacement = next.entry.replacement;
  }
  const result: ModelStatus = {
    model,
    platform,
    status,
    id: entry.id,
    ...(entry.retires ? { retiresOn: entry.retires } : {}),
    ...(replacement ? { replacement } : {}),
    ...(entry.note ? { note: entry.note } : {}),
    source: entry.source,
  };
  if (status !== 'active') result.message = describe(result, catalogue.platforms[platform].default);
  return result;
}

/** "grok-3 was retired by xAI on 2026-05-15; use grok-4.3 instead (source: https://…, checked 2026-11-23)". */
function describe(st: ModelStatus, platformDefault: string): string {
  const provider = MODEL_PROVIDERS[st.platform as CataloguedPlatform];
  const what =
    st.status === 'retired'
      ? `${st.model} was retired by ${provider}${st.retiresOn ? ` on ${st.retiresOn}` : ''}`
      : `${st.model} is deprecated by ${provider}${st.retiresOn ? ` and stops working on ${st.retiresOn}` : ''}`;
  const use = st.replacement ? `use ${st.replacement} instead` : `use another model (the default is ${platformDefault}; see \`answerwatch models\`)`;
  const src = st.source ? ` (source: ${st.source.url}, checked ${st.source.checked})` : '';
  return `${what}; ${use}${src}`;
}

/** The ids of a platform a caller may still choose: active and deprecated ones, catalogue order. */
export function usableModels(catalogue: Catalogue, platform: CataloguedPlatform, today: string): string[] {
  return catalogue.platforms[platform].models.filter((m) => entryStatus(m, today) !== 'retired').map((m) => m.id);
}

/** Every id and alias of a platform, retired ones included (to recognise the platform of a retired id). */
export function allModelIds(catalogue: Catalogue, platform: CataloguedPlatform): string[] {
  return catalogue.platforms[platform].models.flatMap((m) => [m.id, ...m.aliases]);
}
