// `answerwatch demo [--keep] [--port N]`: the whole product in one command, on a temporary data
// directory, with the demo's own data set (dataset.ts): a fictional brand, competitors and prompts,
// and sample answers written for the demo, served in each provider's wire format by a local fake
// upstream (upstream.ts). Everything goes through the real interfaces: supabase-js for sign-up and
// the brand, the engine adapters and analysis for eight weeks of past runs (history.ts),
// /api/tracking for today's run, and the insights RPCs for the summary. With --keep the server
// stays up with its data for the dashboard until Ctrl-C or SIGTERM.
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config, type Env } from "../config";
import { BRAND, COMPETITORS, DEMO_PLATFORMS, HISTORY_DAYS_AGO, PROMPT_SET_NAME, PROMPTS, TOPICS } from "./dataset";
import { replayHistory } from "./history";
import type { DemoHistoryStore } from "./store";
import { seedVisits } from "./visits";
import { startDemoUpstream, type DemoUpstream } from "./upstream";

type Out = { write(text: string): void; isTTY?: boolean };

/** A progress line: redrawn in place on a terminal; elsewhere (a log, a pipe) only its last state, once. */
function progressLine(out: Out) {
  let shown = "";
  return {
    update(line: string) {
      if (line === shown) return;
      shown = line;
      if (out.isTTY) out.write(`\r${line}`);
    },
    done() {
      if (shown) out.write(out.isTTY ? "\n" : `${shown}\n`);
    },
  };
}

export const DEMO_EMAIL = "demo@answerwatch.example";
const SAMPLES = 2;
const USAGE = "usage: answerwatch demo [--keep] [--port N]";

/** What the demo needs of a server: the composition root (main.ts) starts it, the demo uses it. */
export interface DemoServer {
  url: string;
  secrets: { anonKey: string; serviceRoleKey: string };
  /** What the replay of past runs writes through (history.ts). */
  history: DemoHistoryStore;
  stop(): Promise<void>;
}
export type StartDemoServer = (config: Config) => Promise<DemoServer>;

export interface DemoOptions {
  /** Leave the server running with its data until SIGINT / SIGTERM. */
  keep: boolean;
  /** The server's port (default: a free one). */
  port?: number;
}

export function parseDemoArgs(args: string[]): DemoOptions | string {
  const options: DemoOptions = { keep: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--keep") options.keep = true;
    else if (arg === "--port" || arg.startsWith("--port=")) {
      const value = arg === "--port" ? args[++i] : arg.slice("--port=".length);
      if (!value || !/^\d+$/.test(value) || Number(value) > 65535) return `--port needs a port number from 0 to 65535, got "${value ?? ""}"`;
      options.port = Number(value);
    } else return `unknown option ${arg}`;
  }
  return options;
}

function bar(done: number, total: number, width = 30): string {
  const filled = total ? Math.round((done / total) * width) : 0;
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`;
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? "—" : `${Math.round(v * 100)}%`);
const num = (v: number | null | undefined, digits = 1) => (v === null || v === undefined ? "—" : v.toFixed(digits));
const points = (v: number | null | undefined) => (v === null || v === undefined ? "—" : `${v >= 0 ? "+" : "−"}${Math.abs(Math.round(v * 100))} pts`);

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `${cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()}\n`;
  return line(head) + line(widths.map((w) => "-".repeat(w))) + rows.map(line).join("");
}

function must<T>(result: { data: T | null; error: { message: string } | null }, what: string): T {
  if (result.error || result.data === null) throw new Error(`${what} failed: ${result.error?.message ?? "no data"}`);
  return result.data;
}

/** The demo brand with its domains, competitors, topics, prompts and platforms, created the way the web app does. */
async function createDemoBrand(sb: SupabaseClient, organizationId: string) {
  const brand = must(
    await sb
      .from("brands")
      .insert({ organization_id: organizationId, name: BRAND.name, slug: BRAND.slug, industry: BRAND.industry, region: BRAND.region, language: BRAND.language, aliases: BRAND.aliases, description: BRAND.description })
      .select()
      .single(),
    "creating the brand",
  ) as { id: string };
  must(await sb.from("brand_domains").insert({ brand_id: brand.id, domain: BRAND.domain, is_primary: true }).select(), "adding the brand's domain");
  // Added (as far as the insights know) before the history replayed below: a competitor's change
  // is compared only over windows that began after it was added.
  const trackedSince = new Date(Date.now() - (Math.max(...HISTORY_DAYS_AGO) + 1) * 86_400_000).toISOString();
  must(await sb.from("competitors").insert(COMPETITORS.map((c) => ({ brand_id: brand.id, name: c.name, domain: c.domain, aliases: c.aliases, created_at: trackedSince }))).select(), "adding competitors");
  const topics = must(await sb.from("topics").insert(TOPICS.map((t) => ({ brand_id: brand.id, name: t.name }))).select(), "adding topics") as { id: string; name: string }[];
  const topicId = new Map(TOPICS.map((t) => [t.key, topics.find((row) => row.name === t.name)!.id]));
  const set = must(await sb.from("prompt_sets").insert({ brand_id: brand.id, name: PROMPT_SET_NAME }).select().single(), "adding the prompt set") as { id: string };
  must(await sb.from("prompts").insert(PROMPTS.map((p) => ({ prompt_set_id: set.id, brand_id: brand.id, text: p.text, topic_id: topicId.get(p.topic) }))).select(), "adding prompts");
  must(
    await sb
      .from("brand_platforms")
      .insert(DEMO_PLATFORMS.map((platform) => ({ brand_id: brand.id, platform, is_enabled: true, check_frequency: "weekly", samples: SAMPLES })))
      .select(),
    "enabling platforms",
  );
  return brand;
}

/** Today's run, through /api/tracking like any client, with a progress bar. */
async function runToday(server: DemoServer, token: string, brandId: string, out: Out) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const start = await (await fetch(`${server.url}/api/tracking/start`, { method: "POST", headers, body: JSON.stringify({ brandId, platforms: DEMO_PLATFORMS, samples: SAMPLES }) })).json();
  if (!start.success) throw new Error(`starting today's run failed: ${start.error?.message}`);
  let job: any;
  const progress = progressLine(out);
  for (;;) {
    job = await (await fetch(`${server.url}/api/tracking/job/${start.jobId}`, { headers })).json();
    progress.update(`Today's run via /api/tracking:  ${bar(job.progress.completed, job.progress.total)} ${job.progress.phase.padEnd(12)}`);
    if (["completed", "failed", "cancelled"].includes(job.status)) break;
    await Bun.sleep(100);
  }
  progress.done();
  if (job.status !== "completed") throw new Error(`today's run ended ${job.status}: ${job.failedReason}`);
  return job;
}

/** The summary, read back through the insights RPCs as the dashboard reads it. */
async function printSummary(sb: SupabaseClient, brandId: string, out: Out) {
  const rows: string[][] = [];
  for (const platform of DEMO_PLATFORMS) {
    const o = must(await sb.rpc("insights_overview", { p_brand_id: brandId, p_platforms: [platform] }), `insights_overview for ${platform}`) as any;
    const v = o.visibility_rate;
    rows.push([
      platform,
      String(o.answers),
      `${pct(v.value)} (${pct(v.ci_low)}–${pct(v.ci_high)})`,
      `${points(v.change.delta)} ${v.change.verdict.replace("_", " ")}`,
      pct(o.share_of_voice.value),
      num(o.avg_position.value),
      `${pct(o.citation_share.value)} (n=${o.citation_share.n})`,
      num(o.sentiment.value, 2),
    ]);
  }
  out.write("\nLast 30 days against the 30 days before, per platform (rpc insights_overview):\n\n");
  out.write(table(["platform", "answers", "visibility (95% CI)", "vs previous 30 days", "share of voice", "avg position", "citation share", "sentiment"], rows));

  const competitors = must(await sb.rpc("insights_competitors", { p_brand_id: brandId }), "insights_competitors") as any[];
  competitors.sort((a, b) => b.answers_mentioning - a.answers_mentioning);
  out.write("\nBrand and competitors, last 30 days, all platforms (rpc insights_competitors):\n\n");
  out.write(
    table(
      ["name", "named in", "visibility", "share of voice", "avg position"],
      competitors.map((c) => [c.is_brand ? `${c.name} (brand)` : c.name, `${c.answers_mentioning} of ${c.n}`, pct(c.visibility_rate), pct(c.share_of_voice), num(c.avg_position)]),
    ),
  );
}

/**
 * Runs the demo; resolves with the exit code. `signals` resolves when the process is asked to stop
 * (SIGINT / SIGTERM): with --keep that is the end of the demo, before it an interruption.
 */
export async function runDemo(env: Env, options: DemoOptions, startServer: StartDemoServer, out: Out = process.stdout, signals: Promise<string> = stopSignal()): Promise<number> {
  const began = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), "answerwatch-demo-"));
  let upstream: DemoUpstream | undefined;
  let server: DemoServer | undefined;
  let keepData = false;
  try {
    const work = (async () => {
      upstream = await startDemoUpstream();
      const config = loadConfig({ ...env, ...upstream.env, DATA_DIR: dataDir, PORT: String(options.port ?? 0), HOST: "127.0.0.1", LOG_LEVEL: "silent", WORKERS: "2" });
      server = await startServer(config);
      out.write(
        [
          `answerwatch demo — server on ${server.url}, data in ${dataDir}`,
          "The AI answers in this demo are SAMPLE ANSWERS WRITTEN FOR THE DEMO, not recorded from real engines:",
          "a local fake upstream serves them in the wire formats of the OpenAI, Anthropic, Perplexity and Gemini",
          "APIs, and the brand, its competitors and their .example domains are fictional. No API key is used.",
          "",
        ].join("\n"),
      );
      const sb = createClient(server.url, server.secrets.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
      const password = `demo-${crypto.randomUUID().slice(0, 13)}`;
      const signUp = must(await sb.auth.signUp({ email: DEMO_EMAIL, password, options: { data: { organization_name: "Demo Agency (sample data)" } } }), "sign-up");
      if (!signUp.session || !signUp.user) throw new Error("sign-up returned no session");
      const member = must(await sb.from("organization_members").select("organization_id").limit(1).single(), "reading the organization") as { organization_id: string };
      const brand = await createDemoBrand(sb, member.organization_id);
      out.write(`Brand "${BRAND.name}" (${BRAND.domain}, fictional) with ${COMPETITORS.length} competitors, ${TOPICS.length} topics and ${PROMPTS.length} prompts on ${DEMO_PLATFORMS.join(", ")}.\n`);

      const pastRuns = progressLine(out);
      const history = await replayHistory({
        store: server.history,
        env: { ...env, ...upstream.env },
        brandId: brand.id,
        organizationId: member.organization_id,
        userId: signUp.user.id,
        platforms: [...DEMO_PLATFORMS],
        samples: SAMPLES,
        daysAgo: HISTORY_DAYS_AGO,
        now: new Date(),
        visibilityAlertPoints: config.tracking.visibilityAlertPoints,
        onRun: (done, total) => pastRuns.update(`Eight weeks of past runs:        ${bar(done, total)} runs`),
      });
      pastRuns.done();
      if (history.failed) throw new Error(`${history.failed} answers of the past runs failed`);
      const job = await runToday(server, signUp.session.access_token, brand.id, out);
      const seeded = await seedVisits({ url: server.url, serviceKey: server.secrets.serviceRoleKey, accessToken: signUp.session.access_token, brandId: brand.id, domain: BRAND.domain, now: new Date() });
      out.write(`Four weeks of sample site traffic — ${seeded.visits} AI-referred visits, ${seeded.crawlerRequests} crawler requests.\n`);

      await printSummary(sb, brand.id, out);
      const suggestions = (await sb.from("suggestions").select("id", { count: "exact", head: true }).eq("brand_id", brand.id)).count ?? 0;
      out.write(
        `\n${history.answers + job.result.units.answered} sample answers in ${history.runs + 1} runs since ${history.oldest?.slice(0, 10)}; ` +
          `${suggestions} suggestion(s). Ready in ${((performance.now() - began) / 1000).toFixed(1)} s. Formulas in the README.\n`,
      );
      return { brand, password };
    })();
    work.catch(() => {}); // an interruption below abandons it; its failure is reported by the race
    const done = await Promise.race([work, signals.then((signal) => ({ signal }))]);
    if ("signal" in done) {
      out.write(`\nInterrupted (${done.signal}); the demo data is deleted.\n`);
      return done.signal === "SIGINT" ? 130 : 143;
    }
    if (!options.keep) {
      out.write("The demo data is deleted on exit; `answerwatch demo --keep` leaves the server running with it.\n");
      return 0;
    }
    keepData = true;
    out.write(
      [
        "",
        "The demo server keeps running (Ctrl-C or SIGTERM stops it):",
        `  dashboard:   ${server!.url}/`,
        `  sign in:     ${DEMO_EMAIL}  password: ${done.password}`,
        `  brand:       ${BRAND.name} (${BRAND.domain}) — fictional, sample answers written for the demo`,
        `  anon key:    ${server!.secrets.anonKey}`,
        `  data:        ${dataDir}`,
        "",
      ].join("\n"),
    );
    const signal = await signals;
    out.write(`Stopping (${signal})…\n`);
    await server!.stop();
    out.write(`Stopped. The demo data stays in ${dataDir} (delete it when done).\n`);
    return 0;
  } finally {
    await server?.stop();
    upstream?.stop();
    if (!keepData) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Resolves with the name of the first SIGINT or SIGTERM the process receives. */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: string) => () => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(signal);
    };
    const onInt = on("SIGINT");
    const onTerm = on("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  });
}

/** The CLI's entry: options, then the demo. */
export async function runDemoCommand(args: string[], env: Env, startServer: StartDemoServer): Promise<number> {
  const options = parseDemoArgs(args);
  if (typeof options === "string") {
    process.stderr.write(`answerwatch: ${options} (${USAGE})\n`);
    return 2;
  }
  return runDemo(env, options, startServer);
}
