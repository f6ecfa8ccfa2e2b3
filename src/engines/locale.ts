/**
 * Region and language helpers. Region is an ISO 3166-1 alpha-2 code ("US"), language a BCP 47 tag
 * ("en", "pt-BR"). Upstreams that take them get them as parameters; the others get one instruction line.
 */

// Intl.DisplayNames is slow to build and to ask, and this ran once per upstream call: names are
// kept (a handful of codes in practice; the cap only guards against unbounded input).
const displayNames = new Map<string, string | undefined>();

function lookUp(type: 'language' | 'region', code: string): string | undefined {
  try {
    const name = new Intl.DisplayNames(['en'], { type }).of(code);
    return name && name !== code ? name : undefined;
  } catch {
    return undefined;
  }
}

function displayName(type: 'language' | 'region', code: string): string | undefined {
  const key = `${type}:${code}`;
  if (!displayNames.has(key)) {
    if (displayNames.size >= 1000) displayNames.clear();
    displayNames.set(key, lookUp(type, code));
  }
  return displayNames.get(key);
}

/** "Answer in German." — the one line sent where the API has no language parameter. */
export function languageInstruction(language: string | undefined): string | undefined {
  if (!language) return undefined;
  return `Answer in ${displayName('language', language) ?? language}.`;
}

/** English country name, as DataForSEO's location_name wants it ("United States"). */
export function countryName(region: string): string {
  return displayName('region', region.toUpperCase()) ?? region;
}

/** Google's gl: lowercase country, with the UK spelled as Google spells it. */
export function googleCountry(region: string): string {
  const r = region.toLowerCase();
  return r === 'gb' ? 'uk' : r;
}

/** Google's hl: lowercase language tag ("pt-br"). */
export function googleLanguage(language: string): string {
  return language.toLowerCase();
}

/** Approximate user location as OpenAI and Anthropic web search tools take it. */
export function approximateLocation(region: string | undefined): { type: 'approximate'; country: string } | undefined {
  return region ? { type: 'approximate', country: region.toUpperCase() } : undefined;
}
