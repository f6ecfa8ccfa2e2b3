// Who may send a beacon for a brand (the Origin rule).
import { hostBelongsTo } from "../analysis/urls";

// scheme://host[:port] and nothing else, as browsers send it; IPv6 hosts in brackets.
const ORIGIN = /^https?:\/\/(\[[0-9a-f:.]+\]|[^/?#@\s:[\]\\]+)(?::\d{1,5})?$/i;

/** The host of an Origin header, lower-cased without a trailing dot; null when it is not a web origin. */
export function originHost(origin: string | null): string | null {
  if (!origin || origin.length > 300) return null;
  const match = ORIGIN.exec(origin);
  if (!match) return null;
  return match[1].toLowerCase().replace(/\.$/, "") || null;
}

/** True when `host` is one of the brand's domains or a subdomain of one; ports never matter. */
export function hostAllowed(host: string, domains: readonly string[]): boolean {
  for (const domain of domains) if (hostBelongsTo(host, domain)) return true;
  return false;
}
