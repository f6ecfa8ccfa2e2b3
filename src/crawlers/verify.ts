// Is a request that names a bot really that bot (issue #21)? Its client address inside the
// operator's published ranges → verified; outside → spoofed; an operator that publishes none →
// unverifiable, unless forward-confirmed reverse DNS (VERIFY_RDNS) confirms one of the host names
// the operator documents. A robots.txt-only token (Google-Extended) in a user agent is spoofed: no
// crawler sends it. The address is used here and never stored; the verdict and the list's version are.
import ipaddr from "ipaddr.js";
import ranges from "./data/bot-ip-ranges.json";
import type { BotIdentity } from "./classify";

export type Verdict = "verified" | "spoofed" | "unverifiable";

/** Host names the operators document for their crawlers (forward-confirmed reverse DNS). */
export const RDNS_SUFFIXES: Record<string, string[]> = {
  Googlebot: ["googlebot.com", "google.com", "googleusercontent.com"],
  bingbot: ["search.msn.com"],
  Applebot: ["applebot.apple.com"],
  Amazonbot: ["crawl.amazonbot.amazon"],
  DuckDuckBot: ["duckduckgo.com"],
  YandexBot: ["yandex.ru", "yandex.net", "yandex.com"],
  Baiduspider: ["baidu.com", "baidu.jp"],
};

export interface Resolver {
  reverse(ip: string): Promise<string[]>;
  forward(host: string): Promise<string[]>;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export function createVerifier(options: { rdns?: Resolver | null } = {}) {
  const data = ranges as { bots: { bot: string; prefixes: string[]; updated: string }[] };
  const byBot = new Map<string, Range[]>(data.bots.map((b) => [b.bot.toLowerCase(), b.prefixes.map((p) => ipaddr.parseCIDR(p) as Range)]));
  /** The list's version stored with each verdict: its newest `updated` date. */
  const listVersion = data.bots.reduce((v, b) => (b.updated > v ? b.updated : v), "");

  function parse(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
    try {
      // ::ffff:1.2.3.4 is the IPv4 address.
      return ipaddr.process(ip.trim().replace(/^\[|\]$/g, ""));
    } catch {
      return null;
    }
  }

  async function confirmedByDns(bot: string, ip: string): Promise<boolean | null> {
    const suffixes = RDNS_SUFFIXES[bot];
    if (!options.rdns || !suffixes) return null;
    const names = await options.rdns.reverse(ip).catch(() => [] as string[]);
    for (const name of names) {
      const host = name.toLowerCase().replace(/\.$/, "");
      if (!suffixes.some((s) => host === s || host.endsWith(`.${s}`))) continue;
      const addresses = await options.rdns.forward(host).catch(() => [] as string[]);
      const want = parse(ip)?.toNormalizedString();
      if (addresses.some((a) => parse(a)?.toNormalizedString() === want)) return true;
    }
    return false;
  }

  return {
    listVersion,
    /** The verdict for a request naming `who` from `ip` (null for a human or an unnamed bot). */
    async verify(who: BotIdentity, ip: string | null | undefined): Promise<Verdict | null> {
      if (!who.bot) return null;
      if (who.robotsOnly) return "spoofed";
      const published = byBot.get(who.bot.toLowerCase());
      const address = ip ? parse(ip) : null;
      if (published) {
        if (address && published.some(([net, bits]) => address.kind() === net.kind() && address.match([net, bits] as never))) return "verified";
        // Outside the published ranges: only the operator's own DNS can still vouch for it.
        return ip && (await confirmedByDns(who.bot, ip)) ? "verified" : "spoofed";
      }
      if (!ip || !address) return "unverifiable";
      const dns = await confirmedByDns(who.bot, ip);
      return dns === null ? "unverifiable" : dns ? "verified" : "spoofed";
    },
  };
}

export type Verifier = ReturnType<typeof createVerifier>;
