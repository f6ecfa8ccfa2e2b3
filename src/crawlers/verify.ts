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

/**
 * What one request's reverse-DNS checks may cost (VERIFY_RDNS): every address of a request is
 * another bot claiming a name, and a sender controls how slowly its own PTR records answer. Past
 * the count or the time, the request's other addresses are judged as without DNS, and those
 * verdicts are not remembered (a later request checks them).
 */
export interface DnsBudget {
  lookups: number;
  until: number;
  /** Lookups refused (count or time spent) or unanswered so far: a verdict that met one is not remembered. */
  missed: number;
}
const DNS_BUDGET = { lookups: 500, ms: 5_000, lookupMs: 1_500 };

/** A resolver's error that says the name or address has no such record (node:dns codes): an answer, not a failure. */
export const isNoRecord = (error: unknown) => ["ENOTFOUND", "ENODATA"].includes((error as { code?: string } | null)?.code ?? "");

/** `promise`, or `fallback` once `ms` have passed. */
const within = <T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]).finally(() => clearTimeout(timer));
};

export function createVerifier(options: { rdns?: Resolver | null; dnsBudget?: typeof DNS_BUDGET } = {}) {
  const limits = options.dnsBudget ?? DNS_BUDGET;
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

  async function confirmedByDns(bot: string, ip: string, budget?: DnsBudget): Promise<boolean | null> {
    const suffixes = RDNS_SUFFIXES[bot];
    if (!options.rdns || !suffixes) return null;
    const rdns = options.rdns;
    // Spent: as without DNS. Each lookup counts and waits at most limits.lookupMs.
    const lookup = async (ask: () => Promise<string[]>): Promise<string[] | null> => {
      if (budget && (budget.lookups <= 0 || performance.now() > budget.until)) {
        budget.missed++;
        return null;
      }
      if (budget) budget.lookups--;
      // "No such record" is an answer (no names); any other failure (SERVFAIL, a resolver down,
      // a refusal) is none, like a timeout: it must not brand a real crawler spoofed, and remembered.
      const answer = await within(Promise.resolve().then(ask).catch((error) => (isNoRecord(error) ? ([] as string[]) : null)), limits.lookupMs, null);
      // No answer in time says nothing about the address (a slow resolver, not a lie): as without
      // DNS, and the request's budget is spent so nothing judged from here on is remembered.
      if (!answer && budget) Object.assign(budget, { lookups: 0, missed: budget.missed + 1 });
      return answer;
    };
    const names = await lookup(() => rdns.reverse(ip));
    if (!names) return null;
    for (const name of names.slice(0, 10)) {
      const host = name.toLowerCase().replace(/\.$/, "");
      if (!suffixes.some((s) => host === s || host.endsWith(`.${s}`))) continue;
      const addresses = await lookup(() => rdns.forward(host));
      if (!addresses) return null;
      const want = parse(ip)?.toNormalizedString();
      if (addresses.some((a) => parse(a)?.toNormalizedString() === want)) return true;
    }
    return false;
  }

  return {
    listVersion,
    /** A request's DNS budget, from now. */
    newBudget: (): DnsBudget => ({ lookups: limits.lookups, until: performance.now() + limits.ms, missed: 0 }),
    /** The verdict for a request naming `who` from `ip` (null for a human or an unnamed bot). */
    async verify(who: BotIdentity, ip: string | null | undefined, budget?: DnsBudget): Promise<Verdict | null> {
      if (!who.bot) return null;
      if (who.robotsOnly) return "spoofed";
      const published = byBot.get(who.bot.toLowerCase());
      const address = ip ? parse(ip) : null;
      if (published) {
        if (address && published.some(([net, bits]) => address.kind() === net.kind() && address.match([net, bits] as never))) return "verified";
        // Outside the published ranges: only the operator's own DNS can still vouch for it.
        return ip && (await confirmedByDns(who.bot, ip, budget)) ? "verified" : "spoofed";
      }
      if (!ip || !address) return "unverifiable";
      const dns = await confirmedByDns(who.bot, ip, budget);
      return dns === null ? "unverifiable" : dns ? "verified" : "spoofed";
    },
  };
}

export type Verifier = ReturnType<typeof createVerifier>;
