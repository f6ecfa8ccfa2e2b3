// Where a webhook may be sent (server-side request forgery guard): http(s) only, and only to
// globally reachable unicast addresses unless WEBHOOK_ALLOW_PRIVATE=true. Addresses are judged by
// ipaddr.js plus the IANA special-purpose registries, never by string prefixes: the same address
// has many spellings (::ffff:7f00:1, 2130706433, 0x7f.1 …). A delivery resolves the host once,
// checks every answer, and connects to the address it checked (no second lookup to rebind).
import ipaddr from "ipaddr.js";

export class DestinationError extends Error {}

/** Host name → its addresses. Injected so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<readonly string[]>;

/** The operating system's resolver (getaddrinfo through Bun), all address families. */
export const systemResolver: Resolver = async (hostname) => (await Bun.dns.lookup(hostname)).map((r) => r.address);

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
const cidrs = (list: string[]): Range[] => list.map((text) => ipaddr.parseCIDR(text));

// IANA IPv4 Special-Purpose Address Registry, plus multicast and the "future use" block. Most are
// also non-unicast to ipaddr.js; listing them keeps the guard whole if the library's table changes.
const IPV4_SPECIAL = cidrs([
  "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
  "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24", "192.168.0.0/16", "192.175.48.0/24",
  "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
]);
// IANA IPv6 Special-Purpose Address Registry (2001::/23 covers Teredo, ORCHID, benchmarking, AMT …).
const IPV6_SPECIAL = cidrs([
  "::/128", "::1/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64", "2001::/23",
  "2001:db8::/32", "2002::/16", "2620:4f:8000::/48", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10",
]);
// Everything globally routable in IPv6 is allocated from 2000::/3; the rest (::/8 with the
// deprecated IPv4-compatible ::a.b.c.d, fec0::/10, ff00::/8 …) is not reachable on the Internet.
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

const v4 = (a: number, b: number, c: number, d: number) => new ipaddr.IPv4([a, b, c, d]);
const v4FromParts = (hi: number, lo: number) => v4(hi >> 8, hi & 255, lo >> 8, lo & 255);
const NAT64_LOCAL = ipaddr.parseCIDR("64:ff9b:1::/48");
const SIX_TO_FOUR = ipaddr.parseCIDR("2002::/16");
const TEREDO = ipaddr.parseCIDR("2001::/32");
// NAT64 well-known prefix and IPv4-translated (::ffff:0:a.b.c.d): IPv4 in the last 32 bits.
const LAST_32_BITS = cidrs(["64:ff9b::/96", "::ffff:0:0:0/96"]);
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/** The IPv4 address an IPv6 transition address carries (compatible, NAT64, 6to4, Teredo client), if any. */
export function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = ip.parts as [number, number, number, number, number, number, number, number];
  if (ip.match(NAT64_LOCAL)) return v4(p[3] >> 8, p[3] & 255, p[4] & 255, p[5] >> 8); // RFC 6052 /48 layout skips bits 64-71
  if (ip.match(SIX_TO_FOUR)) return v4FromParts(p[1], p[2]);
  if (ip.match(TEREDO)) return v4FromParts(p[6] ^ 0xffff, p[7] ^ 0xffff); // Teredo stores the client address inverted
  if (LAST_32_BITS.some((range) => ip.match(range))) return v4FromParts(p[6], p[7]);
  // ::a.b.c.d, but not :: and ::1, which are themselves.
  if (ip.match(IPV4_COMPATIBLE) && (p[6] !== 0 || p[7] > 1)) return v4FromParts(p[6], p[7]);
  return null;
}

function specialRange(ip: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  const range = ip.range();
  if (range !== "unicast") return range;
  const table: Range[] = ip.kind() === "ipv4" ? IPV4_SPECIAL : IPV6_SPECIAL;
  const hit = table.find(([net, bits]) => ip.match(net, bits));
  if (hit) return `${hit[0].toString()}/${hit[1]}`;
  if (ip.kind() === "ipv6" && !ip.match(IPV6_GLOBAL_UNICAST)) return "outside 2000::/3";
  return null;
}

// Only canonical spellings: ipaddr.js would also read "1.2.3" or "010.0.0.1" the classful/octal way.
// No IPv6 zone ("%eth0"): a URL cannot carry one, so a pinned request could not name the address.
const isCanonicalAddress = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text) || (ipaddr.IPv6.isValid(text) && !text.includes("%"));

/**
 * Why a webhook must not reach this address (a special-purpose, non-global range), or null when it
 * is a globally reachable unicast address. IPv4-mapped IPv6 is judged as the IPv4 it maps; other
 * transition forms are refused whole, and their embedded IPv4 is named in the reason.
 */
export function refusalReason(address: string): string | null {
  if (!isCanonicalAddress(address)) return `${address} is not an IP address`;
  const ip = ipaddr.process(address);
  const range = specialRange(ip);
  if (!range) return null;
  const inner = ip.kind() === "ipv6" ? embeddedIPv4(ip as ipaddr.IPv6) : null;
  const carried = inner ? `, carrying ${inner.toString()} (${specialRange(inner) ?? "unicast"})` : "";
  return `${ip.toString()} is not a globally reachable address (${range}${carried})`;
}

export const isPublicAddress = (address: string): boolean => refusalReason(address) === null;

/** The URL's host without IPv6 brackets or a trailing root dot. */
const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();

/** The IP address the URL names literally (the WHATWG parser has already turned 0x7f.1 and friends into dotted form), if it does. */
function literalAddress(url: URL): string | null {
  const host = bareHost(url);
  return url.hostname.startsWith("[") || ipaddr.IPv4.isValidFourPartDecimal(host) ? host : null;
}

const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata", "instance-data", "instance-data.ec2.internal"]);
const ALLOW_HINT = "set WEBHOOK_ALLOW_PRIVATE=true to allow private destinations";

/** Checks what can be checked without DNS; throws DestinationError with a reason. */
export function checkDestinationUrl(raw: unknown, allowPrivate: boolean): URL {
  if (typeof raw !== "string" || raw.length > 2048) throw new DestinationError("url must be a string of at most 2048 characters");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationError("url is not a valid absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new DestinationError("url must use http or https");
  if (url.username || url.password) throw new DestinationError("url must not carry credentials");
  if (allowPrivate) return url;
  const host = bareHost(url);
  if (host === "localhost" || host.endsWith(".localhost") || METADATA_HOSTS.has(host) || host.endsWith(".internal"))
    throw new DestinationError(`url must not point at ${host} (${ALLOW_HINT})`);
  const literal = literalAddress(url);
  const reason = literal === null ? null : refusalReason(literal);
  if (reason) throw new DestinationError(`url must not point at ${reason}; ${ALLOW_HINT}`);
  return url;
}

/**
 * A DestinationError when any of a host's answers is refused. It names no address: the answer is
 * the server's own DNS, which would otherwise tell anyone who may add an endpoint what an internal
 * name (a database, a cluster service) resolves to.
 */
function refuseAnswers(host: string, addresses: readonly string[]): void {
  if (addresses.some((address) => refusalReason(address) !== null)) throw new DestinationError(`${host} resolves to an address that is not globally reachable; ${ALLOW_HINT}`);
}

/**
 * Creation-time check: the URL, and, when a resolver is given, the addresses its host has now.
 * A name that does not resolve yet is accepted: delivery checks again before every send.
 */
export async function checkDestination(raw: unknown, options: { allowPrivate: boolean; resolve?: Resolver }): Promise<URL> {
  const url = checkDestinationUrl(raw, options.allowPrivate);
  if (options.allowPrivate || !options.resolve || literalAddress(url) !== null) return url;
  let addresses: readonly string[];
  try {
    addresses = await options.resolve(bareHost(url));
  } catch {
    return url;
  }
  refuseAnswers(bareHost(url), addresses);
  return url;
}

/** A destination resolved and checked once: requests go to these addresses, never to a fresh lookup. */
export interface PinnedDestination {
  url: URL;
  /** Every answer, checked, normalized (::ffff:a.b.c.d becomes a.b.c.d), in the resolver's order. */
  addresses: string[];
}

/**
 * Delivery-time check: resolves the host once, refuses it if any answer is not public (unless
 * allowPrivate), and pins the answers. Resolver failures are plain errors (retried later);
 * refusals are DestinationErrors (final).
 */
export async function resolveDestination(url: URL, options: { allowPrivate: boolean; resolve: Resolver }): Promise<PinnedDestination> {
  const literal = literalAddress(url);
  const host = bareHost(url);
  const answers = literal !== null ? [literal] : await options.resolve(host);
  if (!options.allowPrivate) refuseAnswers(host, answers);
  const addresses = [...new Set(answers.filter(isCanonicalAddress).map((a) => ipaddr.process(a).toString()))];
  if (!addresses.length) throw new Error(`${host} resolved to no address`);
  return { url, addresses };
}

/**
 * What fetch needs to reach one pinned address: the URL with that address as its host, the
 * original Host header and, for https, the original name as TLS server name, so SNI and the
 * certificate check use the name while the socket goes to the address (Bun's fetch `tls.serverName`).
 */
export function pinnedRequest(original: URL, address: string): { url: URL; host: string; tls?: { serverName: string } } {
  const url = new URL(original);
  url.hostname = ipaddr.parse(address).kind() === "ipv6" ? `[${address}]` : address;
  // The URL setter ignores a host it cannot parse; fetch would then look the name up again.
  if (bareHost(url) !== address) throw new DestinationError(`cannot address ${address} in a URL`);
  const named = literalAddress(original) === null;
  return { url, host: original.host, ...(named && original.protocol === "https:" ? { tls: { serverName: bareHost(original) } } : {}) };
}
