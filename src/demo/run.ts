// `answerwatch demo`: the whole product in one command, on a temporary data directory, against
// recorded answers. Everything goes through the real interfaces: supabase-js for sign-up and the
// brand, /api/tracking for the run.
import { createClient } from "@supabase/supabase-js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Env } from "../config";
import { createLogger } from "../http/log";
import { startServer } from "../server";
import { startRecordedUpstream } from "./upstream";

type Out = { write(text: string): void; isTTY?: boolean };

const PLATFORMS = ["chatgpt", "claude", "perplexity", "grok"];

function bar(done: number, total: number, width = 30): string {
  const filled = total ? Math.round((done / total) * width) : 0;
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`;
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? "—" : `${(v * 100).toFixed(0)}%`);
const num = (v: number | null | undefined) => (v === null || v === undefined ? "—" : v.toFixed(1));

export async function runDemo(env: Env, out: Out = process.stdout): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), "answerwatch-demo-"));
  const upstream = await startRecordedUpstream();
  const config = loadConfig({ ...env, ...upstream.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", WORKERS: "2" });
  const server = await startServer(config, createLogger("silent"), { scheduler: false });
  try {
    out.write(
      [
        `answerwatch demo — server on ${server.url}, data in ${dataDir}`,
        "The AI answers in this demo are real recorded ones (OpenAI, Anthropic, Perplexity, xAI), served",
        "from a local fake upstream: every prompt gets the same recorded answer. No API key is used.",
        "",
      ].join("\n"),
    );
    const sb = createClient(server.url, server.secrets.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    const { data: signUp, error: signUpError } = await sb.auth.signUp({
      email: "demo@answerwatch.local",
      password: "demo-password",
      options: { data: { organization_name: "Demo Agency" } },
    });
    if (signUpError || !signUp.session) throw new Error(`sign-up failed: ${signUpError?.message}`);
    const { data: member } = await sb.from("organization_members").select("organization_id").limit(1).single();
    const organizationId = member!.organization_id as string;

    const { data: brand, error: brandError } = await sb
      .from("brands")
      .insert({ organization_id: organizationId, name: "Vercel", slug: "vercel", industry: "developer tools", region: "US", language: "en" })
      .select()
      .single();
    if (brandError) throw new Error(`creating the brand failed: ${brandError.message}`);
    await sb.from("brand_domains").insert({ brand_id: brand.id, domain: "vercel.com", is_primary: true });
    await sb.from("competitors").insert([
      { brand_id: brand.id, name: "OpenAI", domain: "openai.com" },
      { brand_id: brand.id, name: "Anthropic", domain: "anthropic.com" },
      { brand_id: brand.id, name: "Meta", domain: "meta.com" },
    ]);
    const { data: set } = await sb.from("prompt_sets").insert({ brand_id: brand.id, name: "Tech news" }).select().single();
    await sb.from("prompts").insert(
      ["What are today's top tech stories?", "Which AI companies are in the news?", "Is Vercel mentioned in tech news today?"].map((text) => ({
        prompt_set_id: set!.id,
        brand_id: brand.id,
        text,
      })),
    );
    out.write(`Brand "Vercel" (vercel.com) with 3 competitors and 3 prompts, tracked on ${PLATFORMS.join(", ")}.\n`);

    const headers = { authorization: `Bearer ${signUp.session.access_token}`, "content-type": "application/json" };
    const start = await (await fetch(`${server.url}/api/tracking/start`, { method: "POST", headers, body: JSON.stringify({ brandId: brand.id, platforms: PLATFORMS }) })).json();
    if (!start.success) throw new Error(`starting the run failed: ${start.error?.message}`);
    let job: any;
    for (;;) {
      job = await (await fetch(`${server.url}/api/tracking/job/${start.jobId}`, { headers })).json();
      out.write(`\r${bar(job.progress.completed, job.progress.total)} ${job.progress.phase.padEnd(12)}`);
      if (["completed", "failed", "cancelled"].includes(job.status)) break;
      await Bun.sleep(100);
    }
    out.write("\n\n");
    if (job.status !== "completed") throw new Error(`the run ended ${job.status}: ${job.failedReason}`);

    const rows = Object.entries(job.result.per_platform as Record<string, any>).map(([platform, s]) => [
      platform,
      `${pct(s.visibility_rate.value)} (n=${s.visibility_rate.n})`,
      `${num(s.average_position.value)} (n=${s.average_position.n})`,
      `${s.citation_share.brand_citations} of ${s.citation_share.n}`,
      `${pct(s.share_of_voice.value)} (n=${s.share_of_voice.n})`,
    ]);
    const head = ["platform", "visibility rate", "avg position", "brand citations", "share of voice"];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ") + "\n";
    out.write(line(head));
    out.write(line(widths.map((w) => "-".repeat(w))));
    for (const r of rows) out.write(line(r));
    out.write(`\n${job.result.suggestions} suggestion(s) written; formulas in the README. The demo data is deleted on exit.\n`);
    return 0;
  } finally {
    await server.stop();
    upstream.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
