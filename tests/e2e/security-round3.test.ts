// Issue #26, against the compiled binary: each finding of the third adversarial review replayed over
// HTTP (supabase-js, raw fetch, the MCP SDK's client) or the CLI, failing before its fix. For the
// work a request can start (1–3), the attack loops while /healthz is polled and the server's resident
// memory is read from /proc: it must stay within 150 MB of its start and /healthz's p95 under 100 ms.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "bun";
import type { SupabaseClient } from "@supabase/supabase-js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TOOLS } from "../../src/mcp/tools";
import { INSIGHT_RPCS } from "../../src/insights/rpc";
import { openaiAnswer } from "../fakes/answers";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { tempDir } from "../helpers/app";
import { startBinary, type StartedBinary } from "../helpers/binary";
import { client, uniqueEmail } from "../helpers/supabase";

const TIMEOUT_MS = 3000;
const METRICS_TOKEN = "metrics-token-0123456789abcdef";
let bin: StartedBinary;
let fake: FakeUpstream;
let keys: { anon: string; service: string };
let owner: { sb: SupabaseClient; token: string; id: string; email: string };
let orgId: string;
let brandId: string;

async function signUp(label: string) {
  const email = uniqueEmail(label);
  const sb = client(bin.url, keys.anon);
  const { data, error } = await sb.auth.signUp({ email, password: "correct-horse" });
  if (error) throw error;
  return { sb, token: data.session!.access_token, id: data.user!.id, email };
}

async function single<T>(promise: PromiseLike<{ data: T | null; error: unknown }>): Promise<T> {
  const { data, error } = await promise;
  if (error) throw new Error(JSON.stringify(error));
  return data as T;
}

const rssBytes = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${bin.proc.pid}/status`, "utf8"))![1]) * 1024;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

/**
 * Runs `attack` from `workers` loops for `ms` while /healthz is polled every 25 ms; returns every
 * attack's status and time, /healthz's latencies, and the server's RSS growth at its highest.
 */
async function underAttack(attack: () => Promise<number>, ms: number, workers = 4) {
  Bun.gc(true);
  const rssStart = rssBytes();
  let rssPeak = rssStart;
  const until = Date.now() + ms;
  const results: { status: number; ms: number }[] = [];
  const health: number[] = [];
  const loops = Array.from({ length: workers }, async () => {
    for (let i = 0; i < 10_000 && Date.now() < until; i++) {
      const t = performance.now();
      const status = await attack();
      results.push({ status, ms: performance.now() - t });
    }
  });
  const poll = (async () => {
    for (let i = 0; i < 10_000 && Date.now() < until; i++) {
      const t = performance.now();
      const res = await fetch(`${bin.url}/healthz`);
      await res.arrayBuffer();
      health.push(performance.now() - t);
      rssPeak = Math.max(rssPeak, rssBytes());
      await Bun.sleep(25);
    }
  })();
  await Promise.all([...loops, poll]);
  console.log(`${results.length} attacks in ${ms} ms: server RSS +${((rssPeak - rssStart) / 2 ** 20).toFixed(1)} MB at most, /healthz p95 ${p95(health).toFixed(1)} ms over ${health.length} polls`);
  return { results, health, growth: rssPeak - rssStart };
}

beforeAll(async () => {
  fake = await startFakeUpstream();
  // An answer citing a web page, a javascript: URL and a data: URL (finding 7).
  fake.setBehavior("chatgpt", {
    respond: () =>
      Response.json(
        openaiAnswer({
          text: "Alpha and Rival lead the field of analytics tools this year.",
          query: "best analytics",
          cites: [
            { url: "https://reviews.example/alpha", title: "Review" },
            { url: "javascript:alert(document.domain)", title: "Click me" },
            { url: "data:text/html,<script>alert(1)</script>", title: "Data" },
          ],
        }),
      ),
  });
  const env = Object.fromEntries(Object.entries(fake.env()).filter(([k]) => k.startsWith("OPENAI_")));
  bin = await startBinary({ ...env, METRICS_TOKEN, STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) });
  const secrets = JSON.parse(readFileSync(join(bin.dir, "data", "secrets.json"), "utf8"));
  keys = { anon: secrets.anon_key, service: secrets.service_role_key };
  owner = await signUp("owner3");
  orgId = (await single(owner.sb.from("organizations").select("id").single<{ id: string }>())).id;
  brandId = (await single(owner.sb.from("brands").insert({ organization_id: orgId, name: "Alpha", slug: "alpha" }).select().single<{ id: string }>())).id;
  await single(owner.sb.from("brand_domains").insert({ brand_id: brandId, domain: "alpha.example", is_primary: true }).select());
  const set = await single(owner.sb.from("prompt_sets").insert({ brand_id: brandId, name: "S" }).select().single<{ id: string }>());
  await single(owner.sb.from("prompts").insert({ prompt_set_id: set.id, text: "Which analytics tool is best?" }).select());
}, 120_000);

afterAll(async () => {
  bin?.proc.kill("SIGTERM");
  await fake?.stop();
});

const rest = (path: string, init: RequestInit & { token?: string } = {}) => {
  const headers = new Headers(init.headers);
  headers.set("apikey", keys.anon);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  return fetch(`${bin.url}/rest/v1${path}`, { ...init, headers });
};

describe("finding 1: dates outside the documented range, and loops that end by a count", () => {
  test("the anonymous year-9999 trend answers 22008 at once, again and again, while memory and /healthz hold", async () => {
    const one = await rest(`/rpc/insights_trend?p_brand_id=${brandId}&p_from=9999-12-01&p_to=9999-12-31`);
    expect(one.status).toBe(400);
    expect((await one.json()).code).toBe("22008");
    const run = await underAttack(async () => {
      const res = await rest(`/rpc/insights_trend?p_brand_id=${crypto.randomUUID()}&p_from=9999-12-01&p_to=9999-12-31&p_interval=day`);
      await res.arrayBuffer();
      return res.status;
    }, 4000);
    expect(run.results.length).toBeGreaterThan(20);
    expect(run.results.every((r) => r.status === 400 && r.ms < TIMEOUT_MS)).toBe(true);
    expect(run.growth).toBeLessThan(150 * 1024 * 1024);
    expect(p95(run.health)).toBeLessThan(100);
  }, 60_000);

  test("every insights RPC and get_latest_prompt_results, by GET and POST, answers 22008 for year 0001, 1999, 3000 and 9999", async () => {
    const dates = ["0001-01-01", "1999-12-31", "3000-01-01", "9999-12-31"];
    const calls: [string, Record<string, string>][] = [
      ...Object.keys(INSIGHT_RPCS).flatMap((name) => dates.flatMap((d) => [[name, { p_from: d }], [name, { p_to: d }]] as [string, Record<string, string>][])),
      ...dates.map((d) => ["get_latest_prompt_results", { p_date_from: `${d}T00:00:00Z` }] as [string, Record<string, string>]),
    ];
    for (const [name, dateArgs] of calls) {
      const args: Record<string, string> = { p_brand_id: brandId, ...dateArgs };
      if (name === "insights_head_to_head") args.p_competitor_id = crypto.randomUUID();
      const get = await rest(`/rpc/${name}?${new URLSearchParams(args)}`, { token: owner.token });
      const post = await rest(`/rpc/${name}`, { method: "POST", token: owner.token, headers: { "content-type": "application/json" }, body: JSON.stringify(args) });
      expect([name, dateArgs, get.status, (await get.json()).code]).toEqual([name, dateArgs, 400, "22008"]);
      expect([name, dateArgs, post.status, (await post.json()).code]).toEqual([name, dateArgs, 400, "22008"]);
    }
    // The /api traffic report takes dates too: the same range, in its own error shape.
    const traffic = await fetch(`${bin.url}/api/brands/${brandId}/traffic?from=9999-12-01&to=9999-12-31`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(traffic.status).toBe(400);
    expect((await traffic.json()).error.code).toBe("validation_failed");
  }, 60_000);

  test("fuzz: every insights RPC and every MCP tool that takes dates, over boundary dates, intervals and group-bys, never answers 5xx nor runs past the timeout", async () => {
    const dates = [undefined, "2000-01-01", "2999-12-31", "2020-02-29", "2021-02-29", "0001-01-01", "9999-12-31", "+010000-01-01", "2026-13-01", "x", ""];
    const windows: [string | undefined, string | undefined][] = [];
    for (const from of dates) for (const to of dates) windows.push([from, to]);
    // Ten and a hundred years by day: the longest windows anyone may ask for, or more.
    windows.push(["2016-01-01", "2025-12-31"], ["2000-01-01", "2099-12-31"], ["2000-01-01", "2999-12-31"]);
    const intervals = [undefined, "day", "week", "month", "year", ""];
    const groupBys = [undefined, "none", "platform", "model", "region", "topic", "brand"];
    const statuses = new Map<number, number>();
    let slowest = 0;
    let n = 0;
    const rng = (() => {
      let s = 26;
      return (k: number) => ((s = (s * 1103515245 + 12345) % 2 ** 31), s % k);
    })();
    for (let i = 0; i < 400; i++) {
      const name = Object.keys(INSIGHT_RPCS)[i % Object.keys(INSIGHT_RPCS).length]!;
      const [from, to] = windows[rng(windows.length)]!;
      const args: Record<string, string> = { p_brand_id: brandId };
      if (from !== undefined) args.p_from = from;
      if (to !== undefined) args.p_to = to;
      if (INSIGHT_RPCS[name]!.params.includes("p_interval")) {
        const v = intervals[rng(intervals.length)];
        if (v !== undefined) args.p_interval = v;
      }
      if (INSIGHT_RPCS[name]!.params.includes("p_group_by")) {
        const v = groupBys[rng(groupBys.length)];
        if (v !== undefined) args.p_group_by = v;
      }
      if (name === "insights_head_to_head") args.p_competitor_id = crypto.randomUUID();
      const t = performance.now();
      const res = i % 2 ? await rest(`/rpc/${name}?${new URLSearchParams(args)}`, { token: owner.token }) : await rest(`/rpc/${name}`, { method: "POST", token: owner.token, headers: { "content-type": "application/json" }, body: JSON.stringify(args) });
      await res.arrayBuffer();
      slowest = Math.max(slowest, performance.now() - t);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect([name, args, res.status < 500 || res.status === 503]).toEqual([name, args, true]);
      n++;
    }
    expect(n).toBe(400);
    expect(statuses.get(200)).toBeGreaterThan(20);
    expect(statuses.get(400)).toBeGreaterThan(20);
    expect(slowest).toBeLessThan(TIMEOUT_MS + 1000);

    // The MCP tools that take dates, through the SDK's own client.
    const mcp = new Client({ name: "fuzz", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${bin.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } }));
    const dated = TOOLS.filter((tool) => "from" in tool.input || "to" in tool.input);
    expect(dated.length).toBeGreaterThan(3);
    let refused = 0;
    for (const tool of dated)
      for (const [from, to] of [["9999-12-01", "9999-12-31"], ["0001-01-01", "0001-12-31"], ["2000-01-01", "2999-12-31"], ["2025-01-01", "2025-12-31"]] as const) {
        const args: Record<string, unknown> = { brand_id: brandId, from, to };
        if ("interval" in tool.input) args.interval = "day";
        if ("competitor_id" in tool.input) args.competitor_id = crypto.randomUUID();
        const t = performance.now();
        const result = (await mcp.callTool({ name: tool.name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
        expect(performance.now() - t).toBeLessThan(TIMEOUT_MS + 1000);
        if (from.startsWith("9999") || from.startsWith("0001")) {
          expect([tool.name, from, result.isError]).toEqual([tool.name, from, true]);
          expect(result.content[0]!.text).not.toMatch(/internal|500/i);
          refused++;
        }
      }
    expect(refused).toBe(dated.length * 2);
    await mcp.close();
  }, 120_000);
});

describe("finding 2: request metrics have a bounded label set", () => {
  test("thousands of random paths, preflights and methods without credentials add no series beyond the app's routes", async () => {
    const scrape = async () => (await (await fetch(`${bin.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()).split("\n").filter((l) => l.startsWith("answerwatch_http_requests_total{"));
    const before = await scrape();
    const junk = () => crypto.randomUUID().slice(0, 12);
    for (let i = 0; i < 3000; i += 30)
      await Promise.all(
        Array.from({ length: 30 }, async (_, k) => {
          const j = i + k;
          const kind = j % 4;
          const res =
            kind === 0
              ? await fetch(`${bin.url}/rest/v1/${junk()}`, { headers: { apikey: keys.anon } })
              : kind === 1
                ? await fetch(`${bin.url}/rest/v1/${junk()}`, { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "GET" } })
                : kind === 2
                  ? await fetch(`${bin.url}/api/brands/${junk()}/traffic`)
                  : await fetch(`${bin.url}/rest/v1/brands`, { method: `X${junk().replace(/-/g, "")}`.toUpperCase(), headers: { apikey: keys.anon } });
          await res.arrayBuffer();
        }),
      );
    const after = await scrape();
    // Some series appear (the routes were hit); none per path or per method token.
    expect(after.length - before.length).toBeLessThan(20);
    expect(after.some((l) => /[0-9a-f]{8}-[0-9a-f]{3}/.test(l))).toBe(false);
    expect(after.some((l) => l.includes('route="/rest/v1/*"'))).toBe(true);
    expect(after.every((l) => /method="(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|OTHER)"/.test(l))).toBe(true);
  }, 120_000);
});

describe("finding 3: a compressed body is inflated under a cap, its records capped, nothing stored past either", () => {
  const logpush = (body: Uint8Array) => fetch(`${bin.url}/api/brands/${brandId}/crawler-logs/logpush`, { method: "POST", headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/x-ndjson" }, body: body as unknown as BodyInit });
  const stored = async () => ((await owner.sb.rpc("insights_crawlers", { p_brand_id: brandId, p_from: "2026-01-01", p_to: "2026-12-31" })).data as { requests: number }[]).reduce((n, r) => n + r.requests, 0);
  const record = (i: number) =>
    JSON.stringify({ EdgeStartTimestamp: "2026-11-20T10:00:00Z", ClientRequestMethod: "GET", ClientRequestHost: "alpha.example", ClientRequestURI: `/p/${i}`, EdgeResponseStatus: 200, ClientIP: "20.171.206.17", ClientRequestUserAgent: "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)" });

  test("a gzip bomb (under 1 MB, 70 MB inflated) answers 413 again and again; memory and /healthz hold; nothing is stored", async () => {
    const line = `${record(1)}\n`;
    const bomb = gzipSync(Buffer.from(line.repeat(Math.ceil((70 * 1024 * 1024) / line.length))), { level: 9 });
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    const run = await underAttack(async () => {
      const res = await logpush(bomb);
      await res.arrayBuffer();
      return res.status;
    }, 5000, 2);
    // Two at a time from one organization: one is read (413), the other refused unread while it
    // is (429: an organization holds one push of the instance's gate at a time).
    expect(run.results.filter((r) => r.status === 413).length).toBeGreaterThan(2);
    expect(run.results.every((r) => (r.status === 413 || r.status === 429) && r.ms < TIMEOUT_MS)).toBe(true);
    expect(run.growth).toBeLessThan(150 * 1024 * 1024);
    expect(p95(run.health)).toBeLessThan(100);
    expect(await stored()).toBe(0);
  }, 60_000);

  test("more than 100,000 records in one request is 413 and stores none; a batch within the caps is stored", async () => {
    const many = gzipSync(Buffer.from(Array.from({ length: 100_001 }, () => "{}").join("\n")));
    const refused = await logpush(many);
    expect(refused.status).toBe(413);
    expect((await refused.json()).error.code).toBe("too_many_records");
    expect(await stored()).toBe(0);
    const ok = await logpush(gzipSync(Buffer.from([record(1), record(2), "x".repeat(70_000), ""].join("\n"))));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ accepted: 2, malformed: 1 });
    expect(await stored()).toBe(2);
  }, 60_000);
});

describe("finding 4 (members) is tested in tests/members and tests/web; 5: browser hardening", () => {
  test("pages carry a CSP without inline script, nosniff, no-referrer and X-Frame-Options; share links may be framed", async () => {
    for (const path of ["/", "/login", `/b/${brandId}/overview`, "/docs"]) {
      const res = await fetch(`${bin.url}${path}`);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect([path, csp.includes("script-src 'self'"), csp.includes("unsafe-inline"), csp.includes("frame-ancestors 'none'")]).toEqual([path, true, false, true]);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(await res.text()).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>/);
    }
    const share = await (await fetch(`${bin.url}/api/share-links`, { method: "POST", headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" }, body: JSON.stringify({ brand_id: brandId }) })).json();
    const page = await fetch(share.url.replace(/^https?:\/\/[^/]+/, bin.url));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors *");
    expect(page.headers.get("x-frame-options")).toBeNull();
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    // The server's own small pages (a dead share link, the unsubscribe page) style themselves inline
    // under a policy of their own that loads and runs nothing — not the app's, which refused their styles.
    for (const path of ["/share/no-such-token", "/digests/unsubscribe?token=nope"]) {
      const res = await fetch(`${bin.url}${path}`);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect([path, csp.includes("default-src 'none'"), csp.includes("style-src 'unsafe-inline'"), csp.includes("script-src")]).toEqual([path, true, true, false]);
      expect(await res.text()).toContain("style");
    }
  });
});

describe("findings 6 and 7: CSV cells and citation URLs", () => {
  test("a cell that would run as a formula is written with a leading quote; numbers stay numbers", async () => {
    const set = await single(owner.sb.from("prompt_sets").insert({ brand_id: brandId, name: "CSV" }).select().single<{ id: string }>());
    const texts = ['=HYPERLINK("https://evil.example","x")', "+1+2", "-2+3", "@SUM(A1)", "\tTab", "-42", "Plain", "x;=cmd|'/Ccalc'!A0"];
    for (const text of texts) await single(owner.sb.from("prompts").insert({ prompt_set_id: set.id, text, is_active: false }).select());
    const res = await rest(`/prompts?prompt_set_id=eq.${set.id}&select=text&order=created_at`, { token: owner.token, headers: { accept: "text/csv" } });
    const lines = (await res.text()).split("\n").slice(1);
    // A `;` is quoted: a spreadsheet set to a semicolon locale would split the cell there, the formula after it alone.
    expect(lines).toEqual(['"\'=HYPERLINK(""https://evil.example"",""x"")"', "'+1+2", "'-2+3", '"\'@SUM(A1)"', '"\'\tTab"', "-42", "Plain", `"x;=cmd|'/Ccalc'!A0"`]);
  });

  test("a tracked answer citing javascript: and data: URLs keeps only the web page", async () => {
    const start = await fetch(`${bin.url}/api/tracking/start`, { method: "POST", headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" }, body: JSON.stringify({ brandId, platforms: ["chatgpt"] }) });
    expect(start.status).toBe(200);
    const { jobId } = await start.json();
    for (let i = 0; i < 200; i++) {
      const job = await (await fetch(`${bin.url}/api/tracking/job/${jobId}`, { headers: { authorization: `Bearer ${owner.token}` } })).json();
      if (job.status === "completed" || job.status === "failed") break;
      await Bun.sleep(100);
    }
    const citations = await single(owner.sb.from("citations").select("url").eq("brand_id", brandId));
    expect((citations as { url: string }[]).map((c) => c.url)).toEqual(["https://reviews.example/alpha"]);
    const results = await single(owner.sb.from("prompt_results").select("citations").eq("brand_id", brandId));
    expect(JSON.stringify(results)).not.toMatch(/javascript:|data:text/);
  }, 60_000);
});

describe("finding 8: logs import holds no line whole", () => {
  test("a 64 MB line without a newline is counted malformed with memory flat; a file of nothing but malformed lines exits 1", async () => {
    const dir = tempDir("aw-logs3-");
    const good = '20.171.206.17 - - [20/Nov/2026:10:00:00 +0000] "GET /pricing HTTP/1.1" 200 512 "-" "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"';
    const file = join(dir, "access.log");
    writeFileSync(file, `${good}\n${good.replace("/pricing", "/about")}\n${"x".repeat(64 * 1024 * 1024)}`);
    const cli = (...args: string[]) => {
      const run = Bun.spawnSync([join(bin.dir, "answerwatch"), ...args], { cwd: bin.dir, env: { PATH: "/usr/bin:/bin", DATA_DIR: join(bin.dir, "data"), LOG_LEVEL: "silent" } });
      return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString(), maxRss: run.resourceUsage!.maxRSS };
    };
    const small = join(dir, "small.log");
    writeFileSync(small, `${good.replace("/pricing", "/small")}\n`);
    const baseline = cli("logs", "import", "--brand", "alpha", small);
    expect(baseline.code).toBe(0);
    const first = cli("logs", "import", "--brand", "alpha", file);
    expect([first.code, first.err]).toEqual([0, ""]);
    expect(first.out).toContain("3 line(s): 2 new, 0 already imported, 1 malformed");
    console.log(`logs import peak RSS: ${(baseline.maxRss / 2 ** 20).toFixed(0)} MB for one line, ${(first.maxRss / 2 ** 20).toFixed(0)} MB with a 64 MB line`);
    // Held whole, the line alone would take several times its 64 MB; streamed, far less than it.
    expect(first.maxRss - baseline.maxRss).toBeLessThan(64 * 1024 * 1024);
    const junk = join(dir, "junk.log");
    writeFileSync(junk, "not a log line\nnor this\n");
    const second = cli("logs", "import", "--brand", "alpha", junk);
    expect(second.code).toBe(1);
    expect(second.err).toContain("all 2 line(s) malformed");
  }, 60_000);
});

describe("finding 9: a share link dies with its creator's role", () => {
  test("an admin's link stops opening once the admin is made a member", async () => {
    const admin = await signUp("admin3");
    const inv = await (await fetch(`${bin.url}/api/organizations/${orgId}/members`, { method: "POST", headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" }, body: JSON.stringify({ email: admin.email, role: "admin" }) })).json();
    const key = new URL(inv.link).searchParams.get("key");
    expect((await fetch(`${bin.url}/api/invitations/${inv.invitation.id}/accept`, { method: "POST", headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" }, body: JSON.stringify({ key }) })).status).toBe(200);
    const link = await (await fetch(`${bin.url}/api/share-links`, { method: "POST", headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" }, body: JSON.stringify({ brand_id: brandId }) })).json();
    const token = String(link.url).split("/share/")[1]!;
    expect((await fetch(`${bin.url}/api/share/${token}`)).status).toBe(200);
    await single(owner.sb.from("organization_members").update({ role: "member" }).eq("organization_id", orgId).eq("user_id", admin.id).select());
    expect((await fetch(`${bin.url}/api/share/${token}`)).status).toBe(404);
    expect((await rest(`/rpc/insights_overview?p_brand_id=${brandId}`, { token })).status).toBe(401);
  });
});

describe("findings 10 and 11: prompt length, CORS credentials, organization slugs", () => {
  test("a prompt over 2,000 characters is refused with 22001 on insert and update; 2,000 is accepted", async () => {
    const set = await single(owner.sb.from("prompt_sets").insert({ brand_id: brandId, name: "Long" }).select().single<{ id: string }>());
    const long = await owner.sb.from("prompts").insert({ prompt_set_id: set.id, text: "a".repeat(2001) });
    expect([long.status, long.error?.code]).toEqual([400, "22001"]);
    const ok = await single(owner.sb.from("prompts").insert({ prompt_set_id: set.id, text: "b".repeat(2000), is_active: false }).select().single<{ id: string }>());
    const grown = await owner.sb.from("prompts").update({ text: "c".repeat(2001) }).eq("id", ok.id);
    expect([grown.status, grown.error?.code]).toEqual([400, "22001"]);
  });

  test("CORS: any origin may call with a bearer token, none with the browser's credentials unless configured", async () => {
    const pre = await fetch(`${bin.url}/rest/v1/brands`, { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "GET" } });
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://evil.example");
    expect(pre.headers.get("access-control-allow-credentials")).toBeNull();
    const get = await rest("/brands", { headers: { origin: "https://evil.example" } });
    expect(get.headers.get("access-control-allow-credentials")).toBeNull();
  });

  test("a generated organization slug does not reveal whether the same e-mail local part signed up", async () => {
    const local = `same-${crypto.randomUUID().slice(0, 6)}`;
    const slugs: string[] = [];
    for (const domain of ["a.example", "b.example"]) {
      const sb = client(bin.url, keys.anon);
      const { error } = await sb.auth.signUp({ email: `${local}@${domain}`, password: "correct-horse" });
      expect(error).toBeNull();
      slugs.push((await single(sb.from("organizations").select("slug").single<{ slug: string }>())).slug);
    }
    // "<local>'s organization" → "<local>-s-organization-" and ten random characters.
    for (const slug of slugs) expect(slug).toMatch(new RegExp(`^${local}-s-organization-[a-z0-9]{10}$`));
    expect(slugs[0]).not.toBe(slugs[1]);
  });
});
