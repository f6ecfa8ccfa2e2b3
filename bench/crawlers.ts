// AI-crawler analytics at the size of a real site's logs (issue #21, acceptance 3), in one run:
//   1. `answerwatch logs import` (the real CLI, its own process) on a generated combined-format
//      access log of LINES lines spanning the 365 days ending today, against `wc -l` on the same file
//      (median of 5, file already in the page cache): lines per second, target ≥ 0.2×; and (issue
//      #32) against the same file read, parsed and classified in this process: ≥ 0.25×, ≥ 100,000/s;
//   2. the crawler insights RPCs through the real server over the 365 days ending today against the
//      30 days ending today (medians, same server): target ≤ 1.5×.
// The log: a third humans, the rest 14 crawlers and fetchers (some from inside their operator's
// published ranges, some spoofed, some unverifiable), Zipf-distributed over PATHS pages plus
// robots.txt, sitemaps and assets, IPv4 and IPv6 clients, statuses 200/301/304/404/503.
// Knobs: LINES=1000000  PATHS=3000  RUNS=15  KEEP=1 (leave the data directory)
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import ipaddr from "ipaddr.js";
import { hitKind, identify } from "../src/crawlers/classify";
import ranges from "../src/crawlers/data/bot-ip-ranges.json";
import { normalizeRecord } from "../src/crawlers/ingest";
import { fileLines, OVERLONG, parseLogLine } from "../src/crawlers/logs";
import { freePort, median, report, ROOT, tempDir, waitFor, type RatioReport } from "./lib";
import { rng, weighted, zipf } from "./scale/random";

const LINES = Number(Bun.env.LINES ?? 1_000_000);
const PATHS = Number(Bun.env.PATHS ?? 3000);
const RUNS = Number(Bun.env.RUNS ?? 15);
const DAY_MS = 86_400_000;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const BOTS: { ua: string; bot?: string; weight: number }[] = [
  { bot: "GPTBot", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", weight: 12 },
  { bot: "OAI-SearchBot", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot", weight: 6 },
  { bot: "ChatGPT-User", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", weight: 8 },
  { bot: "PerplexityBot", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", weight: 5 },
  { bot: "Perplexity-User", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", weight: 3 },
  { bot: "ClaudeBot", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", weight: 7 },
  { bot: "Amazonbot", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36", weight: 3 },
  { bot: "CCBot", ua: "CCBot/2.0 (https://commoncrawl.org/faq/)", weight: 2 },
  { bot: "Googlebot", ua: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", weight: 14 },
  { bot: "bingbot", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36", weight: 6 },
  { bot: "Applebot", ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", weight: 2 },
  { bot: "meta-externalagent", ua: "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", weight: 4 },
  { bot: "Bytespider", ua: "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)", weight: 2 },
  { bot: "Google-Extended", ua: "Mozilla/5.0 (compatible; Google-Extended/1.0)", weight: 1 },
  { ua: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36", weight: 25 },
  { ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", weight: 10 },
];

/** A few addresses inside each operator's published ranges (IPv4 and IPv6 where it publishes both). */
function insideAddresses(): Map<string, string[]> {
  const byBot = new Map<string, string[]>();
  for (const b of (ranges as { bots: { bot: string; prefixes: string[] }[] }).bots) {
    const picks = [b.prefixes.find((p) => !p.includes(":")), b.prefixes.find((p) => p.includes(":"))].filter(Boolean) as string[];
    byBot.set(
      b.bot,
      picks.map((p) => {
        const [net] = ipaddr.parseCIDR(p);
        const bytes = net.toByteArray();
        bytes[bytes.length - 1] = (bytes[bytes.length - 1]! + 7) & 0xff;
        return ipaddr.fromByteArray(bytes).toString();
      }),
    );
  }
  return byBot;
}

const pad = (n: number) => String(n).padStart(2, "0");
function clf(t: number): string {
  const d = new Date(t);
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

/** Writes the access log (`lines` lines, oldest first, over the 365 days ending at `end`) and returns its size in bytes. */
export async function writeLog(path: string, end: number, lines = LINES): Promise<number> {
  const random = rng("crawlers");
  const inside = insideAddresses();
  const pickAgent = weighted(BOTS.map((b) => [b, b.weight] as const));
  // Zipf over pages: a few pages are read far more than the rest.
  const pageRank = zipf(PATHS);
  const pickPage = () => {
    const rank = pageRank(random);
    return rank === 0 ? "/" : `/${["blog", "docs", "guides", "pricing", "compare"][rank % 5]}/page-${rank}`;
  };
  const pickPath = () => {
    const r = random();
    return r < 0.04 ? "/robots.txt" : r < 0.06 ? "/sitemap.xml" : r < 0.16 ? `/assets/app-${Math.floor(random() * 40)}.js` : pickPage();
  };
  const statuses = [200, 200, 200, 200, 200, 200, 200, 301, 304, 404, 503];
  const start = end - 365 * DAY_MS;
  const step = (end - start) / lines;
  const writer = Bun.file(path).writer({ highWaterMark: 1 << 20 });
  let bytes = 0;
  for (let i = 0; i < lines; i++) {
    const agent = pickAgent(random);
    const own = agent.bot ? inside.get(agent.bot) : undefined;
    const r = random();
    // 80 % of a bot's requests from its operator's ranges (when it publishes them), the rest from anywhere.
    const ip = own?.length && r < 0.8 ? own[i % own.length]! : r < 0.9 ? `${1 + Math.floor(random() * 220)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}` : `2001:db8:${Math.floor(random() * 65536).toString(16)}::${Math.floor(random() * 65536).toString(16)}`;
    const line = `${ip} - - [${clf(start + i * step)}] "GET ${pickPath()} HTTP/1.1" ${statuses[Math.floor(random() * statuses.length)]} ${Math.floor(random() * 90_000)} "-" "${agent.ua}"\n`;
    bytes += line.length;
    writer.write(line);
  }
  await writer.end();
  return bytes;
}

/** `answerwatch …args` on DATA_DIR (and DATABASE_URL when `env` has it); its stdout. */
export function cli(dataDir: string, ...args: string[]): string {
  return cliWith({}, dataDir, ...args);
}

export function cliWith(env: Record<string, string>, dataDir: string, ...args: string[]): string {
  const run = Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, ...args], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env } });
  if (run.exitCode !== 0) throw new Error(`answerwatch ${args.join(" ")}: ${run.stderr}`);
  return run.stdout.toString();
}

async function main() {
  const dataDir = tempDir("aw-bench-crawlers-");
  const log = join(dataDir, "access.log");
  const end = Date.now();
  let started = performance.now();
  const size = await writeLog(log, end);
  console.log(`log: ${LINES.toLocaleString("en")} lines, ${(size / 1e6).toFixed(0)} MB, written in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  cli(dataDir, "user", "add", "--email", "bench@example.com", "--password", "correct-horse", "--org", "Bench");
  const yaml = join(dataDir, "brand.yaml");
  await Bun.write(yaml, "brand:\n  name: Crawled\n  slug: crawled\n  website: https://crawled.example/\n  organization: Bench\n");
  cli(dataDir, "apply", yaml);

  // wc -l: warm the page cache once, then the median of 5.
  const wc = () => {
    const t = performance.now();
    const out = Bun.spawnSync(["wc", "-l", log]).stdout.toString();
    if (Number(out.trim().split(/\s+/)[0]) !== LINES) throw new Error(`wc -l: ${out}`);
    return performance.now() - t;
  };
  wc();
  const wcMs = median(Array.from({ length: 5 }, wc));

  started = performance.now();
  const imported = cli(dataDir, "logs", "import", "--brand", "crawled", log);
  const importMs = performance.now() - started;
  console.log(imported.trim());
  if (!imported.includes(`${LINES} line(s): ${LINES} new`)) throw new Error("the import did not take every line");
  const dbBytes = statSync(join(dataDir, "answerwatch.db")).size + (statSync(join(dataDir, "answerwatch.db-wal"), { throwIfNoEntry: false })?.size ?? 0);
  console.log(`import: ${(importMs / 1000).toFixed(1)} s, ${Math.round(LINES / (importMs / 1000)).toLocaleString("en")} lines/s; wc -l: ${wcMs.toFixed(1)} ms; ratio ${(wcMs / importMs).toPrecision(2)}×; database ${(dbBytes / 1e6).toFixed(0)} MB`);
  // The same file read, parsed, checked and classified in this process, storing nothing (the
  // ceiling of any import written in TypeScript; issue #32's baseline).
  started = performance.now();
  const agents = new Map<string, ReturnType<typeof identify>>();
  for await (const line of fileLines(log)) {
    if (line === OVERLONG) throw new Error("an overlong line in the bench's log");
    const record = normalizeRecord(parseLogLine(line));
    if (typeof record === "string") throw new Error(record);
    if (!agents.has(record.user_agent)) agents.set(record.user_agent, identify(record.user_agent));
    hitKind(record.path);
  }
  const parseMs = performance.now() - started;
  console.log(`read + parse + check + classify only: ${Math.round(LINES / (parseMs / 1000)).toLocaleString("en")} lines/s, ratio to wc -l ${(wcMs / parseMs).toPrecision(2)}×`);
  const rows: RatioReport[] = [
    { name: "logs import, lines per second vs wc -l", ours: LINES / (importMs / 1000), baseline: LINES / (wcMs / 1000), unit: "lines/s", target: "≥ 0.2×", ok: wcMs / importMs >= 0.2 },
    // Issue #32: what storing costs on top of reading, parsing and classifying (and ≥ 100,000 lines/s).
    { name: "logs import vs the same file read, parsed and classified only", ours: LINES / (importMs / 1000), baseline: LINES / (parseMs / 1000), unit: "lines/s", target: "≥ 0.25× and ≥ 100,000/s", ok: parseMs / importMs >= 0.25 && LINES / (importMs / 1000) >= 100_000 },
  ];

  // The RPCs through the real server, as its service role (the work is the same for any caller).
  const keys = Object.fromEntries(cli(dataDir, "keys").trim().split("\n").map((l) => l.split("=") as [string, string]));
  const port = freePort();
  const server = Bun.spawn([process.execPath, `${ROOT}src/main.ts`, "serve", "--port", String(port)], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent" }, stdout: "ignore", stderr: "inherit" });
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/healthz`);
    const brandId = (await (await fetch(`${url}/rest/v1/brands?slug=eq.crawled&select=id`, { headers: { apikey: keys.SERVICE_ROLE_KEY!, authorization: `Bearer ${keys.SERVICE_ROLE_KEY}` } })).json())[0].id as string;
    const day = (t: number) => new Date(t).toISOString().slice(0, 10);
    const time = async (rpc: string, days: number, extra: Record<string, unknown>) => {
      const body = JSON.stringify({ p_brand_id: brandId, p_from: day(end - (days - 1) * DAY_MS), p_to: day(end), ...extra });
      const call = async () => {
        const t = performance.now();
        const res = await fetch(`${url}/rest/v1/rpc/${rpc}`, { method: "POST", headers: { apikey: keys.SERVICE_ROLE_KEY!, authorization: `Bearer ${keys.SERVICE_ROLE_KEY}`, "content-type": "application/json" }, body });
        const rows = (await res.json()) as unknown[];
        if (res.status !== 200) throw new Error(`${rpc}: ${res.status} ${JSON.stringify(rows)}`);
        return { ms: performance.now() - t, rows: rows.length };
      };
      await call();
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await call());
      return { ms: median(runs.map((r) => r.ms)), rows: runs[0]!.rows };
    };
    for (const [rpc, extra, label] of [
      ["insights_crawlers", {}, "insights_crawlers"],
      ["insights_crawler_paths", {}, "insights_crawler_paths"],
      ["insights_crawler_trend", { p_interval: "month" }, "insights_crawler_trend (by month)"],
      ["insights_crawler_trend", { p_interval: "week" }, "insights_crawler_trend (by week)"],
    ] as const) {
      const month = await time(rpc, 30, extra);
      const year = await time(rpc, 365, extra);
      console.log(`  ${label}: 30 days ${month.ms.toFixed(1)} ms (${month.rows} rows), 365 days ${year.ms.toFixed(1)} ms (${year.rows} rows)`);
      rows.push({ name: `${label}, a year vs a month`, ours: year.ms, baseline: month.ms, unit: "ms", target: "≤ 1.5×", ok: year.ms / month.ms <= 1.5 });
    }
  } finally {
    server.kill("SIGTERM");
    await server.exited;
    if (!Bun.env.KEEP) rmSync(dataDir, { recursive: true, force: true });
    else console.log(`kept ${dataDir}`);
  }
  // lines/s: higher is better, so the ratio printed is ours / baseline.
  report(rows);
}

// bench/postgres.ts imports the log writer and the CLI runner.
if (import.meta.main) await main();
