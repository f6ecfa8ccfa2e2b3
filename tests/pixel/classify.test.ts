// backends: sqlite, postgres
// Table tests of the classification: every host of the shipped AI-assistant list (exact, subdomain,
// www., look-alikes, as utm_source), the utm_source aliases, the bot list, and the origin rule.
// The same table then runs end to end through /t/collect.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AMBIGUOUS_BOT_TOKENS } from "../../src/common/bot-tokens";
import { ANDROID_APPS, UTM_ALIASES, createSourceClassifier, createUserAgentReader } from "../../src/pixel/classify";
import { aiRobotTokens, assistantEntries } from "../../src/pixel/lists";
import { createClientAddress, parseProxyTrust } from "../../src/http/client-address";
import { hostAllowed, originHost } from "../../src/pixel/origin";
import { testServer } from "../helpers/app";
import type { Harness } from "../contracts/harness";
import { serverDb } from "../helpers/server-db";
import { CHROME_UA, beaconJson, seedBrandIn, trafficRowsIn } from "./fixtures";

const { classify, platformOfUtm } = createSourceClassifier();
const entries = assistantEntries();
const platforms = new Set(entries.map((e) => e.platform));
const page = (query = "") => new URL(`https://acme.com/landing${query}`);
const fromReferrer = (referrer: string) => classify({ pageUrl: page(), referrer: new URL(referrer) }).platform;

/** [referrer URL, expected platform or null] for every list entry. */
function referrerTable(): [string, string | null][] {
  const rows: [string, string | null][] = [];
  for (const { platform, host, pathPrefix } of entries) {
    const path = pathPrefix ?? "/";
    rows.push([`https://${host}${path}`, platform]);
    rows.push([`https://${host.toUpperCase()}${path}?q=1`, platform]);
    rows.push([`https://www.${host}${path}`, platform]);
    rows.push([`https://eu.app.${host}${path}`, platform]);
    rows.push([`https://${host}.evil.io${path}`, null]);
    rows.push([`https://not${host}${path}`, null]);
    rows.push([`https://${host.replaceAll(".", "-")}.com${path}`, null]);
    if (pathPrefix) {
      rows.push([`https://${host}${pathPrefix}/share/42`, platform]);
      rows.push([`https://${host}/home`, null]);
      rows.push([`https://${host}${pathPrefix}x`, null]);
    }
  }
  return rows;
}

describe("the shipped AI-assistant list", () => {
  test("it has the assistants the issue names, each with at least one host", () => {
    expect(entries.length).toBeGreaterThanOrEqual(25);
    for (const name of ["ChatGPT", "Perplexity", "Gemini", "Claude", "Copilot", "Grok", "Deepseek", "Le Chat", "Meta AI", "You"]) expect(platforms).toContain(name);
    for (const e of entries) expect(e.host).toMatch(/^[a-z0-9.-]+\.[a-z]{2,}$/);
  });

  test("every host, in every form, by referrer: exact, upper case, www., subdomain → the assistant; look-alikes → none", () => {
    const table = referrerTable();
    expect(table.length).toBeGreaterThan(entries.length * 7 - 1);
    for (const [referrer, expected] of table) expect({ referrer, platform: fromReferrer(referrer) }).toEqual({ referrer, platform: expected });
  });

  test("every host as utm_source → the assistant, as typed (case, scheme, trailing path)", () => {
    for (const { platform, host, pathPrefix } of entries) {
      for (const value of [host + (pathPrefix ?? ""), host.toUpperCase() + (pathPrefix ?? ""), `https://${host}${pathPrefix ?? "/"}`]) {
        const got = classify({ pageUrl: page(`?utm_source=${encodeURIComponent(value)}&utm_medium=referral`), referrer: null });
        expect({ value, platform: got.platform }).toEqual({ value, platform });
        expect(got.utmSource).toBe(value.toLowerCase());
      }
    }
  });

  test("utm_source aliases (openai, perplexity, …) name assistants of the list, in their spellings", () => {
    for (const [alias, platform] of UTM_ALIASES) {
      expect(platforms).toContain(platform);
      for (const variant of [alias, alias.toUpperCase(), ` ${alias} `]) expect({ variant, platform: platformOfUtm(variant.trim().toLowerCase()) }).toEqual({ variant, platform });
    }
    expect(platformOfUtm("openai")).toBe("ChatGPT");
    expect(platformOfUtm("chatgpt.com")).toBe("ChatGPT");
    expect(platformOfUtm("perplexity")).toBe("Perplexity");
    expect(platformOfUtm("le chat")).toBe("Le Chat");
    expect(platformOfUtm("le-chat")).toBe("Le Chat");
    for (const other of ["newsletter", "google", "facebook", "chatgpt.com.evil.io", "notperplexity.ai", "constructor", "__proto__", "toString"]) expect({ other, platform: platformOfUtm(other) }).toEqual({ other, platform: null });
  });

  test("Android app referrers name their assistant", () => {
    for (const [app, platform] of ANDROID_APPS) {
      expect(platforms).toContain(platform);
      expect(fromReferrer(`android-app://${app}/`)).toBe(platform);
    }
    expect(fromReferrer("android-app://com.example.news/")).toBeNull();
  });

  test("the referrer wins over utm_source; utm_source counts without a referrer; only the host of the referrer is kept", () => {
    expect(classify({ pageUrl: page("?utm_source=chatgpt.com"), referrer: new URL("https://www.perplexity.ai/search/abc?q=private") })).toEqual({
      platform: "Perplexity",
      referrerHost: "perplexity.ai",
      utmSource: "chatgpt.com",
    });
    expect(classify({ pageUrl: page("?utm_source=openai"), referrer: new URL("https://www.google.com/") })).toEqual({
      platform: "ChatGPT",
      referrerHost: "google.com",
      utmSource: "openai",
    });
    expect(classify({ pageUrl: page(), referrer: null })).toEqual({ platform: null, referrerHost: null, utmSource: null });
  });
});

describe("bots", () => {
  const read = createUserAgentReader();

  test("every token of the AI-robots list, as a crawler would send it, is a bot", () => {
    const tokens = aiRobotTokens();
    expect(tokens.length).toBeGreaterThan(100);
    for (const token of tokens) {
      // The ambiguous tokens count only as spelled (next test); the others in any case.
      const spelled = AMBIGUOUS_BOT_TOKENS.has(token) ? token : token.toLowerCase();
      for (const ua of [`Mozilla/5.0 (compatible; ${token}/1.0; +https://example.com/bot)`, `${token}`, `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ${spelled}) Chrome/120 Safari/537.36`])
        expect({ ua, bot: read(ua).bot }).toEqual({ ua, bot: true });
    }
  });

  test("a listed token that is an everyday word or an app's name is a bot only as spelled, and never in an Electron app: VS Code's browser is a person", () => {
    const vsCode = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.95.3 Chrome/128.0.6613.186 Electron/32.2.6 Safari/537.36";
    const cursor = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/0.42.3 Chrome/124.0.6367.243 Electron/30.4.0 Safari/537.36";
    expect([read(vsCode), read(cursor)]).toEqual([{ bot: false, family: "Chrome" }, { bot: false, family: "Chrome" }]);
    // Spelled otherwise, or inside another word: a browser.
    for (const ua of [`${CHROME_UA} code/1.0`, `${CHROME_UA} (operator console)`, `${CHROME_UA} Unicode/15`]) expect({ ua, bot: read(ua).bot }).toEqual({ ua, bot: false });
    // As the agent sends it, outside Electron: a bot.
    for (const ua of ["Code/1.0", "Mozilla/5.0 (compatible; Operator/1.0)", "Devin/1.0 (+https://devin.ai)"]) expect({ ua, bot: read(ua).bot }).toEqual({ ua, bot: true });
  });

  test("common crawlers, tools and automation are bots", () => {
    for (const ua of [
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
      "Mozilla/5.0 (compatible; YandexBot/3.0)",
      "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
      "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
      "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0 Mobile Safari/537.36 Chrome-Lighthouse",
      "curl/8.5.0",
      "Wget/1.21.4",
      "python-requests/2.32.3",
      "Go-http-client/2.0",
      "axios/1.7.2",
      "",
    ])
      expect({ ua, bot: read(ua).bot }).toEqual({ ua, bot: true });
  });

  test("real browsers are visitors, with their family", () => {
    const browsers: [string, string][] = [
      [CHROME_UA, "Chrome"],
      ["Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox"],
      ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15", "Safari"],
      ["Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "Safari"],
      ["Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", "Chrome"],
      ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", "Edge"],
      ["Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36", "Samsung Internet"],
      ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0", "Opera"],
      ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36", "Chrome"],
    ];
    for (const [ua, family] of browsers) expect({ ua, info: read(ua) }).toEqual({ ua, info: { bot: false, family } });
  });

  test("Safari is Version/… with Safari/… after it, as the former pattern said; a user agent over 1,000 characters is a bot of family Other, read no further", () => {
    const former = (ua: string) => /\bVersion\/[\d.]+.*\bSafari\//.test(ua);
    for (const ua of ["Foo Version/18.1 Safari/605", "Foo Safari/605 Version/18.1", "Version/1.2.3Safari/1", "Version/ Safari/1", "xVersion/1 Safari/1", "Version/1 xSafari/1", "Version/1 Safari", `${"Version/1 ".repeat(90)}`])
      expect({ ua, safari: read(ua).family === "Safari" }).toEqual({ ua, safari: former(ua) });
    expect(read("Version/1 ".repeat(1600))).toEqual({ bot: true, family: "Other" });
    expect(read(`${"x".repeat(990)} Version/18.1 Safari/605.1.15`)).toEqual({ bot: true, family: "Other" });
  });
});

describe("the origin rule", () => {
  const domains = ["acme.com", "acme-shop.de"];
  test("a registered domain or a subdomain of one, any case, any port, is allowed", () => {
    for (const origin of ["https://acme.com", "http://acme.com", "https://ACME.com", "https://www.acme.com", "https://a.b.acme.com:8443", "https://acme-shop.de", "https://acme.com."]) {
      const host = originHost(origin);
      expect({ origin, allowed: host !== null && hostAllowed(host, domains) }).toEqual({ origin, allowed: true });
    }
  });

  test("look-alikes and anything that is not a web origin are refused", () => {
    for (const origin of [
      "https://acme.com.evil.io",
      "https://notacme.com",
      "https://evil-acme.com",
      "https://acme.co",
      "https://acme.com-shop.de",
      "https://shop.de",
      "https://acme.com@evil.io",
      "https://evil.io#acme.com",
      "https://acme.com/path",
      "ftp://acme.com",
      "null",
      "",
      "acme.com",
      "https://",
      "https://[::1]",
    ]) {
      const host = originHost(origin);
      expect({ origin, allowed: host !== null && hostAllowed(host, domains) }).toEqual({ origin, allowed: false });
    }
    expect(originHost(null)).toBeNull();
  });

  test("the client address is the peer, or the X-Forwarded-For entries read from the right past every local or private proxy", () => {
    const clientAddress = createClientAddress();
    expect(clientAddress("198.51.100.1", null)).toBe("198.51.100.1");
    // A public peer cannot choose its address by sending the header.
    expect(clientAddress("198.51.100.1", "10.0.0.1")).toBe("198.51.100.1");
    expect(clientAddress("127.0.0.1", "6.6.6.6, 198.51.100.2")).toBe("198.51.100.2");
    expect(clientAddress("::ffff:127.0.0.1", "198.51.100.3")).toBe("198.51.100.3");
    expect(clientAddress("10.1.2.3", "2001:db8::1")).toBe("2001:db8::1");
    expect(clientAddress("172.20.0.5", "198.51.100.4")).toBe("198.51.100.4");
    expect(clientAddress("::ffff:127.0.0.1", null)).toBe("127.0.0.1");
    expect(clientAddress("127.0.0.1", "not an address")).toBe("127.0.0.1");
    // Two proxies (a load balancer, then a local nginx): the client is left of both, whatever it wrote further left.
    expect(clientAddress("127.0.0.1", "10.9.9.9, 198.51.100.5, 10.0.0.7")).toBe("198.51.100.5");
    expect(clientAddress("127.0.0.1", "198.51.100.6,10.0.0.7")).toBe("198.51.100.6");
    // Private all the way: the leftmost address is all there is.
    expect(clientAddress("127.0.0.1", "10.0.0.8, 10.0.0.7")).toBe("10.0.0.8");
    // A chain longer than any real one stops after ten entries.
    expect(clientAddress("127.0.0.1", ["198.51.100.7", ...Array.from({ length: 12 }, (_, i) => `10.0.0.${i}`)].join(","))).toBe("10.0.0.2");
  });

  test("TRUSTED_PROXIES: none trusts no peer; a list trusts exactly its addresses and ranges; anything else is refused", () => {
    const direct = createClientAddress(parseProxyTrust("none"));
    expect(direct("172.17.0.1", "198.51.100.1")).toBe("172.17.0.1");
    expect(direct("127.0.0.1", "198.51.100.1")).toBe("127.0.0.1");
    const listed = createClientAddress(parseProxyTrust(" 203.0.113.0/24, 2001:db8::/32 ,192.0.2.9"));
    expect(listed("203.0.113.77", "198.51.100.2")).toBe("198.51.100.2");
    expect(listed("192.0.2.9", "198.51.100.3")).toBe("198.51.100.3");
    expect(listed("2001:db8::5", "198.51.100.4")).toBe("198.51.100.4");
    expect(listed("::ffff:203.0.113.5", "198.51.100.5")).toBe("198.51.100.5");
    // Not listed: a private peer is a client like any other.
    expect(listed("10.0.0.1", "198.51.100.6")).toBe("10.0.0.1");
    expect(listed("192.0.2.10", "198.51.100.7")).toBe("192.0.2.10");
    // The walk stops at the first address that is not a listed proxy.
    expect(listed("203.0.113.1", "198.51.100.8, 10.0.0.1, 203.0.113.2")).toBe("10.0.0.1");
    expect(parseProxyTrust(undefined)).toBe("private");
    expect(parseProxyTrust("Private")).toBe("private");
    expect(() => parseProxyTrust("10.0.0.0/99")).toThrow('"10.0.0.0/99"');
    expect(() => parseProxyTrust("proxy.example.com")).toThrow("not an address");
    // Octal and short forms are refused, not read as other addresses (010.0.0.1 would be 8.0.0.1).
    expect(() => parseProxyTrust("010.0.0.1")).toThrow('"010.0.0.1"');
    expect(() => parseProxyTrust("10")).toThrow('"10"');
    // An IPv4-mapped entry trusts its IPv4 peer.
    expect(createClientAddress(parseProxyTrust("::ffff:10.0.0.1"))("10.0.0.1", "198.51.100.9")).toBe("198.51.100.9");
    expect(createClientAddress(parseProxyTrust("::ffff:10.0.0.0/104"))("10.9.0.1", "198.51.100.9")).toBe("198.51.100.9");
  });

  test("an address is kept in one spelling, and a port a proxy wrote after it is left out", () => {
    const clientAddress = createClientAddress();
    expect(clientAddress("127.0.0.1", "198.051.100.001")).toBe("198.51.100.1");
    expect(clientAddress("127.0.0.1", "198.51.100.2:5678")).toBe("198.51.100.2");
    expect(clientAddress("127.0.0.1", "[2001:db8::1]:443")).toBe("2001:db8::1");
    expect(clientAddress("127.0.0.1", "10.0.0.1:80, 198.51.100.3:1")).toBe("198.51.100.3");
    expect(clientAddress("127.0.0.1", ", ,")).toBe("127.0.0.1");
  });
});

describe("the same table end to end through /t/collect", () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  let db: Harness;
  beforeAll(async () => {
    server = await testServer();
    db = await serverDb(server);
  });
  afterAll(async () => {
    await db.close();
    await server.stop();
  });

  test("each referrer form and each utm_source form is stored with the expected platform", async () => {
    const brand = await seedBrandIn(db, { domains: ["acme.com"] });
    const cases: [string, { referrer?: string; query?: string }, string | null][] = [
      ...referrerTable().map(([referrer, platform], i): [string, { referrer?: string }, string | null] => [`/r/${i}`, { referrer }, platform]),
      ...entries.map(({ host, pathPrefix, platform }, i): [string, { query: string }, string] => [`/u/${i}`, { query: `?utm_source=${encodeURIComponent(host + (pathPrefix ?? ""))}` }, platform]),
      ...[...UTM_ALIASES].map(([alias, platform], i): [string, { query: string }, string] => [`/a/${i}`, { query: `?utm_source=${encodeURIComponent(alias)}` }, platform]),
    ];
    let n = 0;
    for (const [path, { referrer, query }] of cases) {
      const res = await server.app.handle(
        new Request("http://localhost/t/collect", {
          method: "POST",
          headers: { origin: "https://acme.com", "user-agent": CHROME_UA },
          body: beaconJson({ brand: brand.trackingCode, url: `https://acme.com${path}${query ?? ""}`, referrer: referrer ?? "" }),
        }),
        `198.51.100.${n++ % 200}`,
      );
      expect({ path, status: res.status }).toEqual({ path, status: 204 });
    }
    const stored = new Map((await trafficRowsIn(db, brand.brandId)).map((r) => [r.path as string, r.source_platform]));
    expect(stored.size).toBe(cases.length);
    for (const [path, input, platform] of cases) expect({ path, input, platform: stored.get(path) }).toEqual({ path, input, platform });
  });
});
