// The address a request comes from, for rate limits and the pixel's visitor hash: the peer, or —
// when the peer is a reverse proxy on this host or its private network — the last
// X-Forwarded-For entry, which that proxy appended (earlier entries are client-supplied).
import ipaddr from "ipaddr.js";

/** Parsed, with IPv4-mapped IPv6 (::ffff:a.b.c.d) read as the IPv4 address; null when not an address. */
function parse(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(text)) return null;
  return ipaddr.process(text);
}

/** Loopback and private-network peers: where a reverse proxy in front of the server sits. */
function isProxyRange(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return ["loopback", "private", "uniqueLocal", "linkLocal"].includes(address.range());
}

export function clientAddress(peer: string, forwardedFor: string | null): string {
  const address = parse(peer);
  if (!address) return peer.toLowerCase();
  if (!forwardedFor || !isProxyRange(address)) return address.toString();
  const last = parse(forwardedFor.slice(forwardedFor.lastIndexOf(",") + 1).trim());
  return (last ?? address).toString();
}
