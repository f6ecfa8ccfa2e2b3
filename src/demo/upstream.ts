// A local stand-in for four AI APIs (OpenAI Responses, Anthropic Messages, Perplexity Sonar, Gemini
// generateContent) that answers each prompt with the demo's sample answer for it (answers.ts) in
// that provider's wire format (wire.ts), so the demo needs no key and no network. These are sample
// answers written for the demo, not answers of the real engines.
//
// Which day an answer is for comes from the DAYS_AGO_HEADER of the request (the demo's replay of
// past runs sets it; anything else is today). Repeated asks of one prompt on one platform and day
// get the next sample, so samples of a run differ the way real ones do.
import { sampleAnswer } from "./answers";
import type { DemoPlatform } from "./dataset";
import { anthropicMessage, geminiResponse, openaiResponse, perplexityCompletion } from "./wire";

export const DAYS_AGO_HEADER = "x-answerwatch-demo-days-ago";

type Json = Record<string, unknown>;

/** The user's prompt in each provider's request body. */
function promptOf(platform: DemoPlatform, body: Json): string | undefined {
  const lastUser = (messages: unknown) =>
    Array.isArray(messages) ? (messages as Json[]).filter((m) => m?.role === "user").map((m) => m.content).pop() : undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  switch (platform) {
    case "chatgpt":
      return text(body.input) ?? text(lastUser(body.input));
    case "claude":
      return text((body.messages as Json[] | undefined)?.[0]?.content);
    case "perplexity":
      return text(lastUser(body.messages));
    case "gemini":
      return text(((body.contents as Json[] | undefined)?.[0]?.parts as Json[] | undefined)?.[0]?.text);
  }
}

function route(pathname: string): { platform: DemoPlatform; model?: string } | undefined {
  if (pathname === "/openai/responses") return { platform: "chatgpt" };
  if (pathname === "/anthropic/messages") return { platform: "claude" };
  if (pathname === "/perplexity/chat/completions") return { platform: "perplexity" };
  const gemini = /^\/gemini\/models\/([^/:]+):generateContent$/.exec(pathname);
  if (gemini) return { platform: "gemini", model: decodeURIComponent(gemini[1]!) };
  return undefined;
}

export interface DemoUpstream {
  url: string;
  /** The engine variables that point chatgpt, claude, perplexity and gemini at this upstream. */
  env: Record<string, string>;
  stop(): void;
}

export async function startDemoUpstream(options: { latencyMs?: number } = {}): Promise<DemoUpstream> {
  const asked = new Map<string, number>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const target = route(new URL(request.url).pathname);
      if (!target || request.method !== "POST") return Response.json({ error: { message: "not found" } }, { status: 404 });
      const body = (await request.json().catch(() => null)) as Json | null;
      const prompt = body ? promptOf(target.platform, body) : undefined;
      if (!body || !prompt) return Response.json({ error: { type: "invalid_request_error", message: "no prompt in the request" } }, { status: 400 });
      const daysAgo = Math.max(0, Math.floor(Number(request.headers.get(DAYS_AGO_HEADER) ?? 0)) || 0);
      const key = `${target.platform}|${daysAgo}|${prompt}`;
      const sample = asked.get(key) ?? 0;
      asked.set(key, sample + 1);
      // Today's answers take a little time, with jitter, so the progress bar has something to show;
      // the replayed past ones come at once.
      if (daysAgo === 0) await Bun.sleep((options.latencyMs ?? 120) * (0.5 + Math.random()));

      const answer = sampleAnswer(prompt, target.platform, daysAgo, sample);
      const model = target.model ?? (typeof body.model === "string" ? body.model : "demo");
      const at = new Date(Date.now() - daysAgo * 86_400_000);
      const seed = `${key}|${sample}`;
      const created = Math.floor(at.getTime() / 1000);
      switch (target.platform) {
        case "chatgpt":
          return Response.json(openaiResponse(answer, model, seed, created));
        case "claude":
          return Response.json(anthropicMessage(answer, model, seed));
        case "perplexity":
          return Response.json(perplexityCompletion(answer, model, seed, created, at.toISOString().slice(0, 10)));
        case "gemini":
          return Response.json(geminiResponse(answer, model, seed));
      }
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  const env: Record<string, string> = {
    OPENAI_API_KEY: "demo",
    OPENAI_BASE_URL: `${base}/openai`,
    ANTHROPIC_API_KEY: "demo",
    ANTHROPIC_BASE_URL: `${base}/anthropic`,
    PERPLEXITY_API_KEY: "demo",
    PERPLEXITY_API: "sonar",
    PERPLEXITY_BASE_URL: `${base}/perplexity`,
    GEMINI_API_KEY: "demo",
    GEMINI_BASE_URL: `${base}/gemini`,
  };
  // No request-per-minute limit and room for parallel asks: the upstream is local.
  for (const prefix of ["OPENAI", "ANTHROPIC", "PERPLEXITY", "GEMINI"]) {
    env[`${prefix}_RPM`] = "0";
    env[`${prefix}_CONCURRENCY`] = "8";
  }
  return { url: base, env, stop: () => void server.stop(true) };
}
