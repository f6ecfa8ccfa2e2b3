// Sizes users may give, shared by every write path and the web app's forms (README: Security).

/** Longest prompt text: a prompt is sent to every engine on every run, so its size is work multiplied. */
export const MAX_PROMPT_CHARS = 2000;

/**
 * A brand's pixel tracking code: what a beacon names and what the snippet a site pastes carries.
 * Only these characters, so the snippet (an HTML attribute on every page of a customer's site)
 * can never carry markup, whoever of the organization set the code.
 */
export const TRACKING_CODE = /^[A-Za-z0-9_-]{1,64}$/;

/** Longest name of a brand or competitor: each name is compiled into the matcher every answer is read with. */
export const MAX_NAME_CHARS = 200;

/**
 * A brand's language as the engines and the analysis take it: a BCP 47 tag Intl accepts (en, de,
 * pt-BR, tlh, zh-Hant), at most 35 characters. Sent on every unit, so never free text.
 */
export function isLanguageTag(value: string): boolean {
  if (value.length > 35 || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/.test(value)) return false;
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

/** Aliases of a brand or competitor: as many and as long as a JSON list column holds (REST's rule). */
export const MAX_ALIASES = 100;
export const MAX_ALIAS_CHARS = 500;

/**
 * A key's text as a database index can hold it: PostgreSQL refuses a B-tree entry over ~2.7 KB,
 * and such a value failed the whole batch it rode in. Caps count UTF-8 bytes, not characters (a
 * character may take four), so a key of any script fits.
 */
export const MAX_KEY_TEXT_BYTES = 2048;

/** `text` cut to at most `maxBytes` of UTF-8, never inside a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  const bytes = Buffer.from(text).subarray(0, maxBytes);
  // Back off any continuation bytes (10xxxxxx) and the lead byte of a character cut short.
  let end = bytes.length;
  let back = 0;
  while (back < 4 && end - back > 0 && (bytes[end - back - 1]! & 0xc0) === 0x80) back++;
  const lead = bytes[end - back - 1];
  if (lead !== undefined && lead >= 0xc0) {
    const width = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (back + 1 < width) end -= back + 1;
  }
  return bytes.subarray(0, end).toString("utf8");
}
