/**
 * Region and language, as each upstream wants them. Region is an ISO 3166-1 alpha-2 code ("US"),
 * language a BCP 47 tag ("en", "pt-BR"). Every value sent comes from a shipped table
 * (src/engines/data/locales, sources in its README): a region or language a table does not know is
 * not sent at all. Upstreams without a field for the language get one instruction line instead.
 */
import googleGeoTargets from './data/locales/google-geotargets-countries.json';
import iso3166 from './data/locales/iso-3166-1.json';
import iso6391List from './data/locales/iso-639-1.json';
import serpApiCountryList from './data/locales/serpapi-google-countries.json';
import serpApiLanguageList from './data/locales/serpapi-google-languages.json';
import { isLanguageTag } from '../common/limits';

const ISO_COUNTRIES: ReadonlySet<string> = new Set(Object.keys(iso3166));
const ISO_639_1: ReadonlySet<string> = new Set(iso6391List);
const GEO_TARGETS: Readonly<Record<string, { id: number; name?: string }>> = googleGeoTargets;
const SERPAPI_GL: ReadonlySet<string> = new Set(serpApiCountryList);
const SERPAPI_HL: ReadonlySet<string> = new Set(serpApiLanguageList);

/**
 * DataForSEO serves no location in these countries ("All locations in Russia and Belarus are no
 * longer supported across all DataForSEO services", its locations endpoints' documentation).
 */
const DATAFORSEO_EXCLUDED: ReadonlySet<string> = new Set(['RU', 'BY']);

/** Region spellings people type that are not ISO 3166-1 alpha-2 but mean one: Google's and the BBC's "UK". */
const REGION_ALIASES: Record<string, string> = { UK: 'GB' };

/**
 * Withdrawn ISO 639 codes still in use (Java, old Google) mapped to their successors, and Filipino
 * (ISO 639-2 `fil`, no 639-1 code) to Tagalog `tl`, the code Google and ISO 639-1 use for it.
 */
const LANGUAGE_ALIASES: Record<string, string> = { iw: 'he', in: 'id', ji: 'yi', jw: 'jv', fil: 'tl' };

/* ------------------------------------------------------------------------------------------------
 * Parsing
 * ---------------------------------------------------------------------------------------------- */

/** The ISO 3166-1 alpha-2 code of a region ("de" → "DE", "UK" → "GB"), or undefined when it is none. */
export function isoRegion(region: string | undefined): string | undefined {
  if (!region) return undefined;
  const r = region.trim().toUpperCase();
  const code = REGION_ALIASES[r] ?? r;
  return ISO_COUNTRIES.has(code) ? code : undefined;
}

interface LanguageTag {
  /** Lower-case primary subtag, aliases resolved ("iw" → "he"). */
  language: string;
  /** Title-case script subtag ("Hant"), if any. */
  script?: string;
  /** Upper-case region subtag ("BR") or UN M.49 area ("419"), if any. */
  region?: string;
}

/** The parts of a BCP 47 tag that matter here ("pt_br" and "PT-BR" read as pt-BR); undefined for garbage. */
function parseLanguage(tag: string | undefined): LanguageTag | undefined {
  if (!tag) return undefined;
  const parts = tag.trim().replace(/_/g, '-').split('-');
  const primary = parts[0]?.toLowerCase() ?? '';
  if (!/^[a-z]{2,3}$/.test(primary)) return undefined;
  const out: LanguageTag = { language: LANGUAGE_ALIASES[primary] ?? primary };
  for (const part of parts.slice(1)) {
    if (/^[a-z]{4}$/i.test(part) && !out.script && !out.region) out.script = part[0]!.toUpperCase() + part.slice(1).toLowerCase();
    else if (/^([a-z]{2}|\d{3})$/i.test(part) && !out.region) out.region = part.toUpperCase();
  }
  return out;
}

/** Chinese written in traditional characters: zh-Hant, or the places that use it (TW, HK, MO). */
function isTraditionalChinese(tag: LanguageTag): boolean {
  return tag.script === 'Hant' || (tag.script === undefined && ['TW', 'HK', 'MO'].includes(tag.region ?? ''));
}

/** The ISO 639-1 code of a language tag ("pt-BR" → "pt", "iw" → "he"), or undefined when it has none. */
export function iso639_1(language: string | undefined): string | undefined {
  const tag = parseLanguage(language);
  return tag && ISO_639_1.has(tag.language) ? tag.language : undefined;
}

/* ------------------------------------------------------------------------------------------------
 * Instruction line (upstreams with no language field)
 * ---------------------------------------------------------------------------------------------- */

// Intl.DisplayNames is slow to build and to ask, and this ran once per upstream call: names are
// kept (a handful of codes in practice; the cap only guards against unbounded input).
const displayNames = new Map<string, string | undefined>();

function lookUp(code: string): string | undefined {
  try {
    const name = new Intl.DisplayNames(['en'], { type: 'language' }).of(code);
    return name && name !== code ? name : undefined;
  } catch {
    return undefined;
  }
}

function languageName(code: string): string | undefined {
  if (!displayNames.has(code)) {
    if (displayNames.size >= 1000) displayNames.clear();
    displayNames.set(code, lookUp(code));
  }
  return displayNames.get(code);
}

/** "Answer in German." — the one line sent where the API has no language parameter. */
export function languageInstruction(language: string | undefined): string | undefined {
  // Only a language code (rows written before they were checked may hold anything: it is sent on every unit).
  if (!language || !isLanguageTag(language)) return undefined;
  return `Answer in ${languageName(language) ?? language}.`;
}

/** "The user is in Germany." — the region as a line, for an upstream that refuses its location field. */
export function regionInstruction(region: string | undefined): string | undefined {
  const country = isoRegion(region);
  if (!country) return undefined;
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames(['en'], { type: 'region' }).of(country);
  } catch {
    name = undefined;
  }
  return `The user is in ${name ?? country}.`;
}

/* ------------------------------------------------------------------------------------------------
 * Per upstream
 * ---------------------------------------------------------------------------------------------- */

/**
 * Approximate user location as the OpenAI, xAI and Anthropic web search tools take it: the ISO
 * 3166-1 alpha-2 country only (the APIs' region/city/timezone are free text we do not have).
 */
export function approximateLocation(region: string | undefined): { type: 'approximate'; country: string } | undefined {
  const country = isoRegion(region);
  return country ? { type: 'approximate', country } : undefined;
}

/** Perplexity's web_search_options.user_location.country: ISO 3166-1 alpha-2. */
export function perplexityCountry(region: string | undefined): string | undefined {
  return isoRegion(region);
}

/** Perplexity's search_language_filter / language_preference: ISO 639-1 ("pt-BR" → "pt"). */
export function perplexityLanguage(language: string | undefined): string | undefined {
  return iso639_1(language);
}

/** SerpApi's `gl` (its Google countries list, lower case; the UK as Google spells it) and `location` (Google's canonical name). */
export function serpApiRegion(region: string | undefined): { gl?: string; location?: string } | undefined {
  const country = isoRegion(region);
  if (!country) return undefined;
  const gl = country === 'GB' ? 'uk' : country.toLowerCase();
  const location = GEO_TARGETS[country]?.name;
  const out = { ...(SERPAPI_GL.has(gl) ? { gl } : {}), ...(location ? { location } : {}) };
  return out.gl || out.location ? out : undefined;
}

/** SerpApi's `hl`: its Google languages list, which spells variants in lower case ("pt-br", "zh-tw", "es-419"). */
export function serpApiLanguage(language: string | undefined): string | undefined {
  const tag = parseLanguage(language);
  if (!tag) return undefined;
  if (tag.language === 'zh') return isTraditionalChinese(tag) ? 'zh-tw' : 'zh-cn';
  // Google still spells some languages with withdrawn or its own codes.
  const google = ({ he: 'iw', jv: 'jw', nb: 'no' } as Record<string, string>)[tag.language] ?? tag.language;
  const full = tag.region ? `${google}-${tag.region.toLowerCase()}` : undefined;
  if (full && SERPAPI_HL.has(full)) return full;
  return SERPAPI_HL.has(google) ? google : undefined;
}

/** DataForSEO's `location_code`: the Google Ads geo target criteria id of the country. */
export function dataForSeoLocation(region: string | undefined): number | undefined {
  const country = isoRegion(region);
  return country && !DATAFORSEO_EXCLUDED.has(country) ? GEO_TARGETS[country]?.id : undefined;
}

/**
 * DataForSEO's `language_code`: ISO 639-1 for the languages Google has an interface in (SerpApi's
 * list), except Chinese, which it splits into zh-CN and zh-TW.
 */
export function dataForSeoLanguage(language: string | undefined): string | undefined {
  const tag = parseLanguage(language);
  if (!tag) return undefined;
  if (tag.language === 'zh') return isTraditionalChinese(tag) ? 'zh-TW' : 'zh-CN';
  const hl = serpApiLanguage(tag.language);
  return hl && ISO_639_1.has(tag.language) ? tag.language : undefined;
}
