// Where a webhook may be sent: http(s) only, and never to loopback, private, link-local or cloud
// metadata addresses unless WEBHOOK_ALLOW_PRIVATE=true (server-side request forgery).

/** 4 for a dotted IPv4 address, 6 for an IPv6 one, 0 otherwise (node:net's isIP, without loading node:net). */
export function isIP(text: string): 0 | 4 | 6 {
  if (/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(text)) return 4;
  if (!text.includes(":") || !/^[0-9a-fA-F:.]+$/.test(text)) return 0;
  try {
    new URL(`http://[${text}]/`);
    return 6;
  } catch {
    return 0;
  }
}

export class DestinationError extends Error {}

function ipv4Private(ip: string): boolean {
  const [a, b] = ip.split(".").map(Number) as [number, number];
  return (
    a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) || a >= 224
  );
}

/** True for addresses a webhook must not reach: loopback, private, link-local, metadata, multicast, unspecified. */
export function isPrivateAddress(ip: string): boolean {
  const version = isIP(ip);
  if (version === 4) return ipv4Private(ip);
  if (version !== 6) return false;
  const lower = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return ipv4Private(mapped[1]!);
  return (
    lower === "::" || lower === "::1" || lower.startsWith("fc") || lower.startsWith("fd") || /^fe[89ab]/.test(lower) ||
    lower.startsWith("ff") || lower.startsWith("fd00:ec2")
  );
}

const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata", "instance-data", "instance-data.ec2.internal"]);

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
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (!allowPrivate) {
    if (host === "localhost" || host.endsWith(".localhost") || METADATA_HOSTS.has(host) || host.endsWith(".internal"))
      throw new DestinationError(`url must not point at ${host} (set WEBHOOK_ALLOW_PRIVATE=true to allow private destinations)`);
    if (isIP(host) && isPrivateAddress(host))
      throw new DestinationError(`url must not point at a loopback, private, link-local or metadata address (${host}); set WEBHOOK_ALLOW_PRIVATE=true to allow it`);
  }
  return url;
}

/** At delivery time: every address the host resolves to must be public (DNS may have changed). */
export async function checkResolvedHost(url: URL, allowPrivate: boolean, lookup = (host: string) => Bun.dns.lookup(host)): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : (await lookup(host)).map((r) => r.address);
  const bad = addresses.find(isPrivateAddress);
  if (bad) throw new DestinationError(`${host} resolves to a private address (${bad})`);
}
