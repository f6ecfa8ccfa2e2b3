// A 1 GB access log through `answerwatch logs import` (issue #21, acceptance 1): streamed, so the
// importing process stays under 100 MB resident (its peak, VmHWM, read from /proc while it runs),
// and the counts per bot, class and verdict equal those computed here while writing the file.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir, testServer } from "../helpers/app";
import { createBrand, signedUpOrg, type Org, type Server } from "../rest/helpers";

const dataDir = tempDir("aw-crawlers-1g-");
let server: Server;
let org: Org;
let brand: { id: string; slug: string };

beforeAll(async () => {
  server = await testServer({ DATA_DIR: dataDir });
  org = await signedUpOrg(server, "Big logs");
  brand = await createBrand(org.owner, org.id, "big-logs");
});
afterAll(() => {
  server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** [client address, user agent, expected bot, class, verdict]: inside and outside published ranges, IPv6, no ranges, a person. */
const CLIENTS: [(i: number) => string, string, string | null, string, string | null][] = [
  [(i) => `20.171.206.${i % 250}`, "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "GPTBot", "ai_training", "verified"],
  [(i) => `203.0.113.${i % 250}`, "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "GPTBot", "ai_training", "spoofed"],
  [(i) => `2001:4860:4801:10::${(i % 4000).toString(16)}`, "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot", "search_engine", "verified"],
  [(i) => `31.13.64.${i % 250}`, "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", "meta-externalagent", "ai_training", "unverifiable"],
  [(i) => `198.51.100.${i % 250}`, "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36", null, "human", null],
];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/** Writes ~1 GiB of combined-format lines (~2 KB each: long referers, of which only the host is kept), one a second from 1 October 2026; every 997th line is malformed. */
async function writeLog(path: string) {
  const expected = new Map<string, { bot: string | null; class: string; verdict: string | null; requests: number; pages: number; refused: number; not_found: number; server_errors: number }>();
  const referer = `https://news.example/story?utm=${"r".repeat(1800)}`;
  const writer = Bun.file(path).writer({ highWaterMark: 1 << 20 });
  let bytes = 0;
  let lines = 0;
  let malformed = 0;
  const start = Date.UTC(2026, 9, 1);
  for (let i = 0; bytes < 1024 ** 3; i++) {
    let line: string;
    if (i % 997 === 500) {
      line = `garbage ${i} ${referer}\n`;
      malformed++;
    } else {
      const [ip, ua, bot, cls, verdict] = CLIENTS[i % CLIENTS.length]!;
      const t = new Date(start + i * 1000);
      const path = i % 11 === 0 ? "/robots.txt" : `/docs/page-${i % 700}`;
      const status = i % 13 === 0 ? 404 : 200;
      line = `${ip(i)} - - [${pad(t.getUTCDate())}/${MONTHS[t.getUTCMonth()]}/${t.getUTCFullYear()}:${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())} +0000] "GET ${path} HTTP/1.1" ${status} 4096 "${referer}" "${ua}"\n`;
      const key = `${bot}|${verdict}`;
      const row = expected.get(key) ?? { bot, class: cls, verdict, requests: 0, pages: 0, refused: 0, not_found: 0, server_errors: 0 };
      row.requests++;
      row.pages += path === "/robots.txt" ? 0 : 1;
      row.refused += [401, 403, 429].includes(status) ? 1 : 0;
      row.not_found += [404, 410].includes(status) ? 1 : 0;
      row.server_errors += status >= 500 ? 1 : 0;
      expected.set(key, row);
    }
    writer.write(line);
    bytes += line.length;
    lines++;
  }
  await writer.end();
  return { bytes, lines, malformed, expected: [...expected.values()] };
}

const peakRss = (pid: number) => {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
  } catch {
    return null; // exited meanwhile
  }
};

test("a 1 GB log is imported with the importer under 100 MB resident; counts per bot, class and verdict are exact", async () => {
  const log = join(dataDir, "access.log");
  const written = await writeLog(log);
  expect(written.bytes).toBeGreaterThanOrEqual(1024 ** 3);

  const importer = Bun.spawn([process.execPath, `${ROOT}src/main.ts`, "logs", "import", "--brand", brand.slug, log], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent" }, stdout: "pipe", stderr: "pipe" });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, peakRss(importer.pid) ?? 0)), 20);
  const [out, err, code] = await Promise.all([new Response(importer.stdout).text(), new Response(importer.stderr).text(), importer.exited]);
  clearInterval(sampler);
  rmSync(log, { force: true });
  expect(err).toBe("");
  expect(code).toBe(0);
  expect(out).toContain(`${written.lines} line(s): ${written.lines - written.malformed} new, 0 already imported, ${written.malformed} malformed`);
  console.log(`1 GiB import: peak resident ${(peak / 2 ** 20).toFixed(0)} MB`);
  // Sampled at least a few times over a run of several seconds.
  expect(peak).toBeGreaterThan(20 << 20);
  expect(peak).toBeLessThan(100 << 20);

  const rows = ((await org.owner.rpc("insights_crawlers", { p_brand_id: brand.id, p_from: "2026-10-01", p_to: "2026-10-31" })).data as typeof written.expected)
    .map(({ bot, class: cls, verdict, requests, pages, refused, not_found, server_errors }) => ({ bot, class: cls, verdict, requests, pages, refused, not_found, server_errors }))
    .sort((a, b) => `${a.bot}|${a.verdict}`.localeCompare(`${b.bot}|${b.verdict}`));
  expect(rows).toEqual(written.expected.sort((a, b) => `${a.bot}|${a.verdict}`.localeCompare(`${b.bot}|${b.verdict}`)));
}, 240_000);
