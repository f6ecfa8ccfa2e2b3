// A local stand-in for four AI APIs that answers every call with a real recorded answer
// (src/demo/recorded), so the demo needs no key and no network.
import anthropic from "./recorded/anthropic-messages-web-search.json" with { type: "json" };
import openai from "./recorded/openai-responses-web-search.json" with { type: "json" };
import perplexity from "./recorded/perplexity-sonar-citations.json" with { type: "json" };
import xai from "./recorded/xai-responses-web-search.json" with { type: "json" };

const ROUTES: Record<string, unknown> = {
  "/openai/responses": openai,
  "/anthropic/messages": anthropic,
  "/perplexity/chat/completions": perplexity,
  "/xai/responses": xai,
};

export async function startRecordedUpstream(options: { latencyMs?: number } = {}) {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = ROUTES[new URL(request.url).pathname];
      if (!body || request.method !== "POST") return Response.json({ error: { message: "not found" } }, { status: 404 });
      // A little latency with jitter, so the progress bar has something to show.
      await Bun.sleep((options.latencyMs ?? 120) * (0.5 + Math.random()));
      return Response.json(body);
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    env: {
      OPENAI_API_KEY: "demo",
      OPENAI_BASE_URL: `${base}/openai`,
      ANTHROPIC_API_KEY: "demo",
      ANTHROPIC_BASE_URL: `${base}/anthropic`,
      PERPLEXITY_API_KEY: "demo",
      // The demo's Perplexity answers are Sonar recordings.
      PERPLEXITY_API: "sonar",
      PERPLEXITY_BASE_URL: `${base}/perplexity`,
      XAI_API_KEY: "demo",
      XAI_BASE_URL: `${base}/xai`,
    },
    stop: () => server.stop(true),
  };
}
