// Answers written for a test, in the providers' own wire formats (what the engine adapters parse):
// OpenAI's Responses API with a web search and url_citation annotations, Perplexity's Sonar with
// citations and search_results.

export interface AnswerSpec {
  text: string;
  /** The search the engine says it ran. */
  query: string;
  cites: { url: string; title: string }[];
}

export function openaiAnswer(variant: AnswerSpec) {
  const half = Math.floor(variant.text.length / 2);
  return {
    id: `resp_${crypto.randomUUID().replaceAll("-", "")}`,
    object: "response",
    created_at: 1790000000,
    status: "completed",
    error: null,
    incomplete_details: null,
    model: "gpt-6.1-terra-2026-09-30",
    output: [
      { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: variant.query, sources: variant.cites.map((c) => ({ type: "url", url: c.url })) } },
      {
        id: "msg_1",
        type: "message",
        status: "completed",
        role: "assistant",
        content: [
          {
            type: "output_text",
            logprobs: [],
            text: variant.text,
            annotations: variant.cites.map((c, i) => ({ type: "url_citation", start_index: i === 0 ? 0 : half, end_index: i === 0 ? half : variant.text.length, title: c.title, url: c.url })),
          },
        ],
      },
    ],
    usage: { input_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 160 },
  };
}

export function perplexityAnswer(variant: AnswerSpec) {
  const markers = variant.cites.map((_, i) => `[${i + 1}]`).join("");
  const [first, ...rest] = variant.text.split(". ");
  const content = rest.length ? `${first}${markers}. ${rest.join(". ")}` : `${variant.text}${markers}`;
  return {
    id: crypto.randomUUID(),
    model: "sonar",
    created: 1790000000,
    usage: { prompt_tokens: 18, completion_tokens: 60, total_tokens: 78 },
    object: "chat.completion",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content }, delta: { role: "assistant", content: "" } }],
    citations: variant.cites.map((c) => c.url),
    search_results: variant.cites.map((c) => ({ title: c.title, url: c.url, date: "2026-09-01", last_updated: "2026-09-20", snippet: "…" })),
  };
}

