// The address a request comes from, for rate limits and the pixel's visitor hash: the peer, or —
// when the peer is a trusted reverse proxy — the X-Forwarded-For entries read from the right (each
// proxy appends the address it was reached from; entries left of the trusted ones are the client's
// to write), the first one that is not a trusted proxy. Which peers are trusted is TRUSTED_PROXIES:
// by default loopback and private networks, where a proxy in front of the server sits; "none" for a
// server reached directly (a `docker run` without a proxy sees every client from the bridge's
// private address); or a list of addresses and CIDR ranges.
// This runs for every beacon: dotted IPv4 (nearly every peer) is read by hand in ~0.05 µs, and
// only IPv6 and CIDR lists go through ipaddr.js (~1 µs).
import ipaddr from "ipaddr.js";

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
/** X-Forwarded-For entries looked at, from the right: more hops than any real chain of proxies. */
const MAX_HOPS = 10;

function ipv4Octets(text: string): number[] | null {
  const m = IPV4.exec(text);
  if (!m) return null;
  const octets = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  return octets.every((o) => o <= 255) ? octets : null;
}

interface Address {
  /** Canonical form (IPv4-mapped IPv6 read as IPv4). */
  address: string;
  /** Loopback or a private network. */
  privateRange: boolean;
}

/** The address, or null when the text is none; a port some proxies write after it (`1.2.3.4:5678`, `[2001:db8::1]:443`) is left out. */
function parse(raw: string): Address | null {
  const text = raw.startsWith("[") ? raw.slice(1, raw.indexOf("]") >>> 0) : raw;
  const bare = text.startsWith("::ffff:") || text.startsWith("::FFFF:") ? text.slice(7) : text;
  const colon = bare.indexOf(":");
  const v4 = colon > 6 && bare.indexOf(".") > 0 && bare.indexOf(".") < colon ? bare.slice(0, colon) : bare;
  const octets = ipv4Octets(v4);
  if (octets) {
    const [a, b] = octets as [number, number];
    // One spelling per address (01.2.3.4 is 1.2.3.4): a rate limit is keyed by it.
    return { address: octets.join("."), privateRange: a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) };
  }
  if (!text.includes(":") || !ipaddr.isValid(text)) return null;
  const parsed = ipaddr.process(text);
  return { address: parsed.toString(), privateRange: ["loopback", "private", "uniqueLocal", "linkLocal"].includes(parsed.range()) };
}

/** Which peers may speak for the client: TRUSTED_PROXIES read. */
export type ProxyTrust = "private" | "none" | [ipaddr.IPv4 | ipaddr.IPv6, number][];

/**
 * TRUSTED_PROXIES: "private" (loopback and private networks), "none", or addresses and CIDR ranges
 * separated by commas. Throws a message naming the entry that is neither.
 */
export function parseProxyTrust(text: string | undefined): ProxyTrust {
  const value = (text ?? "").trim().toLowerCase();
  if (value === "" || value === "private") return "private";
  if (value === "none") return "none";
  const entries = value.split(",").map((s) => s.trim()).filter(Boolean);
  if (entries.length > 100) throw new Error("at most 100 addresses or ranges");
  return entries.map((entry) => {
    const [address = "", bits] = entry.split("/");
    // Dotted decimal only: ipaddr.js also reads 010.0.0.1 as octal (8.0.0.1) and 10 as 0.0.0.10.
    const valid = address.includes(":") ? ipaddr.IPv6.isValid(address) : ipaddr.IPv4.isValidFourPartDecimal(address);
    try {
      if (!valid) throw new Error();
      // An IPv4-mapped IPv6 address is its IPv4 address, as peers are read.
      const parsed = ipaddr.process(address);
      const width = parsed.kind() === "ipv4" ? 32 : 128;
      const size = bits === undefined ? width : /^\d{1,3}$/.test(bits) ? Number(bits) - (address.includes(":") && parsed.kind() === "ipv4" ? 96 : 0) : NaN;
      if (!(size >= 0 && size <= width)) throw new Error();
      return [parsed, size] as [ipaddr.IPv4 | ipaddr.IPv6, number];
    } catch {
      throw new Error(`"${entry}" is not an address or a CIDR range (or "private", or "none")`);
    }
  });
}

/** The function telling a request's client address under `trust`. */
export function createClientAddress(trust: ProxyTrust = "private"): (peer: string, forwardedFor: string | null) => string {
  const trusted = (a: Address): boolean => {
    if (trust === "private") return a.privateRange;
    if (trust === "none") return false;
    const parsed = ipaddr.process(a.address);
    return trust.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  };
  return (peer, forwardedFor) => {
    const own = parse(peer);
    if (!own) return peer.toLowerCase();
    if (!forwardedFor || !trusted(own)) return own.address;
    let client = own;
    let end = forwardedFor.length;
    for (let hop = 0; hop < MAX_HOPS && trusted(client) && end > 0; hop++) {
      const start = forwardedFor.lastIndexOf(",", end - 1);
      const entry = parse(forwardedFor.slice(start + 1, end).trim());
      // An entry that is no address ends the walk at the last proxy that wrote one.
      if (!entry) break;
      client = entry;
      end = Math.max(start, 0);
    }
    return client.address;
  };
}
