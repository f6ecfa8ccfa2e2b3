/** URL canonicalization, registrable domains and attribution of hosts to entities. */
import { getDomain, parse as parseHost } from "tldts";

// Query parameters that only say where a click came from; dropping them lets two links to
// the same page compare equal.
const TRACKING_PARAMS = new Set([
  "gclid", "gbraid", "wbraid", "dclid", "fbclid", "msclkid", "yclid", "twclid", "ttclid", "li_fat_id",
  "igshid", "mc_cid", "mc_eid", "_hsenc", "_hsmi", "hsctatracking", "mkt_tok", "srsltid", "_ga", "_gl",
  "ref", "ref_src", "ref_url", "spm", "oly_enc_id", "oly_anon_id", "vero_id", "wickedid", "rb_clickid",
  "s_cid", "cmpid", "icid", "ncid", "sr_share", "trk", "trkcampaign",
]);

export interface CanonicalUrl {
  /** Canonical form: lower-case host without `www.`, no fragment, no tracking parameters, sorted query. */
  normalized_url: string;
  /** Host without `www.` (null when the URL does not parse). */
  host: string | null;
  /** Registrable domain (public-suffix aware, private suffixes such as github.io included). */
  domain: string | null;
}

/**
 * Whether a cited URL can be a web page: http(s), or no scheme at all (`example.com/page`, read as
 * https). `javascript:`, `data:`, `mailto:` and other schemes are not sources (README: Security).
 */
export function isWebUrl(raw: unknown): boolean {
  if (typeof raw !== "string" || !raw.trim()) return false;
  const text = raw.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text);
  if (!scheme || /^https?$/i.test(scheme[1]!)) return true;
  // "example.com:8080/page" is a host and its port; "javascript:0//…" and "data:1,…" are not (a host has a dot).
  return scheme[1]!.includes(".") && /^\d/.test(text.slice(scheme[0].length));
}

function withScheme(raw: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw.replace(/^\/\//, "")}`;
}

function stripWww(host: string): string {
  return host.replace(/\.$/, "").replace(/^www\d{0,3}\./, "");
}

export function registrableDomain(host: string): string {
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

export function canonicalizeUrl(raw: string): CanonicalUrl {
  const trimmed = raw.trim();
  let url: URL;
  try {
    url = new URL(withScheme(trimmed));
  } catch {
    return { normalized_url: trimmed, host: null, domain: null };
  }
  if (!url.hostname) return { normalized_url: trimmed, host: null, domain: null };
  const host = stripWww(url.hostname.toLowerCase());
  const kept = [...url.searchParams].filter(([key]) => {
    const k = key.toLowerCase();
    return !k.startsWith("utm_") && !TRACKING_PARAMS.has(k);
  });
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = kept.length ? `?${new URLSearchParams(kept).toString()}` : "";
  let path = url.pathname || "/";
  if (path.length > 1 && path.endsWith("/")) path = path.replace(/\/+$/, "") || "/";
  const port = url.port ? `:${url.port}` : "";
  return {
    normalized_url: `${url.protocol}//${host}${port}${path}${query}`,
    host,
    domain: registrableDomain(host),
  };
}

/** Normalizes a domain as users type it ("https://www.Acme.com/", "acme.com") to a bare host. */
export function normalizeDomain(input: string): string {
  const { host } = canonicalizeUrl(input);
  return host ?? input.trim().toLowerCase();
}

/** True when `host` is `domain` or one of its subdomains (never a look-alike such as acme.com.evil.io). */
export function hostBelongsTo(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** A host-like token of text counts as a host only when its suffix is a known public suffix. */
export function isKnownHost(candidate: string): boolean {
  const parsed = parseHost(candidate, { allowPrivateDomains: true });
  return parsed.domain !== null && (parsed.isIcann === true || parsed.isPrivate === true);
}
