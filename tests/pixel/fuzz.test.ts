// backends: sqlite, postgres
// 10,000 fuzzed beacons over a real socket (seeded, so a failure replays): oversized, wrong types,
// bad JSON, unknown codes, missing or forged Origin, bots, odd headers. Every answer is 2xx or 4xx,
// and only the valid visits are stored.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Harness } from "../contracts/harness";
import { testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { CHROME_UA, beaconJson, forwardedFor, seedBrandIn, trafficRowsIn, type SeededBrand } from "./fixtures";

const TOTAL = 10_000;
const CONCURRENCY = 32;
const SEED = 0x5eed;

let server: Awaited<ReturnType<typeof testServer>>;
let brand: SeededBrand;
let db: Harness;
beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
  brand = await seedBrandIn(db, { domains: ["acme.com"] });
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

/** mulberry32: small, seeded, good enough to pick cases. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  kind: string;
  /** "stored": 204 and one row; "dropped": 204 and no row; "refused": 4xx and no row. */
  expect: "stored" | "dropped" | "refused";
  body: BodyInit;
  headers: Record<string, string>;
}

const WRONG_VALUES: unknown[] = [42, -1, 1e308, true, false, null, [], ["https://acme.com/"], {}, { href: "https://acme.com/" }, "", " ", "\u0000", "💥".repeat(10)];

function makeCase(i: number, random: () => number): Case {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const headers: Record<string, string> = { origin: "https://acme.com", "user-agent": CHROME_UA, "content-type": "text/plain;charset=UTF-8", "x-forwarded-for": forwardedFor(i) };
  const valid = { brand: brand.trackingCode, url: `https://acme.com/valid/${i}?utm_source=chatgpt.com`, referrer: "https://chatgpt.com/" };
  const refusedUrl = `https://acme.com/invalid/${i}`;
  const refused = (kind: string, body: BodyInit, extra: Record<string, string> = {}): Case => ({ kind, expect: "refused", body, headers: { ...headers, ...extra } });
  const roll = random();

  if (roll < 0.2) return { kind: "valid", expect: "stored", body: beaconJson(valid), headers };
  if (roll < 0.25) return { kind: "bot", expect: "dropped", body: beaconJson({ ...valid, url: `https://acme.com/bot/${i}` }), headers: { ...headers, "user-agent": pick(["GPTBot/1.2", "ClaudeBot/1.0", "curl/8.5.0", "Googlebot/2.1", ""]) } };
  if (roll < 0.3) {
    const size = 8 * 1024 + 1 + Math.floor(random() * 64 * 1024);
    const body = beaconJson({ brand: brand.trackingCode, url: refusedUrl, pad: "x".repeat(size) });
    // Half with a Content-Length, half chunked (nothing to check before reading).
    return refused("oversized", random() < 0.5 ? body : new Blob([body]).stream());
  }
  if (roll < 0.45) {
    const field = pick(["brand", "url", "referrer", "language", "screen", "dnt"]);
    let value = pick(WRONG_VALUES);
    // A value that happens to be acceptable for this field is made unacceptable.
    if ((field === "referrer" || field === "language" || field === "screen") && (value === "" || value === null)) value = 7;
    if (field === "dnt" && (typeof value === "boolean" || value === null)) value = "true";
    if (field === "url" && value === null) value = 0;
    return refused(`wrong type: ${field}`, beaconJson({ brand: brand.trackingCode, url: refusedUrl, [field]: value }));
  }
  if (roll < 0.55) {
    const good = beaconJson({ brand: brand.trackingCode, url: refusedUrl });
    const body = pick([
      () => good.slice(0, Math.floor(random() * (good.length - 1))),
      () => crypto.getRandomValues(new Uint8Array(1 + Math.floor(random() * 512))),
      () => "[".repeat(5000) + "]".repeat(5000),
      () => `{"brand":"${brand.trackingCode}","url":"${refusedUrl}"`,
      () => good.replace(/"/g, "'"),
      () => "\ufeff" + good.replace("{", "{,"),
      () => JSON.stringify([good]),
      () => JSON.stringify(good),
      () => "null",
      () => "",
    ])();
    return refused("bad JSON", body);
  }
  if (roll < 0.65) {
    const code = pick(["aw_" + Math.floor(random() * 1e12).toString(36), "", "x".repeat(65), "aw_<script>", "../../etc/passwd", brand.trackingCode.toUpperCase() + "Z"]);
    return refused("unknown code", beaconJson({ brand: code, url: refusedUrl }));
  }
  if (roll < 0.72) {
    const { origin: _, ...withoutOrigin } = headers;
    return { kind: "missing origin", expect: "refused", body: beaconJson({ brand: brand.trackingCode, url: refusedUrl }), headers: withoutOrigin };
  }
  if (roll < 0.85) {
    const origin = pick([
      "https://acme.com.evil.io",
      "https://notacme.com",
      "https://acme.co",
      "https://evil.io",
      "null",
      "https://acme.com@evil.io",
      "https://acme.com/",
      "javascript:alert(1)",
      "https://" + "a".repeat(400) + ".acme.com",
      "https://acme.com:443.evil.io",
      "https://xn--acme-9za.com",
    ]);
    return refused("forged origin", beaconJson({ brand: brand.trackingCode, url: refusedUrl }), { origin });
  }
  if (roll < 0.93) {
    const url = pick(["https://evil.io/x", "javascript:alert(1)", "data:text/html,hi", "/relative", "https://acme.com.evil.io/", `https://acme.com/${"y".repeat(2100)}`, "http://", "about:blank"]);
    return refused("bad page URL", beaconJson({ brand: brand.trackingCode, url }));
  }
  const field = pick(["referrer", "language", "screen"]);
  const value = pick(["not a url", "ftp://x", "<img src=x>", "1280x", "x720", "en_US!!", "a".repeat(3000)]);
  return refused(`bad ${field}`, beaconJson({ brand: brand.trackingCode, url: refusedUrl, [field]: value }));
}

test(
  `${TOTAL.toLocaleString("en")} fuzzed beacons: only 2xx/4xx, and nothing stored for the invalid ones`,
  async () => {
    const random = prng(SEED);
    const cases = Array.from({ length: TOTAL }, (_, i) => makeCase(i, random));
    const outcomes: { kind: string; expect: Case["expect"]; status: number }[] = new Array(TOTAL);
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TOTAL) {
          const i = next++;
          const c = cases[i];
          const res = await fetch(`${server.url}/t/collect`, { method: "POST", headers: c.headers, body: c.body });
          await res.arrayBuffer();
          outcomes[i] = { kind: c.kind, expect: c.expect, status: res.status };
        }
      }),
    );

    const bad = outcomes.filter((o) => o.status >= 500 || o.status < 200 || (o.status >= 300 && o.status < 400));
    expect(bad).toEqual([]);
    const wrong = outcomes.filter((o) => (o.expect === "refused" ? o.status < 400 : o.status !== 204));
    expect(wrong.slice(0, 10)).toEqual([]);

    const rows = await trafficRowsIn(db, brand.brandId);
    const expected = outcomes.filter((o) => o.expect === "stored").length;
    expect(expected).toBeGreaterThan(TOTAL * 0.15);
    expect(rows).toHaveLength(expected);
    expect(rows.every((r) => (r.path as string).startsWith("/valid/") && r.source_platform === "ChatGPT")).toBe(true);
    expect(await trafficRowsIn(db)).toHaveLength(expected);
    // Every kind of garbage came up.
    const kinds = new Set(outcomes.map((o) => o.kind.split(":")[0]));
    for (const kind of ["valid", "bot", "oversized", "wrong type", "bad JSON", "unknown code", "missing origin", "forged origin", "bad page URL"]) expect(kinds).toContain(kind);
  },
  120_000,
);
