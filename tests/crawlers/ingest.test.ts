// backends: sqlite, postgres
// Crawler logs in (issue #21): combined and JSON-lines files (gzip too, malformed lines, IPv6
// clients) through `answerwatch logs import`, and batches through the HTTP endpoint with an API key;
// counts per bot, class and verdict from insights_crawlers equal those computed here from what was
// sent; sending anything again adds nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "bun";
import { ROOT, tempDir, testServer } from "../helpers/app";
import { createBrand, signedUpOrg, type Org, type Server } from "../rest/helpers";
import type { Harness } from "../contracts/harness";
import { serverDb } from "../helpers/server-db";

const dataDir = tempDir("aw-crawlers-");
let server: Server;
let org: Org;
let brand: { id: string; slug: string };
let db: Harness;

const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const META = "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)";
const EXTENDED = "Mozilla/5.0 (compatible; Google-Extended/1.0)";
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";

/** What is sent: [ip, ua, path, status, expected bot, class, verdict]. */
const SENT: [string, string, string, number, string | null, string, string | null][] = [
  ["20.171.206.17", GPTBOT, "/pricing", 200, "GPTBot", "ai_training", "verified"],
  ["20.171.206.18", GPTBOT, "/robots.txt", 200, "GPTBot", "ai_training", "verified"],
  ["203.0.113.9", GPTBOT, "/blog/a", 403, "GPTBot", "ai_training", "spoofed"],
  ["2001:4860:4801:10::7", GOOGLEBOT, "/", 200, "Googlebot", "search_engine", "verified"],
  ["2001:db8::7", GOOGLEBOT, "/sitemap.xml", 200, "Googlebot", "search_engine", "spoofed"],
  ["31.13.64.1", META, "/docs", 500, "meta-externalagent", "ai_training", "unverifiable"],
  ["66.249.66.1", EXTENDED, "/", 200, "Google-Extended", "ai_training", "spoofed"],
  ["198.51.100.1", CHROME, "/app.js", 200, null, "human", null],
];

const combined = ([ip, ua, path, status]: (typeof SENT)[number], i: number) => `${ip} - - [25/Nov/2026:10:${String(i).padStart(2, "0")}:00 +0000] "GET ${path} HTTP/1.1" ${status} 512 "-" "${ua}"`;
const jsonLine = ([ip, ua, path, status]: (typeof SENT)[number], i: number) => JSON.stringify({ time: `2026-11-24T09:${String(i).padStart(2, "0")}:00Z`, remote_addr: ip, request: `GET ${path} HTTP/2.0`, status, http_user_agent: ua, body_bytes_sent: 100, host: "lumenly.example" });

function expected(times: number) {
  const byKey = new Map<string, { bot: string | null; class: string; verdict: string | null; requests: number; pages: number; refused: number; not_found: number; server_errors: number }>();
  for (const [, , path, status, bot, cls, verdict] of SENT) {
    const key = `${bot}|${verdict}`;
    const row = byKey.get(key) ?? { bot, class: cls, verdict, requests: 0, pages: 0, refused: 0, not_found: 0, server_errors: 0 };
    row.requests += times;
    const page = !/robots\.txt|sitemap|\.js$/.test(path);
    row.pages += page ? times : 0;
    // The site said no (401/403/429), did not have it (404/410), or failed (5xx): three counts, not one.
    row.refused += [401, 403, 429].includes(status) ? times : 0;
    row.not_found += [404, 410].includes(status) ? times : 0;
    row.server_errors += status >= 500 ? times : 0;
    byKey.set(key, row);
  }
  return [...byKey.values()].sort((a, b) => `${a.bot}|${a.verdict}`.localeCompare(`${b.bot}|${b.verdict}`));
}
const actual = async () =>
  ((await org.owner.rpc("insights_crawlers", { p_brand_id: brand.id, p_from: "2026-11-01", p_to: "2026-11-30" })).data as { bot: string | null; class: string; verdict: string | null; requests: number; pages: number; refused: number; not_found: number; server_errors: number }[])
    .map(({ bot, class: cls, verdict, requests, pages, refused, not_found, server_errors }) => ({ bot, class: cls, verdict, requests, pages, refused, not_found, server_errors }))
    .sort((a, b) => `${a.bot}|${a.verdict}`.localeCompare(`${b.bot}|${b.verdict}`));

beforeAll(async () => {
  // Eleven organizations sign up for the Logpush test below.
  server = await testServer({ DATA_DIR: dataDir, AUTH_SIGNUP_RATE_LIMIT_PER_HOUR: "100" });
  db = await serverDb(server);
  org = await signedUpOrg(server, "Crawlers");
  brand = await createBrand(org.owner, org.id, "crawled");
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

const cli = (...args: string[]) => {
  // On Postgres the CLI works on the server's database (DATABASE_URL), as a deployment's would.
  const database = server.backend.kind === "postgres" ? { DATABASE_URL: server.backend.url } : {};
  const run = Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, ...args], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent", ...database } });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
};

test("logs import: combined and gzip JSON lines are classified and verified; malformed lines counted; a second import adds nothing", async () => {
  const dir = tempDir("aw-logs-");
  const plain = join(dir, "access.log");
  writeFileSync(plain, [...SENT.map(combined), "this is not a log line", '"GET / HTTP/1.1" broken', ""].join("\n"));
  const gz = join(dir, "access.json.gz");
  writeFileSync(gz, gzipSync(Buffer.from([...SENT.map(jsonLine), "{not json", ""].join("\n"))));
  const first = cli("logs", "import", "--brand", brand.slug, plain, gz);
  expect(first.err).toBe("");
  expect(first.code).toBe(0);
  expect(first.out).toContain(`${plain}: 10 line(s): 8 new, 0 already imported, 2 malformed`);
  expect(first.out).toContain(`${gz}: 9 line(s): 8 new, 0 already imported, 1 malformed`);
  expect(await actual()).toEqual(expected(2));
  const again = cli("logs", "import", "--brand", brand.slug, plain, gz);
  expect(again.out).toContain("0 new, 8 already imported");
  expect(await actual()).toEqual(expected(2));
  // The client address is not stored.
  const stored = JSON.stringify(await db.inspect("SELECT * FROM crawler_hits"));
  for (const [ip] of SENT) expect(stored).not.toContain(ip);
});

test("POST /api/brands/:id/crawler-logs with an API key: good records kept, bad ones reported by index, a retried batch adds nothing", async () => {
  const key = (await (await fetch(`${server.url}/api/keys`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify({ name: "CDN", organization_id: org.id, role: "member" }) })).json()).secret as string;
  const batch = [
    { timestamp: "2026-11-23T08:00:00Z", method: "GET", host: "lumenly.example", path: "/pricing", status: 200, ip: "20.171.206.17", user_agent: GPTBOT },
    { timestamp: "yesterday", method: "GET", path: "/", status: 200, ip: "1.2.3.4", user_agent: "x" },
    { timestamp: "2026-11-23T08:00:01Z", method: "GET", path: "no-slash", status: 200, ip: "1.2.3.4", user_agent: "x" },
    { timestamp: "2026-11-23T08:00:02Z", method: "GET", path: "/", status: 200, user_agent: "x" },
    // Year 10000 (epoch milliseconds) and 1999: outside the dates any bucket holds, refused alone (the first failed the whole batch with a 500).
    { timestamp: 253402300800000, method: "GET", path: "/", status: 200, ip: "1.2.3.4", user_agent: GPTBOT },
    { timestamp: "1999-12-31T23:59:59Z", method: "GET", path: "/", status: 200, ip: "1.2.3.4", user_agent: GPTBOT },
  ];
  const post = (body: unknown, token = key) => fetch(`${server.url}/api/brands/${brand.id}/crawler-logs`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const sent = await post(batch);
  expect(sent.status).toBe(200);
  expect(sent.body).toMatchObject({ success: true, accepted: 1, duplicates: 0 });
  expect(sent.body.errors.map((e: { index: number }) => e.index)).toEqual([1, 2, 3, 4, 5]);
  expect(sent.body.errors[0].message).toContain("timestamp");
  expect(sent.body.errors.slice(3).map((e: { message: string }) => e.message)).toEqual(["timestamp must fall between 2000-01-01 and 2999-12-31", "timestamp must fall between 2000-01-01 and 2999-12-31"]);
  expect((await post(batch)).body).toMatchObject({ accepted: 0, duplicates: 1 });
  expect((await post(Array.from({ length: 1001 }, () => batch[0]))).status).toBe(413);
  expect((await post({ nope: 1 })).status).toBe(400);
  const stranger = await signedUpOrg(server, "Stranger");
  expect((await post(batch, stranger.ownerToken)).status).toBe(404);
  const rows = await actual();
  expect(rows.find((r) => r.bot === "GPTBot" && r.verdict === "verified")!.requests).toBe(expected(2).find((r) => r.bot === "GPTBot" && r.verdict === "verified")!.requests + 1);
});

test("trend and paths; crawler.first_seen once per new AI bot that is not spoofed; the Logpush destination", async () => {
  const trend = (await org.owner.rpc("insights_crawler_trend", { p_brand_id: brand.id, p_from: "2026-11-23", p_to: "2026-11-25", p_interval: "day" })).data as { period: string; bot: string; requests: number; pages: number }[];
  expect(trend.find((r) => r.period === "2026-11-25" && r.bot === "GPTBot")).toEqual({ period: "2026-11-25", bot: "GPTBot", requests: 3, pages: 2 });
  expect(trend.find((r) => r.period === "2026-11-24" && r.bot === "GPTBot")).toEqual({ period: "2026-11-24", bot: "GPTBot", requests: 3, pages: 2 });
  expect(trend.find((r) => r.period === "2026-11-23" && r.bot === "GPTBot")?.requests).toBe(1);
  expect(trend.filter((r) => r.period === "2026-11-23" && r.bot === "Googlebot")).toEqual([{ period: "2026-11-23", bot: "Googlebot", requests: 0, pages: 0 }]);
  // By week (whole weeks from crawler_weekly, the partial ones by day): each week's sums are its days'.
  const window = { p_brand_id: brand.id, p_from: "2026-10-29", p_to: "2026-11-29" };
  const days = (await org.owner.rpc("insights_crawler_trend", { ...window, p_interval: "day" })).data as typeof trend;
  const weeks = (await org.owner.rpc("insights_crawler_trend", { ...window, p_interval: "week" })).data as typeof trend;
  const mondayOf = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - ((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
  const summed = new Map<string, { requests: number; pages: number }>();
  for (const d of days) {
    const key = `${mondayOf(d.period)} ${d.bot}`;
    const cell = summed.get(key) ?? { requests: 0, pages: 0 };
    summed.set(key, { requests: cell.requests + d.requests, pages: cell.pages + d.pages });
  }
  expect(weeks.map((w) => [w.period, w.bot, w.requests, w.pages])).toEqual([...summed].map(([key, c]) => [...key.split(" "), c.requests, c.pages]));
  // The week of the data (2026-11-23 to 29) is whole: it is read from crawler_weekly.
  expect(weeks.find((w) => w.period === "2026-11-23" && w.bot === "GPTBot")?.requests).toBe(7);
  const paths = (await org.owner.rpc("insights_crawler_paths", { p_brand_id: brand.id, p_from: "2026-11-01", p_to: "2026-11-30" })).data as { bot: string; path: string; requests: number; refused: number }[];
  expect(paths.filter((p) => p.bot === "GPTBot").map((p) => [p.path, p.requests, p.refused])).toEqual([
    ["/pricing", 3, 0],
    ["/blog/a", 2, 2],
    ["/robots.txt", 2, 0],
  ]);
  // A 500 is the site's failure, not a refusal.
  expect(paths.find((p) => p.bot === "meta-externalagent" && p.path === "/docs")).toMatchObject({ requests: 2, refused: 0, not_found: 0, server_errors: 2 });
  const events = (await db.inspect<{ payload: string }>("SELECT payload FROM webhook_events WHERE type = 'crawler.first_seen' AND brand_id = ?", brand.id))
    .map((e) => JSON.parse(e.payload) as { bot: string; verdict: string })
    .map(({ bot, verdict }) => ({ bot, verdict }))
    .sort((a, b) => (a.bot < b.bot ? -1 : a.bot > b.bot ? 1 : 0));
  expect(events).toEqual([
    { bot: "GPTBot", verdict: "verified" },
    { bot: "meta-externalagent", verdict: "unverifiable" },
  ]);

  const key = (await (await fetch(`${server.url}/api/keys`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify({ name: "Logpush", organization_id: org.id, role: "member" }) })).json()).secret as string;
  const lines = [
    { ClientIP: "2600:1f28:365:8000::1", ClientRequestHost: "lumenly.example", ClientRequestMethod: "GET", ClientRequestURI: "/guide", ClientRequestUserAgent: "CCBot/2.0 (https://commoncrawl.org/faq/)", EdgeResponseStatus: 200, EdgeResponseBytes: 900, EdgeStartTimestamp: Date.parse("2026-11-22T05:00:00Z") * 1e6 },
    { content: "test message" },
  ];
  const body = gzipSync(Buffer.from(lines.map((l) => JSON.stringify(l)).join("\n")));
  const push = async () => (await fetch(`${server.url}/api/brands/${brand.id}/crawler-logs/logpush`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-encoding": "gzip", "content-type": "application/json" }, body })).json();
  expect(await push()).toEqual({ success: true, accepted: 1, duplicates: 0, malformed: 1 });
  expect(await push()).toEqual({ success: true, accepted: 0, duplicates: 1, malformed: 1 });
  const ccbot = (await actual()).find((r) => r.bot === "CCBot");
  expect(ccbot).toEqual({ bot: "CCBot", class: "ai_training", verdict: "verified", requests: 1, pages: 1, refused: 0, not_found: 0, server_errors: 0 });
});

test("logs import of several batches (two written at once on Postgres): every line counted once by bot, verdict, day and path; the first sighting is the earliest; a second import adds nothing", async () => {
  const other = await createBrand(org.owner, org.id, "crawled-bulk");
  // 20,000 lines (three batches) over ten days of November 2026, the agents of SENT in turn, 50 paths.
  const LINES = 20_000;
  const lines = Array.from({ length: LINES }, (_, i) => {
    const sent = SENT[i % SENT.length]!;
    const at = new Date(Date.UTC(2026, 10, 10) + i * 43_000);
    const stamp = `${String(at.getUTCDate()).padStart(2, "0")}/Nov/2026:${at.toISOString().slice(11, 19)} +0000`;
    const path = sent[2] === "/" ? `/p${i % 50}` : sent[2];
    return { sent, day: at.toISOString().slice(0, 10), path, line: `${sent[0]} - - [${stamp}] "GET ${path} HTTP/1.1" ${sent[3]} 512 "-" "${sent[1]}"` };
  });
  const file = join(tempDir("aw-logs-bulk-"), "access.log");
  writeFileSync(file, lines.map((l) => l.line).join("\n") + "\n");
  const first = cli("logs", "import", "--brand", other.slug, file);
  expect(first.err).toBe("");
  expect(first.out).toContain(`${LINES} line(s): ${LINES} new, 0 already imported, 0 malformed`);
  const window = { p_brand_id: other.id, p_from: "2026-11-01", p_to: "2026-11-30" };
  const perBot = async () => ((await org.owner.rpc("insights_crawlers", window)).data as { bot: string | null; verdict: string | null; requests: number }[]).map((r) => `${r.bot}|${r.verdict}|${r.requests}`).sort();
  /** How many of `items` have each key, in first-seen order. */
  const tally = <T>(items: T[], key: (item: T) => string) => items.reduce((m, item) => m.set(key(item), (m.get(key(item)) ?? 0) + 1), new Map<string, number>());
  const expectedPerBot = [...tally(lines, ({ sent }) => `${sent[4]}|${sent[6]}`)].map(([k, n]) => `${k}|${n}`).sort();
  expect(await perBot()).toEqual(expectedPerBot);
  // GPTBot's requests per day, and its paths' totals (running totals written by two batches at once).
  const trend = (await org.owner.rpc("insights_crawler_trend", { ...window, p_interval: "day" })).data as { period: string; bot: string; requests: number }[];
  const gpt = lines.filter(({ sent }) => sent[4] === "GPTBot");
  const gptDays = tally(gpt, (l) => l.day);
  const gptPaths = tally(gpt, (l) => l.path);
  expect(trend.filter((r) => r.bot === "GPTBot" && r.requests > 0).map((r) => [r.period, r.requests])).toEqual([...gptDays]);
  const paths = (await org.owner.rpc("insights_crawler_paths", window)).data as { bot: string; path: string; requests: number }[];
  expect(paths.filter((p) => p.bot === "GPTBot").map((p) => [p.path, p.requests]).sort()).toEqual([...gptPaths].sort());
  const [sighting] = await db.inspect<{ first_seen: string }>("SELECT first_seen FROM crawler_bots WHERE brand_id = ? AND bot = 'GPTBot'", other.id);
  expect(new Date(sighting!.first_seen).toISOString()).toBe(new Date(Date.UTC(2026, 10, 10)).toISOString());
  const again = cli("logs", "import", "--brand", other.slug, file);
  expect(again.out).toContain(`${LINES} line(s): 0 new, ${LINES} already imported, 0 malformed`);
  expect(await perBot()).toEqual(expectedPerBot);
});

test("Logpush bodies are read two at a time per instance, at most one per organization: the rest wait unread, a second of one organization is told 429, and past eight waiting a push is told 503", async () => {
  // Ten organizations, one push each (the gate is shared by every organization of the instance).
  const senders = await Promise.all(Array.from({ length: 11 }, async (_, i) => {
    const o = await signedUpOrg(server, `Pusher ${i}`);
    return { org: o, brand: await createBrand(o.owner, o.id, `pushed-${i}-${crypto.randomUUID().slice(0, 6)}`) };
  }));
  const push = (sender: (typeof senders)[number], body: BodyInit) =>
    fetch(`${server.url}/api/brands/${sender.brand.id}/crawler-logs/logpush`, { method: "POST", headers: { authorization: `Bearer ${sender.org.ownerToken}`, "content-type": "application/json" }, body, duplex: "half" } as RequestInit);
  // Bodies the test finishes when it chooses (Logpush's validation line only: nothing is stored).
  const finish: (() => void)[] = [];
  const held = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"content":"test message"}\n'));
        finish.push(() => controller.close());
      },
    });
  const pushes = senders.slice(0, 10).map((sender) => push(sender, held()).then((r) => r.status));
  await Bun.sleep(500);
  // A second push of an organization with one in: refused at once, whatever room is left.
  const again = await push(senders[0]!, '{"content":"test message"}\n');
  expect({ status: again.status, code: ((await again.json()) as { error: { code: string } }).error.code, retry: again.headers.get("retry-after") }).toEqual({ status: 429, code: "too_many_pushes", retry: "5" });
  // Two are being read, eight wait: an eleventh organization's is refused at once, its body never read.
  const refused = await push(senders[10]!, '{"content":"test message"}\n');
  expect({ status: refused.status, code: ((await refused.json()) as { error: { code: string } }).error.code, retry: refused.headers.get("retry-after") }).toEqual({ status: 503, code: "53300", retry: "1" });
  for (const done of finish) done();
  expect(await Promise.all(pushes)).toEqual(Array.from({ length: 10 }, () => 200));
  // Then the instance takes pushes again.
  expect((await push(senders[0]!, '{"content":"test message"}\n')).status).toBe(200);
});

test("a record dated over a day ahead is refused alone; a date-time without an offset is UTC; a long non-Latin user agent is cut to 1,024 bytes and a path over 2,048 bytes refused alone — the rest of the batch stored", async () => {
  const other = await createBrand(org.owner, org.id, "crawled-edges");
  // Varied characters (three UTF-8 bytes each), so no database compresses them under its index limit.
  const cjk = (n: number, from = 0x4e00) => Array.from({ length: n }, (_, i) => String.fromCharCode(from + i)).join("");
  const longAgent = `${GPTBOT} ${cjk(1500)}`;
  const deepPath = `/${cjk(682)}`; // 2,047 bytes
  const batch = [
    { timestamp: new Date(Date.now() + 2 * 86_400_000).toISOString(), method: "GET", path: "/", status: 200, ip: "20.171.206.17", user_agent: GPTBOT },
    { timestamp: "2026-11-22T07:00:00", method: "GET", path: "/no-offset", status: 200, ip: "20.171.206.17", user_agent: GPTBOT },
    { timestamp: "2026-11-22T07:00:01Z", method: "GET", path: "/agent", status: 200, ip: "20.171.206.17", user_agent: longAgent },
    { timestamp: "2026-11-22T07:00:02Z", method: "GET", path: `/${cjk(700, 0x5e00)}`, status: 200, ip: "20.171.206.17", user_agent: GPTBOT },
    { timestamp: "2026-11-22T07:00:03Z", method: "GET", path: deepPath, status: 200, ip: "20.171.206.17", user_agent: GPTBOT },
  ];
  const res = await fetch(`${server.url}/api/brands/${other.id}/crawler-logs`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify(batch) });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { accepted: number; errors: { index: number; message: string }[] };
  expect(body.accepted).toBe(3);
  expect(body.errors).toEqual([
    { index: 0, message: "timestamp is in the future (more than a day past this server's clock)" },
    { index: 3, message: "path must start with / (at most 2048 bytes)" },
  ]);
  const rows = await db.inspect<{ at: string; path: string; user_agent: string }>(
    "SELECT h.at, h.path, a.user_agent FROM crawler_hits h JOIN crawler_agents a ON a.id = h.agent_id WHERE h.brand_id = ? ORDER BY h.at",
    other.id,
  );
  expect(rows.map((r) => [r.at, r.path])).toEqual([
    ["2026-11-22T07:00:00.000Z", "/no-offset"],
    ["2026-11-22T07:00:01.000Z", "/agent"],
    ["2026-11-22T07:00:03.000Z", deepPath],
  ]);
  const kept = rows[1]!.user_agent;
  expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(1024);
  expect(Buffer.byteLength(kept)).toBeGreaterThan(1020);
  expect(longAgent.startsWith(kept)).toBe(true);
  // The path's running totals hold the long path's key too.
  const paths = (await org.owner.rpc("insights_crawler_paths", { p_brand_id: other.id, p_from: "2026-11-22", p_to: "2026-11-22" })).data as { path: string; requests: number }[];
  expect(paths.map((p) => p.path).sort()).toEqual(["/agent", "/no-offset", deepPath].sort());
});
