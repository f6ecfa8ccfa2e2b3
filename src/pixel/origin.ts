// Who may send a beacon for a brand (the Origin rule) and from which address (for the rate limit
// and the visitor hash).
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

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/;

function unmapped(ip: string): string {
  return ip.toLowerCase().startsWith("::ffff:") && IPV4.test(ip.slice(7)) ? ip.slice(7) : ip.toLowerCase();
}

export function isLoopback(ip: string): boolean {
  const addr = unmapped(ip);
  return addr === "::1" || addr.startsWith("127.");
}

/** Loopback and private-network peers: where a reverse proxy in front of the server sits. */
function isProxyRange(ip: string): boolean {
  const addr = unmapped(ip);
  if (isLoopback(addr)) return true;
  const v4 = IPV4.exec(addr);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  return /^f[cd][0-9a-f]{0,2}:|^fe[89ab][0-9a-f]?:/.test(addr);
}

const IP_LIKE = /^[0-9a-f:.]{2,45}$/i;

/**
 * The visitor's address: the peer, or — when the peer is a proxy on this host or private network —
 * the last X-Forwarded-For entry, which that proxy appended (earlier entries are client-supplied).
 */
export function clientAddress(peer: string, forwardedFor: string | null): string {
  const address = unmapped(peer);
  if (!forwardedFor || !isProxyRange(address)) return address;
  const last = forwardedFor.slice(forwardedFor.lastIndexOf(",") + 1).trim();
  return IP_LIKE.test(last) ? unmapped(last) : address;
}
