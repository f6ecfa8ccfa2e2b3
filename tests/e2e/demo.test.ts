// `answerwatch demo` as a user runs it: the compiled binary, alone in an empty directory, with no
// API key and no network but 127.0.0.1. The plain demo prints its summary and cleans up; with
// --keep the printed URL, login and brand are checked through supabase-js and HTTP, the way the
// dashboard reads them; then SIGTERM stops it. The demo's sample answers are also checked to parse
// through the real engine adapters for every prompt and platform.
import { createClient } from "@supabase/supabase-js";
import { expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PROMPTS, DEMO_PLATFORMS, HISTORY_DAYS_AGO } from "../../src/demo/dataset";
import { DAYS_AGO_HEADER, startDemoUpstream } from "../../src/demo/upstream";
import { createEngineRegistry, isNoSurface, loadEngineConfig } from "../../src/engines";
import { buildBinary } from "../helpers/binary";
import { tempDir } from "../helpers/app";

const DAY_MS = 86_400_000;

/** The binary copied into an empty directory, with a TMPDIR of its own (where the demo keeps its data). */
function demoDir() {
  const dir = tempDir("aw-demo-");
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  copyFileSync(buildBinary(), join(dir, "answerwatch"));
  return { dir, tmp, exe: join(dir, "answerwatch"), env: { PATH: "/usr/bin:/bin", TMPDIR: tmp } };
}

test("answerwatch demo runs eight weeks of sample data and today's run, prints the insights summary, and deletes its data", () => {
  const { dir, tmp, exe, env } = demoDir();
  const began = performance.now();
  const proc = Bun.spawnSync([exe, "demo"], { cwd: dir, env, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  const out = proc.stdout.toString();
  expect(proc.stderr.toString()).toBe("");
  expect(proc.exitCode).toBe(0);
  expect(performance.now() - began).toBeLessThan(30_000);
  // Labelled as what it is.
  expect(out).toContain("SAMPLE ANSWERS WRITTEN FOR THE DEMO, not recorded from real engines");
  expect(out).toMatch(/16\/16 runs/);
  expect(out).toMatch(/96\/96 done/);
  // The summary comes from the insights RPCs: per platform, then brand and competitors.
  const perPlatform = out.slice(out.indexOf("rpc insights_overview"));
  for (const platform of DEMO_PLATFORMS) expect(perPlatform).toMatch(new RegExp(`^${platform}\\s+\\d+\\s+\\d+% \\(\\d+%–\\d+%\\)\\s+[+−]\\d+ pts (up|down|within noise)`, "m"));
  expect(perPlatform).toMatch(/^chatgpt .* up\s/m);
  expect(perPlatform).toMatch(/^perplexity .* down\s/m);
  const competitors = out.slice(out.indexOf("rpc insights_competitors"));
  for (const name of ["Lumenly (brand)", "Quantora", "Trailmetric", "Cohorta", "Insightra"]) expect(competitors).toMatch(new RegExp(`^${name.replace(/[()]/g, "\\$&")}\\s+\\d+ of \\d+`, "m"));
  expect(out).toMatch(/1632 sample answers in 17 runs/);
  // Nothing left behind.
  expect(readdirSync(tmp)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

test("answerwatch demo --keep serves the dashboard with the demo's data until SIGTERM", async () => {
  const { dir, exe, env } = demoDir();
  // A port that was free a moment ago, for --port.
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  const proc = Bun.spawn([exe, "demo", "--keep", "--port", String(port)], { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
  try {
    let out = "";
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + 40_000;
    while (!/data:\s+\S+\n/.test(out)) {
      if (Date.now() > deadline) throw new Error(`the demo did not come up: ${out}`);
      const { value, done } = await reader.read();
      if (done) throw new Error(`the demo exited: ${out} ${await new Response(proc.stderr).text()}`);
      out += decoder.decode(value);
    }
    const url = out.match(/dashboard:\s+(http:\/\/127\.0\.0\.1:\d+)\/\n/)![1]!;
    expect(url).toBe(`http://127.0.0.1:${port}`);
    const [, email, password] = out.match(/sign in:\s+(\S+)\s+password: (\S+)/)!;
    const anonKey = out.match(/anon key:\s+(\S+)/)![1]!;
    const dataDir = out.match(/data:\s+(\S+)/)![1]!;
    expect(out).toMatch(/brand:\s+Lumenly \(lumenly\.example\)/);

    // The printed URL answers.
    const page = await fetch(`${url}/`);
    expect(page.status).toBeLessThan(500);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    // The printed login signs in with supabase-js.
    const sb = createClient(url, anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    const { data: signIn, error } = await sb.auth.signInWithPassword({ email: email!, password: password! });
    expect(error).toBeNull();
    expect(signIn.session?.access_token).toBeTruthy();
    const { data: brands } = await sb.from("brands").select("id, name, description, competitors(name, domain), brand_domains(domain)");
    expect(brands).toHaveLength(1);
    const brand = brands![0]!;
    expect(brand.name).toBe("Lumenly");
    expect(brand.description).toContain("sample answers written for the demo");
    expect(brand.brand_domains.map((d: { domain: string }) => d.domain)).toEqual(["lumenly.example"]);
    expect(brand.competitors).toHaveLength(4);
    for (const c of brand.competitors) expect(c.domain).toEndWith(".example");

    // Last 30 days: answers on every platform (the trend by platform says how many on each).
    const trend = (await sb.rpc("insights_trend", { p_brand_id: brand.id, p_interval: "month", p_group_by: "platform" })).data as { group: string; answers: number }[];
    const answersOn = new Map<string, number>();
    for (const row of trend) answersOn.set(row.group, (answersOn.get(row.group) ?? 0) + row.answers);
    expect([...answersOn.values()].filter((n) => n > 0).length).toBeGreaterThanOrEqual(4);
    const overview = (await sb.rpc("insights_overview", { p_brand_id: brand.id })).data as any;
    expect(overview.answers).toBeGreaterThan(0);
    expect(overview.sentiment.positive).toBeGreaterThan(0);
    expect(overview.sentiment.negative).toBeGreaterThan(0);

    // One platform's visibility rose significantly against the 30 days before, one fell.
    const verdicts: Record<string, string> = {};
    for (const platform of answersOn.keys()) {
      const o = (await sb.rpc("insights_overview", { p_brand_id: brand.id, p_platforms: [platform] })).data as any;
      expect(o.answers).toBeGreaterThan(0);
      verdicts[platform] = o.visibility_rate.change.verdict;
    }
    expect(Object.values(verdicts)).toContain("up");
    expect(Object.values(verdicts)).toContain("down");

    // Eight weeks of data: the oldest answer is at least 50 days old.
    const { data: oldest } = await sb.from("prompt_results").select("created_at").eq("brand_id", brand.id).order("created_at", { ascending: true }).limit(1).single();
    expect(Date.now() - Date.parse(oldest!.created_at)).toBeGreaterThanOrEqual(50 * DAY_MS);

    // Sources of every class, competitors at different rates, fan-out queries, suggestions.
    const domains = (await sb.rpc("insights_citation_domains", { p_brand_id: brand.id })).data as { domain: string; class: string }[];
    expect(new Set(domains.map((d) => d.class))).toEqual(new Set(["own", "competitor", "third_party"]));
    for (const site of ["reddit.com", "g2.com", "wikipedia.org"]) expect(domains.map((d) => d.domain)).toContain(site);
    const rivals = ((await sb.rpc("insights_competitors", { p_brand_id: brand.id })).data as { is_brand: boolean; visibility_rate: number }[]).filter((c) => !c.is_brand);
    expect(new Set(rivals.map((c) => c.visibility_rate.toFixed(2))).size).toBe(rivals.length);
    expect(((await sb.rpc("insights_search_queries", { p_brand_id: brand.id })).data as unknown[]).length).toBeGreaterThan(0);
    const { count } = await sb.from("suggestions").select("id", { count: "exact", head: true }).eq("brand_id", brand.id);
    expect(count).toBeGreaterThan(0);

    // Sample site data: AI-referred visits by several assistants, crawlers verified and spoofed, humans apart.
    const traffic = await (await fetch(`${url}/api/brands/${brand.id}/traffic`, { headers: { authorization: `Bearer ${signIn.session!.access_token}` } })).json();
    const printed = out.match(/(\d+) AI-referred visits, (\d+) crawler requests/)!;
    expect(traffic.totals.visits).toBe(Number(printed[1]));
    expect(traffic.platforms.filter((p: { visits: number }) => p.visits > 0).length).toBeGreaterThanOrEqual(4);
    const bots = (await sb.rpc("insights_crawlers", { p_brand_id: brand.id })).data as { bot: string | null; class: string; verdict: string | null; requests: number }[];
    expect(bots.reduce((n, b) => n + b.requests, 0)).toBe(Number(printed[2]));
    expect(bots.find((b) => b.bot === "GPTBot" && b.verdict === "verified")).toBeDefined();
    expect(bots.find((b) => b.bot === "GPTBot" && b.verdict === "spoofed")).toBeDefined();
    expect(bots.some((b) => b.class === "human")).toBe(true);

    // SIGTERM: a clean stop, the data left where it was printed.
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      out += decoder.decode(value);
    }
    expect(out).toContain("Stopped.");
    expect(existsSync(join(dataDir, "answerwatch.db"))).toBe(true);
    await fetch(`${url}/healthz`).then(
      () => expect.unreachable("the server still answers after SIGTERM"),
      () => {},
    );
  } finally {
    if (proc.exitCode === null) proc.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test("every sample answer parses through the real adapters into text, citations and (where the API has them) search queries", async () => {
  const upstream = await startDemoUpstream({ latencyMs: 0 });
  try {
    const config = loadEngineConfig(upstream.env);
    for (const daysAgo of [HISTORY_DAYS_AGO[0]!, 28, 0]) {
      const registry = createEngineRegistry(config, {
        fetch: (request, init) => {
          const headers = new Headers(init?.headers);
          headers.set(DAYS_AGO_HEADER, String(daysAgo));
          return fetch(request, { ...init, headers });
        },
      });
      for (const platform of DEMO_PLATFORMS)
        for (const prompt of PROMPTS) {
          const answer = await registry.engine(platform).ask({ prompt: prompt.text, region: "US", language: "en" });
          if (isNoSurface(answer)) throw new Error(`${platform} gave no surface`);
          expect(answer.text.length).toBeGreaterThan(100);
          expect(answer.finishReason).toBe("stop");
          expect(answer.citations.length).toBeGreaterThan(0);
          for (const c of answer.citations) {
            expect(c.url).not.toContain("utm_source");
            // Each citation points at the span of the text it backs.
            if (c.start !== undefined) expect(answer.text.slice(c.start, c.end).trim().length).toBeGreaterThan(0);
          }
          expect(answer.sources.length).toBeGreaterThanOrEqual(new Set(answer.citations.map((c) => c.url)).size);
          if (platform === "perplexity") expect(answer.searchQueries).toEqual([]);
          else expect(answer.searchQueries.length).toBeGreaterThan(0);
        }
    }
  } finally {
    upstream.stop();
  }
}, 30_000);
